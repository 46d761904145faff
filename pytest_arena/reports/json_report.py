"""The `--arena-json` report: every record, the leaderboards and the gates, as one JSON file."""

from __future__ import annotations

import json
import tempfile
from collections.abc import Iterable, Mapping
from datetime import datetime, timezone
from importlib import resources
from pathlib import Path
from typing import IO, Any, Literal

from pytest_arena.record import Record, as_json, json_safe
from pytest_arena.reports.gates import Check, GateResult
from pytest_arena.reports.leaderboard import Board, Row
from pytest_arena.reports.report_files import LONE_SURROGATES, written_whole
from pytest_arena.reports.statistics import Interval
from pytest_arena.reports.verdicts import Comparison, Power

VERSION = 2  # 2: a repeated case's samples and sampling, status 'flaky'; intervals, ranks
# told apart, paired comparisons, power, baselines
SCHEMA_FILE = "arena-report.schema.json"
Key = tuple[str, str, str, int]  # a record's (project, case, model, sample)
# why a run stopped early (`stopped_by`): Ctrl-C or pytest.exit; pytest's stop at a file it
# could not collect; crashed pytest-xdist workers whose cases never ran; -x or --maxfail;
# --sw or --sw-skip; another plugin's stop
StopCause = Literal[
    "interrupt", "collection_errors", "worker_crash", "maxfail", "stepwise", "other"
]
# what stopped a run early, by its report's `stopped_by`, as compare and the HTML page say it
STOPPED_BY: dict[str, str] = {
    "interrupt": "Ctrl-C or pytest.exit",
    "collection_errors": "pytest stopped at errors during collection: its log names the"
    " files; fix them, or run with --continue-on-collection-errors",
    "worker_crash": "pytest-xdist workers crashed, and the cases they took down never ran",
    "maxfail": "-x or --maxfail",
    "stepwise": "--sw or --sw-skip",
    "other": "a plugin stopped it: its log says why",
}
STOPPED_UNSAID = "-x, --maxfail, --sw, Ctrl-C or errors during collection"  # older reports


def stopped_said(report: Mapping[str, Any]) -> str | None:
    """What stopped the run of `report` early, said for a reader; None when it ran all it
    selected."""
    if report.get("stopped_early") is not True:
        return None
    return STOPPED_BY.get(str(report.get("stopped_by")), STOPPED_UNSAID)


# a lone surrogate (half of a UTF-16 pair, as a model's JSON may hold) is written as its
# JSON escape, "\ud800": the file stays UTF-8, and reads back as the same string


class Spill:
    """Whole records as the report writes them, in a temporary file, so that a run with
    `--arena-json` or `--arena-html` keeps only lean records in memory. The first record
    of each key is the one kept, as in `unique`; one not spilled (a crashed item's, which
    the run completes at its end) is written from the record itself."""

    def __init__(self) -> None:
        self._file: IO[bytes] | None = None  # made for the first record; gone once closed
        # key -> where its text is: offset << 32 | length (one int, not two, per record)
        self._at: dict[Key, int | None] = {}

    def add(self, record: Record, whole: bool = True) -> bool:
        """Keep `record`'s text (unless not `whole`), if it is the first of its key; whether
        the report can do without the record itself. It cannot when the record is not
        `whole`, or when its text could not be written (no temporary folder, a full disk):
        the report then writes it from the record, and nothing is lost."""
        if record.key in self._at:
            return True  # a later record of its key: not in the report
        self._at[record.key] = None
        if not whole:
            return False
        try:
            if self._file is None:
                self._file = tempfile.TemporaryFile()  # noqa: SIM115  (closed by close)
            data = _dumps(_record(record), "    ").encode("utf-8", LONE_SURROGATES)
            offset = self._file.seek(0, 2)
            self._file.write(data)
        except OSError:
            return False
        self._at[record.key] = offset << 32 | len(data)  # a record's text is under 4 GB
        return True

    def holds(self, key: Key) -> bool:
        return self._at.get(key) is not None

    def text(self, key: Key) -> str:
        """The text kept for `key` (one it `holds`)."""
        where = self._at[key]
        assert where is not None and self._file is not None
        self._file.seek(where >> 32)
        return self._file.read(where & 0xFFFFFFFF).decode("utf-8")

    def close(self) -> None:
        if self._file is not None:
            self._file.close()


class Spilled:
    """A record's place in the report, its text in the spill; with what the HTML report's
    summary shows of it (its project, model, status, score and xfail outcome)."""

    __slots__ = ("key", "score", "spill", "status", "xfail")

    def __init__(self, spill: Spill, record: Record) -> None:
        self.spill, self.key = spill, record.key
        self.status, self.score = record.status, json_safe(record.score)
        self.xfail = record.xfail

    def text(self) -> str:
        return self.spill.text(self.key)

    def brief(self) -> dict[str, Any]:
        project, _, model, _ = self.key
        return {
            "project": project,
            "model": model,
            "status": self.status,
            "score": self.score,
            "xfail": self.xfail,
        }


