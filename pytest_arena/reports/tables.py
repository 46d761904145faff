"""Rendering leaderboards as text tables."""

from __future__ import annotations

from collections.abc import Sequence

from pytest_arena.engine.money import dollars
from pytest_arena.record import Record
from pytest_arena.reports.leaderboard import Board, Row

UNKNOWN = "\u2013"  # an en dash: a cost no price gives (never $0)


def render_board(board: Board, fmt: str = "simple") -> str:
    show_unscored = any(r.unscored for r in board.rows)
    headers = ["rank", "model", "composite", "accuracy", "pass rate", "cases", "failed", "errors"]
    if show_unscored:
        headers.append("unscored")
    show_flaky = any(r.flaky for r in board.rows)
    if show_flaky:
        headers.append("flaky")
    if board.k is not None:
        headers += [f"pass@{board.k}", f"pass^{board.k}"]
    show_judge = any(r.judge_cost for r in board.rows)
    headers += ["tokens", "cost", *(["judge cost"] if show_judge else []), "latency"]
    headers += board.metric_names
    table = []
    for row in board.rows:
        cells: list[str | int] = [
            row.rank,
            row.model,
            f"{row.composite:.3f}",
            _share(row.accuracy),
            _percent(row.pass_rate),
            row.cases,
            row.failed,
            row.errors,
        ]
        if show_unscored:
            cells.append(row.unscored)
        if show_flaky:
            cells.append(row.flaky)
        if board.k is not None:
            cells += [_share(row.pass_at_k), _share(row.pass_hat_k)]
        cells += [row.tokens, _money(row.cost)]
        if show_judge:
            cells.append(_money(row.judge_cost))
        cells.append(_ms(row.latency))
        cells += [_metric(row, name) for name in board.metric_names]
        table.append(cells)
    from tabulate import tabulate  # not loaded by pytest runs that print no board

    text = tabulate(table, headers=headers, tablefmt=fmt, disable_numparse=True, stralign="right")
    lines = [text, f"composite = {formula(board)}"]
    lines += [f"note: {n}" for n in board.notes]
    lines += [f"warning: {w}" for w in board.warnings]
    return "\n".join(lines)


def spending(
    records: Sequence[Record], budget_skips: int = 0, spent_on_calls: float | None = None
) -> str:
    """One line on what the run spent, what the cache saved and what budgets stopped;
    `spent_on_calls` (the engine's total) also counts answers whose cases never ran."""
    answers = [a for r in records for a in _answers(r)]
    cached = [cost or 0.0 for was_cached, cost in answers if was_cached]
    spent = sum(cost or 0.0 for was_cached, cost in answers if not was_cached)
    spent += sum(r.judge_cost for r in records)
    unpriced = sum(cost is None for was_cached, cost in answers if not was_cached)
    unrecorded = (spent_on_calls or 0.0) - spent
    parts = [f"{len(answers)} answer{'' if len(answers) == 1 else 's'} graded"]
    if cached:
        saved = sum(cached)
        parts.append(f"{len(cached)} from the response cache ({dollars(saved)} not spent again)")
    retried = sum(r.retries for r in records)
    if retried:
        parts.append(f"{retried} retries")
    line = ", ".join(parts) + f"; {dollars(spent)} spent on models and judges"
    if unpriced:
        line += f", and an unknown amount on {unpriced} answer{'' if unpriced == 1 else 's'}"
        line += " of models without a price (set price: in models.define)"
    if unrecorded > 1e-9:
        line += f", and {dollars(unrecorded)} on answers to cases the run stopped before"
    if budget_skips:
        line += f"; {budget_skips} not run: budget spent"
    return line


def _answers(record: Record) -> list[tuple[bool, float | None]]:
    """(from the cache, cost) of each answer a record graded: each sample of a repeated case;
    a cost of None is unknown (no price)."""
    if record.samples:
        return [(bool(s.get("cached")), _cost(s.get("cost"))) for s in record.samples]
    return [(record.cached, record.cost)]


def _cost(value: object) -> float | None:
    return float(value) if isinstance(value, int | float) else None


def formula(board: Board) -> str:
    total = sum(board.weights.values()) or 1.0
    return " + ".join(f"{w / total:.2f}·{d}" for d, w in board.weights.items()) or "0"


def _share(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f}"


def _percent(value: float | None) -> str:
    return "-" if value is None else f"{value * 100:.1f}%"


def _money(value: float | None) -> str:
    if value is None:
        return UNKNOWN
    return f"${value:.2f}" if value >= 1 else f"${value:.6f}"


def _ms(value: float | None) -> str:
    return "-" if value is None else f"{value:.0f} ms"


def _metric(row: Row, name: str) -> str:
    value = row.metrics.get(name)
    return "-" if value is None else f"{value:.3f}"
