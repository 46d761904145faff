"""What a leaderboard's numbers can be trusted to say: a 95% interval on each, each model
against the leader on the same cases, ranks the data cannot separate, and the project's power.

Pure: records in, numbers out (no pytest, no I/O); the statistics are `statistics.py`'s.
A case counts once, by its score: with repeats, that is the mean over its samples, so the
standard errors are over cases (Miller 2024), clustered by a case's `group` when cases share
one (never narrower than without groups), and the paired tests count out the signs of whole
groups. A case's weight counts as in the accuracy: the interval is that of the weighted mean
(the ratio estimator's linearisation; with equal weights, the plain mean's).
"""

from __future__ import annotations

import math
import statistics as stdlib_statistics
from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass

from pytest_arena.record import ERROR, FAILED, PASSED, Record
from pytest_arena.reports.statistics import (
    SIGN_FLIP_MOST,
    Difference,
    Interval,
    bootstrap_intervals,
    cases_needed,
    clustered_interval,
    design_effect,
    effective_count,
    mcnemar_exact,
    mean_interval,
    min_detectable_difference,
    no_spread_interval,
    normal_p_value,
    sign_flip_p,
    wilson_bounds,
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
    test: str  # "McNemar (exact)", "sign-flip (exact)", "paired z"... ("by group" with groups)
    only_model: int = 0  # cases only `model` passed (McNemar's discordant counts)
    only_against: int = 0
    weightless: int = 0  # cases both graded that weigh 0, left out of the difference

    @property
    def significant(self) -> bool:
        p = self.difference.p_value
        return p is not None and p < ALPHA


@dataclass(frozen=True)
class Power:
    """What this project can tell apart: at POWER and ALPHA, with `n` paired cases whose
    differences have sd `paired_sd` (between `models`), differences of `detectable` or more;
    a difference of `target` needs `needed` cases (with groups, as many times more as the
    design effect of the differences says)."""

    models: tuple[str, ...]
    n: int
    paired_sd: float
    detectable: float
    target: float
    needed: int | None  # None: the models never differ on a case, so no spread to go by
    assumed: bool = False  # one model: the sd of a difference assumed as of two unrelated ones
    design_effect: float = 1.0  # cases in groups: each counts as 1/design_effect of a case


def graded(records: Sequence[Record]) -> list[Record]:
    return [r for r in records if r.status in GRADED]


def case_score(record: Record) -> float:
    """A graded case's score: its mean over samples; an error scores 0."""
    return 0.0 if record.status == ERROR else float(record.score or 0.0)


def _cluster(record: Record, other: Record | None = None) -> str:
    """The cluster of a case: its group (the other run's or model's, if only that one has
    one), else the case alone."""
    group = record.group or (other.group if other is not None else None)
    return f"group:{group}" if group else f"case:{record.case_id}"


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
    """The interval of the weighted mean of `value` over `records` (weight 0 left out),
    clustered by group, cut to [0, 1] for values in [0, 1]. Values that all came out the same
    have no spread to go by: in [0, 1], `no_spread_interval` over Kish's effective number of
    cases; without bounds, no interval (it would be a guess)."""
    kept = [r for r in records if r.weight > 0]
    raw = [value(r) for r in kept]
    weights = [r.weight for r in kept]
    values = linearised(raw, weights)
    bounded = bool(raw) and all(0.0 <= v <= 1.0 for v in raw)
    if len(values) < 2:
        return mean_interval(values, LEVEL)
    if len(set(raw)) == 1:
        if not bounded:
            return Interval(raw[0], None, None, None, len(values))
        return no_spread_interval(raw[0], len(values), LEVEL, effective=effective_count(weights))
    if _clustered(kept):
        found = clustered_interval(values, [_cluster(r) for r in kept], LEVEL)
    else:
        found = mean_interval(values, LEVEL)
    return clipped(found) if bounded else found


def clipped(interval: Interval) -> Interval:
    """The interval cut to [0, 1], where the mean of values in [0, 1] lies: the CLT's may
    reach past them near 0 and 1 (the cut keeps the truth inside whenever it was)."""
    if interval.low is None or interval.high is None:
        return interval
    return Interval(
        interval.estimate, interval.se, max(0.0, interval.low), min(1.0, interval.high), interval.n
    )


def pass_rate_interval(records: Sequence[Record]) -> Interval:
    """Wilson's interval of the share of graded cases that passed. When cases share a group,
    Wilson's over their effective number, n / the design effect of the clustered standard
    error: as much wider as the groups make it, and never narrower (the effect is at least 1)."""
    passed = [float(r.status == PASSED) for r in records]
    plain = wilson_interval(int(sum(passed)), len(records), LEVEL)
    if not _clustered(records) or plain.estimate is None or plain.se is None:
        return plain
    effect = design_effect(passed, [_cluster(r) for r in records])
    if effect <= 1.0:
        return plain
    low, high = wilson_bounds(plain.estimate, len(records) / effect, LEVEL)
    return Interval(plain.estimate, plain.se * math.sqrt(effect), low, high, plain.n)


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
    """`model` against `leader` on the cases both graded (paired by case; weight 0 left out)."""
    by_case = {r.case_id: r for r in graded(theirs)}
    both = [(r, by_case[r.case_id]) for r in graded(mine) if r.case_id in by_case]
    pairs = [(a, b) for a, b in both if a.weight > 0]
    weightless = len(both) - len(pairs)
    weights = [a.weight for a, _ in pairs]
    raw = [case_score(a) - case_score(b) for a, b in pairs]
    diffs = linearised(raw, weights)
    if len(diffs) < 2:
        mean = diffs[0] if diffs else None
        nothing = Difference(mean, None, None, None, None, len(diffs))
        return Comparison(model, leader, nothing, "-", weightless=weightless)
    grouped = _clustered([r for pair in pairs for r in pair])
    clusters = [_cluster(a, b) for a, b in pairs] if grouped else None
    spread = _paired_spread(raw, diffs, weights, clusters)
    only_model = sum(a.status == PASSED and b.status != PASSED for a, b in pairs)
    only_leader = sum(b.status == PASSED and a.status != PASSED for a, b in pairs)
    if clusters is None and _pass_fail(pairs) and len(set(weights)) == 1:
        p, test = mcnemar_exact(only_model, only_leader), "McNemar (exact)"
    else:
        p, test = _paired_test(raw, weights, clusters, spread)
    difference = Difference(spread.estimate, spread.se, spread.low, spread.high, p, len(diffs))
    return Comparison(model, leader, difference, test, only_model, only_leader, weightless)


def _paired_spread(
    raw: Sequence[float],
    diffs: Sequence[float],
    weights: Sequence[float],
    clusters: Sequence[Hashable] | None,
) -> Interval:
    """The interval of the mean paired difference (`diffs`, linearised from `raw`): clustered
    by group; when every case moved alike, `no_spread_interval` in [-1, 1]."""
    if len(set(raw)) == 1 and -1.0 <= raw[0] <= 1.0:
        return no_spread_interval(raw[0], len(diffs), LEVEL, (-1.0, 1.0), effective_count(weights))
    if clusters is not None:
        return clustered_interval(diffs, clusters, LEVEL)
    return mean_interval(diffs, LEVEL)


def _paired_test(
    raw: Sequence[float],
    weights: Sequence[float],
    clusters: Sequence[Hashable] | None,
    spread: Interval,
) -> tuple[float, str]:
    """The p-value of a paired difference and its test's name, McNemar's aside. The weighted
    differences are summed by group (by case without groups): cases of a group move together,
    so a group is one draw. When at most SIGN_FLIP_MOST sums differ from 0, their signs are
    counted out (the normal tail is no guide to a few: one group, or one heavy case, that
    moved gives p = 1); when more all moved alike, the sign test; else the z-test."""
    units = _unit_sums([w * d for w, d in zip(weights, raw, strict=True)], clusters)
    by = "" if clusters is None else " by group"
    if sum(u != 0 for u in units) <= SIGN_FLIP_MOST:
        return sign_flip_p(units), f"sign-flip{by} (exact)"
    if len(set(raw)) == 1:  # every case moved alike: the z-test would say p = 0
        return min(1.0, 2.0 ** (1 - len(units))), f"sign test{by} (exact)"
    assert spread.estimate is not None and spread.se is not None
    clustered = "" if clusters is None else ", clustered"
    return normal_p_value(spread.estimate, spread.se), f"paired z{clustered}"


def _unit_sums(moved: Sequence[float], clusters: Sequence[Hashable] | None) -> list[float]:
    """The differences summed by cluster, in order of first appearance; unclustered, as they are."""
    if clusters is None:
        return list(moved)
    sums: dict[Hashable, list[float]] = {}
    for cluster, d in zip(clusters, moved, strict=True):
        sums.setdefault(cluster, []).append(d)
    return [math.fsum(found) for found in sums.values()]


def _pass_fail(pairs: Sequence[tuple[Record, Record]]) -> bool:
    """Every case drawn once and scored 1 when it passed, 0 when not: McNemar's ground."""
    for pair in pairs:
        for r in pair:
            if len(getattr(r, "samples", None) or ()) > 1:
                return False
            if case_score(r) != float(r.status == PASSED):
                return False
    return True


def paired_sd(mine: Sequence[Record], theirs: Sequence[Record]) -> tuple[float, int, float] | None:
    """The sd of the per-case differences of accuracy between two models, their count, and
    their design effect (1 unless cases share groups)."""
    by_case = {r.case_id: r for r in graded(theirs)}
    pairs = [(a, by_case[a.case_id]) for a in graded(mine) if a.case_id in by_case]
    pairs = [(a, b) for a, b in pairs if a.weight > 0]
    diffs = linearised(
        [case_score(a) - case_score(b) for a, b in pairs], [a.weight for a, _ in pairs]
    )
    if len(diffs) < 2:
        return None
    effect = _effect(diffs, [_cluster(a, b) for a, b in pairs])
    return stdlib_statistics.stdev(diffs), len(diffs), effect


def _effect(values: Sequence[float], clusters: Sequence[str]) -> float:
    """The design effect of `values` in `clusters`: 1 when each is its own."""
    return design_effect(values, clusters) if len(set(clusters)) < len(clusters) else 1.0


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
            (
                math.sqrt(2) * stdlib_statistics.stdev(values),
                len(values),
                _effect(values, [_cluster(r) for r in kept]),
            )
            if len(values) > 1
            else None
        )
        models = (ranked[0],)
        assumed = True
    else:
        return None
    if found is None:
        return None
    sd, n, effect = found
    spread = sd * math.sqrt(effect)  # the sd a case counts with, its group's share in it
    detectable = min_detectable_difference(spread, n, ALPHA, POWER)
    needed = cases_needed(TARGET, spread, ALPHA, POWER) if sd > 0 else None
    return Power(models, n, sd, detectable, TARGET, needed, assumed, effect)


