"""What a leaderboard's numbers can be trusted to say: a 95% interval on each, each model
against the leader on the same cases, ranks the data cannot separate, and the project's power.

Pure: records in, numbers out (no pytest, no I/O); the statistics are `statistics.py`'s.
A case counts once, by its score: with repeats, that is the mean over its samples, so the
standard errors are over cases (Miller 2024), clustered by a case's `group` when cases share
one (never narrower than without groups), and the paired tests count out the signs of whole
groups. A case's weight counts as in the accuracy: the interval is that of the weighted mean
(the ratio estimator's linearisation; with equal weights, the plain mean's), with Student's t
quantile of n - 1 degrees of freedom (G - 1 for G groups).
"""

from __future__ import annotations

import math
import statistics as stdlib_statistics
from collections.abc import Callable, Collection, Hashable, Iterable, Mapping, Sequence
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
    least_all_one_way,
    mcnemar_exact,
    mean_interval,
    min_detectable_difference,
    no_spread_interval,
    sign_flip_p,
    student_p_value,
    t_value,
    weighted_mean,
    wilson_bounds,
    wilson_interval,
    z_value,
)

LEVEL = 0.95  # of every interval
ALPHA = 0.05  # two models are told apart when p < ALPHA (the interval leaves out 0)
POWER = 0.8
TARGET = 0.03  # the power line says how many cases a 3-point difference needs
RESAMPLES = 1000  # of the composite's bootstrap, up to RESAMPLED_MOST / RESAMPLES cases
RESAMPLED_MOST = 5_000_000  # cases one bootstrap draws in all: fewer resamples of more cases
RESAMPLES_LEAST = 200  # however many cases (50,000 cases: 200 resamples)
SEED = 0  # the bootstrap's: a report repeats exactly
GRADED = frozenset({PASSED, FAILED, ERROR, "flaky"})  # "flaky": a repeated, undecided case


@dataclass(frozen=True)
class Comparison:
    """`model` against `against` (the leader) on the cases both graded: the mean paired
    difference of their accuracy (model - leader), its interval and p-value."""

    model: str
    against: str
    difference: Difference
    test: str  # "McNemar (exact)", "sign-flip (exact)", "paired t"... ("by group" with groups)
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
    differences have sd `paired_sd` (between `models`), counting as `effective` cases with
    their weights, differences of `detectable` or more (above 1, none an accuracy can show);
    a difference of `target` needs `needed` cases weighted as these (with groups, as many
    times more as the design effect of the differences says). `test` is the paired test the
    board tells the models apart by; when it counts signs (exact tests), it gives p < ALPHA
    only with `least` units (cases, or groups) or more, all moving one way: with fewer, no
    difference is found, whatever its size (`reachable`)."""

    models: tuple[str, ...]
    n: int
    paired_sd: float
    detectable: float
    target: float
    needed: int | None  # None: the models never differ on a case, so no spread to go by
    assumed: bool = False  # one model: the sd of a difference assumed as of two unrelated ones
    design_effect: float = 1.0  # cases in groups: each counts as 1/design_effect of a case
    test: str = ""  # "McNemar (exact)", "sign-flip (exact)", "paired t"... ("" in old reports)
    groups: int | None = None  # cases in groups: how many groups, the units the tests count
    least: int = 0  # the fewest units an exact test of signs needs for p < ALPHA; 0: not one
    effective: float | None = None  # Kish's number of the n cases (None in old reports)

    @property
    def weighted(self) -> bool:
        """Whether the cases' weights make them count as fewer than `n`."""
        return self.effective is not None and self.effective < self.n

    @property
    def units(self) -> int:
        """What the test counts: groups when cases share them, else cases."""
        return self.groups or self.n

    @property
    def reachable(self) -> bool:
        """Whether the test can give p < ALPHA on this many units at all."""
        return self.units >= self.least

    @property
    def floor(self) -> float:
        """The smallest p the test can give on this many units, every unit moving the same
        way: 2 / 2**units (0 for a test that does not count signs)."""
        return 2.0 ** (1 - self.units) if self.least else 0.0

    @property
    def in_range(self) -> bool:
        """Whether `detectable` is a difference an accuracy can show (at most 1)."""
        return self.detectable <= 1.0

    @property
    def needed_groups(self) -> int | None:
        """With groups, how many groups of this size the `needed` cases make."""
        if self.groups is None or self.needed is None or not self.n:
            return None
        return math.ceil(self.needed * self.groups / self.n - 1e-9)


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
    n = len(values)
    mean = weighted_mean(values, weights)
    if not n or mean is None:
        return []
    if all(w == weights[0] for w in weights):
        return list(values)
    shares = [w / max(weights) for w in weights]  # Σw could overflow; the shares cannot
    total = math.fsum(shares)
    found = [mean + s * n / total * (v - mean) for v, s in zip(values, shares, strict=True)]
    return found if all(math.isfinite(x) for x in found) else []


