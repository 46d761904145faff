"""The HTML report's plots as shapes for an inline SVG: each model's score with its error
bar, accuracy against cost with the Pareto front, and the distribution of scores. Pure:
numbers in, shapes out; the template draws them (autoescaped)."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from pytest_arena.engine.money import dollars

WIDTH = 380
LABEL = 120  # room for model names left of the bars
LABEL_CHARACTERS = 18  # of a model's name drawn beside its bar or point (the rest in a tooltip)
BINS = 10
CHARACTER_WIDTH = 6.5  # px, about, of a label's character (11 px sans-serif)
LINE_HEIGHT = 14.0  # px between two labels' baselines (a label's box is about 13 px high)


@dataclass
class Shape:
    kind: str  # rect, line, circle, text, polyline
    cls: str = ""
    x: float = 0.0
    y: float = 0.0
    w: float = 0.0  # rect width; circle radius
    h: float = 0.0
    x2: float = 0.0
    y2: float = 0.0
    text: str = ""
    anchor: str = "start"
    points: str = ""
    title: str = ""  # a tooltip


@dataclass
class Plot:
    title: str
    width: int
    height: int
    shapes: list[Shape] = field(default_factory=list)
    note: str = ""  # said under the plot: what could not be drawn, and why


def interval(row: Mapping[str, Any]) -> tuple[float, float] | None:
    """A row's interval around its accuracy, if the board has one: `interval` (or
    `accuracy_interval`, `ci`) as `[low, high]` or `{"low": .., "high": ..}`."""
    for key in ("interval", "accuracy_interval", "ci"):
        value = row.get(key)
        if isinstance(value, Mapping):
            value = [value.get("low"), value.get("high")]
        if isinstance(value, Sequence) and not isinstance(value, str) and len(value) == 2:
            low, high = value
            if isinstance(low, int | float) and isinstance(high, int | float):
                return float(low), float(high)
    return None


def label(name: str) -> str:
    """`name` short enough to fit beside a bar: its end, where model keys differ
    (`…llama-3.1-405b-instruct`), after an ellipsis."""
    if len(name) <= LABEL_CHARACTERS:
        return name
    return "\u2026" + name[-(LABEL_CHARACTERS - 1) :]


def _x(value: float, span: float = WIDTH - LABEL - 20) -> float:
    return LABEL + max(0.0, min(1.0, value)) * span


def _axis(shapes: list[Shape], y: float) -> None:
    for tick in (0.0, 0.5, 1.0):
        shapes.append(Shape("line", "axis", x=_x(tick), y=y - 4, x2=_x(tick), y2=y))
        shapes.append(
            Shape("text", "tick", x=_x(tick), y=y + 12, text=f"{tick:g}", anchor="middle")
        )


def scores(rows: Sequence[Mapping[str, Any]]) -> Plot:
    """Each model's accuracy as a bar, with its interval as an error bar when there is one."""
    step = 24
    plot = Plot("score by model", WIDTH, step * len(rows) + 34)
    shapes = plot.shapes
    for i, row in enumerate(rows):
        y = 8 + i * step
        model, accuracy = str(row.get("model")), row.get("accuracy")
        shapes.append(
            Shape(
                "text", "label", x=LABEL - 6, y=y + 13, text=label(model), anchor="end", title=model
            )
        )
        if not isinstance(accuracy, int | float):
            shapes.append(Shape("text", "tick", x=_x(0) + 4, y=y + 13, text="no accuracy"))
            continue
        tip = f"{model}: accuracy {accuracy:.3f}"
        shapes.append(
            Shape("rect", "bar", x=_x(0), y=y + 2, w=_x(accuracy) - _x(0), h=14, title=tip)
        )
        bounds = interval(row)
        if bounds is not None:
            low, high = _x(bounds[0]), _x(bounds[1])
            tip = f"{tip}, interval {bounds[0]:.3f} to {bounds[1]:.3f}"
            shapes.append(Shape("line", "whisker", x=low, y=y + 9, x2=high, y2=y + 9, title=tip))
            for end in (low, high):
                shapes.append(Shape("line", "whisker", x=end, y=y + 4, x2=end, y2=y + 14))
    _axis(shapes, 8 + len(rows) * step + 6)
    if rows and all(interval(r) is None for r in rows):
        plot.note = "no intervals in this report: bars without error bars"
    return plot


