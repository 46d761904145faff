"""What a leaderboard's numbers can be trusted to say: a 95% interval on each, each model
against the leader on the same cases, ranks the data cannot separate, and the project's power.

Pure: records in, numbers out (no pytest, no I/O); the statistics are `statistics.py`'s.
A case counts once, by its score: with repeats, that is the mean over its samples, so the
standard errors are over cases (Miller 2024), clustered by a case's `group` when cases share
one. A case's weight counts as in the accuracy: the interval is that of the weighted mean
(the ratio estimator's linearisation; with equal weights, the plain mean's).
"""

from __future__ import annotations

import math
import statistics as stdlib_statistics
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from pytest_arena.record import ERROR, FAILED, PASSED, Record
from pytest_arena.reports.statistics import (
    SIGN_FLIP_MOST,
    Difference,
    Interval,
    bootstrap_intervals,
    cases_needed,
    clustered_interval,
    mcnemar_exact,
    mean_interval,
    min_detectable_difference,
    normal_p_value,
    sign_flip_p,
    wilson_interval,
    z_value,
)

LEVEL = 0.95  # of every interval
ALPHA = 0.05  # two models are told apart when p < ALPHA (the interval leaves out 0)
POWER = 0.8
TARGET = 0.03  # the power line says how many cases a 3-point difference needs
RESAMPLES = 1000  # of the composite's bootstrap
SEED = 0  # the bootstrap's: a report repeats exactly
GRADED = frozenset({PASSED, FAILED, ERROR, "flaky"})  # "flaky": a repeated, undecided case


@dataclass(frozen=True)
class Comparison:
    """`model` against `against` (the leader) on the cases both graded: the mean paired
    difference of their accuracy (model - leader), its interval and p-value."""

    model: str
    against: str
    difference: Difference
    test: str  # "McNemar (exact)" or "paired z"
    only_model: int = 0  # cases only `model` passed (McNemar's discordant counts)
    only_against: int = 0

    @property
    def significant(self) -> bool:
        p = self.difference.p_value
        return p is not None and p < ALPHA


@dataclass(frozen=True)
class Power:
    """What this project can tell apart: at POWER and ALPHA, with `n` paired cases whose
    differences have sd `paired_sd` (between `models`), differences of `detectable` or more;
    a difference of `target` needs `needed` cases."""

    models: tuple[str, ...]
    n: int
    paired_sd: float
    detectable: float
    target: float
    needed: int | None  # None: the models never differ on a case, so no spread to go by
    assumed: bool = False  # one model: the sd of a difference assumed as of two unrelated ones


def graded(records: Sequence[Record]) -> list[Record]:
    return [r for r in records if r.status in GRADED]


def case_score(record: Record) -> float:
    """A graded case's score: its mean over samples; an error scores 0."""
    return 0.0 if record.status == ERROR else float(record.score or 0.0)


def _cluster(record: Record) -> str:
    return f"group:{record.group}" if record.group else f"case:{record.case_id}"


def _clustered(records: Sequence[Record]) -> bool:
    return any(r.group for r in records)


def linearised(values: Sequence[float], weights: Sequence[float]) -> list[float]:
    """Values whose plain mean is the weighted mean of `values` and whose CLT standard error
    is the weighted mean's (ratio estimator): m + (w_i n / Σw)(v_i - m). Equal weights:
    the values themselves."""
    if not all(math.isfinite(x) for x in (*values, *weights)):
        return []  # an infinite weight or a NaN metric: no interval rather than a wrong one
    total = math.fsum(weights)
    n = len(values)
    if not n or total <= 0:
        return []
    if all(w == weights[0] for w in weights):
        return list(values)
    mean = math.fsum(w * v for v, w in zip(values, weights, strict=True)) / total
    return [mean + w * n / total * (v - mean) for v, w in zip(values, weights, strict=True)]


