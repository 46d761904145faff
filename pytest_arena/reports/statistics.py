"""Error bars for eval scores, after Evan Miller, "Adding Error Bars to Evals" (arXiv 2411.00640).

Pure: stdlib only (math, statistics, random), no pytest, no I/O. The interval of a mean takes
Student's t quantile with n - 1 degrees of freedom (G - 1 for G clusters), not the normal z:
the standard error is itself estimated, from few cases or groups as often as not, and z's
interval then holds the truth less often than it says (79% of the time with 3 cases, 83%
with 3 groups); with hundreds of cases the two agree to a few parts in a thousand. Wilson's
interval of a proportion keeps z. A sample too small to say anything (no case, or one) gives
None where a number would be a guess: the mean of no case, the spread of one. Values that
all came out the same have a spread of 0, which says nothing of the cases not drawn: where
the values have bounds, `no_spread_interval` says how far those could move the mean.
"""

from __future__ import annotations

import functools
import math
import random
import statistics
from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass
from typing import TypeVar

T = TypeVar("T")

_NORMAL = statistics.NormalDist()


@dataclass(frozen=True)
class Interval:
    """An estimate, its standard error and the interval around it; None where n is too small."""

    estimate: float | None
    se: float | None
    low: float | None
    high: float | None
    n: int


@dataclass(frozen=True)
class Difference:
    """A mean paired difference (a - b), its standard error, interval and two-sided p-value."""

    estimate: float | None
    se: float | None
    low: float | None
    high: float | None
    p_value: float | None
    n: int


def z_value(level: float) -> float:
    """The two-sided normal quantile for a confidence level: 1.96 for 0.95."""
    if not 0.0 < level < 1.0:
        raise ValueError(f"a confidence level is between 0 and 1, not {level}")
    return _NORMAL.inv_cdf(0.5 + level / 2)


@functools.lru_cache(maxsize=256)
def t_value(level: float, df: float) -> float:
    """The two-sided Student t quantile for a confidence level and `df` degrees of freedom:
    4.303 for 0.95 and 2, 2.201 for 11, 1.984 for 99 (z's 1.960 as df grows)."""
    z = z_value(level)
    if not df > 0:
        raise ValueError(f"degrees of freedom are above 0, not {df}")
    if math.isinf(df):
        return z
    alpha = 1 - level
    # Cornish-Fisher's expansion (Abramowitz and Stegun 26.7.5): exact to rounding from 1,000
    # degrees of freedom; below, a start for Newton's steps on the tail, kept in a bracket
    t = z + sum(
        g / df**i
        for i, g in enumerate(
            (
                (z**3 + z) / 4,
                (5 * z**5 + 16 * z**3 + 3 * z) / 96,
                (3 * z**7 + 19 * z**5 + 17 * z**3 - 15 * z) / 384,
                (79 * z**9 + 776 * z**7 + 1482 * z**5 - 1920 * z**3 - 945 * z) / 92160,
            ),
            start=1,
        )
    )
    if df >= 1000:
        return t
    low, high = z, max(t, z + 1.0)
    while student_tail(high, df) > alpha:
        low, high = high, high * 2
    t = min(max(t, low), high)
    for _ in range(200):
        gap = student_tail(t, df) - alpha  # falls as t grows
        if gap > 0:
            low = t
        else:
            high = t
        step = gap / (2 * _student_density(t, df))
        moved = t + step if low < t + step < high else (low + high) / 2
        if abs(moved - t) <= 1e-15 * t or high - low <= 1e-15 * t:
            return moved
        t = moved
    return t


def student_tail(t: float, df: float) -> float:
    """P(|T| >= |t|) for Student's T with `df` degrees of freedom (the two-sided p-value of
    a t statistic): the regularised incomplete beta I_{df/(df + t²)}(df/2, 1/2)."""
    if not df > 0:
        raise ValueError(f"degrees of freedom are above 0, not {df}")
    if t == 0:
        return 1.0
    if math.isinf(t):
        return 0.0
    if math.isinf(df):
        return 2 * _NORMAL.cdf(-abs(t))
    return _incomplete_beta(df / 2, 0.5, df / (df + t * t))


def _student_density(t: float, df: float) -> float:
    log_scale = math.lgamma((df + 1) / 2) - math.lgamma(df / 2) - 0.5 * math.log(df * math.pi)
    return math.exp(log_scale - (df + 1) / 2 * math.log1p(t * t / df))