def pareto(points: Sequence[tuple[str, float, float]]) -> list[str]:
    """The models no other model beats on both cost (lower) and accuracy (higher), by cost."""
    front: list[str] = []
    best = -math.inf
    for model, _cost, accuracy in sorted(points, key=lambda p: (p[1], -p[2], p[0])):
        if accuracy > best:
            front.append(model)
            best = accuracy
    return front


def cost_accuracy(rows: Sequence[Mapping[str, Any]]) -> Plot:
    """Accuracy against cost per model; the Pareto front joined and its points filled."""
    plot = Plot("accuracy against cost", WIDTH, 170)
    left, right, top, bottom = 48.0, WIDTH - 16.0, 10.0, 128.0
    points: list[tuple[str, float, float]] = []
    missing: list[str] = []
    for row in rows:
        cost, accuracy = row.get("cost"), row.get("accuracy")
        if isinstance(cost, int | float) and isinstance(accuracy, int | float):
            points.append((str(row.get("model")), float(cost), float(accuracy)))
        else:
            missing.append(str(row.get("model")))
    if missing:
        plot.note = "not drawn (no price or no accuracy): " + ", ".join(missing)
    shapes = plot.shapes
    shapes.append(Shape("line", "axis", x=left, y=bottom, x2=right, y2=bottom))
    shapes.append(Shape("line", "axis", x=left, y=top, x2=left, y2=bottom))
    for tick in (0.0, 0.5, 1.0):
        y = bottom - tick * (bottom - top)
        shapes.append(Shape("text", "tick", x=left - 4, y=y + 4, text=f"{tick:g}", anchor="end"))
    shapes.append(Shape("text", "tick", x=left - 30, y=top + 4, text="acc"))
    if not points:
        return plot
    costs = [c for _, c, _ in points]
    low, high = min(costs), max(costs)
    log = low > 0 and high / low > 20

    def scale(cost: float) -> float:
        if high == low:
            return 0.5
        if log:
            return (math.log10(cost) - math.log10(low)) / (math.log10(high) - math.log10(low))
        return (cost - low) / (high - low)

    span = right - left - 60  # room for the rightmost label

    def place(cost: float, accuracy: float) -> tuple[float, float]:
        return left + 10 + scale(cost) * span, bottom - max(0.0, min(1.0, accuracy)) * (
            bottom - top
        )

    ends = ((low, "start"), (high, "end")) if high > low else ((low, "middle"),)  # one, not two
    for value, anchor in ends:
        x = place(value, 0)[0]
        shapes.append(Shape("text", "tick", x=x, y=bottom + 14, text=dollars(value), anchor=anchor))
    scale_name = "cost, log scale" if log else "cost"
    shapes.append(
        Shape("text", "tick", x=(left + right) / 2, y=bottom + 30, text=scale_name, anchor="middle")
    )
    front = pareto(points)
    where = {m: place(c, a) for m, c, a in points}
    if len(front) > 1:
        shapes.append(
            Shape(
                "polyline",
                "front",
                points=" ".join(f"{x:.1f},{y:.1f}" for x, y in (where[m] for m in front)),
            )
        )
    taken: list[tuple[float, float, float]] = []  # the labels drawn: left, right, baseline
    for model, cost, accuracy in sorted(points, key=lambda p: (-p[2], p[1], p[0])):
        x, y = where[model]
        on_front = model in front
        tip = f"{model}: accuracy {accuracy:.3f}, cost {dollars(cost)}"
        tip += " (on the Pareto front)" if on_front else ""
        shapes.append(
            Shape("circle", "front-point" if on_front else "point", x=x, y=y, w=5, title=tip)
        )
        near_edge = x > right - 90  # a name drawn leftwards there, so it stays on the plot
        text = label(model)
        width = len(text) * CHARACTER_WIDTH
        start = x - 8 - width if near_edge else x + 8
        baseline = _free_line(taken, start, start + width, y + 4, top + 4, bottom + 4)
        taken.append((start, start + width, baseline))
        shapes.append(
            Shape(
                "text",
                "label",
                x=x - 8 if near_edge else x + 8,
                y=baseline,
                text=text,
                anchor="end" if near_edge else "start",
                title=model,
            )
        )
    return plot


