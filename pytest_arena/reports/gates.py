"""CI gates: thresholds on leaderboard values that decide a run's exit status. Pure: no pytest."""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from pytest_arena.numbers import at_least, at_most, signed
from pytest_arena.record import ERROR, Record
from pytest_arena.reports.baseline import BaselineComparison
from pytest_arena.reports.leaderboard import Board, Row
from pytest_arena.scorers.text import printable
from pytest_arena.spec.errors import did_you_mean

# Leaderboard values a gate can name, besides the board's custom metrics.
GATE_VALUES = (
    "composite",
    "accuracy",
    "pass_rate",
    "cost",
    "judge_cost",
    "tokens",
    "latency",
    "cases",
    "passed",
    "failed",
    "errors",
    "unscored",
    "flaky",  # repeated cases still undecided after their most samples
)
# the values an error (a case with no verdict: its model or scorer broke) counts in: a
# gate with no check of one of them on a model does not decide for its errors
COUNTS_ERRORS = frozenset({"composite", "accuracy", "pass_rate", "errors"})
HELD, FAILED, NOT_RUN = "held", "failed", "not run"
OK, TESTS_FAILED = 0, 1  # pytest's exit codes that a gate may change


@dataclass(frozen=True)
class Check:
    """One limit on one model's value."""

    project: str
    scope: str  # "all" or "models"
    model: str
    metric: str
    min: float | None
    max: float | None
    value: float | None
    status: str  # HELD, FAILED or NOT_RUN
    note: str = ""  # why there is no value to compare
    text: str = ""  # a rule that is no limit (against the baseline) says itself

    @property
    def margin(self) -> float | None:
        """How far inside its limits the value is (negative: how far outside); 0 at a limit,
        a rounding error off it included, as the check counts it."""
        value = self.value
        if value is None or (self.min is None and self.max is None):
            return None
        sides = [_distance(value, self.min) if self.min is not None else None]
        sides.append(_distance(self.max, value) if self.max is not None else None)
        return min(s for s in sides if s is not None)

    def describe(self) -> str:
        return f"{self.status:<7} {self.said()}"

    def said(self) -> str:
        """The check without its status: the model, the value against its limits; names
        and notes escaped as the leaderboard's header escapes them (a metric named with a
        bidi override reversed the rest of the line)."""
        return printable(self._said())

    def _said(self) -> str:
        if self.text:
            return f"{self.model} {self.text}"
        bounds = [limit for limit in (self.min, self.max) if limit is not None]
        digits = _digits(self.value, bounds) if self.margin else DIGITS
        limits = " and ".join(
            f"{word} {_num(limit, digits)}"
            for word, limit in (("min", self.min), ("max", self.max))
            if limit is not None
        )
        head = f"{self.model} {self.metric}"
        if not limits:  # a rule against the baseline, from a report without its text
            value = "" if self.value is None else f" {_num(self.value)}"
            return f"{head}{value}{': ' + self.note if self.note else ''}"
        if self.value is None or self.margin is None:
            return f"{head} (limit {limits}): {self.note}"
        value = _num(self.value, digits)
        if self.status == HELD:
            return f"{head} {value} within {limits} (margin {_num(self.margin)})"
        return f"{head} {value} outside {limits} (short by {_num(-self.margin)})"


@dataclass(frozen=True)
class GateResult:
    """A project's gate checked against its leaderboard."""

    project: str
    checks: tuple[Check, ...]

    @property
    def held(self) -> bool:
        return all(c.status != FAILED for c in self.checks)

    @property
    def failed(self) -> list[Check]:
        return [c for c in self.checks if c.status == FAILED]

    @property
    def counted(self) -> list[Check]:
        """The checks of models that ran."""
        return [c for c in self.checks if c.status != NOT_RUN]

    def headline(self) -> str:
        counted = self.counted
        if not counted:
            return (
                "gate checked nothing: no limit names a model this run graded cases of,"
                " so it decides nothing"
            )
        if self.held:
            return f"gate held: all {len(counted)} checks within their limits"
        return f"gate failed: {len(self.failed)} of {len(counted)} checks outside their limits"

    def lines(self) -> list[str]:
        return [self.headline(), *(f"  {c.describe()}" for c in self.checks)]


