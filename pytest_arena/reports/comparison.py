"""Two runs compared (`arena compare A.json B.json`): per project and model, the cases whose
verdict changed, with both reasons, and how the aggregates moved, with a paired interval on
the cases both runs graded. Pure: reports in, data and text out."""

from __future__ import annotations

import functools
import math
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from pytest_arena.engine.money import dollars
from pytest_arena.numbers import signed
from pytest_arena.record import NESTING_LIMIT, Record
from pytest_arena.reports import verdicts
from pytest_arena.reports.baseline import LOST
from pytest_arena.reports.json_report import stopped_said
from pytest_arena.reports.statistics import Difference, mcnemar_exact
from pytest_arena.scorers.text import printable

UNKNOWN = "\u2013"  # an en dash: no value
GRADED = ("passed", "failed", "error", "flaky")  # flaky: a repeated case short of its rate
# the order changes are listed in: what got worse first
_ORDER = {"regression": 0, "error": 1, "fix": 2, "other": 3}
AGGREGATES = ("accuracy", "pass_rate", "cost", "latency_ms")


class NotAReport(ValueError):
    """The data is not an `--arena-json` report."""


@dataclass(frozen=True)
class Change:
    """One case whose verdict differs between the runs."""

    case: str
    sample: int
    kind: str  # regression, fix, error, other
    before: str  # status in run A
    after: str
    before_reason: str
    after_reason: str
    before_score: float | None
    after_score: float | None


@dataclass
class ModelComparison:
    """One (project, model) in both runs."""

    project: str
    model: str
    before: Mapping[str, Any] | None  # the leaderboard row in run A, if any
    after: Mapping[str, Any] | None
    changes: list[Change] = field(default_factory=list)
    common: int = 0  # cases graded in both runs
    weightless: int = 0  # of those, cases of weight 0: in no number of score_change
    only_before: int = 0
    only_after: int = 0
    score_change: Difference | None = None  # after - before, over the common cases that weigh
    test: str = ""  # the paired test of score_change's p-value
    mcnemar_p: float | None = None  # on the pass/fail flips; None when cases share groups

    @property
    def regressions(self) -> int:
        return sum(c.kind == "regression" for c in self.changes)

    @property
    def fixes(self) -> int:
        return sum(c.kind == "fix" for c in self.changes)


SCHEMA_CHECKED = 200  # records checked against the report's JSON Schema; the rest by shape


def check_report(data: Any, name: str) -> Mapping[str, Any]:
    """`data` if it is an `--arena-json` report this version reads; NotAReport saying where
    it is not otherwise. A report of this version is checked against its JSON Schema (its
    first SCHEMA_CHECKED records: checking 50,000 would take longer than the command); every
    record, of any version, must name its project, case and model, and no two the same
    sample of them (--arena-json writes one: `json_report.unique`)."""
    from pytest_arena.reports.json_report import VERSION

    fix = "write one with `pytest --arena-json RUN.json`"
    if not isinstance(data, Mapping) or not isinstance(data.get("records"), list):
        raise NotAReport(f"{name} is not an --arena-json report (no 'records' list); {fix}")
    version = data.get("version", VERSION)
    if type(version) is not int or version > VERSION:
        raise NotAReport(
            f"{name} is a report of version {version!r}, and this pytest-arena reads versions"
            f" up to {VERSION}: update pytest-arena, or {fix}"
        )
    first: dict[tuple[str, str, str, int], int] = {}  # each key's first record
    for index, record in enumerate(data["records"]):
        if not _is_record(record):
            raise NotAReport(
                f"{name}: records[{index}] is not a record (an object whose project, case and"
                f" model are text, its sample a whole number and its score a number); {fix}"
            )
        key = (record["project"], record["case"], record["model"], record.get("sample", 0))
        if first.setdefault(key, index) != index:  # compared, one of them would be, unsaid
            project, case, model, sample = key
            raise NotAReport(
                f"{name}: records[{index}] repeats records[{first[key]}]: both are project"
                f" {project!r}, case {case!r}, model {model!r}, sample {sample}, and a report"
                f" holds one record of each; {fix}"
            )
    for part in ("leaderboards", "gates"):
        found = data.get(part, [])
        if not isinstance(found, list) or not all(isinstance(x, Mapping) for x in found):
            raise NotAReport(f"{name}: '{part}' is not a list of objects; {fix}")
    _check_numbers(data, name, fix)
    whole = version == VERSION and "generator" in data  # written whole by this version
    _check_schema({**data, "records": data["records"][:SCHEMA_CHECKED]}, name, fix, whole)
    return data


