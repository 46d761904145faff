"""reports/statistics.py against scipy and statsmodels, brute force, and simulated coverage."""

from __future__ import annotations

import itertools
import math
import random
import statistics as stdlib_statistics

import numpy as np
import pytest
import scipy.stats
import statsmodels.api as sm
from statsmodels.stats.power import NormalIndPower
from statsmodels.stats.proportion import proportion_confint

from pytest_arena.reports.statistics import (
    bootstrap_interval,
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
    paired_difference,
    pass_at_k,
    pass_hat_k,
    unseen_share,
    wilson_bounds,
    wilson_interval,
    z_value,
)

SEEDS = range(20)


def scores(rng: random.Random, n: int) -> list[float]:
    """Scores as evals have them: some 0/1, some graded."""
    if rng.random() < 0.5:
        return [float(rng.random() < 0.6) for _ in range(n)]
    return [rng.random() for _ in range(n)]


@pytest.mark.parametrize("seed", SEEDS)
def test_mean_interval_is_scipys_student_t_interval(seed: int) -> None:
    rng = random.Random(seed)
    values = scores(rng, rng.randint(2, 300))
    level = rng.choice([0.9, 0.95, 0.99])
    got = mean_interval(values, level)
    se = scipy.stats.sem(values)
    low, high = scipy.stats.t.interval(level, len(values) - 1, loc=np.mean(values), scale=se)
    assert got.n == len(values)
    assert got.estimate == pytest.approx(np.mean(values))
    assert got.se == pytest.approx(se)
    assert (got.low, got.high) == pytest.approx((low, high))


def test_too_few_values_give_no_interval() -> None:
    empty, one = mean_interval([]), mean_interval([0.4])
    assert (empty.estimate, empty.se, empty.low, empty.high, empty.n) == (None,) * 4 + (0,)
    assert (one.estimate, one.se, one.low, one.high, one.n) == (0.4, None, None, None, 1)
    assert bootstrap_interval([], stdlib_statistics.fmean).low is None
    assert bootstrap_interval([1.0], stdlib_statistics.fmean).estimate == 1.0
    assert paired_difference([1.0], [0.0]).p_value is None
    assert wilson_interval(0, 0).low is None
    with pytest.raises(ValueError, match="between 0 and 1"):
        mean_interval([1.0, 2.0], level=95)


def statsmodels_cluster_se(values: list[float], clusters: list[int]) -> float:
    """The cluster-robust SE of an intercept-only regression, with statsmodels' small-sample
    correction: G/(G - 1) · (n - 1)/(n - k), which for the intercept alone (k = 1) is G/(G - 1)."""
    fit = sm.OLS(np.asarray(values), np.ones(len(values))).fit(
        cov_type="cluster", cov_kwds={"groups": np.asarray(clusters), "use_correction": True}
    )
    return float(fit.bse[0])