def _incomplete_beta(a: float, b: float, x: float) -> float:
    """The regularised incomplete beta function I_x(a, b), by its continued fraction
    (Lentz's method, as in Numerical Recipes' betai)."""
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    log_front = (
        math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log1p(-x)
    )
    if x < (a + 1) / (a + b + 2):
        return math.exp(log_front) * _beta_fraction(a, b, x) / a
    return 1.0 - math.exp(log_front) * _beta_fraction(b, a, 1.0 - x) / b


def _beta_fraction(a: float, b: float, x: float) -> float:
    tiny = 1e-300
    c, d = 1.0, 1.0 - (a + b) * x / (a + 1)
    d = 1.0 / (d if abs(d) > tiny else tiny)
    found = d
    for m in range(1, 100_000):
        for numerator in (
            m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m)),
            -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1)),
        ):
            d = 1.0 + numerator * d
            d = 1.0 / (d if abs(d) > tiny else tiny)
            c = 1.0 + numerator / c
            c = c if abs(c) > tiny else tiny
            found *= c * d
        if abs(c * d - 1.0) < 1e-16:
            break
    return found


def _around(estimate: float, se: float, level: float, n: int, df: float) -> Interval:
    half = t_value(level, df) * se
    return Interval(estimate, se, estimate - half, estimate + half, n)


def mean_interval(values: Sequence[float], level: float = 0.95) -> Interval:
    """The mean, its CLT standard error (sample sd / sqrt(n)) and Student's t interval with
    n - 1 degrees of freedom.

    No case: every field None. One case: the mean, and None for the rest.
    """
    z_value(level)
    n = len(values)
    if n == 0:
        return Interval(None, None, None, None, 0)
    mean = _scaled(statistics.fmean, values)
    if n == 1:
        return Interval(mean, None, None, None, 1)
    return _around(mean, _scaled(statistics.stdev, values) / math.sqrt(n), level, n, n - 1)


def _scaled(function: Callable[[Sequence[float]], float], values: Sequence[float]) -> float:
    """`function` (a mean, an sd) of values so large that its sums overflow (1e308, 1e308),
    taken of them scaled by the largest, then scaled back."""
    try:
        return function(values)
    except OverflowError:
        top = max(abs(v) for v in values)
        return top * function([v / top for v in values])


def clustered_interval(
    values: Sequence[float], clusters: Sequence[Hashable], level: float = 0.95
) -> Interval:
    """The mean with a cluster-robust standard error, for cases that share a context.

    Miller's eq. 4 as the cluster-robust sandwich, with the usual small-sample factor for G
    clusters (CR1): SE² = G/(G - 1) · (1/n²) Σ_c (Σ_{i in c} (s_i - s̄))². It is taken as at
    least the plain SE of `mean_interval`, and is that one below two clusters: a few clusters
    estimate their own spread too poorly (with one, the sum is 0; with two that cancel, 0 too)
    to make an interval narrower than the cases do. With G clusters, the t quantile has
    G - 1 degrees of freedom: it is the clusters that are drawn.
    `clusters[i]` names the cluster of `values[i]`. Fewer than two cases: as `mean_interval`.
    """
    if len(values) != len(clusters):
        raise ValueError(f"{len(values)} values but {len(clusters)} cluster names")
    plain = mean_interval(values, level)
    count = len(set(clusters))
    if plain.se is None or plain.estimate is None or count < 2 or count == plain.n:
        return plain
    robust = _cluster_robust_se(values, clusters, plain.estimate, count)
    return _around(plain.estimate, max(plain.se, robust), level, plain.n, count - 1)


def _cluster_robust_se(
    values: Sequence[float], clusters: Sequence[Hashable], mean: float, count: int
) -> float:
    """sqrt(G/(G - 1) · Σ_c (Σ_{i in c} r_i)²) / n, r_i = values[i] - mean (CR1, intercept only)."""
    sums: dict[Hashable, float] = {}
    for value, cluster in zip(values, clusters, strict=True):
        sums[cluster] = sums.get(cluster, 0.0) + (value - mean)
    squares = math.fsum(total * total for total in sums.values())
    return math.sqrt(count / (count - 1) * squares) / len(values)


def design_effect(values: Sequence[float], clusters: Sequence[Hashable]) -> float:
    """How many times the clustered variance of the mean (`clustered_interval`) is the plain
    one: 1 or more, and 1 when the values have no spread (nothing to compare)."""
    plain = mean_interval(values)
    if not plain.se:
        return 1.0
    clustered = clustered_interval(values, clusters)
    assert clustered.se is not None
    return (clustered.se / plain.se) ** 2


