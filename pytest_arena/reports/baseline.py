"""Baselines: a run's per-case results as a small file meant to be committed, and a later run
compared with it. Pure: text in, text out (the plugin reads and writes the file).

The file is JSON, one case a line, sorted by project, model and case, with no timestamp, so
that a diff of two baselines shows the cases that changed and nothing else.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from pytest_arena.numbers import signed
from pytest_arena.record import FAILED, FLAKY, PASSED, UNSCORED, Record
from pytest_arena.reports import verdicts
from pytest_arena.scorers.text import printable

FORMAT = 2  # of a file listing an unscored case, which older releases refuse; else 1
FORMATS = (1, FORMAT)
LISTED = verdicts.GRADED | {UNSCORED}  # the statuses a baseline lists: a case that ran
DIGITS = 6  # a score's decimals in the file; a run is compared with it at the same
CRITICAL = "critical"  # the tag of cases whose regression a gate may fail the run on
# a record's detail key: a case a crashed pytest-xdist worker took down, which never ran (an
# error on the boards, and not run here: neither regressed nor, next time, fixed)
LOST = "lost"
_KEYS = ("project", "model", "case", "status", "score", "reason", "tags", "weight")


def baseline_text(records: Iterable[Record]) -> str:
    """The baseline file of `records`: graded and unscored cases (the latter with no score),
    one JSON object a line; of format 1, which older releases read, if none is unscored."""
    rows = sorted(
        (
            {
                "project": r.project,
                "model": r.model,
                "case": r.case_id,
                "status": r.status,
                "score": None if r.status == UNSCORED else _rounded(r.score),
                "reason": r.reason,
                "tags": sorted(r.tags),
                "weight": r.weight,
            }
            for r in records
            if r.status in LISTED
        ),
        key=lambda row: (row["project"], row["model"], row["case"]),
    )
    lines = [json.dumps(row, ensure_ascii=False, sort_keys=False) for row in rows]
    body = ",\n".join(f"  {line}" for line in lines)
    version = FORMAT if any(row["status"] == UNSCORED for row in rows) else 1
    return f'{{"format": {version}, "cases": [\n{body}\n]}}\n'


def read_baseline(text: str, where: str) -> list[Record]:
    """The records of a baseline file; ValueError naming `where` and the fix if it is not one."""
    fix = "write it again with --arena-save-baseline PATH"
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        raise ValueError(f"{where}:{error.lineno}: not a baseline ({error.msg}); {fix}") from None
    except RecursionError:
        raise ValueError(f"{where}: not a baseline (nested too deeply); {fix}") from None
    if not isinstance(data, dict) or data.get("format") not in FORMATS:
        raise ValueError(f"{where}: not a baseline of format 1 or {FORMAT}; {fix}")
    found: list[Record] = []
    cases = data.get("cases")
    if not isinstance(cases, list):
        raise ValueError(f"{where}: 'cases' is not a list; {fix}")
    first: dict[tuple[str, str, str], int] = {}
    for number, row in enumerate(cases, start=2):  # the file holds one case per line
        if not isinstance(row, dict) or any(k not in row for k in _KEYS):
            raise ValueError(f"{where}:{number}: a case needs {', '.join(_KEYS)}; {fix}")
        score, tags, weight = row["score"], row["tags"], row["weight"]
        if (
            not (score is None or (type(score) in (int, float) and 0 <= score <= 1))
            or not isinstance(tags, list)
            or not (type(weight) in (int, float) and 0 <= weight < math.inf)
        ):
            raise ValueError(
                f"{where}:{number}: a case's score is a number from 0 to 1 or null, its tags a"
                f" list and its weight a finite number, 0 or more; {fix}"
            )
        if not isinstance(row["status"], str) or row["status"] not in LISTED:
            raise ValueError(
                f"{where}:{number}: a case's status is one of"
                f" {', '.join(sorted(LISTED))}, not {printable(repr(row['status']))};"
                f" {fix}"
            )
        if score is None and row["status"] in (PASSED, FAILED, FLAKY):  # read as 0 else
            raise ValueError(
                f"{where}:{number}: the score of a {row['status']} case is a number from 0 to"
                f" 1, not null (null is for an unscored case or an error); {fix}"
            )
        key = (str(row["project"]), str(row["model"]), str(row["case"]))
        if key in first:
            raise ValueError(
                f"{where}:{number}: case {printable(key[2])} of model {printable(key[1])} in"
                f" project {printable(key[0])} is listed twice (first at line {first[key]});"
                f" {fix}"
            )
        first[key] = number
        found.append(
            Record(
                str(row["project"]),
                str(row["case"]),
                str(row["model"]),
                str(row["status"]),
                score=score,
                passed=None if row["status"] == UNSCORED else row["status"] == PASSED,
                reason=str(row["reason"]),
                tags=[str(t) for t in tags],
                weight=float(weight),
            )
        )
    return found


@dataclass(frozen=True)
class Change:
    """A case whose verdict changed: its reason then and now."""

    case: str
    then: str
    now: str
    critical: bool = False
    passed_then: bool = False  # (for a case unscored now: its pass can no longer be checked)


@dataclass
class BaselineComparison:
    """One project and model now against the baseline."""

    project: str
    model: str
    comparison: verdicts.Comparison  # now - then, on the cases both graded
    accuracy_then: float | None  # on the cases both graded, as the comparison's
    accuracy_now: float | None  # (not the leaderboard's, which holds every case run now)
    regressed: list[Change] = field(default_factory=list)  # passed then, not now
    fixed: list[Change] = field(default_factory=list)  # not then, passed now
    unscored_now: list[Change] = field(default_factory=list)  # graded then, unscored now
    unscored_then: list[Change] = field(default_factory=list)  # unscored then, graded now
    new: list[str] = field(default_factory=list)
    gone: list[str] = field(default_factory=list)  # no longer in the project
    not_run: list[str] = field(default_factory=list)  # in it still: -k, --lf or -x left them
    unknown: bool = False  # the baseline holds no case of this project and model (new)
    # and none of these, the baseline's projects, graded a case in this run: the project was
    # renamed (its folder or its `name:`)
    renamed_from: list[str] = field(default_factory=list)
    in_both: int = 0  # cases the baseline lists and this run ran, whatever their verdicts

    @property
    def renamed(self) -> bool:
        """Whether nothing can be compared as the cases or the project were renamed: no case
        is in both, and the baseline's are all gone from the project (none merely left out
        by -k or --lf), or the project is new and the baseline's own graded nothing."""
        gone = self.in_both == 0 and bool(self.gone) and not self.not_run
        return gone or bool(self.renamed_from)

    def significant(self, alpha: float = verdicts.ALPHA) -> bool:
        """Whether the run is worse than the baseline, at `alpha`."""
        d = self.comparison.difference
        return (
            d.estimate is not None
            and d.estimate < 0
            and d.p_value is not None
            and d.p_value < alpha
        )

    def lines(self) -> list[str]:
        d = self.comparison.difference
        head = f"{self.project} {self.model}:"
        if self.renamed_from:
            change = (
                "the baseline holds no case of this project, and none of its"
                f" project{'s' if len(self.renamed_from) > 1 else ''}"
                f" {', '.join(self.renamed_from)} was graded in this run: was it renamed?"
                " save a new baseline with --arena-save-baseline PATH"
            )
        elif self.renamed:
            change = (
                "no case in common with the baseline, whose cases are all gone from the"
                " project: were they renamed? save a new baseline with --arena-save-baseline"
                " PATH"
            )
        elif self.unknown:
            change = "the baseline holds no case of this project and model: nothing to compare"
        elif d.estimate is None or d.low is None or d.high is None or d.p_value is None:
            change = f"{d.n} case(s) in common, too few to compare"
        else:
            p = "<0.001" if d.p_value < 0.001 else f"={d.p_value:.3f}"
            change = (
                f"accuracy {_num(self.accuracy_then)} -> {_num(self.accuracy_now)},"
                f" change {signed(d.estimate)} (95% CI {signed(d.low)} to {signed(d.high)}),"
                f" p{p} {self.comparison.test}, {d.n} cases"
            )
        counts = (
            f"{len(self.regressed)} regressed, {len(self.fixed)} fixed,"
            f" {len(self.new)} new, {len(self.gone)} gone"
        )
        for word, cases in (
            ("unscored now", self.unscored_now),
            ("unscored then", self.unscored_then),
            ("not run (deselected, skipped or stopped before)", self.not_run),
        ):
            counts += f", {len(cases)} {word}" if cases else ""
        out = [f"{head} {change}; {counts}"]
        for word, changes in (
            ("regressed", self.regressed),
            ("fixed", self.fixed),
            ("unscored now", self.unscored_now),
            ("unscored then", self.unscored_then),
        ):
            for c in changes:
                mark = " [critical]" if c.critical else ""
                out.append(f"  {word} {c.case}{mark}: was '{_cut(c.then)}', now '{_cut(c.now)}'")
        if self.new:
            out.append(f"  new: {', '.join(self.new)}")
        if self.gone:
            out.append(f"  gone: {', '.join(self.gone)}")
        return out