def _is_record(record: Any) -> bool:
    if not isinstance(record, Mapping):
        return False
    sample, score = record.get("sample", 0), record.get("score")
    return (
        all(isinstance(record.get(key), str) for key in ("project", "case", "model"))
        and type(sample) is int
        and (score is None or type(score) in (int, float, bool))
    )


# a record's (and a sample's) data of any shape, which no command computes with
_ANY_DATA = frozenset({"reference", "messages", "detail", "response"})
_FLOAT_MAX = sys.float_info.max
Found = tuple[list[str | int], str]  # where in the report (innermost first), and what is wrong


def _check_numbers(data: Mapping[str, Any], name: str, fix: str) -> None:
    """NotAReport naming the first number `arena report` and `arena compare` could not
    compute with: NaN or an infinity (`json` reads `NaN`, `Infinity` and `1e999` so, and
    --arena-json writes none), a whole number beyond a float's range, or a score outside
    0 to 1. Every record is looked at, not only those the schema checks; a record's data of
    any shape (its reference, messages, detail and response) is not."""
    found = None
    for index, record in enumerate(data["records"]):
        if (found := _in_record(record)) is not None:
            found[0].extend((index, "records"))
            break
    else:
        found = _in_data({key: value for key, value in data.items() if key != "records"})
    if found is not None:
        path, problem = found
        where = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in reversed(path))
        raise NotAReport(f"{name}: {where.lstrip('.')}: {problem}; {fix}")


def _in_record(record: Mapping[str, Any]) -> Found | None:
    """What `_in_data` finds in a record or a sample (its data of any shape left out), or
    a score outside 0 to 1 (which the HTML report's histogram cannot place)."""
    found: Found | None
    for key, value in record.items():
        if _plain(value) or key in _ANY_DATA:
            if key != "score" or type(value) not in (int, float) or 0 <= value <= 1:
                continue
            limit = "less than the minimum of 0" if value < 0 else "greater than the maximum of 1"
            found = ([], f"{value!r} is {limit}")
        elif key == "samples" and type(value) is list:
            for index, sample in enumerate(value):
                found = _in_record(sample) if isinstance(sample, Mapping) else _in_data(sample)
                if found is not None:
                    found[0].extend((index, key))
                    return found
            continue
        else:
            found = _in_data(value)
        if found is not None:
            found[0].append(key)
            return found
    return None


def _in_data(value: Any, depth: int = 0) -> Found | None:
    """The first number in `value` that no float holds: NaN, an infinity, or a whole number
    beyond a float's range. Not below NESTING_LIMIT levels (a field of a later release may
    nest deeper than Python recurses): nothing reads a number there, and the HTML report
    cuts what is (record.json_safe)."""
    items: Any
    if isinstance(value, Mapping):
        items = value.items()
    elif type(value) is list:
        items = enumerate(value)
    elif _plain(value):
        return None
    elif type(value) is float:
        return [], f"{value!r} is not a finite number"
    elif type(value) is int:
        digits = str(abs(value))
        shown = f"{'-' if value < 0 else ''}{digits[:10]}\u2026 ({len(digits)} digits)"
        return [], f"{shown} is beyond a float's range (\u00b11.8e308)"
    else:
        return None
    if depth >= NESTING_LIMIT:
        return None
    for key, item in items:
        if not _plain(item) and (found := _in_data(item, depth + 1)) is not None:
            found[0].append(key)
            return found
    return None


def _plain(value: Any) -> bool:
    """`value` is text, true or false, null, or a number a float holds (by identity of its
    type first: most of what a report holds)."""
    kind = type(value)
    if kind is str or kind is bool or value is None:
        return True
    if kind is float:
        return bool(value - value == 0.0)  # inf - inf and NaN - NaN are NaN
    return kind is int and -_FLOAT_MAX <= value <= _FLOAT_MAX