def weighted_interval(
    records: Sequence[Record], value: Callable[[Record], float], bounded: bool = True
) -> Interval:
    """The interval of the weighted mean of `value` over `records` (weight 0 left out),
    clustered by group, cut to [0, 1] for values in [0, 1] (`bounded`: where all values
    there can be are, as far as is known). Values that all came out the same have no spread
    to go by: in [0, 1], `no_spread_interval` over Kish's effective number of cases; without
    bounds, no interval (it would be a guess). Unequal weights: no narrower than Kish's
    interval (`kish_floored`)."""
    kept = [r for r in records if r.weight > 0]
    raw = [value(r) for r in kept]
    weights = [r.weight for r in kept]
    values = linearised(raw, weights)
    bounded = bounded and bool(raw) and all(0.0 <= v <= 1.0 for v in raw)
    if len(values) < 2:
        return mean_interval(values, LEVEL)
    if len(set(raw)) == 1:
        if not bounded:
            return Interval(raw[0], None, None, None, len(values))
        return no_spread_interval(raw[0], len(values), LEVEL, effective=effective_count(weights))
    clusters = [_cluster(r) for r in kept] if _clustered(kept) else None
    if clusters is not None:
        found = clustered_interval(values, clusters, LEVEL)
    else:
        found = mean_interval(values, LEVEL)
    if not bounded:
        return found
    return clipped(kish_floored(found, weights, (0.0, 1.0), _df(len(values), clusters)))


def kish_floored(
    interval: Interval,
    weights: Sequence[float],
    bounds: tuple[float, float],
    df: float,
) -> Interval:
    """A t interval of a weighted mean in `bounds` (`df`: its t's degrees of freedom), of
    unequal `weights` widened to count the cases Kish's effective number n_e does
    (`_kish_half`). The linearised standard error is kept: it is taken of values pulled to
    the mean by the heaviest cases, so of few cases in effect it says little (of one case of
    weight 1,000 among three of weight 1, n_e 1.006, it was 0.004 on a mean of 0.003)."""
    estimate, se = interval.estimate, interval.se
    if estimate is None or se is None or interval.high is None or len(set(weights)) < 2:
        return interval
    half = _kish_half(estimate, se, interval.n, weights, bounds, df)
    if half <= interval.high - estimate:
        return interval
    return Interval(estimate, se, estimate - half, estimate + half, interval.n)


def _kish_half(
    estimate: float,
    se: float,
    n: int,
    weights: Sequence[float],
    bounds: tuple[float, float],
    df: float,
) -> float:
    """Half the width of a weighted mean's interval over Kish's n_e = (Σw)² / Σw² cases: t of
    no more than n_e - 1 degrees of freedom, and no narrower than `no_spread_interval` over
    n_e around the mean (a share of cases up to z²/(n_e + z²) not drawn may lie anywhere in
    `bounds`, whatever the drawn ones did); below two cases in effect, no spread can be
    measured: all of `bounds`."""
    effective = effective_count(weights)
    low, high = bounds
    if effective < 2:
        return max(estimate - low, high - estimate)
    floor = no_spread_interval(min(max(estimate, low), high), n, LEVEL, bounds, effective)
    assert floor.low is not None and floor.high is not None
    t = t_value(LEVEL, min(df, effective - 1))
    return max(t * se, estimate - floor.low, floor.high - estimate)


def _kish_df(df: float, weights: Sequence[float]) -> float | None:
    """`df`, no more than Kish's n_e - 1 of unequal `weights`; None below two cases in effect."""
    if len(set(weights)) < 2:
        return df
    effective = effective_count(weights)
    return None if effective < 2 else min(df, effective - 1)