def compare_with(
    records: Sequence[Record],
    baseline: Sequence[Record],
    defined: Mapping[str, Sequence[str]] | None = None,
    whole: bool = True,
) -> list[BaselineComparison]:
    """Each project and model of the run against the same in the baseline; `defined`, the
    case ids each project holds, tells a case gone from one the run left out (-k, --lf,
    -x, a crashed worker: its lost records are not run): a project it does not name counts
    every case it did not run as gone. `whole`: the run collected the whole suite (no paths
    given), so a baseline project it did not collect is gone, not left out."""
    now = _by_key(records)
    then = _by_key(baseline)
    # the baseline's projects that graded nothing now, and were not even collected (a project
    # -k left out is still there); a run given paths cannot tell them from those it left out
    gone = {p for p, _ in then} - {p for p, _ in now} - set(defined or ())
    theirs_only = sorted(gone) if whole else []
    found: list[BaselineComparison] = []
    for key in sorted(now):
        project, model = key
        mine, theirs = now[key], then.get(key, {})
        comparison = verdicts.compare(model, list(mine.values()), "baseline", list(theirs.values()))
        then_now = _accuracies(mine, theirs)
        result = BaselineComparison(project, model, comparison, *then_now)
        for case in sorted(mine):
            a, b = mine[case], theirs.get(case)
            if b is None:
                result.new.append(case)
                continue
            result.in_both += 1
            changes = _changes(result, then=b.status, now=a.status)
            if changes is not None:
                critical = CRITICAL in a.tags or CRITICAL in b.tags
                passed = b.status == PASSED
                changes.append(Change(case, b.reason, a.reason, critical, passed))
        held = set((defined or {}).get(project, ()))
        for case in sorted(set(theirs) - set(mine)):
            (result.not_run if case in held else result.gone).append(case)
        result.unknown = not theirs
        if all(p != project for p, _ in then):
            result.renamed_from = theirs_only
        found.append(result)
    return found


