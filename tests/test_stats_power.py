"""The power line promises only what the board's own test can find (reports/verdicts.py
power_line, said by reports/tables.py): nothing below the cases (groups) an exact test needs,
no difference past 1, and for McNemar's test no less than it finds at best."""

from __future__ import annotations

import html
import json
import math
import random
import re

import jsonschema
import pytest

from pytest_arena.record import FAILED, PASSED, Record
from pytest_arena.reports.json_report import schema
from pytest_arena.reports.leaderboard import build_board
from pytest_arena.reports.statistics import (
    effective_count,
    least_all_one_way,
    mcnemar_exact,
    min_detectable_difference,
    t_value,
)
from pytest_arena.reports.tables import render_board
from pytest_arena.reports.verdicts import Power
from tests.conftest import MakeProject


def scored(
    model: str, scores: list[float], groups: int = 0, weights: list[float] | None = None
) -> list[Record]:
    """Cases c00, c01... of `model`; a score of 1 passes, and so does 0.9 (graded)."""
    return [
        Record(
            "p",
            f"c{i:02}",
            model,
            PASSED if s >= 0.9 else FAILED,
            s,
            s >= 0.9,
            group=f"g{i % groups}" if groups else None,
            weight=weights[i] if weights else 1.0,
        )
        for i, s in enumerate(scores)
    ]


def power_of(records: list[Record]) -> Power:
    power = build_board("p", records).power
    assert power is not None
    return power


def power_line(records: list[Record]) -> str:
    (line,) = [x for x in render_board(build_board("p", records)).splitlines() if "power:" in x]
    return line


def test_exact_tests_of_signs_need_six_units_at_5_percent() -> None:
    assert least_all_one_way(0.05) == 6  # 2 / 2**5 = 0.0625, 2 / 2**6 = 0.031
    assert least_all_one_way(0.01) == 8


def test_mcnemar_on_three_cases_finds_nothing_and_says_so() -> None:
    """The README's tour: 3 cases, of which McNemar's exact test cannot give p below 0.25,
    and the line promised a difference of 0.934 or more 80% of the time."""
    power = power_of(scored("large", [1, 1, 1]) + scored("small", [1, 0, 1]))
    assert (power.test, power.units, power.least) == ("McNemar (exact)", 3, 6)
    assert not power.reachable
    assert power.floor == 0.25 == min(mcnemar_exact(0, 3), mcnemar_exact(3, 0))


def test_two_cases_find_nothing_rather_than_a_difference_past_1() -> None:
    """2 cases promised "1.401 or more": accuracies differ by at most 1."""
    power = power_of(scored("a", [1, 1]) + scored("b", [1, 0]))
    assert not power.reachable and power.floor == 0.5


@pytest.mark.parametrize(("groups", "floor"), [(4, 0.125), (5, 0.0625)])
def test_four_or_five_groups_find_nothing_however_many_cases(groups: int, floor: float) -> None:
    """Cases in 4 (5) groups: the sign-flip test by group gives p of 0.125 (0.0625) at the
    least, and the line promised 0.397 (0.254) and "needs about 4,310 cases"."""
    a = [1.0] * 40
    b = [1.0 if i % 3 else 0.0 for i in range(40)]
    power = power_of(scored("a", a, groups) + scored("b", b, groups))
    assert power.test == "sign-flip by group (exact)" and power.groups == groups
    assert not power.reachable and power.floor == floor
    assert power.needed is not None and power.needed_groups == math.ceil(power.needed * groups / 40)


def test_a_difference_past_1_is_no_difference_to_promise() -> None:
    """Six graded cases whose differences swing from -0.9 to +0.9: the t formula gives a
    difference above 1, which no accuracy can show."""
    a = [0.9, 0.0, 0.9, 0.0, 0.9, 0.0]
    b = [0.0, 0.9, 0.0, 0.9, 0.0, 0.9]
    power = power_of(scored("a", a) + scored("b", b))
    assert power.test == "sign-flip (exact)" and power.reachable
    assert power.detectable > 1 and not power.in_range