def decides_for(gate: Mapping[str, Any], model: str, status: str) -> bool:
    """Whether `gate` decides for a failed case of `model` whose record says `status`: any
    verdict, and an error only when a check on the model counts errors (a gate on `failed`
    and `cost` alone held while every case of a model that could not be reached errored)."""
    if status != ERROR:
        return True
    named = {*(gate.get("all") or {}), *((gate.get("models") or {}).get(model) or {})}
    return not COUNTS_ERRORS.isdisjoint(named)


def gates_of(records: Iterable[Record]) -> dict[str, dict[str, Any]]:
    """Each project's `gate:` settings, as the records carry them."""
    found: dict[str, dict[str, Any]] = {}
    for record in records:
        gate = record.board.get("gate")
        if gate and record.project not in found:
            found[record.project] = gate
    return found


def check_gates(
    boards: Iterable[Board], gates: Mapping[str, Mapping[str, Any]]
) -> list[GateResult]:
    """Check each board that has a gate."""
    return [check_gate(board, gates[board.project]) for board in boards if board.project in gates]


def check_gate(board: Board, gate: Mapping[str, Any]) -> GateResult:
    rows = {row.model: row for row in board.rows}
    checks: list[Check] = []
    at: Mapping[str, str] = gate.get("at") or {}
    for row in board.rows:
        for metric, bound in (gate.get("all") or {}).items():
            where = at.get(f"all.{metric}", "")
            checks.append(_check(board, "all", row.model, row, metric, bound, where))
    for model, limits in (gate.get("models") or {}).items():
        for metric, bound in limits.items():
            where = at.get(f"models.{model}.{metric}", "")
            checks.append(_check(board, "models", model, rows.get(model), metric, bound, where))
    return GateResult(board.project, tuple(checks))


def _check(
    board: Board,
    scope: str,
    model: str,
    row: Row | None,
    metric: str,
    bound: Mapping[str, Any],
    where: str = "",
) -> Check:
    low, high = bound.get("min"), bound.get("max")
    if row is None:
        hint = did_you_mean(model, [r.model for r in board.rows])
        note = f"model '{model}' did not run{' (' + hint + ')' if hint else ''}; not checked"
        return Check(board.project, scope, model, metric, low, high, None, NOT_RUN, note)
    known = [*GATE_VALUES, *board.metric_names]
    if metric not in known:
        hint = did_you_mean(metric, known)
        note = f"no record has a metric '{metric}'{' (' + hint + ')' if hint else ''}"
        note = f"{note}; the gate names it at {where}" if where else note
        return Check(board.project, scope, model, metric, low, high, None, FAILED, note)
    value = value_of(row, metric)
    if value is None:
        if metric in ("cost", "judge_cost"):
            whose = "its judge has" if metric == "judge_cost" else f"model '{row.model}' has"
            note = (
                f"no value for '{metric}': {whose} no price, so what it cost is unknown; set"
                " price: in models.define (or take the cost out of the gate)"
            )
        else:
            note = (
                f"no value for '{metric}' (no scored case, cases of weight 0 only,"
                " or no latency measured)"
            )
        return Check(board.project, scope, model, metric, low, high, None, FAILED, note)
    inside = (low is None or at_least(value, low)) and (high is None or at_most(value, high))
    return Check(board.project, scope, model, metric, low, high, value, HELD if inside else FAILED)


