"""95% intervals that hold the truth 95 times in 100 with few cases or groups: Student's t,
not the normal z (reports/statistics.py), and differences of accuracy within [-1, 1]
(reports/verdicts.py)."""

from __future__ import annotations

import random

import pytest

from pytest_arena.record import FAILED, PASSED, Record
from pytest_arena.reports.leaderboard import build_board
from pytest_arena.reports.statistics import (
    clustered_interval,
    mean_interval,
    student_p_value,
    student_tail,
    t_value,
)

# scipy.stats.t.ppf(0.975, df) and t.ppf(0.8, df)
QUANTILES = {
    1: (12.706204736174694, 1.3763819204711738),
    2: (4.302652729749462, 1.0606601717798214),
    4: (2.7764451051977934, 0.9409645772351816),
    9: (2.262157162798205, 0.8834038596855346),
    11: (2.200985160091639, 0.8755299780738819),
    29: (2.045229642132703, 0.8541919858818557),
    199: (1.9719565442517533, 0.8434311999372966),
}


@pytest.mark.parametrize("df", sorted(QUANTILES))
def test_students_t_quantiles_and_tails(df: int) -> None:
    two_sided, upper_80 = QUANTILES[df]
    assert t_value(0.95, df) == pytest.approx(two_sided, rel=1e-12)
    assert t_value(0.6, df) == pytest.approx(upper_80, rel=1e-12)
    assert student_tail(two_sided, df) == pytest.approx(0.05, rel=1e-10)
    assert student_p_value(-two_sided * 0.3, 0.3, df) == pytest.approx(0.05, rel=1e-10)


def test_many_degrees_of_freedom_reach_the_normal_quantile() -> None:
    assert t_value(0.95, 10**9) == pytest.approx(1.959963984540054, abs=1e-8)
    assert t_value(0.95, 49_999) == pytest.approx(1.9600114320426525, rel=1e-12)  # scipy


@pytest.mark.parametrize("n", [3, 5, 10])
def test_the_interval_of_a_mean_of_few_cases_holds_the_truth_95_times_in_100(n: int) -> None:
    """With z = 1.96 it held the true mean 79.4% of the time at 3 cases, 86.9% at 5, 91.7%
    at 10: the spread of so few cases is itself a guess."""
    rng = random.Random(n)
    covered = 0
    for _ in range(4000):
        interval = mean_interval([rng.gauss(0.6, 0.2) for _ in range(n)])
        assert interval.low is not None and interval.high is not None
        covered += interval.low <= 0.6 <= interval.high
    assert 0.935 <= covered / 4000 <= 0.965


def test_the_interval_of_three_groups_holds_the_truth_95_times_in_100() -> None:
    """Cases in 3 groups of 20, 10 and 10 that move together: with z the clustered interval
    held the truth 82.7% of the time; with t of 2 degrees of freedom (the groups drawn), at
    least 95% (more: the cases' spread is the floor of the standard error)."""
    rng = random.Random(3)
    clusters = [0] * 20 + [1] * 10 + [2] * 10
    covered = 0
    for _ in range(2000):
        shift = [rng.gauss(0, 0.2) for _ in range(3)]
        values = [0.6 + shift[c] + rng.gauss(0, 0.2) for c in clusters]
        interval = clustered_interval(values, clusters)
        assert interval.low is not None and interval.high is not None
        covered += interval.low <= 0.6 <= interval.high
    assert covered / 2000 >= 0.945


def pass_fail(model: str, outcomes: list[int]) -> list[Record]:
    return [
        Record("p", f"c{i}", model, PASSED if o else FAILED, float(o), bool(o))
        for i, o in enumerate(outcomes)
    ]


def test_a_difference_of_accuracies_stays_within_minus_1_and_1() -> None:
    """Two cases, one that flipped: the difference said "95% CI -1.480 to +0.480"."""
    board = build_board("p", pass_fail("a", [1, 1]) + pass_fail("b", [0, 1]))
    (compared,) = board.comparisons
    d = compared.difference
    assert d.estimate == -0.5 and (d.low, d.high) == (-1.0, 1.0)
    assert d.se == 0.5  # the standard error is the cases' own: only the bounds are cut