@dataclass(frozen=True)
class PairedInterval(Interval):
    """A bootstrap interval of a paired difference of composites, with the p-value of an exact
    sign-flip test of the same cases (None: too many differ to count out, or not asked)."""

    p_value: float | None = None


def composite_intervals(
    by_model: Mapping[str, Sequence[Record]],
    composites: Callable[[dict[str, list[Record]]], Mapping[str, float]],
) -> dict[str, Interval]:
    """A bootstrap over cases of every model's composite, and of each pair's difference
    ("a - b"): cases are drawn with replacement, the same for every model, and the composite
    recomputed on each draw, relative dimensions (cost against the cheapest) and all. When
    cases share groups (two groups or more), groups are drawn whole too, and each interval
    is the wider of the two bootstraps' (groups only ever widen an interval). A
    difference whose interval leaves out 0 carries the exact sign-flip test of the per-case
    differences of composites (each case's computed on it alone; summed by group when cases
    share one), which `separated` also asks of it: a percentile bootstrap of a few cases (two
    that agree) leaves out 0 where no paired test on them could be significant."""
    by_case: dict[str, dict[str, Record]] = {}
    for model, records in by_model.items():
        for r in records:
            by_case.setdefault(r.case_id, {})[model] = r
    cases = sorted(by_case)
    models = sorted(by_model)
    pairs = {f"{a} - {b}": (a, b) for a in models for b in models if a != b}

    def statistic(sample: Sequence[str]) -> dict[str, float]:
        drawn = {m: [by_case[c][m] for c in sample if m in by_case[c]] for m in models}
        values = dict(composites(drawn))
        for name, (a, b) in pairs.items():
            if a in values and b in values:
                values[name] = values[a] - values[b]
        return values

    found = bootstrap_intervals(cases, statistic, LEVEL, RESAMPLES, SEED)
    clusters: dict[str, list[str]] = {}
    for c in cases:
        clusters.setdefault(_case_cluster(by_case[c]), []).append(c)
    if 2 <= len(clusters) < len(cases):  # cases share groups: a group is one draw too

        def grouped(sample: Sequence[str]) -> dict[str, float]:
            return statistic([c for cluster in sample for c in clusters[cluster]])

        drawn = bootstrap_intervals(sorted(clusters), grouped, LEVEL, RESAMPLES, SEED)
        found = {name: _wider(interval, drawn.get(name)) for name, interval in found.items()}
    alone: list[tuple[str, Mapping[str, float]]] | None = None  # (cluster, composites) a case
    for name, interval in found.items():
        pair = pairs.get(name)
        if pair is not None and separated(interval):
            if alone is None:
                alone = [(_case_cluster(by_case[c]), _alone(composites, by_case[c])) for c in cases]
            found[name] = _with_sign_flip(interval, alone, *pair)
    return found