def check_baseline(
    results: list[GateResult],
    comparisons: Iterable[BaselineComparison],
    gates: Mapping[str, Mapping[str, Any]],
) -> list[GateResult]:
    """`results` with each project's rules against the baseline added: `regression:
    significant` fails on a drop in accuracy significant at `regression_level`; `critical:
    no_regression` on any regressed case tagged critical, and any that passed then and is
    unscored now (its pass is no longer checked)."""
    by_project = {r.project: r for r in results}
    compared = {c.project for c in comparisons}
    for project, gate in gates.items():
        rules = [k for k in ("regression", "critical") if gate.get(k)]
        if rules and project not in compared and project in by_project:
            text = (
                f"gate {' and '.join(rules)} compares with a baseline, and none was given:"
                " run with --arena-baseline PATH (saved by --arena-save-baseline PATH)"
            )
            check = Check(
                project, "baseline", "every model", rules[0], None, None, None, FAILED, text=text
            )
            by_project[project] = GateResult(project, (*by_project[project].checks, check))
    for c in comparisons:
        gate = gates.get(c.project) or {}
        checks: list[Check] = []
        if gate.get("regression") == "significant":
            level = float(gate.get("regression_level", 0.05))
            d = c.comparison.difference
            p = "-" if d.p_value is None else f"{d.p_value:.3g}"
            change = "-" if d.estimate is None else signed(d.estimate)
            worse = c.significant(level)
            text = (
                f"accuracy change against the baseline {change} (p={p}):"
                f" {'a significant regression' if worse else 'not a significant regression'}"
                f" at level {level:g}"
            )
            if c.renamed or c.unknown:
                text = _nothing_compared(c)
            status = FAILED if worse or c.renamed else HELD
            checks.append(
                Check(
                    c.project,
                    "baseline",
                    c.model,
                    "regression",
                    None,
                    None,
                    d.p_value,
                    status,
                    text=text,
                )
            )
        if gate.get("critical") == "no_regression":
            hit = [x.case for x in c.regressed if x.critical]
            hit += [
                f"{x.case} (unscored now)" for x in c.unscored_now if x.critical and x.passed_then
            ]
            text = (
                f"critical cases regressed: {', '.join(hit)}"
                if hit
                else _nothing_compared(c)
                if c.renamed or c.unknown
                else "no case tagged critical regressed"
            )
            checks.append(
                Check(
                    c.project,
                    "baseline",
                    c.model,
                    "critical",
                    None,
                    None,
                    float(len(hit)),
                    FAILED if hit or c.renamed else HELD,
                    text=text,
                )
            )
        if not checks:
            continue
        old = by_project.get(c.project)
        by_project[c.project] = GateResult(c.project, (*(old.checks if old else ()), *checks))
    return [by_project[p] for p in sorted(by_project)]


def _nothing_compared(c: BaselineComparison) -> str:
    """Why a baseline rule compared nothing: cases renamed, the project renamed, or a project
    and model the baseline does not hold (new, so nothing to compare: the rule holds)."""
    if c.renamed_from:
        return (
            "compared nothing: the baseline holds no case of this project (renamed from"
            f" {', '.join(c.renamed_from)}?): save a new baseline with --arena-save-baseline PATH"
        )
    if c.renamed:
        return (
            "compared nothing: no case is in both runs, and the baseline's are gone from the"
            " project (renamed?): save a new baseline with --arena-save-baseline PATH"
        )
    return "compared nothing: the baseline holds no case of this project and model (new)"


def value_of(row: Row, metric: str) -> float | None:
    if metric in GATE_VALUES:
        value: float | int | None = getattr(row, metric)
        return None if value is None else float(value)
    return row.metrics.get(metric)


def exit_status(
    current: int,
    results: list[GateResult],
    failures_outside_gates: int,
    *,
    enabled: bool = True,
    stopped_early: bool = False,
    failed_projects: Collection[str] | None = None,
) -> int:
    """The run's exit status once gates decide.

    Gates only turn "tests failed" into "ok" and back: an interrupted run, a usage error or
    a run stopped early (`-x`) keeps its status, and so does a failure the gates do not cover
    (a Python test, a project without a gate, a broken arena.yaml), and a failed case of a
    project whose gate checked nothing. `failed_projects`: the projects whose failed cases
    a gate covers (None: not known, so any project's).
    """
    if not enabled or not results or current not in (OK, TESTS_FAILED):
        return current
    if stopped_early and current == TESTS_FAILED:
        return current
    undecided = {r.project for r in results if not r.counted}
    failed = undecided if failed_projects is None else undecided.intersection(failed_projects)
    if current == TESTS_FAILED and failed:
        return current  # a gate that checked nothing cannot vouch for its failed cases
    if failures_outside_gates or not all(r.held for r in results):
        return TESTS_FAILED
    return OK


def _distance(high: float, low: float) -> float:
    """`high - low`, or 0 when the two differ by a rounding error only."""
    return 0.0 if at_least(high, low) and at_most(high, low) else high - low


DIGITS = 4  # significant digits of a value, a limit and a margin, unless more tell them apart


def _num(value: float, digits: int = DIGITS) -> str:
    return f"{value:.{digits}g}"


def _digits(value: float | None, limits: list[float]) -> int:
    """The fewest significant digits, DIGITS or more, that show `value` apart from each of
    `limits` it is not equal to (0.79999 against a min of 0.8 read "0.8 outside min 0.8")."""
    if value is None:
        return DIGITS
    for digits in range(DIGITS, 18):
        if all(_num(value, digits) != _num(limit, digits) for limit in limits if limit != value):
            return digits
    return 17