def wilson_bounds(p: float, n: float, level: float = 0.95) -> tuple[float, float]:
    """Wilson's score interval of a proportion `p` over `n` trials; `n` need not be whole
    (an effective number of cases, n / design effect)."""
    z = z_value(level)
    if not 0.0 <= p <= 1.0 or not n > 0:
        raise ValueError(f"a proportion {p} over {n} trials")
    z2 = z * z
    denominator = 1 + z2 / n
    center = (p + z2 / (2 * n)) / denominator
    half = z / denominator * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n))
    return max(0.0, center - half), min(1.0, center + half)


def wilson_interval(successes: int, n: int, level: float = 0.95) -> Interval:
    """The Wilson score interval of a proportion; better than the CLT near 0 and 1 and small n.

    `estimate` is successes / n and `se` its binomial sqrt(p(1 - p) / n). No trial: all None.
    """
    z_value(level)
    if not 0 <= successes <= n:
        raise ValueError(f"{successes} successes out of {n} trials")
    if n == 0:
        return Interval(None, None, None, None, 0)
    p = successes / n
    low, high = wilson_bounds(p, n, level)
    return Interval(p, math.sqrt(p * (1 - p) / n), low, high, n)


def effective_count(weights: Sequence[float]) -> float:
    """Kish's effective number of cases of a weighted mean, (Σw)² / Σw²: n for equal weights,
    fewer the more a few heavy cases weigh. No weight above 0: 0."""
    top = max(weights, default=0.0)
    if not top > 0:
        return 0.0
    scaled = [w / top for w in weights]  # no overflow however heavy
    return math.fsum(scaled) ** 2 / math.fsum(w * w for w in scaled)


def weighted_mean(values: Sequence[float], weights: Sequence[float]) -> float | None:
    """Σ w·v / Σ w, exactly summed (fsum); None when no weight is above 0. Values or weights
    so large that a sum would overflow are scaled by the largest first: the mean of three
    values of 1e308 is 1e308, not inf. A NaN value gives NaN, never a number."""
    if len(values) != len(weights):
        raise ValueError(f"{len(values)} values but {len(weights)} weights")
    top_w = max(weights, default=0.0)
    if not top_w > 0:
        return None
    try:
        mean = math.fsum(w * v for v, w in zip(values, weights, strict=True)) / math.fsum(weights)
    except OverflowError:  # an intermediate sum past the largest float
        mean = math.inf
    top_v = max((abs(v) for v in values), default=0.0)
    if not math.isinf(mean) or not math.isfinite(top_v):
        return mean
    shares = [w / top_w for w in weights]
    scaled = math.fsum(s * (v / top_v) for v, s in zip(values, shares, strict=True))
    return top_v * (scaled / math.fsum(shares))


def unseen_share(n: float, level: float = 0.95) -> float:
    """The largest share of cases that none of `n` drawn may still be: Wilson's upper bound
    for 0 of n, z² / (n + z²) (0.66 for 2 cases, 0.037 for 100)."""
    z2 = z_value(level) ** 2
    return z2 / (n + z2)


def no_spread_interval(
    value: float,
    n: int,
    level: float = 0.95,
    bounds: tuple[float, float] = (0.0, 1.0),
    effective: float | None = None,
) -> Interval:
    """The interval of the mean of `n` values that all came out `value`, in `bounds`.

    The sample's spread (0) says nothing of cases it did not draw: a share of them up to
    `unseen_share(effective or n)` may lie anywhere in `bounds`, at worst at one end, so the
    mean lies within value - share · (value - lo) and value + share · (hi - value). For 0 or 1
    of [0, 1] that is Wilson's interval of n of n passed, or none. `se` is None: no spread.
    """
    low, high = bounds
    if not low <= value <= high or n < 2:
        raise ValueError(f"{n} values of {value}, bounded by {bounds}")
    share = unseen_share(effective if effective is not None else n, level)
    return Interval(value, None, value - share * (value - low), value + share * (high - value), n)