def _check_schema(data: Mapping[str, Any], name: str, fix: str, whole: bool) -> None:
    """NotAReport naming the first field of `data` its JSON Schema refuses. A report not
    `whole` (of an older version, or edited by hand: no `generator`) may lack any field,
    but each it has must be of the type this version's has (version 1's are a part of 2's),
    or the HTML report would stop on it with a traceback."""
    from jsonschema.exceptions import best_match  # type: ignore[import-untyped]

    error = best_match(_validator(whole).iter_errors(data))
    if error is not None:
        where = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in error.absolute_path)
        raise NotAReport(f"{name}: {where.lstrip('.') or 'the report'}: {error.message}; {fix}")


@functools.cache
def _validator(whole: bool) -> Any:
    from jsonschema import Draft202012Validator  # type: ignore[import-untyped]

    from pytest_arena.reports.json_report import schema

    opened = _open(schema(), whole)
    if not whole:
        opened["properties"]["version"] = {"type": "integer"}
    return Draft202012Validator(opened)


def _open(schema: Any, whole: bool = True) -> Any:
    """`schema` that takes objects with more properties than it names: a report of this
    version may have fields a later release added (its version goes up only when a field
    changes meaning or goes). Not `whole`: nor does it require any (the lists of
    `required`; a property of that name is a schema, an object)."""
    if isinstance(schema, dict):
        return {
            k: _open(v, whole)
            for k, v in schema.items()
            if (k != "additionalProperties" or v is not False)
            and (whole or k != "required" or not isinstance(v, list))
        }
    if isinstance(schema, list):
        return [_open(v, whole) for v in schema]
    return schema


def _kind(before: str, after: str) -> str:
    if before == "passed" and after in ("failed", "error", "flaky"):
        return "regression"
    if after == "passed" and before in ("failed", "error", "flaky"):
        return "fix"
    if after == "error":
        return "error"
    return "other"


def _rows(report: Mapping[str, Any]) -> dict[tuple[str, str], Mapping[str, Any]]:
    rows = {}
    for board in report.get("leaderboards") or []:
        found = board.get("rows")
        for row in found if isinstance(found, list) else []:
            if isinstance(row, Mapping):
                rows[(str(board.get("project")), str(row.get("model")))] = row
    return rows


def _records(report: Mapping[str, Any]) -> dict[tuple[str, str], dict[tuple[str, int], Any]]:
    """The report's records by project and model, then case and sample; not those of cases
    lost with a crashed pytest-xdist worker, which did not run: only in the other run."""
    out: dict[tuple[str, str], dict[tuple[str, int], Any]] = {}
    for r in report.get("records") or []:
        detail = r.get("detail")
        if isinstance(detail, Mapping) and detail.get(LOST) is True:
            continue
        key = (str(r.get("project")), str(r.get("model")))
        out.setdefault(key, {})[(str(r.get("case")), int(r.get("sample") or 0))] = r
    return out


def _as_record(record: Mapping[str, Any], case: tuple[str, int]) -> Record:
    """What the paired test reads of a JSON record: its verdict, score, weight and group
    (keyed by case and sample, so a sample pairs with the same sample)."""
    score = record.get("score")
    if not isinstance(score, int | float) or isinstance(score, bool):
        score = float(bool(record.get("passed")))
    weight = record.get("weight", 1.0)
    samples = record.get("samples")
    return Record(
        "",
        f"{case[0]}#{case[1]}",
        "",
        str(record.get("status")),
        float(score),
        weight=float(weight) if isinstance(weight, int | float) else 1.0,
        group=str(record["group"]) if record.get("group") else None,
        samples=list(samples) if isinstance(samples, list) else [],
    )


HEAVIEST = 2.0**500  # a weight the paired test reads, at most: n of them sum far below 1e308


def _in_range(records: list[Record]) -> list[Record]:
    """`records` with every weight scaled by one power of two when the heaviest is above
    HEAVIEST: a weight of 1e308 made the interval's sums overflow (and the comparison crash),
    and a power of two scales a float exactly, so the weighted mean, its interval and the
    test are what they were."""
    heaviest = max((r.weight for r in records), default=0.0)
    if heaviest <= HEAVIEST:
        return records
    shift = math.frexp(heaviest)[1] - 500  # heaviest = m * 2**e, 0.5 <= m < 1
    return [replace(r, weight=math.ldexp(r.weight, -shift)) for r in records]