def weighted_interval(records: Sequence[Record], value: Callable[[Record], float]) -> Interval:
    """The interval of the weighted mean of `value` over `records` (weight 0 left out)."""
    kept = [r for r in records if r.weight > 0]
    raw = [value(r) for r in kept]
    values = linearised(raw, [r.weight for r in kept])
    if len(values) < 2 or not _clustered(kept):
        found = mean_interval(values, LEVEL)
    else:
        found = clustered_interval(values, [_cluster(r) for r in kept], LEVEL)
    if raw and all(0.0 <= v <= 1.0 for v in raw):
        return clipped(found)
    return found


def clipped(interval: Interval) -> Interval:
    """The interval cut to [0, 1], where the mean of values in [0, 1] lies: the CLT's may
    reach past them near 0 and 1 (the cut keeps the truth inside whenever it was)."""
    if interval.low is None or interval.high is None:
        return interval
    return Interval(
        interval.estimate, interval.se, max(0.0, interval.low), min(1.0, interval.high), interval.n
    )


def pass_rate_interval(records: Sequence[Record]) -> Interval:
    """Wilson's interval of the share of graded cases that passed; clustered SE by group."""
    if _clustered(records) and len(records) > 1:
        return clipped(  # a share: its normal interval may reach past 0 or 1
            clustered_interval(
                [float(r.status == PASSED) for r in records],
                [_cluster(r) for r in records],
                LEVEL,
            )
        )
    return wilson_interval(sum(r.status == PASSED for r in records), len(records), LEVEL)


def row_intervals(records: Sequence[Record]) -> dict[str, Interval]:
    """Accuracy, pass rate and each custom metric of one model's records."""
    found = graded(records)
    intervals = {
        "accuracy": weighted_interval(found, case_score),
        "pass_rate": pass_rate_interval(found),
    }
    for name in sorted({n for r in records for n in r.metrics}):
        having = [r for r in records if name in r.metrics]
        intervals[name] = weighted_interval(having, _metric(name))
    return intervals


def _metric(name: str) -> Callable[[Record], float]:
    def value(record: Record) -> float:
        return float(record.metrics[name])

    return value


def compare(
    model: str, mine: Sequence[Record], leader: str, theirs: Sequence[Record]
) -> Comparison:
    """`model` against `leader` on the cases both graded (paired by case)."""
    by_case = {r.case_id: r for r in graded(theirs)}
    pairs = [(r, by_case[r.case_id]) for r in graded(mine) if r.case_id in by_case]
    pairs = [(a, b) for a, b in pairs if a.weight > 0]
    weights = [a.weight for a, _ in pairs]
    diffs = linearised([case_score(a) - case_score(b) for a, b in pairs], weights)
    if len(diffs) < 2:
        mean = diffs[0] if diffs else None
        return Comparison(model, leader, Difference(mean, None, None, None, None, len(diffs)), "-")
    if _clustered([r for pair in pairs for r in pair]):
        spread = clustered_interval(diffs, [_cluster(a) for a, _ in pairs], LEVEL)
        test = "paired z, clustered"
    else:
        spread = mean_interval(diffs, LEVEL)
        test = "paired z"
    assert spread.estimate is not None and spread.se is not None
    p = normal_p_value(spread.estimate, spread.se)
    only_model = sum(a.status == PASSED and b.status != PASSED for a, b in pairs)
    only_leader = sum(b.status == PASSED and a.status != PASSED for a, b in pairs)
    moved = [w * (case_score(a) - case_score(b)) for w, (a, b) in zip(weights, pairs, strict=True)]
    if _pass_fail(pairs) and len(set(weights)) == 1 and test == "paired z":
        p = mcnemar_exact(only_model, only_leader)
        test = "McNemar (exact)"
    elif test == "paired z" and sum(d != 0 for d in moved) <= SIGN_FLIP_MOST:
        # few cases differ: the z-test's normal tail is no guide there (one heavy case that
        # flipped would be "significant"); the signs of those few can be counted out
        p = sign_flip_p(moved)
        test = "sign-flip (exact)"
    elif spread.se == 0 and spread.estimate != 0:  # every case moved alike: the z-test says p=0
        p = min(1.0, 2.0 ** (1 - len(diffs)))  # each sign a fair coin under no difference
        test = "sign test (exact)"
    difference = Difference(spread.estimate, spread.se, spread.low, spread.high, p, len(diffs))
    return Comparison(model, leader, difference, test, only_model, only_leader)