def paired_difference(a: Sequence[float], b: Sequence[float], level: float = 0.95) -> Difference:
    """The mean of a[i] - b[i] over the same cases, its SE, interval and two-sided p-value:
    the paired t-test (n - 1 degrees of freedom), whose p is below 1 - level exactly when the
    interval leaves out 0. When every difference is the same (SE 0), p is 1 for no difference
    and 0 for any other. Fewer than two pairs: the mean (if any) and None for the rest.
    """
    if len(a) != len(b):
        raise ValueError(f"paired scores need as many of each: {len(a)} and {len(b)}")
    spread = mean_interval([x - y for x, y in zip(a, b, strict=True)], level)
    if spread.se is None or spread.estimate is None:
        return Difference(spread.estimate, None, None, None, None, spread.n)
    mean, se = spread.estimate, spread.se
    p_value = student_p_value(mean, se, spread.n - 1)
    return Difference(mean, se, spread.low, spread.high, p_value, spread.n)


EXACT_MOST = 256  # discordant cases, at most, whose McNemar tail is summed in whole numbers


def mcnemar_exact(b: int, c: int) -> float:
    """The exact two-sided McNemar p-value from the discordant counts.

    `b` cases only the first model passed, `c` only the second: under no difference each of
    the b + c is a fair coin, so p = min(1, 2 · P(Binomial(b + c, 1/2) ≤ min(b, c))). No
    discordant case: 1. Up to EXACT_MOST discordant cases the tail is summed exactly; above,
    from its largest term (Loader's binomial probability, exact to about 1e-15) down, each
    term by its ratio to the next, until they no longer count: a few times √n terms, where
    the whole sum of big integers took time growing as n² (11 s at 10,200 cases).
    """
    if b < 0 or c < 0:
        raise ValueError(f"discordant counts are not negative: {b} and {c}")
    n, k = b + c, min(b, c)
    if n == 0 or 2 * k >= n - 1:  # the tail holds at least half the chances: p = 1
        return 1.0
    if n <= EXACT_MOST:
        tail = sum(math.comb(n, i) for i in range(k + 1))
        return min(1.0, tail / (1 << (n - 1)))
    ratios = term = 1.0  # the tail over its largest term, P(X = k)
    for i in range(k, 0, -1):
        term *= i / (n - i + 1)  # P(X = i - 1) / P(X = k)
        ratios += term
        if term < ratios * 1e-17:
            break
    log_p = math.log(2.0) + _log_half_binomial(n, k) + math.log(ratios)
    return min(1.0, math.exp(log_p))


def _log_half_binomial(n: int, k: int) -> float:
    """log P(X = k) for X ~ Binomial(n, 1/2), 0 <= k < n, after Loader (2000): the Stirling
    remainders and the deviance, so that no log of a factorial is taken apart from another."""
    if k == 0:
        return -n * math.log(2.0)
    half = n / 2
    log_ratio = (
        _stirling_error(n)
        - _stirling_error(k)
        - _stirling_error(n - k)
        - _deviance(k, half)
        - _deviance(n - k, half)
    )
    return log_ratio - 0.5 * (math.log(2 * math.pi) + math.log(k) + math.log1p(-k / n))


def _stirling_error(n: int) -> float:
    """log(n!) - log(√(2πn) (n/e)^n)."""
    if n <= 15:
        return math.lgamma(n + 1.0) - (n + 0.5) * math.log(n) + n - 0.5 * math.log(2 * math.pi)
    nn = float(n) * n
    s0, s1, s2, s3, s4 = 1 / 12, 1 / 360, 1 / 1260, 1 / 1680, 1 / 1188
    if n > 500:
        return (s0 - s1 / nn) / n
    if n > 80:
        return (s0 - (s1 - s2 / nn) / nn) / n
    if n > 35:
        return (s0 - (s1 - (s2 - s3 / nn) / nn) / nn) / n
    return (s0 - (s1 - (s2 - (s3 - s4 / nn) / nn) / nn) / nn) / n


def _deviance(x: float, mean: float) -> float:
    """x log(x / mean) + mean - x, without its cancellation when x is near the mean."""
    if abs(x - mean) < 0.1 * (x + mean):
        v = (x - mean) / (x + mean)
        total, power = (x - mean) * v, 2 * x * v
        for j in range(1, 1000):
            power *= v * v
            more = total + power / (2 * j + 1)
            if more == total:
                break
            total = more
        return total
    return x * math.log(x / mean) + mean - x


SIGN_FLIP_MOST = 16  # cases that differ, at most, for which sign_flip_p enumerates (2**16)