def mcnemar_power_all_one_way(n: int, difference: float) -> float:
    """The chance that McNemar's exact test gives p < 0.05 on n cases when each differs
    with chance `difference`, always one way: the most power any pair of models differing
    by so much can give it."""
    return math.fsum(
        math.comb(n, d) * difference**d * (1 - difference) ** (n - d)
        for d in range(n + 1)
        if mcnemar_exact(0, d) < 0.05
    )


def test_mcnemar_on_twelve_cases_promises_no_more_than_it_finds_at_best() -> None:
    """science_quiz: 12 cases, 2 that differ. The line said 0.315, at which McNemar's exact
    test has 14.3% power at most."""
    large = [1.0] * 12
    small = [1.0] * 10 + [0.0] * 2
    power = power_of(scored("large", large) + scored("small", small))
    assert power.test == "McNemar (exact)" and power.reachable
    assert mcnemar_power_all_one_way(12, 0.315) == pytest.approx(0.143, abs=5e-4)
    assert mcnemar_power_all_one_way(12, power.detectable) == pytest.approx(0.8, abs=1e-9)
    assert mcnemar_power_all_one_way(12, power.detectable - 0.01) < 0.8
    # the t formula (11 degrees of freedom) gives less here, so McNemar's bound counts
    assert min_detectable_difference(power.paired_sd, 12, df=11) < power.detectable


def test_many_cases_keep_the_paired_t_formula() -> None:
    """With hundreds of cases the bound is far below the formula's difference: the line is
    the paired t-test's, (t_{0.975, n-1} + t_{0.8, n-1}) · sd / √n."""
    a = [1.0 if i % 5 else 0.0 for i in range(400)]
    b = [1.0 if i % 3 else 0.0 for i in range(400)]
    power = power_of(scored("a", a) + scored("b", b))
    assert power.detectable == pytest.approx(
        min_detectable_difference(power.paired_sd, 400, df=399)
    )


def test_the_t_formula_uses_students_quantiles() -> None:
    # t_{0.975, 11} = 2.200985160091639 and t_{0.8, 11} = 0.8755299780738819 (scipy)
    expected = (2.200985160091639 + 0.8755299780738819) * 0.389 / math.sqrt(12)
    assert min_detectable_difference(0.389, 12, df=11) == pytest.approx(expected, rel=1e-12)


# What the terminal says (reports/tables.py): these need its power sentence to read Power's
# `reachable`, `in_range`, `groups` and `needed_groups`.


def test_the_line_says_the_test_finds_nothing_on_too_few_cases() -> None:
    said = power_line(scored("large", [1, 1, 1]) + scored("small", [1, 0, 1]))
    assert (
        "no difference is found at 5% significance: McNemar's exact test gives p of 0.250" in said
    )
    assert "at the least on 3 cases, and needs at least 6" in said
    assert "or more is found" not in said


def test_the_line_says_so_of_too_few_groups() -> None:
    a = [1.0] * 40
    b = [1.0 if i % 3 else 0.0 for i in range(40)]
    said = power_line(scored("a", a, 4) + scored("b", b, 4))
    assert "with 40 paired cases in 4 groups" in said
    assert "the exact sign-flip test by group gives p of 0.125 at the least on 4 groups" in said
    assert "groups of this size)" in said


def test_the_line_says_no_difference_within_the_range() -> None:
    a = [0.9, 0.0, 0.9, 0.0, 0.9, 0.0]
    b = [0.0, 0.9, 0.0, 0.9, 0.0, 0.9]
    said = power_line(scored("a", a) + scored("b", b))
    assert "no difference within the range (up to 1) is found 80% of the time" in said


# Weighted cases count as Kish's effective number of them, (Σw)² / Σw², as the intervals do.


def drifting(weights: list[float]) -> list[Record]:
    """40 cases of `a`, and of `b` scoring about 0.1 more on each."""
    rng = random.Random(4)
    a = [rng.random() for _ in range(40)]
    b = [min(1.0, x + rng.gauss(0.1, 0.05)) for x in a]
    return scored("a", a, weights=weights) + scored("b", b, weights=weights)