def _df(n: int, clusters: Sequence[Hashable] | None) -> int:
    """The degrees of freedom of `clustered_interval`'s t (`mean_interval`'s without
    clusters): one fewer than the clusters, when two or more and fewer than the cases, else
    than the cases."""
    count = n if clusters is None else len(set(clusters))
    return count - 1 if 2 <= count < n else n - 1


def clipped(interval: Interval, low: float = 0.0, high: float = 1.0) -> Interval:
    """The interval cut to [low, high], where the mean of values in it lies ([0, 1] for
    scores, [-1, 1] for differences of scores): t's may reach past them near the ends, the
    more so with few cases (the cut keeps the truth inside whenever it was)."""
    if interval.low is None or interval.high is None:
        return interval
    return Interval(
        interval.estimate,
        interval.se,
        max(low, interval.low),
        min(high, interval.high),
        interval.n,
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


def row_intervals(
    records: Sequence[Record], unbounded: Collection[str] = frozenset()
) -> dict[str, Interval]:
    """Accuracy, pass rate and each custom metric of one model's records; `unbounded`: the
    metrics that go outside [0, 1] for some model of the board (no interval of this model's
    is cut to [0, 1], nor made up where its values all came out the same)."""
    found = graded(records)
    intervals = {
        "accuracy": weighted_interval(found, case_score),
        "pass_rate": pass_rate_interval(found),
    }
    for name in sorted({n for r in records for n in r.metrics}):
        having = [r for r in records if name in r.metrics]
        intervals[name] = weighted_interval(having, _metric(name), name not in unbounded)
    return intervals


def unbounded_metrics(records: Iterable[Record]) -> set[str]:
    """The custom metrics with a value outside [0, 1] in `records`."""
    return {n for r in records for n, v in r.metrics.items() if not 0.0 <= v <= 1.0}


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
    if _mcnemar(pairs, clusters, weights):
        p, test = mcnemar_exact(only_model, only_leader), "McNemar (exact)"
    else:
        p, test = _paired_test(raw, weights, clusters, spread)
    spread = clipped(spread, -1.0, 1.0)  # a difference of accuracies lies in [-1, 1]
    difference = Difference(spread.estimate, spread.se, spread.low, spread.high, p, len(diffs))
    return Comparison(model, leader, difference, test, only_model, only_leader, weightless)


def _mcnemar(
    pairs: Sequence[tuple[Record, Record]],
    clusters: Sequence[Hashable] | None,
    weights: Sequence[float],
) -> bool:
    """Whether McNemar's exact test compares the pairs: one pass/fail sample a case, of
    equal weight, in no groups."""
    return clusters is None and _pass_fail(pairs) and len(set(weights)) == 1


def _paired_spread(
    raw: Sequence[float],
    diffs: Sequence[float],
    weights: Sequence[float],
    clusters: Sequence[Hashable] | None,
) -> Interval:
    """The interval of the mean paired difference (`diffs`, linearised from `raw`): clustered
    by group; when every case moved alike, `no_spread_interval` in [-1, 1]; of unequal
    weights, no narrower than Kish's interval (`kish_floored`)."""
    bounded = all(-1.0 <= d <= 1.0 for d in raw)
    if len(set(raw)) == 1 and bounded:
        return no_spread_interval(raw[0], len(diffs), LEVEL, (-1.0, 1.0), effective_count(weights))
    if clusters is not None:
        found = clustered_interval(diffs, clusters, LEVEL)
    else:
        found = mean_interval(diffs, LEVEL)
    if not bounded:
        return found
    return kish_floored(found, weights, (-1.0, 1.0), _df(len(diffs), clusters))


def _paired_test(
    raw: Sequence[float],
    weights: Sequence[float],
    clusters: Sequence[Hashable] | None,
    spread: Interval,
) -> tuple[float, str]:
    """The p-value of a paired difference and its test's name, McNemar's aside. The weighted
    differences are summed by group (by case without groups): cases of a group move together,
    so a group is one draw. When at most SIGN_FLIP_MOST sums differ from 0, their signs are
    counted out (the t tail is no guide to a few: one group, or one heavy case, that moved
    gives p = 1); when more all moved alike, the sign test. Of unequal weights, neither gives
    less than the interval's own p (`_interval_p`): the signs count every case that moved as
    one unit, the interval the cases as Kish's n_e (one case of weight 1,000 among 39 of
    weight 1, n_e 1.08: ten that moved all one way gave p = 2 / 2**10 = 0.002, "different",
    of an interval of -1 to 1; now 1). Else the paired t-test, whose
    degrees of freedom and standard error are the interval's (one fewer than the cases, or
    the groups; of unequal weights, no more than Kish's n_e - 1, and the se its half-width
    over t: p = 1 below two cases in effect), so that p < ALPHA exactly when the interval
    leaves out 0."""
    units = _unit_sums([w * d for w, d in zip(weights, raw, strict=True)], clusters)
    by = "" if clusters is None else " by group"
    # of unequal weights, the interval counts the cases as Kish's n_e: no exact p below its own
    least = _interval_p(spread, weights, len(raw), clusters) if len(set(weights)) > 1 else 0.0
    if sum(u != 0 for u in units) <= SIGN_FLIP_MOST:
        return max(sign_flip_p(units), least), f"sign-flip{by} (exact)"
    if len(set(raw)) == 1:  # every case moved alike: the t-test would say p = 0
        return max(min(1.0, 2.0 ** (1 - len(units))), least), f"sign test{by} (exact)"
    assert spread.estimate is not None and spread.se is not None and spread.high is not None
    clustered = "" if clusters is None else ", clustered"
    df = _kish_df(len(units) - 1, weights)
    if df is None:
        return 1.0, f"paired t{clustered}"
    se = spread.se
    if len(set(weights)) > 1:  # Kish's interval's: t · se is its half-width
        se = max(se, (spread.high - spread.estimate) / t_value(LEVEL, df))
    return student_p_value(spread.estimate, se, df), f"paired t{clustered}"


def _interval_p(
    spread: Interval,
    weights: Sequence[float],
    n: int,
    clusters: Sequence[Hashable] | None,
) -> float:
    """The p-value the interval of the mean difference (`spread`, of `n` cases) gives: its
    reach from the estimate towards 0 taken as t standard errors, t of the interval's degrees
    of freedom (`_df`, no more than Kish's n_e - 1 of unequal weights), so that p < ALPHA
    exactly when the interval leaves out 0; 1 below two cases (groups) in effect."""
    estimate, low, high = spread.estimate, spread.low, spread.high
    df = _kish_df(_df(n, clusters), weights)
    if estimate is None or low is None or high is None or df is None or df < 1 or not estimate:
        return 1.0
    reach = high - estimate if estimate < 0 else estimate - low
    if reach <= 0:
        return 0.0
    return student_p_value(estimate, reach / t_value(LEVEL, df), df)


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


@dataclass(frozen=True)
class _Spread:
    """What sizes a comparison: the sd of the per-case differences, their count, their
    design effect (1 unless cases share groups), the groups, the test that compares, the
    least sd a case counts with (`kish_floored`'s, of unequal weights), and Kish's effective
    number of the cases (their count, of equal weights)."""

    sd: float
    n: int
    effect: float
    groups: int | None
    test: str
    least_sd: float
    effective: float


def paired_sd(mine: Sequence[Record], theirs: Sequence[Record]) -> tuple[float, int, float] | None:
    """The sd of the per-case differences of accuracy between two models, their count, and
    their design effect (1 unless cases share groups)."""
    found = _paired_spread_of(mine, theirs)
    return None if found is None else (found.sd, found.n, found.effect)


def _paired_spread_of(mine: Sequence[Record], theirs: Sequence[Record]) -> _Spread | None:
    by_case = {r.case_id: r for r in graded(theirs)}
    pairs = [(a, by_case[a.case_id]) for a in graded(mine) if a.case_id in by_case]
    pairs = [(a, b) for a, b in pairs if a.weight > 0]
    weights = [a.weight for a, _ in pairs]
    raw = [case_score(a) - case_score(b) for a, b in pairs]
    diffs = linearised(raw, weights)
    if len(diffs) < 2:
        return None
    clusters = [_cluster(a, b) for a, b in pairs]
    grouped = _clustered([r for pair in pairs for r in pair])
    test = _test_of(_mcnemar(pairs, clusters if grouped else None, weights), clusters, grouped)
    least = _least_sd(raw, diffs, weights, (-1.0, 1.0))
    sd = stdlib_statistics.stdev(diffs)
    return _spread_with(sd, diffs, weights, clusters, grouped, test, least)


def _spread_with(
    sd: float,
    values: Sequence[float],
    weights: Sequence[float],
    clusters: Sequence[str],
    grouped: bool,
    test: str,
    least_sd: float,
) -> _Spread:
    count = len(set(clusters))
    groups = count if grouped and count < len(values) else None
    effect = _effect(values, clusters)
    return _Spread(sd, len(values), effect, groups, test, least_sd, effective_count(weights))


def _least_sd(
    raw: Sequence[float],
    values: Sequence[float],
    weights: Sequence[float],
    bounds: tuple[float, float],
) -> float:
    """The sd of `values` (linearised from `raw`, unclustered) that Kish's interval
    (`kish_floored`) takes them as having: its half-width over t, times √n. 0 of equal
    weights, of values that all came out the same (no spread to size by), or that go past
    `bounds`."""
    if len(set(weights)) < 2 or len(set(raw)) == 1:
        return 0.0
    if not all(bounds[0] <= v <= bounds[1] for v in raw):
        return 0.0
    n = len(values)
    mean, se = stdlib_statistics.fmean(values), stdlib_statistics.stdev(values) / math.sqrt(n)
    half = _kish_half(mean, se, n, weights, bounds, n - 1)
    return half / t_value(LEVEL, _kish_df(n - 1, weights) or n - 1) * math.sqrt(n)


def _test_of(mcnemar: bool, clusters: Sequence[str], grouped: bool) -> str:
    """The test a comparison on these cases would take, as `compare` names it (with more
    than SIGN_FLIP_MOST units, the t-test, as when more than that many differ)."""
    if mcnemar:
        return "McNemar (exact)"
    units = len(set(clusters)) if grouped else len(clusters)
    by = " by group" if grouped else ""
    if units <= SIGN_FLIP_MOST:
        return f"sign-flip{by} (exact)"
    return f"paired t{', clustered' if grouped else ''}"


def _effect(values: Sequence[float], clusters: Sequence[str]) -> float:
    """The design effect of `values` in `clusters`: 1 when each is its own."""
    return design_effect(values, clusters) if len(set(clusters)) < len(clusters) else 1.0


def power_line(ranked: Sequence[str], by_model: Mapping[str, Sequence[Record]]) -> Power | None:
    """The power of a comparison between the top two models; one model: as if a second,
    unrelated one had the same spread (the sd of a difference is then √2 times).

    Student's t quantiles, with one degree of freedom fewer than the units the test counts
    (cases, or groups when cases share them; of unequal weights, no more than Kish's effective
    number of cases, as the interval's t), size a difference (`min_detectable_difference`);
    a test that counts signs (McNemar's, the sign-flip test) finds nothing with fewer than
    `least_all_one_way` units; and McNemar's, which counts only the cases where one model
    passed and the other failed, finds a difference d no more often than at least that many
    of n cases do when each differs with chance d, all one way: `detectable` is at least
    that d, `needed` at least that n. The sd they size by is no less than the one Kish's
    interval takes (`kish_floored`): where a few heavy cases carry the weight, the spread of
    the light ones, which count for little, says little of a run's."""
    if len(ranked) >= 2:
        found = _paired_spread_of(by_model[ranked[1]], by_model[ranked[0]])
        models: tuple[str, ...] = (ranked[0], ranked[1])
        assumed = False
    elif ranked:
        kept = [r for r in graded(by_model[ranked[0]]) if r.weight > 0]
        weights = [r.weight for r in kept]
        raw = [case_score(r) for r in kept]
        values = linearised(raw, weights)
        clusters = [_cluster(r) for r in kept]
        grouped = _clustered(kept)
        mcnemar = not grouped and _pass_fail([(r, r) for r in kept]) and len(set(weights)) == 1
        found = (
            _spread_with(
                math.sqrt(2) * stdlib_statistics.stdev(values),
                values,
                weights,
                clusters,
                grouped,
                _test_of(mcnemar, clusters, grouped),
                math.sqrt(2) * _least_sd(raw, values, weights, (0.0, 1.0)),
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
    n, effect = found.n, found.effect
    # the sd a case counts with, its group's share in it, and no less than the interval's floor
    spread = max(found.sd * math.sqrt(effect), found.least_sd)
    # the units the test's t counts: the groups (else the cases), no more than Kish's number
    units = min(found.groups or n, found.effective)
    df = max(1.0, units - 1)  # (one group finds nothing: `least` says so)
    detectable = min_detectable_difference(spread, n, ALPHA, POWER, df)
    needed = cases_needed(TARGET, spread, ALPHA, POWER, n / units) if found.sd > 0 else None
    exact = "exact" in found.test
    least = least_all_one_way(ALPHA) if exact else 0
    if found.test.startswith("McNemar") and n >= least:
        detectable = max(detectable, _all_one_way(n, least))
        if needed is not None:
            needed = max(needed, _cases_all_one_way(TARGET, least))
    return Power(
        models,
        n,
        found.sd,
        detectable,
        TARGET,
        needed,
        assumed,
        effect,
        found.test,
        found.groups,
        least,
        found.effective,
    )


def _at_least(count: int, n: int, chance: float) -> float:
    """P(X >= count) for X ~ Binomial(n, chance)."""
    if count <= 0:
        return 1.0
    if chance >= 1.0:
        return float(n >= count)
    below = math.fsum(
        math.exp(
            math.lgamma(n + 1)
            - math.lgamma(i + 1)
            - math.lgamma(n - i + 1)
            + (i * math.log(chance) if i else 0.0)
            + (n - i) * math.log1p(-chance)
        )
        for i in range(min(count, n + 1))
    )
    return max(0.0, 1.0 - below)


def _all_one_way(n: int, least: int) -> float:
    """The smallest difference d that McNemar's test finds with POWER on n >= `least` cases
    at best: each case differs with chance d, and all one way, so it finds d as often as at
    least `least` of the n differ."""
    low, high = 0.0, 1.0
    for _ in range(60):
        middle = (low + high) / 2
        low, high = (low, middle) if _at_least(least, n, middle) >= POWER else (middle, high)
    return high


def _cases_all_one_way(target: float, least: int) -> int:
    """The fewest cases on which McNemar's test finds a difference of `target` with POWER at
    best (`_all_one_way`)."""
    high = max(least, 1)
    while _at_least(least, high, target) < POWER:
        high *= 2
    low = high // 2
    while high - low > 1:
        middle = (low + high) // 2
        low, high = (low, middle) if _at_least(least, middle, target) >= POWER else (middle, high)
    return high


@dataclass(frozen=True)
class PairedInterval(Interval):
    """A bootstrap interval of a paired difference of composites, with the p-value of an exact
    sign-flip test of the same cases (None: too many differ to count out, or not asked)."""

    p_value: float | None = None


def resamples_for(cases: int) -> int:
    """The composite bootstrap's resamples for so many cases: RESAMPLES up to 5,000 cases,
    then as many as RESAMPLED_MOST drawn cases make, and never fewer than RESAMPLES_LEAST.
    With the same seed, the first of them are the same draws whatever their number."""
    return max(RESAMPLES_LEAST, min(RESAMPLES, RESAMPLED_MOST // max(cases, 1)))


Counted = Callable[[Record], "tuple[float | None, float] | None"]  # a record's (value, weight)


def composite_intervals(
    cases: Sequence[Mapping[str, Record]],
    composites: Callable[[Sequence[int]], Mapping[str, float]],
    parts: Mapping[str, tuple[float, Counted]] | None = None,
) -> dict[str, Interval]:
    """A bootstrap over cases of every model's composite, and of each pair's difference
    ("a - b"). `cases` holds each case's record of each model that answered it, in an order
    of their own (the case ids'); `composites(drawn)` is every model's composite on the
    drawn cases, their indices in `cases`, each as often as drawn (a model none of whose
    cases was drawn is left out). Cases are drawn with replacement, the same for every
    model, and the composite recomputed on each draw, relative dimensions (cost against the
    cheapest) and all: `resamples_for` so many cases, seeded. When cases share groups (two
    groups or more), groups are drawn whole too, and each interval is the wider of the two
    bootstraps' (groups only ever widen an interval). A composite, or a difference, that came
    out the same on every draw has no spread to go by: its interval is `no_spread_interval`
    in [0, 1] ([-1, 1] for a difference) over the cases it is of, as an accuracy's is.
    `parts`: the dimensions the composite weighs as they are (by name: their share of the
    composite, and what a record adds to them); one whose every value is in [0, 1] (`_in_unit`)
    and came out the same on every case of a model (of a pair) widens its interval as
    `_with_flat_parts` says. A
    difference whose interval leaves out 0 carries the exact sign-flip test of the per-case
    differences of composites (each case's computed on it alone; summed by group when cases
    share one), which `separated` also asks of it: a percentile bootstrap of a few cases (two
    that agree) leaves out 0 where no paired test on them could be significant."""
    models = sorted({m for case in cases for m in case})
    pairs = {f"{a} - {b}": (a, b) for a in models for b in models if a != b}

    def statistic(sample: Sequence[int]) -> dict[str, float]:
        values = dict(composites(sample))
        for name, (a, b) in pairs.items():
            if a in values and b in values:
                values[name] = values[a] - values[b]
        return values

    indices = list(range(len(cases)))
    resamples = resamples_for(len(cases))
    found = bootstrap_intervals(indices, statistic, LEVEL, resamples, SEED)
    clusters: dict[str, list[int]] = {}
    for i, case in enumerate(cases):
        clusters.setdefault(_case_cluster(case), []).append(i)
    if 2 <= len(clusters) < len(cases):  # cases share groups: a group is one draw too

        def grouped(sample: Sequence[str]) -> dict[str, float]:
            return statistic([i for cluster in sample for i in clusters[cluster]])

        drawn = bootstrap_intervals(sorted(clusters), grouped, LEVEL, resamples, SEED)
        found = {name: _wider(interval, drawn.get(name)) for name, interval in found.items()}
    in_unit = _in_unit(cases, parts or {})
    for name, interval in found.items():
        of_models = pairs.get(name) or (name,)
        widened = _with_flat_parts(interval, cases, of_models, in_unit)
        if _flat(interval):
            widened = _hull(widened, _no_spread_composite(interval, cases, of_models))
        found[name] = widened
    alone: dict[int, Mapping[str, float]] = {}  # a case's composites, on it alone, once

    def of(i: int) -> Mapping[str, float]:
        if i not in alone:
            alone[i] = composites([i])
        return alone[i]

    for name, interval in found.items():
        pair = pairs.get(name)
        if pair is not None and separated(interval):
            found[name] = _with_sign_flip(interval, clusters, of, *pair)
    return found


def _bounds(models: Sequence[str]) -> tuple[float, float]:
    """Where a composite (one model) or a difference of composites (two) of values in [0, 1]
    lies: [0, 1], or [-1, 1]."""
    return (-1.0, 1.0) if len(models) > 1 else (0.0, 1.0)


def _in_unit(
    cases: Sequence[Mapping[str, Record]], parts: Mapping[str, tuple[float, Counted]]
) -> dict[str, tuple[float, Counted]]:
    """The `parts` whose every value, of every record that counts in it (every model's), is
    known and in [0, 1]: those whose flat values (their differences) a no-spread interval in
    [0, 1] ([-1, 1]) holds."""
    return {
        name: (share, counted)
        for name, (share, counted) in parts.items()
        if all(
            found is None or (found[0] is not None and 0.0 <= found[0] <= 1.0)
            for case in cases
            for found in map(counted, case.values())
        )
    }


def _flat(interval: Interval) -> bool:
    """Whether a bootstrap's interval has no width but for rounding: its draws all (or 95%
    of them) came out the same."""
    if interval.estimate is None or interval.low is None or interval.high is None:
        return False
    return interval.high - interval.low <= 1e-12 * max(1.0, abs(interval.estimate))


def _no_spread_composite(
    interval: Interval, cases: Sequence[Mapping[str, Record]], models: tuple[str, ...]
) -> Interval:
    """A composite's (one model) or a difference's (two) interval when the bootstrap found
    no spread: `no_spread_interval` over the cases of the model (of both), in [0, 1] (in
    [-1, 1]), over Kish's effective number of them as weighted."""
    weights = [case[models[0]].weight for case in cases if all(m in case for m in models)]
    bounds = _bounds(models)
    if interval.estimate is None or len(weights) < 2:
        return interval
    value = min(max(interval.estimate, bounds[0]), bounds[1])  # a rounding error past an end
    effective = effective_count(weights) or float(len(weights))
    found = no_spread_interval(value, len(weights), LEVEL, bounds, effective)
    return Interval(interval.estimate, found.se, found.low, found.high, interval.n)


def _with_flat_parts(
    interval: Interval,
    cases: Sequence[Mapping[str, Record]],
    models: tuple[str, ...],
    parts: Mapping[str, tuple[float, Counted]],
) -> Interval:
    """A composite's (one model) or a difference's (two) bootstrap interval, widened by each
    part that came out the same on every case of the model (moved alike on every case of
    the pair): no resample moves it, yet cases not drawn may (`no_spread_interval`, as its
    own interval says), so it adds its share of the composite times its own interval's reach
    below and above its value to the bootstrap's ends, cut to [0, 1] ([-1, 1]). Summed, not
    taken in quadrature: the reach is a bound on what unseen cases may do, not a spread. A
    composite that weighs an accuracy of all passed at 0.8 is then no narrower than 0.8
    times the accuracy's interval."""
    if interval.estimate is None or interval.low is None or interval.high is None:
        return interval
    bounds = _bounds(models)
    low, high = interval.low, interval.high
    for share, counted in parts.values():
        flat = _flat_part(cases, models, counted, bounds)
        if flat is None or flat.estimate is None or flat.low is None or flat.high is None:
            continue
        low -= share * (flat.estimate - flat.low)
        high += share * (flat.high - flat.estimate)
    low, high = max(bounds[0], low), min(bounds[1], high)
    return Interval(interval.estimate, interval.se, low, high, interval.n)


def _flat_part(
    cases: Sequence[Mapping[str, Record]],
    models: tuple[str, ...],
    counted: Counted,
    bounds: tuple[float, float],
) -> Interval | None:
    """`no_spread_interval` of a part whose values (their differences, for a pair) came out
    the same on the two or more cases of weight above 0 that count in it for every model,
    over Kish's effective number of them; None when they vary, or one is unknown."""
    values: list[float] = []
    weights: list[float] = []
    for case in cases:
        found = [counted(case[m]) if m in case else None for m in models]
        if any(c is None for c in found):
            continue
        known = [c for c in found if c is not None]
        if any(value is None for value, _ in known):
            return None
        weight = known[0][1]
        if weight > 0:
            scored = [value for value, _ in known if value is not None]
            values.append(scored[0] - scored[1] if len(scored) > 1 else scored[0])
            weights.append(weight)
    if len(values) < 2 or len(set(values)) > 1:
        return None
    return no_spread_interval(values[0], len(values), LEVEL, bounds, effective_count(weights))


def _hull(interval: Interval, other: Interval) -> Interval:
    """The least interval that holds both, with `other`'s standard error."""
    if interval.low is None or interval.high is None:
        return other
    if other.low is None or other.high is None:
        return interval
    return Interval(
        other.estimate,
        other.se,
        min(interval.low, other.low),
        max(interval.high, other.high),
        other.n,
    )


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


def _case_cluster(case: Mapping[str, Record]) -> str:
    """The cluster of one case: the group any model's record names, else the case."""
    first = next(iter(case.values()))
    grouped = next((r for r in case.values() if r.group), first)
    return _cluster(grouped)


def _with_sign_flip(
    interval: Interval,
    clusters: Mapping[str, Sequence[int]],
    alone: Callable[[int], Mapping[str, float]],
    a: str,
    b: str,
) -> PairedInterval:
    """`interval` with the exact sign-flip p-value of a's composite minus b's, case by case
    (`alone(i)`: the composites of case i on it alone) summed by cluster (a group is one
    draw); None once more than SIGN_FLIP_MOST clusters moved (the rest are not computed)."""
    units: list[float] = []
    moved = 0
    for members in clusters.values():
        differences = [v[a] - v[b] for i in members if a in (v := alone(i)) and b in v]
        if not differences:
            continue
        units.append(math.fsum(differences))
        moved += units[-1] != 0
        if moved > SIGN_FLIP_MOST:
            return PairedInterval(
                interval.estimate, interval.se, interval.low, interval.high, interval.n, None
            )
    p = sign_flip_p(units)
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