def _free_line(
    taken: list[tuple[float, float, float]],
    left: float,
    right: float,
    at: float,
    low: float,
    high: float,
) -> float:
    """The baseline nearest `at` (within low..high) where a label from `left` to `right`
    overprints none of the labels `taken`: models at one cost and accuracy, or close by,
    have their names one under the other."""

    def free(y: float) -> bool:
        return all(right <= a or left >= b or abs(y - line) >= LINE_HEIGHT for a, b, line in taken)

    low, high = min(low, at), max(high, at)
    for step in range(len(taken) + 1):
        for y in (at + step * LINE_HEIGHT, at - step * LINE_HEIGHT):
            if low <= y <= high and free(y):
                return y
    return at


def distribution(rows: Sequence[Mapping[str, Any]], records: Sequence[Mapping[str, Any]]) -> Plot:
    """Per model, how its graded cases' scores spread over ten bins; errors apart."""
    by_model: dict[str, list[float | None]] = {str(r.get("model")): [] for r in rows}
    for record in records:
        found = by_model.get(str(record.get("model")))
        if found is None or record.get("status") == "unscored":
            continue
        score = record.get("score")
        is_error = record.get("status") == "error"
        found.append(None if is_error or not isinstance(score, int | float) else float(score))
    step = 34
    plot = Plot("distribution of scores", WIDTH, step * len(by_model) + 30)
    shapes = plot.shapes
    span = WIDTH - LABEL - 50
    bar = span / BINS
    for i, (model, values) in enumerate(by_model.items()):
        y = 8 + i * step
        counts = [0] * BINS
        errors = 0
        for value in values:
            if value is None:
                errors += 1
            else:
                counts[min(BINS - 1, max(0, int(value * BINS)))] += 1
        most = max([*counts, errors, 1])
        shapes.append(
            Shape(
                "text", "label", x=LABEL - 6, y=y + 20, text=label(model), anchor="end", title=model
            )
        )
        for b, count in enumerate(counts):
            height = 26 * count / most
            low = b / BINS
            tip = f"{model}: {count} case(s) scored {low:.1f} to {low + 1 / BINS:.1f}"
            shapes.append(
                Shape(
                    "rect",
                    "hist",
                    x=LABEL + b * bar,
                    y=y + 26 - height,
                    w=bar - 1,
                    h=height,
                    title=tip,
                )
            )
        if errors:
            height = 26 * errors / most
            tip = f"{model}: {errors} error(s)"
            x = LABEL + span + 8
            shapes.append(
                Shape("rect", "hist-error", x=x, y=y + 26 - height, w=bar, h=height, title=tip)
            )
        shapes.append(Shape("line", "axis", x=LABEL, y=y + 26, x2=LABEL + span, y2=y + 26))
    y = 8 + len(by_model) * step
    for tick, anchor in ((0.0, "start"), (1.0, "end")):
        shapes.append(
            Shape("text", "tick", x=LABEL + tick * span, y=y + 4, text=f"{tick:g}", anchor=anchor)
        )
    shapes.append(Shape("text", "tick", x=LABEL + span + 8, y=y + 4, text="err"))
    return plot