def sign_flip_p(differences: Sequence[float]) -> float:
    """The exact two-sided p-value of a paired randomization test: under no difference each
    case's difference is as likely negative as positive, so p is the share of the 2**m
    choices of signs (m: the differences not 0) whose total is at least as far from 0 as the
    one observed. Weighted differences are welcome: one case, however heavy, gives p = 1."""
    moved = [abs(d) for d in differences if d != 0]
    if len(moved) > SIGN_FLIP_MOST:
        raise ValueError(f"{len(moved)} differences are more than {SIGN_FLIP_MOST} to enumerate")
    observed = abs(math.fsum(differences))
    totals = [0.0]
    for d in moved:
        totals = [t + d for t in totals] + [t - d for t in totals]
    slack = 1e-9 * max(1.0, observed)  # sums equal to the observed one, up to rounding
    return sum(abs(t) >= observed - slack for t in totals) / len(totals)


def _power_z(alpha: float, power: float) -> float:
    if not 0.0 < alpha < 1.0 or not 0.0 < power < 1.0:
        raise ValueError(f"alpha and power are between 0 and 1, not {alpha} and {power}")
    return _NORMAL.inv_cdf(1 - alpha / 2) + _NORMAL.inv_cdf(power)


def _power_t(alpha: float, power: float, df: float | None) -> float:
    """z_{1-alpha/2} + z_{power}, or with `df`, Student's t quantiles of as many degrees of
    freedom (the usual approximation of the paired t-test's power)."""
    z = _power_z(alpha, power)
    if df is None:
        return z
    return t_value(1 - alpha, df) + t_value(2 * power - 1, df)


def min_detectable_difference(
    paired_sd: float, n: int, alpha: float = 0.05, power: float = 0.8, df: float | None = None
) -> float:
    """The smallest true mean difference a two-sided paired test at `alpha` finds with `power`.

    Miller's power formula: δ = (z_{1-alpha/2} + z_{power}) · sd / sqrt(n), where sd is that of the
    per-case differences; with `df`, the paired t-test's: Student's t quantiles of `df`
    degrees of freedom in place of z's (n - 1, or one fewer than the groups).
    """
    if n < 1:
        raise ValueError(f"the number of cases is at least 1, not {n}")
    if paired_sd < 0:
        raise ValueError(f"a standard deviation is not negative: {paired_sd}")
    return _power_t(alpha, power, df) * paired_sd / math.sqrt(n)


def cases_needed(
    diff: float,
    paired_sd: float,
    alpha: float = 0.05,
    power: float = 0.8,
    per_unit: float | None = None,
) -> int:
    """How many paired cases find a true mean difference `diff` with `power` (two-sided, alpha).

    The power formula solved for n, rounded up: n = ((z_{1-alpha/2} + z_{power}) · sd / δ)².
    With `per_unit` (the cases of a unit the test counts: 1, or a group's), the paired
    t-test's: t quantiles of n / per_unit - 1 degrees of freedom, n found again until it holds.
    """
    if diff == 0:
        raise ValueError("no number of cases finds a difference of 0")
    if paired_sd < 0:
        raise ValueError(f"a standard deviation is not negative: {paired_sd}")
    n = _whole((_power_z(alpha, power) * paired_sd / diff) ** 2)
    if per_unit is None:
        return n
    for _ in range(100):  # t's quantiles fall as n grows: n only grows, and soon holds
        df = max(1.0, n / per_unit - 1)
        more = max(n, _whole((_power_t(alpha, power, df) * paired_sd / diff) ** 2))
        if more == n:
            break
        n = more
    return n


def _whole(n: float) -> int:
    return max(1, math.ceil(n - 1e-9))  # 1e-9: a whole n computed as 16.000000000000004


def least_all_one_way(alpha: float = 0.05) -> int:
    """The fewest units (cases, or groups) on which an exact test of signs (McNemar's, the
    sign-flip test) can give p < alpha: all of them moving one way gives p = 2 / 2**units,
    so 6 at 0.05 (5 give 0.0625)."""
    if not 0.0 < alpha < 1.0:
        raise ValueError(f"alpha is between 0 and 1, not {alpha}")
    units = 1
    while 2.0 ** (1 - units) >= alpha:
        units += 1
    return units


def _check_counts(n: int, c: int, k: int) -> None:
    if not 0 <= c <= n or not 1 <= k <= n:
        raise ValueError(f"pass@k needs 0 <= c <= n and 1 <= k <= n, not n={n}, c={c}, k={k}")