def schema() -> dict[str, Any]:
    """The JSON Schema that every report written by this version follows."""
    text = resources.files("pytest_arena.reports").joinpath(SCHEMA_FILE).read_text("utf-8")
    loaded: dict[str, Any] = json.loads(text)
    return loaded


def unique(records: Iterable[Record]) -> list[Record]:
    """One record per (project, case, model, sample), the first that arrived, in key order.

    `--dist each` runs every item once per worker; the leaderboard counts each key once too.
    """
    first: dict[tuple[str, str, str, int], Record] = {}
    for record in records:
        first.setdefault(record.key, record)
    return [first[key] for key in sorted(first)]


def build_report(
    records: Iterable[Record],
    boards: Iterable[Board],
    gates: Iterable[GateResult] = (),
    *,
    exit_status: int | None = None,
    gates_decide: bool = False,
    stopped_by: StopCause | None = None,
    generator: str = "",
    created: datetime | None = None,
    baseline: list[dict[str, Any]] | None = None,
    spill: Spill | None = None,
    problems: Iterable[Mapping[str, str]] = (),
    spend: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """The report as plain JSON data (see docs/guides/reports.md for every field);
    `stopped_by` is why the run stopped early, None if it ran all it selected. With `spill`,
    the records it holds stay there until `write_report` (or `html.write_html`) writes them:
    the report is then only for those two."""
    when = created or datetime.now(timezone.utc)
    return {
        "version": VERSION,
        "generator": generator,
        "created": when.isoformat(timespec="seconds"),
        "exit_status": exit_status,
        "gates_decide": gates_decide,
        "stopped_early": stopped_by is not None,
        "stopped_by": stopped_by,
        "records": [_spilled_or_whole(r, spill) for r in unique(records)],
        "leaderboards": [_board(b) for b in boards],
        "gates": [_gate(g) for g in gates],
        "baseline": json_safe(baseline),
        "problems": [{"item": p["item"], "message": p["message"]} for p in problems],
        **({"spend": dict(spend)} if spend is not None else {}),
    }


def write_report(path: Path, report: dict[str, Any]) -> None:
    """Write `report` as `json.dumps(report, indent=2)` does, one record at a time: a run
    of 50,000 cases holds no text of the whole file. Whole or not at all (a temporary
    file is renamed)."""
    with written_whole(path) as out:
        for n, (key, value) in enumerate(report.items()):
            out.write(f"{',' if n else '{'}\n  {_dumps(key)}: ")
            if isinstance(value, list) and value:
                for i, item in enumerate(value):
                    text = item.text() if isinstance(item, Spilled) else _dumps(item, "    ")
                    out.write(f"{',' if i else '['}\n    {text}")
                out.write("\n  ]")
            else:
                out.write(_dumps(value, "  "))
        out.write("\n}\n" if report else "{}\n")


def _dumps(value: Any, indent: str = "") -> str:
    """`value` as JSON, indented by two spaces a level, its lines after the first by
    `indent` more: as it reads where it sits inside the whole report. What JSON cannot
    write (an integer past Python's 4,300 digits in a field that is not json_safe'd) is
    written as json_safe says it, rather than end the report."""
    try:
        text = json.dumps(value, indent=2, ensure_ascii=False)
    except ValueError:
        text = json.dumps(json_safe(value), indent=2, ensure_ascii=False)
    return text.replace("\n", "\n" + indent) if indent else text


def _spilled_or_whole(r: Record, spill: Spill | None) -> dict[str, Any] | Spilled:
    if spill is not None and spill.holds(r.key):
        return Spilled(spill, r)
    return _record(r)


def _record(r: Record) -> dict[str, Any]:
    return {
        "project": r.project,
        "case": r.case_id,
        "model": r.model,
        "sample": r.sample,
        "status": r.status,
        "score": json_safe(r.score),
        "passed": r.passed,
        "reason": r.reason,
        "scorer": r.scorer,
        "output": r.output,
        "raw_output": r.raw_output,
        "reference": as_json(r.reference),
        "messages": as_json(r.messages),
        "detail": as_json(r.detail),
        "response": as_json(r.response),
        "metrics": as_json(r.metrics),
        "tokens": {"input": r.tokens_in, "output": r.tokens_out},
        "cost": json_safe(r.cost),
        "latency_ms": json_safe(r.latency_ms),
        "retries": r.retries,
        "cached": r.cached,
        "judge": {
            "tokens": r.judge_tokens,
            "cost": json_safe(r.judge_cost),
            "cached_cost": json_safe(r.judge_cached_cost),
        },
        "weight": r.weight,
        "tags": list(r.tags),
        "group": r.group,
        "xfail": r.xfail,
        "error": r.error,
        "samples": [_sample(s) for s in r.samples],
        "sampling": as_json(r.sampling) if r.sampling else None,
    }


def _sample(s: Mapping[str, Any]) -> dict[str, Any]:
    """One sample of a repeated case, in a record's own terms."""
    return {
        "sample": s.get("sample", 0),
        "status": s.get("status"),
        "score": json_safe(s.get("score")),
        "passed": s.get("passed"),
        "reason": s.get("reason", ""),
        "output": s.get("output"),
        "raw_output": s.get("raw_output"),
        "detail": json_safe(s.get("detail") or {}),
        "metrics": json_safe(s.get("metrics") or {}),
        "tokens": {"input": s.get("tokens_in", 0), "output": s.get("tokens_out", 0)},
        "cost": json_safe(s.get("cost", 0.0)),
        "latency_ms": json_safe(s.get("latency_ms")),
        "retries": s.get("retries", 0),
        "cached": bool(s.get("cached")),
        "judge": {
            "tokens": s.get("judge_tokens", 0),
            "cost": json_safe(s.get("judge_cost", 0.0)),
            "cached_cost": json_safe(s.get("judge_cached_cost", 0.0)),
        },
        "error": s.get("error"),
    }


def _row(row: Row) -> dict[str, Any]:
    return {
        "rank": row.rank,
        "model": row.model,
        "composite": json_safe(row.composite),
        "accuracy": json_safe(row.accuracy),
        "pass_rate": json_safe(row.pass_rate),
        "cases": row.cases,
        "passed": row.passed,
        "failed": row.failed,
        "errors": row.errors,
        "unscored": row.unscored,
        "flaky": row.flaky,
        "pass_at_k": json_safe(row.pass_at_k),
        "pass_hat_k": json_safe(row.pass_hat_k),
        "tokens": row.tokens,
        "cost": json_safe(row.cost),
        "judge_cost": json_safe(row.judge_cost),
        "latency_ms": json_safe(row.latency),
        "metrics": json_safe(row.metrics),
        "rank_label": row.rank_label or str(row.rank),
        "intervals": {name: interval_data(i) for name, i in sorted(row.intervals.items())},
        "interval": _bounds(row.intervals.get("accuracy")),
    }


def interval_data(interval: Interval) -> dict[str, Any]:
    return {
        "estimate": json_safe(interval.estimate),
        "se": json_safe(interval.se),
        "low": json_safe(interval.low),
        "high": json_safe(interval.high),
        "n": interval.n,
    }


def _bounds(interval: Interval | None) -> dict[str, Any] | None:
    """The accuracy's interval as the HTML report's error bars read it."""
    if interval is None or interval.low is None or interval.high is None:
        return None
    return {"low": json_safe(interval.low), "high": json_safe(interval.high)}


def _comparison(c: Comparison) -> dict[str, Any]:
    d = c.difference
    return {
        "model": c.model,
        "against": c.against,
        "metric": "accuracy",
        "difference": json_safe(d.estimate),
        "se": json_safe(d.se),
        "low": json_safe(d.low),
        "high": json_safe(d.high),
        "p_value": json_safe(d.p_value),
        "cases": d.n,
        "weightless": c.weightless,
        "test": c.test,
        "only_model_passed": c.only_model,
        "only_against_passed": c.only_against,
        "significant": c.significant,
    }


def _power(p: Power | None) -> dict[str, Any] | None:
    if p is None:
        return None
    return {
        "models": list(p.models),
        "cases": p.n,
        "effective_cases": json_safe(p.effective),
        "paired_sd": json_safe(p.paired_sd),
        "detectable": json_safe(p.detectable),
        "power": 0.8,
        "alpha": 0.05,
        "target": p.target,
        "cases_needed": p.needed,
        "assumed": p.assumed,
        "design_effect": json_safe(p.design_effect),
        "test": p.test,
        "groups": p.groups,
        "least": p.least,
    }


def _board(board: Board) -> dict[str, Any]:
    return {
        "project": board.project,
        "weights": dict(board.weights),
        "metric_names": list(board.metric_names),
        "warnings": list(board.warnings),
        "k": board.k,
        "notes": list(board.notes),
        "rows": [_row(r) for r in board.rows],
        "comparisons": [_comparison(c) for c in board.comparisons],
        "power": _power(board.power),
        "ties_by": board.ties_by,
    }


def _check(check: Check) -> dict[str, Any]:
    return {
        "scope": check.scope,
        "model": check.model,
        "metric": check.metric,
        "min": check.min,
        "max": check.max,
        "value": json_safe(check.value),
        "margin": json_safe(check.margin),
        "status": check.status,
        "note": check.note,
        "text": check.text,
    }


def _gate(gate: GateResult) -> dict[str, Any]:
    return {
        "project": gate.project,
        "held": gate.held,
        "summary": gate.headline(),
        "checks": [_check(c) for c in gate.checks],
    }