def _changes(result: BaselineComparison, then: str, now: str) -> list[Change] | None:
    """The list of `result` a case goes in whose status was `then` and is `now`: None if
    its verdict did not change (or it is unscored in both)."""
    if (then == UNSCORED) != (now == UNSCORED):
        return result.unscored_now if now == UNSCORED else result.unscored_then
    if then == PASSED and now != PASSED:
        return result.regressed
    if then != PASSED and now == PASSED:
        return result.fixed
    return None


def uncompared(records: Sequence[Record], baseline: Sequence[Record]) -> list[str]:
    """The baseline's projects and models ("project model") of which no case ran in this run
    (a project that did not load, a model not asked for, a crashed worker took them all
    down): nothing compared them."""
    now = {(r.project, r.model) for r in records if r.status in LISTED and not lost(r)}
    then = {(r.project, r.model) for r in baseline if r.status in LISTED}
    return [f"{project} {model}" for project, model in sorted(then - now)]


def _by_key(records: Iterable[Record]) -> dict[tuple[str, str], dict[str, Record]]:
    """Graded and unscored records by project and model, then case, their scores as the
    file keeps them (2/3 is 0.666667 there: compared unrounded, every such case would have
    dropped a bit); not those of cases lost with a crashed worker, which did not run."""
    found: dict[tuple[str, str], dict[str, Record]] = {}
    for r in records:
        if r.status in LISTED and not lost(r):
            kept = r if r.score is None else replace(r, score=_rounded(r.score))
            found.setdefault((r.project, r.model), {}).setdefault(r.case_id, kept)
    return found


def lost(record: Record) -> bool:
    """Whether `record` is of a case a crashed pytest-xdist worker took down unrun."""
    return record.detail.get(LOST) is True


def _rounded(score: float | None) -> float | None:
    return None if score is None else round(float(score), DIGITS)


def _accuracies(
    mine: Mapping[str, Record], theirs: Mapping[str, Record]
) -> tuple[float | None, float | None]:
    """The accuracy then and now on the cases both runs graded, each weighted by its weight
    now, as the paired change is: now - then is that change. Over every case of each run, a
    run that -k, -x or --lf cut short (or new cases) would move it with no case changed."""
    pairs = [
        (a, theirs[case])
        for case, a in mine.items()
        if a.weight > 0 and a.status in verdicts.GRADED and case in theirs
        if theirs[case].status in verdicts.GRADED
    ]
    total = sum(a.weight for a, _ in pairs)
    if not total:
        return None, None
    then = sum(a.weight * verdicts.case_score(b) for a, b in pairs) / total
    return then, sum(a.weight * verdicts.case_score(a) for a, _ in pairs) / total


def _num(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f}"


def _cut(text: str, limit: int = 80) -> str:
    line = printable(" ".join(text.split()))
    return line if len(line) <= limit else line[: limit - 1] + "…"


def as_data(results: Sequence[BaselineComparison]) -> list[dict[str, Any]]:
    """The comparisons as JSON data, for the JSON report."""
    out = []
    for r in results:
        d = r.comparison.difference
        out.append(
            {
                "project": r.project,
                "model": r.model,
                "accuracy_then": r.accuracy_then,
                "accuracy_now": r.accuracy_now,
                "change": d.estimate,
                "low": d.low,
                "high": d.high,
                "p_value": d.p_value,
                "cases": d.n,
                "test": r.comparison.test,
                "regressed": [_change(c) for c in r.regressed],
                "fixed": [_change(c) for c in r.fixed],
                "unscored_now": [_change(c) for c in r.unscored_now],
                "unscored_then": [_change(c) for c in r.unscored_then],
                "new": list(r.new),
                "gone": list(r.gone),
                "not_run": list(r.not_run),
                "renamed_from": list(r.renamed_from),
            }
        )
    return out


def _change(c: Change) -> Mapping[str, Any]:
    return {"case": c.case, "then": c.then, "now": c.now, "critical": c.critical}