def pass_at_k(n: int, c: int, k: int) -> float:
    """The unbiased pass@k of Chen et al. 2021: 1 - C(n-c, k) / C(n, k).

    The chance that at least one of k samples drawn without replacement from the n tries,
    c of which passed, passes.
    """
    _check_counts(n, c, k)
    return 1.0 - math.comb(n - c, k) / math.comb(n, k)


def pass_hat_k(n: int, c: int, k: int) -> float:
    """pass^k as τ-bench defines it: C(c, k) / C(n, k), the chance that all k samples pass."""
    _check_counts(n, c, k)
    return math.comb(c, k) / math.comb(n, k)


def _percentile(ordered: Sequence[float], q: float) -> float:
    """The q-quantile of sorted values, interpolated linearly (numpy's default)."""
    position = q * (len(ordered) - 1)
    below = math.floor(position)
    above = min(below + 1, len(ordered) - 1)
    return ordered[below] + (ordered[above] - ordered[below]) * (position - below)


def bootstrap_interval(
    rows: Sequence[T],
    statistic: Callable[[Sequence[T]], float],
    level: float = 0.95,
    resamples: int = 1000,
    seed: int = 0,
) -> Interval:
    """A percentile bootstrap of `statistic` over rows (cases), seeded so a report repeats.

    Each resample draws len(rows) rows with replacement; `estimate` is the statistic of all the
    rows, `se` the sd of the resampled ones, the bounds their (1 ± level)/2 quantiles. No row:
    all None; one row: the estimate only.
    """
    z_value(level)
    if resamples < 2:
        raise ValueError(f"a bootstrap needs at least 2 resamples, not {resamples}")
    n = len(rows)
    if n == 0:
        return Interval(None, None, None, None, 0)
    estimate = statistic(rows)
    if n == 1:
        return Interval(estimate, None, None, None, 1)
    rng = random.Random(seed)
    draws = sorted(statistic(rng.choices(rows, k=n)) for _ in range(resamples))
    tail = (1 - level) / 2
    return Interval(
        estimate,
        statistics.stdev(draws),
        _percentile(draws, tail),
        _percentile(draws, 1 - tail),
        n,
    )


def bootstrap_intervals(
    rows: Sequence[T],
    statistic: Callable[[Sequence[T]], Mapping[str, float]],
    level: float = 0.95,
    resamples: int = 1000,
    seed: int = 0,
) -> dict[str, Interval]:
    """`bootstrap_interval` for a statistic with several named values, all of one resample
    at a time (the composite of every model on the same cases, their differences).

    Each name's interval is the one `bootstrap_interval` gives for that value alone with the
    same seed. A name a resample leaves out has its interval from the resamples that have it.
    """
    z_value(level)
    if resamples < 2:
        raise ValueError(f"a bootstrap needs at least 2 resamples, not {resamples}")
    n = len(rows)
    if n == 0:
        return {}
    estimates = dict(statistic(rows))
    if n == 1:
        return {name: Interval(value, None, None, None, 1) for name, value in estimates.items()}
    rng = random.Random(seed)
    draws: dict[str, list[float]] = {name: [] for name in estimates}
    for _ in range(resamples):
        for name, value in statistic(rng.choices(rows, k=n)).items():
            if name in draws:
                draws[name].append(value)
    tail = (1 - level) / 2
    found: dict[str, Interval] = {}
    for name, estimate in estimates.items():
        ordered = sorted(draws[name])
        if len(ordered) < 2:
            found[name] = Interval(estimate, None, None, None, n)
            continue
        found[name] = Interval(
            estimate,
            statistics.stdev(ordered),
            _percentile(ordered, tail),
            _percentile(ordered, 1 - tail),
            n,
        )
    return found


def student_p_value(estimate: float, se: float, df: float) -> float:
    """The two-sided p-value of an estimate against 0 whose standard error has `df` degrees
    of freedom: P(|T| >= |estimate| / se); with se 0, 1 for an estimate of 0 and 0 for any
    other."""
    if se < 0:
        raise ValueError(f"a standard error is not negative: {se}")
    if se == 0:
        return float(estimate == 0.0)
    return student_tail(estimate / se, df)


def normal_p_value(estimate: float, se: float) -> float:
    """The two-sided p-value of a normal estimate against 0: 2(1 - Φ(|estimate| / se)); with
    se 0, 1 for an estimate of 0 and 0 for any other."""
    if se < 0:
        raise ValueError(f"a standard error is not negative: {se}")
    if se == 0:
        return float(estimate == 0.0)
    return 2 * _NORMAL.cdf(-abs(estimate) / se)