def _wider(interval: Interval, other: Interval | None) -> Interval:
    """`interval` widened to hold `other` too (its estimate and count kept)."""
    if other is None or other.low is None or other.high is None or other.se is None:
        return interval
    if interval.low is None or interval.high is None or interval.se is None:
        return interval
    return Interval(
        interval.estimate,
        max(interval.se, other.se),
        min(interval.low, other.low),
        max(interval.high, other.high),
        interval.n,
    )


def _alone(
    composites: Callable[[dict[str, list[Record]]], Mapping[str, float]],
    case: Mapping[str, Record],
) -> Mapping[str, float]:
    """Every model's composite of one case, computed on that case alone."""
    return composites({model: [record] for model, record in case.items()})


def _case_cluster(case: Mapping[str, Record]) -> str:
    """The cluster of one case: the group any model's record names, else the case."""
    first = next(iter(case.values()))
    grouped = next((r for r in case.values() if r.group), first)
    return _cluster(grouped)


def _with_sign_flip(
    interval: Interval, alone: Sequence[tuple[str, Mapping[str, float]]], a: str, b: str
) -> PairedInterval:
    """`interval` with the exact sign-flip p-value of a's composite minus b's, case by case
    summed by cluster (a group is one draw)."""
    both = [
        (cluster, values[a] - values[b]) for cluster, values in alone if a in values and b in values
    ]
    units = _unit_sums([d for _, d in both], [cluster for cluster, _ in both])
    moved = sum(u != 0 for u in units)
    p = sign_flip_p(units) if moved <= SIGN_FLIP_MOST else None
    return PairedInterval(
        interval.estimate, interval.se, interval.low, interval.high, interval.n, p
    )


def separated(difference: Interval | Difference | None) -> bool:
    """Whether an interval of a difference leaves out 0 (the two are told apart), and, for a
    composite's that carries a paired test, that test says so too (p < ALPHA)."""
    if difference is None or difference.low is None or difference.high is None:
        return False
    tested = difference.p_value if isinstance(difference, PairedInterval) else None
    if tested is not None and tested >= ALPHA:
        return False
    return difference.low > 0 or difference.high < 0


def half_width(interval: Interval | None) -> float | None:
    """What `±` shows: half the interval's width (the exact bounds are in the JSON report)."""
    if interval is None or interval.low is None or interval.high is None:
        return None
    return (interval.high - interval.low) / 2


__all__ = ["LEVEL", "Comparison", "Power", "z_value"]