def compare(a: Mapping[str, Any], b: Mapping[str, Any]) -> list[ModelComparison]:
    """Every (project, model) of either run, in order of project then model."""
    rows_a, rows_b = _rows(a), _rows(b)
    recs_a, recs_b = _records(a), _records(b)
    out = []
    for key in sorted({*rows_a, *rows_b, *recs_a, *recs_b}):
        ra, rb = recs_a.get(key, {}), recs_b.get(key, {})
        item = ModelComparison(key[0], key[1], rows_a.get(key), rows_b.get(key))
        item.only_before = len(ra.keys() - rb.keys())
        item.only_after = len(rb.keys() - ra.keys())
        pairs_a, pairs_b, flips = [], [], [0, 0]
        for case in sorted(ra.keys() & rb.keys()):
            x, y = ra[case], rb[case]
            sx, sy = str(x.get("status")), str(y.get("status"))
            if sx != sy:
                item.changes.append(
                    Change(
                        case[0],
                        case[1],
                        _kind(sx, sy),
                        sx,
                        sy,
                        str(x.get("reason") or x.get("error") or ""),
                        str(y.get("reason") or y.get("error") or ""),
                        x.get("score"),
                        y.get("score"),
                    )
                )
            if sx in GRADED and sy in GRADED:
                pairs_a.append(_as_record(x, case))
                pairs_b.append(_as_record(y, case))
                flips[0] += sx == "passed" and sy != "passed"
                flips[1] += sy == "passed" and sx != "passed"
        item.common = len(pairs_a)
        item.changes.sort(key=lambda c: (_ORDER[c.kind], c.case, c.sample))
        if pairs_a:  # weighted and tested as the leaderboard and --arena-baseline do
            paired = verdicts.compare("B", _in_range(pairs_b), "A", _in_range(pairs_a))
            item.score_change, item.test = paired.difference, paired.test
            item.weightless = paired.weightless
            grouped = any(r.group for r in (*pairs_a, *pairs_b))  # flips of a group: one draw
            item.mcnemar_p = None if grouped else mcnemar_exact(*flips)
        out.append(item)
    return out


def _num(value: Any, metric: str) -> str:
    if not isinstance(value, int | float):
        return UNKNOWN
    if metric == "cost":
        return dollars(float(value))
    if metric == "latency_ms":
        return f"{value:.0f} ms"
    if metric == "pass_rate":
        return f"{value * 100:.1f}%"
    return f"{value:.3f}"


def aggregate_lines(item: ModelComparison) -> list[tuple[str, str, str, str]]:
    """(metric, before, after, change) for the leaderboard values both runs may have."""
    lines = []
    for metric in AGGREGATES:
        x = (item.before or {}).get(metric)
        y = (item.after or {}).get(metric)
        delta = UNKNOWN
        if isinstance(x, int | float) and isinstance(y, int | float):
            d = y - x
            if metric == "cost":
                delta = signed(d, dollars)
            elif metric == "latency_ms":
                delta = f"{signed(d, '.0f')} ms"
            elif metric == "pass_rate":
                delta = f"{signed(d * 100, '.1f')} pts"
            else:
                delta = signed(d)
        lines.append((metric.replace("_ms", ""), _num(x, metric), _num(y, metric), delta))
    return lines


def interval_text(item: ModelComparison) -> str:
    """The paired change of the mean score, as a sentence."""
    d = item.score_change
    if d is None or d.estimate is None:
        if item.weightless:
            return f"no case of weight above 0 graded in both runs ({item.weightless} of weight 0)"
        return "no case graded in both runs"
    text = f"mean score change {signed(d.estimate)} over {d.n} paired cases"
    if item.weightless:
        text += f" ({item.weightless} more of weight 0 left out)"
    if d.low is not None and d.high is not None:
        text += f", 95% CI [{signed(d.low)}, {signed(d.high)}]"
    if d.p_value is not None:
        text += f", p={d.p_value:.3g}" + (f" {item.test}" if item.test else "")
    mcnemar = item.test.startswith("McNemar")  # said once
    if item.mcnemar_p is not None and (item.regressions or item.fixes) and not mcnemar:
        text += f"; McNemar p={item.mcnemar_p:.3g} on the pass/fail flips"
    return text