@pytest.mark.parametrize("seed", SEEDS)
def test_clustered_se_is_statsmodels_cluster_robust_one_or_the_plain_one(seed: int) -> None:
    rng = random.Random(seed)
    n = rng.randint(4, 200)
    clusters = [rng.randrange(max(2, n // 5)) for _ in range(n)]
    if len(set(clusters)) < 2:
        clusters[0] = max(clusters) + 1
    shift = {c: rng.gauss(0, 0.3) for c in set(clusters)}  # cases of a cluster move together
    values = [rng.random() + shift[c] for c in clusters]
    got = clustered_interval(values, clusters)
    plain = mean_interval(values)
    assert plain.se is not None
    expected = max(statsmodels_cluster_se(values, clusters), plain.se)
    assert got.se == pytest.approx(expected)
    assert got.estimate == pytest.approx(np.mean(values))
    t = scipy.stats.t.ppf(0.975, len(set(clusters)) - 1)  # the clusters are what is drawn
    assert got.high - got.low == pytest.approx(2 * t * expected)  # type: ignore[operator]


def test_clustered_se_by_hand() -> None:
    values = [1.0, 1.0, 0.0, 0.0, 1.0, 0.0]  # mean 1/2, residuals ±1/2
    clusters = ["a", "a", "b", "b", "c", "c"]
    # the clusters' residual sums are 1, -1 and 0: G/(G - 1) · Σ (Σ r)² / n² = 3/2 · 2 / 36
    assert clustered_interval(values, clusters).se == pytest.approx(math.sqrt(1 / 12))
    assert math.sqrt(1 / 12) > mean_interval(values).se  # type: ignore[operator]


def test_one_cluster_gives_the_plain_interval() -> None:
    """All ten cases in one group: the residuals about the mean sum to 0 in it, so the
    clustered SE came out about a third of the plain one (0.032 against 0.1) and one case
    that flipped was "significant". One cluster says nothing about clusters: the plain one."""
    values = [0.0] + [1.0] * 9
    assert clustered_interval(values, ["g"] * 10) == mean_interval(values)


def test_two_clusters_whose_sums_cancel_give_the_plain_standard_error() -> None:
    """20 cases in groups of 10, each with one failure: each group's residuals sum to 0, and
    the clustered SE was 0.015 against a plain 0.069 (0.900 ± 0.030). The plain SE counts,
    with the t quantile of the two groups drawn (1 degree of freedom)."""
    values = ([0.0] + [1.0] * 9) * 2
    clusters = ["a"] * 10 + ["b"] * 10
    got, plain = clustered_interval(values, clusters), mean_interval(values)
    assert got.se == plain.se and got.estimate == plain.estimate
    assert got.high - got.low == pytest.approx(2 * 12.706204736174698 * plain.se)  # type: ignore[operator]
    assert design_effect(values, clusters) == 1.0


@pytest.mark.parametrize("seed", SEEDS)
def test_grouping_never_narrows_an_interval(seed: int) -> None:
    rng = random.Random(seed)
    n = rng.randint(2, 60)
    clusters = [rng.randrange(rng.randint(1, n)) for _ in range(n)]
    values = scores(rng, n)
    got, plain = clustered_interval(values, clusters), mean_interval(values)
    assert got.estimate == plain.estimate
    assert got.se >= plain.se  # type: ignore[operator]
    assert design_effect(values, clusters) >= 1.0


@pytest.mark.parametrize("seed", SEEDS)
def test_clustered_with_one_case_per_cluster_is_the_plain_interval(seed: int) -> None:
    values = scores(random.Random(seed), 50)
    assert clustered_interval(values, list(range(50))) == mean_interval(values)


@pytest.mark.parametrize("seed", SEEDS)
def test_wilson_is_statsmodels_wilson(seed: int) -> None:
    rng = random.Random(seed)
    n = rng.randint(1, 500)
    successes = rng.choice([0, n, rng.randint(0, n)])
    level = rng.choice([0.9, 0.95, 0.99])
    got = wilson_interval(successes, n, level)
    low, high = proportion_confint(successes, n, alpha=1 - level, method="wilson")
    assert (got.low, got.high) == pytest.approx((low, high), abs=1e-12)
    assert got.estimate == successes / n


@pytest.mark.parametrize("seed", SEEDS)
def test_paired_difference_is_scipys_paired_t_test(seed: int) -> None:
    rng = random.Random(seed)
    n = rng.randint(2, 300)
    a = scores(rng, n)
    b = [min(1.0, max(0.0, x + rng.gauss(0.05, 0.3))) for x in a]
    got = paired_difference(a, b)
    d = np.asarray(a) - np.asarray(b)
    t = scipy.stats.ttest_rel(a, b)
    if d.std() == 0:
        pytest.skip("no spread in the differences")
    # ttest_rel's statistic is d̄ / SE: the same SE, and its p-value
    assert got.estimate == pytest.approx(d.mean())
    assert got.se == pytest.approx(d.mean() / t.statistic)
    assert got.p_value == pytest.approx(t.pvalue, rel=1e-9)
    assert got.low == pytest.approx(d.mean() - scipy.stats.t.ppf(0.975, n - 1) * got.se)
    # the interval leaves out 0 exactly when p < 0.05
    assert (got.p_value < 0.05) == (got.low > 0 or got.high < 0)  # type: ignore[operator]


def test_paired_difference_without_spread() -> None:
    assert paired_difference([1.0, 1.0], [1.0, 1.0]).p_value == 1.0
    assert paired_difference([1.0, 1.0], [0.0, 0.0]).p_value == 0.0


@pytest.mark.parametrize("seed", SEEDS)
def test_mcnemar_is_scipys_exact_binomial_test(seed: int) -> None:
    rng = random.Random(seed)
    b, c = rng.randint(0, 80), rng.randint(0, 80)
    if b + c == 0:
        assert mcnemar_exact(0, 0) == 1.0
        return
    expected = scipy.stats.binomtest(b, b + c, 0.5).pvalue
    assert mcnemar_exact(b, c) == pytest.approx(expected, rel=1e-9)


def test_mcnemar_edges() -> None:
    assert mcnemar_exact(0, 0) == 1.0
    assert mcnemar_exact(7, 7) == 1.0
    assert mcnemar_exact(0, 10) == pytest.approx(2 / 1024)
    assert mcnemar_exact(0, 5000) == 0.0  # too small for a float, not an overflow


@pytest.mark.parametrize("seed", SEEDS)
def test_power_formula_is_statsmodels_normal_power(seed: int) -> None:
    rng = random.Random(seed)
    sd, n = rng.uniform(0.1, 1.0), rng.randint(5, 2000)
    alpha, power = rng.choice([0.01, 0.05, 0.1]), rng.choice([0.8, 0.9])
    mdd = min_detectable_difference(sd, n, alpha, power)
    # one-sample (ratio=0): the formula ignores the far tail, i.e. a one-sided test at alpha/2
    one_sided = NormalIndPower().power(mdd / sd, n, alpha / 2, ratio=0, alternative="larger")
    assert one_sided == pytest.approx(power)
    two_sided = NormalIndPower().power(mdd / sd, n, alpha, ratio=0, alternative="two-sided")
    assert two_sided == pytest.approx(power, abs=1e-3)

    diff = rng.uniform(0.01, 0.2)
    needed = cases_needed(diff, sd, alpha, power)
    at = NormalIndPower().power(diff / sd, needed, alpha / 2, ratio=0, alternative="larger")
    assert at >= power - 1e-12
    if needed > 1:
        short = NormalIndPower().power(diff / sd, needed - 1, alpha / 2, 0, "larger")
        assert short < power
    assert min_detectable_difference(sd, needed, alpha, power) <= diff + 1e-12


def test_cases_needed_of_a_whole_number_is_that_number() -> None:
    # (z + z) · sd / δ = 4 exactly when sd/δ = 4 / (z + z): 16 cases, not 17
    z = stdlib_statistics.NormalDist().inv_cdf(0.975) + stdlib_statistics.NormalDist().inv_cdf(0.8)
    assert cases_needed(z / 4, 1.0) == 16


def brute_force(n: int, c: int, k: int) -> tuple[float, float]:
    tries = [True] * c + [False] * (n - c)
    draws = list(itertools.combinations(tries, k))
    return (
        sum(any(d) for d in draws) / len(draws),
        sum(all(d) for d in draws) / len(draws),
    )


@pytest.mark.parametrize("n", range(1, 9))
def test_pass_at_k_and_pass_hat_k_by_enumeration(n: int) -> None:
    for c in range(n + 1):
        for k in range(1, n + 1):
            at, hat = brute_force(n, c, k)
            assert pass_at_k(n, c, k) == pytest.approx(at)
            assert pass_hat_k(n, c, k) == pytest.approx(hat)


def test_pass_at_k_rejects_impossible_counts() -> None:
    with pytest.raises(ValueError, match="n=3, c=4"):
        pass_at_k(3, 4, 1)
    with pytest.raises(ValueError):
        pass_hat_k(3, 1, 0)


def test_bootstrap_repeats_exactly_and_follows_the_seed() -> None:
    values = scores(random.Random(1), 100)
    first = bootstrap_interval(values, stdlib_statistics.fmean, seed=3)
    assert bootstrap_interval(values, stdlib_statistics.fmean, seed=3) == first
    assert bootstrap_interval(values, stdlib_statistics.fmean, seed=4) != first


@pytest.mark.parametrize("seed", range(5))
def test_bootstrap_agrees_with_scipy_and_the_clt(seed: int) -> None:
    values = scores(random.Random(seed), 400)
    got = bootstrap_interval(values, stdlib_statistics.fmean, resamples=4000, seed=seed)
    reference = scipy.stats.bootstrap(
        (np.asarray(values),), np.mean, n_resamples=4000, method="percentile", random_state=seed
    )
    clt = mean_interval(values)
    assert got.estimate == clt.estimate
    assert got.low == pytest.approx(reference.confidence_interval.low, abs=0.006)
    assert got.high == pytest.approx(reference.confidence_interval.high, abs=0.006)
    assert got.se == pytest.approx(reference.standard_error, rel=0.08)
    assert got.low == pytest.approx(clt.low, abs=0.008)
    assert got.high == pytest.approx(clt.high, abs=0.008)


def test_bootstrap_over_rows_of_any_kind() -> None:
    rows = [("a", 1.0), ("b", 0.0), ("c", 1.0), ("d", 1.0)]
    got = bootstrap_interval(rows, lambda rs: sum(score for _, score in rs) / len(rs))
    assert got.estimate == 0.75
    assert got.low is not None and got.high is not None and 0.0 <= got.low <= got.high <= 1.0


def test_the_95_interval_covers_the_true_mean_95_times_in_100() -> None:
    rng = random.Random(2024)
    covered = 0
    for _ in range(1000):
        interval = mean_interval([float(rng.random() < 0.7) for _ in range(200)])
        assert interval.low is not None and interval.high is not None
        covered += interval.low <= 0.7 <= interval.high
    assert 930 <= covered <= 970


@pytest.mark.parametrize("seed", range(3))
def test_bootstrap_intervals_are_each_names_own_bootstrap(seed: int) -> None:
    rows = list(zip(scores(random.Random(seed), 80), scores(random.Random(9), 80), strict=True))

    def both(sample: list[tuple[float, float]]) -> dict[str, float]:
        return {
            "a": stdlib_statistics.fmean(a for a, _ in sample),
            "a-b": stdlib_statistics.fmean(a - b for a, b in sample),
        }

    got = bootstrap_intervals(rows, both, seed=seed)
    alone = bootstrap_interval(rows, lambda s: both(s)["a-b"], seed=seed)
    assert got["a-b"] == alone
    assert got["a"] == bootstrap_interval(rows, lambda s: both(s)["a"], seed=seed)
    assert bootstrap_intervals([], both) == {}
    assert bootstrap_intervals(rows[:1], both)["a"].low is None


@pytest.mark.parametrize("seed", SEEDS)
def test_normal_p_value_is_scipys_two_sided_z_test(seed: int) -> None:
    rng = random.Random(seed)
    estimate, se = rng.gauss(0, 1), rng.uniform(0.01, 2)
    assert normal_p_value(estimate, se) == pytest.approx(
        2 * scipy.stats.norm.sf(abs(estimate) / se)
    )
    assert normal_p_value(0.0, 0.0) == 1.0 and normal_p_value(0.2, 0.0) == 0.0
    with pytest.raises(ValueError):
        normal_p_value(0.1, -1.0)


@pytest.mark.parametrize("seed", SEEDS)
def test_wilson_bounds_of_an_effective_count_is_statsmodels_wilson(seed: int) -> None:
    rng = random.Random(seed)
    n = rng.randint(1, 300)
    successes = rng.randint(0, n)
    assert wilson_bounds(successes / n, n) == pytest.approx(
        proportion_confint(successes, n, method="wilson"), abs=1e-12
    )
    # a share p of an effective count m: the interval of p·m successes in m trials, narrower
    # with more trials
    p, m = successes / n, rng.uniform(1, 50)
    assert wilson_bounds(p, m) == pytest.approx(proportion_confint(p * m, m, method="wilson"))
    low, high = wilson_bounds(p, m)
    wider_low, wider_high = wilson_bounds(p, m / 2)
    assert wider_low <= low <= p <= high <= wider_high


def test_kish_effective_count() -> None:
    assert effective_count([1.0] * 7) == pytest.approx(7)
    assert effective_count([1.0, 1.0, 2.0]) == pytest.approx(16 / 6)
    assert effective_count([1e308, 1e308]) == pytest.approx(2)  # no overflow
    assert effective_count([]) == 0.0


@pytest.mark.parametrize("n", [2, 3, 6, 20, 500])
def test_no_spread_at_0_or_1_is_wilsons_interval(n: int) -> None:
    """Every case scored 1 (or 0): the interval was 1.000 ± 0.000. It is Wilson's interval
    of n out of n (0 out of n), the pass rate's."""
    ones, zeros = no_spread_interval(1.0, n), no_spread_interval(0.0, n)
    wilson_ones, wilson_zeros = (
        proportion_confint(n, n, method="wilson"),
        proportion_confint(0, n, method="wilson"),
    )
    assert (ones.low, ones.high) == pytest.approx(wilson_ones, abs=1e-12)
    assert (zeros.low, zeros.high) == pytest.approx(wilson_zeros, abs=1e-12)
    assert ones.estimate == 1.0 and ones.n == n and ones.se is None
    assert ones.low < 1.0  # type: ignore[operator]


def test_no_spread_inside_the_bounds_allows_the_unseen_share_anywhere() -> None:
    share = unseen_share(6)
    z = z_value(0.95)
    assert share == pytest.approx(z * z / (6 + z * z))
    got = no_spread_interval(0.6, 6)
    assert (got.low, got.high) == pytest.approx((0.6 - share * 0.6, 0.6 + share * 0.4))
    # a difference in [-1, 1] where every case moved by -1: at n = 2 it holds 0 (-1 to +0.315)
    moved = no_spread_interval(-1.0, 2, bounds=(-1.0, 1.0))
    assert moved.low == -1.0 and moved.high == pytest.approx(-1 + 2 * unseen_share(2))
    assert moved.high > 0  # type: ignore[operator]
    # an effective count below n (heavy cases) widens it
    assert no_spread_interval(0.6, 6, effective=3.0).low < got.low  # type: ignore[operator]
    with pytest.raises(ValueError):
        no_spread_interval(1.5, 6)