def _pass_fail(pairs: Sequence[tuple[Record, Record]]) -> bool:
    """Every case drawn once and scored 1 when it passed, 0 when not: McNemar's ground."""
    for pair in pairs:
        for r in pair:
            if len(getattr(r, "samples", None) or ()) > 1:
                return False
            if case_score(r) != float(r.status == PASSED):
                return False
    return True


def paired_sd(mine: Sequence[Record], theirs: Sequence[Record]) -> tuple[float, int] | None:
    """The sd of the per-case differences of accuracy between two models, and their count."""
    by_case = {r.case_id: r for r in graded(theirs)}
    pairs = [(a, by_case[a.case_id]) for a in graded(mine) if a.case_id in by_case]
    pairs = [(a, b) for a, b in pairs if a.weight > 0]
    diffs = linearised(
        [case_score(a) - case_score(b) for a, b in pairs], [a.weight for a, _ in pairs]
    )
    if len(diffs) < 2:
        return None
    return stdlib_statistics.stdev(diffs), len(diffs)


def power_line(ranked: Sequence[str], by_model: Mapping[str, Sequence[Record]]) -> Power | None:
    """The power of a comparison between the top two models; one model: as if a second,
    unrelated one had the same spread (the sd of a difference is then √2 times)."""
    if len(ranked) >= 2:
        found = paired_sd(by_model[ranked[1]], by_model[ranked[0]])
        models: tuple[str, ...] = (ranked[0], ranked[1])
        assumed = False
    elif ranked:
        kept = [r for r in graded(by_model[ranked[0]]) if r.weight > 0]
        values = linearised([case_score(r) for r in kept], [r.weight for r in kept])
        found = (
            (math.sqrt(2) * stdlib_statistics.stdev(values), len(values))
            if len(values) > 1
            else None
        )
        models = (ranked[0],)
        assumed = True
    else:
        return None
    if found is None:
        return None
    sd, n = found
    detectable = min_detectable_difference(sd, n, ALPHA, POWER)
    needed = cases_needed(TARGET, sd, ALPHA, POWER) if sd > 0 else None
    return Power(models, n, sd, detectable, TARGET, needed, assumed)


def composite_intervals(
    by_model: Mapping[str, Sequence[Record]],
    composites: Callable[[dict[str, list[Record]]], Mapping[str, float]],
) -> dict[str, Interval]:
    """A bootstrap over cases of every model's composite, and of each pair's difference
    ("a - b"): cases are drawn with replacement, the same for every model, and the composite
    recomputed on each draw, relative dimensions (cost against the cheapest) and all."""
    by_case: dict[str, dict[str, Record]] = {}
    for model, records in by_model.items():
        for r in records:
            by_case.setdefault(r.case_id, {})[model] = r
    cases = sorted(by_case)
    models = sorted(by_model)

    def statistic(sample: Sequence[str]) -> dict[str, float]:
        drawn = {m: [by_case[c][m] for c in sample if m in by_case[c]] for m in models}
        values = dict(composites(drawn))
        for a in models:
            for b in models:
                if a != b and a in values and b in values:
                    values[f"{a} - {b}"] = values[a] - values[b]
        return values

    return bootstrap_intervals(cases, statistic, LEVEL, RESAMPLES, SEED)


def separated(difference: Interval | Difference | None) -> bool:
    """Whether an interval of a difference leaves out 0 (the two are told apart)."""
    if difference is None or difference.low is None or difference.high is None:
        return False
    return difference.low > 0 or difference.high < 0


def half_width(interval: Interval | None) -> float | None:
    """What `±` shows: half the interval's width (the exact bounds are in the JSON report)."""
    if interval is None or interval.low is None or interval.high is None:
        return None
    return (interval.high - interval.low) / 2


__all__ = ["LEVEL", "Comparison", "Power", "z_value"]