def _clip(text: str, width: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= width else text[: width - 1] + "\u2026"


def as_text(
    items: list[ModelComparison], *, limit: int = 50, width: int = 100, html: bool = False
) -> str:
    """The comparison as terminal text: per (project, model), aggregates then changes, at
    most `limit` of them (`html`: an HTML page written beside it holds them all)."""
    from tabulate import tabulate

    out: list[str] = []
    for item in items:
        out.append(f"== {item.project} / {item.model} ==")
        if item.before is None or item.after is None:
            which = "A" if item.before is None else "B"
            out.append(f"not on run {which}'s leaderboard")
        out.append(
            tabulate(aggregate_lines(item), headers=["", "A", "B", "change"], tablefmt="simple")
        )
        out.append(interval_text(item))
        extra = []
        if item.only_before:
            extra.append(f"{item.only_before} case(s) only in A")
        if item.only_after:
            extra.append(f"{item.only_after} case(s) only in B")
        if extra:
            out.append("; ".join(extra))
        if not item.changes:
            out.append("no case changed verdict")
        else:
            out.append(
                f"{len(item.changes)} case(s) changed verdict: {item.regressions} regressed,"
                f" {item.fixes} fixed"
            )
            for change in item.changes[:limit]:
                sample = f"#{change.sample}" if change.sample else ""
                verdicts = f"{change.before} -> {change.after}"
                out.append(f"  {change.kind}: {change.case}{sample}: {verdicts}")
                out.append("    A: " + _clip(change.before_reason or UNKNOWN, width))
                out.append("    B: " + _clip(change.after_reason or UNKNOWN, width))
            if len(item.changes) > limit:
                where = "the HTML has them all" if html else "--limit N or --html OUT shows them"
                out.append(f"  ... and {len(item.changes) - limit} more ({where})")
        out.append("")
    return printable("\n".join(out), lines=True)  # ids and reasons from a file


def regressed(items: list[ModelComparison]) -> bool:
    return any(item.regressions for item in items)


NOTHING_COMPARED = "nothing compared: no case was graded in both runs"


def nothing_compared(items: list[ModelComparison]) -> str:
    """The line saying that no case was graded in both runs, and the likely why; "" when
    one was, or when the first run graded none and the second some (each case of the second
    is new: none can have regressed, and the first run's own problems say why it has none).
    No verdict can say the second run is no worse, so `arena compare` exits 1 on it."""
    if any(item.common for item in items):
        return ""
    before = any(item.only_before for item in items)
    after = any(item.only_after for item in items)
    if after and not before:
        return ""
    if before and after:
        why = "were the cases renamed, or the runs of different projects?"
    elif before:
        why = "run B graded none of run A's cases: were they deselected (-k, -m) or not run?"
    elif items:
        why = "each case both runs hold ended in an error or unscored in one of them"
    else:
        why = "neither run graded a case: were they deselected (-k, -m) or not run?"
    return f"{NOTHING_COMPARED} ({why})"


def run_notes(a: Mapping[str, Any], b: Mapping[str, Any]) -> list[str]:
    """A line for each report of a run that stopped early (it holds only some cases), saying
    what stopped it, or that could not load some of its input (its `problems`: cases it
    lost, not cases that went away)."""
    notes = []
    for name, report in (("A", a), ("B", b)):
        why = stopped_said(report)
        if why is not None:
            notes.append(
                f"run {name} stopped early ({why}): the cases it did not run are only in the"
                " other run, not compared"
            )
        found = problems(report)
        if found:
            first = found[0]
            more = f" (and {len(found) - 1} more)" if len(found) > 1 else ""
            said = " ".join(str(first.get("message", "")).split())
            notes.append(
                f"run {name} could not load {len(found)} input(s), so their cases are missing"
                f" from it: {first.get('item')}: {_clip(said, 160)}{more}"
            )
    return notes


def problems(report: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    """The report's `problems` (input its run could not load), well formed or not."""
    found = report.get("problems")
    if not isinstance(found, list):
        return []
    return [p for p in found if isinstance(p, Mapping)]


def as_html(
    items: list[ModelComparison],
    a: Mapping[str, Any],
    b: Mapping[str, Any],
    *,
    names: tuple[str, str] = ("A", "B"),
) -> str:
    """The comparison as one self-contained page (no script; every text escaped)."""
    from pytest_arena.reports.html import render_template

    return render_template(
        "compare.html.j2",
        title=f"pytest-arena: {names[0]} against {names[1]}",
        items=items,
        name_a=names[0],
        name_b=names[1],
        created_a=a.get("created") or "",
        created_b=b.get("created") or "",
        notes=run_notes(a, b),
        aggregates=aggregate_lines,
        interval=interval_text,
    )