def test_unequal_weights_size_the_power_as_the_interval_counts_the_cases() -> None:
    """40 cases, one of weight 60 (Kish's effective number 2.7): the interval against the
    leader takes t of 1.7 degrees of freedom, yet the power line took 39 and promised 0.351,
    less than half the difference the t-test on that interval finds 80% of the time."""
    weights = [60.0] + [1.0] * 39
    board = build_board("p", drifting(weights))
    power = board.power
    assert power is not None and power.test == "paired t"
    effective = power.effective
    assert effective is not None and power.n == 40
    assert effective == pytest.approx(effective_count(weights))
    assert effective == pytest.approx(99**2 / 3639)
    # the interval's t-test (its se, its degrees of freedom) finds `detectable` 80% of the time
    (comparison,) = board.comparisons
    low, high = comparison.difference.low, comparison.difference.high
    assert low is not None and high is not None
    assert high < 1  # not cut to [-1, 1]: its half-width is t · se
    half, df = (high - low) / 2, effective - 1
    se = half / t_value(0.95, df)
    assert power.detectable == pytest.approx((t_value(0.95, df) + t_value(0.6, df)) * se)
    # as many cases weighted as these count as `needed` · 2.7 / 40: they find 3 points
    assert power.needed is not None
    sd = se * math.sqrt(40)  # of a case, as the interval takes it

    def found(cases: int) -> float:
        df = cases * effective / 40 - 1
        return (t_value(0.95, df) + t_value(0.6, df)) * sd / math.sqrt(cases)

    assert found(power.needed) <= 0.03 < found(power.needed - 1)


def test_cases_of_equal_weights_count_as_themselves() -> None:
    plain = build_board("p", drifting([1.0] * 40))
    doubled = build_board("p", drifting([2.0] * 40))
    assert plain.power is not None and plain.power.effective == 40
    assert doubled.power == plain.power
    said = power_line(drifting([2.0] * 40))
    assert said == power_line(drifting([1.0] * 40))
    assert said.startswith("power: with 40 paired cases (sd of the differences")
    assert "weights" not in said and "weighted" not in said


def test_the_line_says_what_weighted_cases_count_as() -> None:
    said = power_line(drifting([1000.0] + [1.0] * 39))
    assert said.startswith(
        "power: with 40 paired cases, counting as 1.1 with their weights (sd of the differences"
    )
    assert "no difference within the range (up to 1) is found" in said
    assert re.search(r"needs about [\d,]+ cases weighted as these$", said)


def test_the_board_says_what_weighted_cases_count_as_in_every_report(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    """One case of weight 1,000 among 39 of weight 1, which count as 1.1 cases: the power
    line said "with 40 paired cases" as if of 40 cases alike, here, in the JSON report and on
    the page."""
    tests = "".join(
        f"  - {{id: c{i:02}, input: q{i}, reference: {'a' if i % 4 == 0 else 'q'}{i}"
        f"{', weight: 1000' if i == 0 else ''}}}\n"
        for i in range(40)
    )
    make_project("w", "models: [sim_perfect, sim_echo]\ntests:\n" + tests)
    result = pytester.runpytest(
        "-p", "no:cacheprovider", "--arena-json", "report.json", "--arena-html", "report.html"
    )
    said = (
        "power: with 40 paired cases, counting as 1.1 with their weights (sd of the"
        " differences *, sim_perfect and sim_echo), *; a 3-point difference needs about *"
        " cases weighted as these"
    )
    result.stdout.fnmatch_lines([said])
    (line,) = [x for x in result.outlines if x.startswith("power:")]
    report = json.loads((pytester.path / "report.json").read_text())
    jsonschema.validate(report, schema())
    power = report["leaderboards"][0]["power"]
    assert power["cases"] == 40
    assert power["effective_cases"] == pytest.approx(1039**2 / (1000**2 + 39))
    assert line in html.unescape((pytester.path / "report.html").read_text())
