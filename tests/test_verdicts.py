"""A board's intervals, paired comparisons, ties and power line, from records (reports/verdicts.py)."""

from __future__ import annotations

import json
import random
from pathlib import Path

import jsonschema
import numpy as np
import pytest
import statsmodels.api as sm

from pytest_arena.record import ERROR, FAILED, PASSED, Record
from pytest_arena.reports.json_report import schema
from pytest_arena.reports.leaderboard import build_board
from pytest_arena.reports.statistics import (
    cases_needed,
    clustered_interval,
    mcnemar_exact,
    mean_interval,
    min_detectable_difference,
    paired_difference,
    student_p_value,
    wilson_interval,
)
from pytest_arena.reports.tables import TIES, render_board, ties_legend
from pytest_arena.reports.verdicts import clipped
from pytest_arena.spec.loader import load_project
from tests.conftest import MakeProject


def record(case: str, model: str, score: float, **kw: object) -> Record:
    passed = kw.pop("passed", score >= 1.0)
    status = str(kw.pop("status", PASSED if passed else FAILED))
    return Record("p", case, model, status, score=score, passed=bool(passed), **kw)  # type: ignore[arg-type]


def pass_fail(model: str, outcomes: list[int]) -> list[Record]:
    return [record(f"c{i:03}", model, float(o)) for i, o in enumerate(outcomes)]


def test_accuracy_and_pass_rate_get_the_clt_and_wilson_intervals() -> None:
    rng = random.Random(3)
    scores = [rng.random() for _ in range(40)]
    records = [record(f"c{i}", "m", s, passed=s > 0.5) for i, s in enumerate(scores)]
    row = build_board("p", records).rows[0]
    clt = mean_interval(scores)
    assert row.intervals["accuracy"] == clt
    wilson = wilson_interval(sum(s > 0.5 for s in scores), 40)
    assert row.intervals["pass_rate"] == wilson
    assert row.intervals["composite"] == clt  # the composite is the accuracy itself


def test_the_interval_of_scores_in_0_1_stays_in_0_1() -> None:
    records = pass_fail("m", [1] * 19 + [0])
    interval = build_board("p", records).rows[0].intervals["accuracy"]
    assert interval.high == 1.0
    assert interval.low == pytest.approx(mean_interval([1.0] * 19 + [0.0]).low)


def test_weighted_accuracy_has_the_weighted_mean_and_its_sandwich_se() -> None:
    rng = random.Random(5)
    scores = [rng.random() for _ in range(60)]
    weights = [rng.choice([1.0, 2.0, 5.0]) for _ in scores]
    records = [
        record(f"c{i}", "m", s, weight=w)
        for i, (s, w) in enumerate(zip(scores, weights, strict=True))
    ]
    got = build_board("p", records).rows[0].intervals["accuracy"]
    # WLS of the scores on a constant is the weighted mean; its HC1 (sandwich) SE is the
    # ratio estimator's linearised SE that the board uses
    fit = sm.WLS(np.asarray(scores), np.ones(60), weights=np.asarray(weights)).fit(cov_type="HC1")
    assert got.estimate == pytest.approx(fit.params[0])
    assert got.se == pytest.approx(fit.bse[0], rel=1e-9)


def test_a_custom_metric_gets_its_interval() -> None:
    records = [
        record(f"c{i}", "m", 1.0, metrics={"recall": v}) for i, v in enumerate([0.2, 0.4, 0.9])
    ]
    row = build_board("p", records).rows[0]
    assert row.intervals["recall"].estimate == pytest.approx(0.5)
    assert row.intervals["recall"] == clipped(mean_interval([0.2, 0.4, 0.9]))


def test_pass_fail_models_are_compared_by_exact_mcnemar_on_shared_cases() -> None:
    leader = [1] * 20 + [1, 1, 1, 1, 0, 1]
    other = [1] * 20 + [0, 0, 0, 0, 1, 0]
    records = pass_fail("a", leader) + pass_fail("b", other) + [record("only_b", "b", 1.0)]
    board = build_board("p", records)
    (c,) = board.comparisons
    assert (c.model, c.against, c.test) == ("b", "a", "McNemar (exact)")
    assert c.difference.n == 26  # only_b is not a shared case
    assert (c.only_model, c.only_against) == (1, 5)
    assert c.difference.p_value == mcnemar_exact(1, 5)
    d = paired_difference([float(x) for x in other], [float(x) for x in leader])
    assert c.difference.estimate == pytest.approx(d.estimate)
    assert (c.difference.low, c.difference.high) == (pytest.approx(d.low), pytest.approx(d.high))


def test_graded_scores_are_compared_by_the_paired_test() -> None:
    rng = random.Random(8)
    a = [rng.random() for _ in range(50)]
    b = [min(1.0, x + rng.gauss(-0.1, 0.1)) for x in a]
    records = [record(f"c{i}", "a", x) for i, x in enumerate(a)]
    records += [record(f"c{i}", "b", x) for i, x in enumerate(b)]
    (c,) = build_board("p", records).comparisons
    assert c.test == "paired t"
    assert c.difference == paired_difference(b, a)
    assert c.significant


def test_an_error_counts_as_a_score_of_0_in_the_pair() -> None:
    records = pass_fail("a", [1, 1, 1]) + pass_fail("b", [1, 1])
    records.append(Record("p", "c002", "b", ERROR, error="boom"))
    (c,) = build_board("p", records).comparisons
    assert c.difference.n == 3 and c.only_against == 1


def test_models_the_data_cannot_separate_share_a_rank() -> None:
    rng = random.Random(1)
    strong = [int(rng.random() < 0.95) for _ in range(200)]
    records = pass_fail("strong", strong)
    ones, zeros = [i for i, x in enumerate(strong) if x], [i for i, x in enumerate(strong) if not x]
    flipped = {*ones[:3], *zeros[:2]}  # 3 cases only strong passes, 2 only twin: McNemar p=1
    twin = [1 - x if i in flipped else x for i, x in enumerate(strong)]
    records += pass_fail("twin", twin)
    weak = [int(rng.random() < 0.4) for _ in range(200)]
    records += pass_fail("weak", weak)
    passes = [i for i, x in enumerate(weak) if x]
    records += pass_fail("weaker", [0 if i in passes[:4] else x for i, x in enumerate(weak)])
    board = build_board("p", records)
    labels = {r.model: r.rank_label for r in board.rows}
    assert labels == {"strong": "=1", "twin": "=1", "weak": "=3", "weaker": "=3"}
    text = render_board(board)
    # a board of accuracy alone is ranked by the paired test, and its legend says so
    assert TIES["test"] in text and TIES["interval"] not in text
    assert "against the leader strong, on the cases both answered (accuracy):" in text


def test_a_composite_board_says_its_ties_come_from_the_interval_of_the_difference() -> None:
    records = []
    for i in range(6):
        records.append(record(f"c{i}", "cheap", float(i % 2), cost=0.001))
        records.append(record(f"c{i}", "dear", float(i % 3 != 0), cost=0.002))
    for r in records:
        r.board = {"weights": {"accuracy": 0.5, "cost": 0.5}}
    board = build_board("p", records)
    assert [r.rank_label for r in board.rows] == ["=1", "=1"]
    text = render_board(board)
    assert TIES["interval"] in text and TIES["test"] not in text
    # under several boards the terminal says it once, for the kinds of board it shows
    plain = build_board("q", pass_fail("a", [1, 0, 1]) + pass_fail("b", [1, 1, 0]))
    assert [r.rank_label for r in plain.rows] == ["=1", "=1"]
    assert ties_legend([board]) == TIES["interval"] and ties_legend([plain]) == TIES["test"]
    assert ties_legend([plain, board]) == TIES["both"]
    assert ties_legend([build_board("r", pass_fail("a", [1]))]) is None


def test_clearly_different_models_keep_their_ranks() -> None:
    board = build_board("p", pass_fail("a", [1] * 30) + pass_fail("b", [0] * 30))
    assert [r.rank_label for r in board.rows] == ["1", "2"]
    assert "=N" not in render_board(board)


def test_the_power_line_uses_the_top_two_models_paired_spread() -> None:
    rng = random.Random(2)
    a = [int(rng.random() < 0.8) for _ in range(100)]
    b = [int(rng.random() < 0.7) for _ in range(100)]
    board = build_board("p", pass_fail("a", a) + pass_fail("b", b))
    power = board.power
    assert power is not None
    top = [r.model for r in board.rows]
    first = a if top[0] == "a" else b
    second = b if top[0] == "a" else a
    sd = float(np.std(np.subtract(second, first), ddof=1))
    assert power.paired_sd == pytest.approx(sd)
    assert power.test == "McNemar (exact)" and power.reachable
    # the paired t-test's power, with Student's t quantiles of 99 degrees of freedom
    assert power.detectable == pytest.approx(min_detectable_difference(sd, 100, df=99))
    assert power.needed == cases_needed(0.03, sd, per_unit=1)
    assert f"a 3-point difference needs about {power.needed:,} cases" in render_board(board)


def test_one_model_sizes_power_as_against_an_unrelated_twin() -> None:
    board = build_board("p", pass_fail("a", [1, 0, 1, 1, 0, 1, 1, 1]))
    assert board.power is not None and board.power.assumed
    sd = float(np.std([1, 0, 1, 1, 0, 1, 1, 1], ddof=1)) * 2**0.5
    assert board.power.paired_sd == pytest.approx(sd)


def test_a_power_line_without_spread_says_what_the_scores_did() -> None:
    apart = render_board(build_board("p", pass_fail("a", [1] * 6) + pass_fail("b", [0] * 6)))
    assert "power: a and b differ by the same amount on all 6 paired cases," in apart
    assert "score the same" not in apart
    alone = render_board(build_board("p", pass_fail("a", [1] * 6)))
    assert "power: a scores the same on all 6 cases, so there is no spread" in alone


def test_a_composite_with_cost_gets_a_seeded_bootstrap_interval() -> None:
    rng = random.Random(4)
    records = []
    for i in range(30):
        records.append(record(f"c{i}", "cheap", float(rng.random() < 0.6), cost=0.001))
        records.append(record(f"c{i}", "dear", float(rng.random() < 0.9), cost=0.01))
    for r in records:
        r.board = {"weights": {"accuracy": 0.5, "cost": 0.5}}
    first = build_board("p", records)
    again = build_board("p", list(reversed(records)))
    assert [r.intervals["composite"] for r in first.rows] == [
        r.intervals["composite"] for r in again.rows
    ]
    for row in first.rows:
        interval = row.intervals["composite"]
        assert interval.estimate == pytest.approx(row.composite)
        assert interval.low is not None and interval.high is not None
        assert interval.low <= row.composite <= interval.high
    assert "±" in render_board(first)


def test_ties_are_marked_in_the_terminal_and_the_json_report(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    make_project(
        "quiz",
        """
        models: [sim_perfect, sim_echo]
        tests:
          - {id: capital, input: "Capital of France?", reference: Paris}
          - {id: sum, input: "2+2?", reference: "4"}
        """,
    )
    result = pytester.runpytest("--arena-json", "out.json")
    result.stdout.fnmatch_lines(
        [
            # every case scored the same: no spread, so Wilson's interval, the pass rate's
            "    =1  sim_perfect  1.000 ± 0.329  1.000 ± 0.329  100.0% ± 32.9*",
            "    =1     sim_echo  0.000 ± 0.329  0.000 ± 0.329    0.0% ± 32.9*",
            "against the leader sim_perfect, on the cases both answered (accuracy): sim_echo"
            " -1.000 (95% CI -1.000 to +0.315), p=0.500 McNemar (exact), 2 cases: not told apart",
            "=N: ranks the data cannot tell apart (the paired test of their accuracy against the"
            " rank's first, McNemar's exact test for pass/fail cases, else a paired test of"
            " scores, by group when cases share one, gives p of 0.05 or more)",
        ]
    )
    report = json.loads((pytester.path / "out.json").read_text())
    jsonschema.validate(report, schema())
    (board,) = report["leaderboards"]
    assert [r["rank_label"] for r in board["rows"]] == ["=1", "=1"]
    perfect = board["rows"][0]["intervals"]["pass_rate"]
    assert (perfect["estimate"], perfect["n"]) == (1.0, 2)
    assert perfect["low"] == pytest.approx(wilson_interval(2, 2).low)
    accuracy = board["rows"][0]["intervals"]["accuracy"]
    assert accuracy["low"] == pytest.approx(perfect["low"])
    assert (accuracy["high"], accuracy["se"]) == (1.0, None)
    (comparison,) = board["comparisons"]
    assert comparison["p_value"] == 0.5 and not comparison["significant"]
    assert board["power"]["cases"] == 2


def test_cases_sharing_a_group_get_the_clustered_interval(tmp_path: Path) -> None:
    rng = random.Random(6)
    scores, groups = [], []
    for doc in range(12):
        level = rng.random()
        for _ in range(5):  # five questions about one document
            scores.append(min(1.0, max(0.0, level + rng.gauss(0, 0.1))))
            groups.append(f"doc{doc}")
    records = [
        record(f"c{i}", "m", s, group=g)
        for i, (s, g) in enumerate(zip(scores, groups, strict=True))
    ]
    row = build_board("p", records).rows[0]
    assert row.intervals["accuracy"] == clipped(clustered_interval(scores, groups))
    assert row.intervals["accuracy"].se > mean_interval(scores).se  # type: ignore[operator]
    # and the key reaches the record from arena.yaml
    (tmp_path / "arena.yaml").write_text(
        "models: [sim_perfect]\ntests:\n  - {id: a, input: x, reference: x, group: doc1}\n"
    )
    (case,) = load_project(tmp_path / "arena.yaml").cases
    assert case.group == "doc1"


def test_cases_that_all_moved_alike_are_judged_by_an_exact_sign_test_not_p_zero() -> None:
    from pytest_arena.reports.verdicts import compare

    def rec(model: str, case: str, passed: bool, weight: float) -> Record:
        status = "passed" if passed else "failed"
        return Record("z", case, model, status, score=float(passed), passed=passed, weight=weight)

    # two cases, one of weight 2: a weighted (paired z) comparison, and every difference -1
    mine = [rec("echo", "capital", False, 1.0), rec("echo", "sum", False, 2.0)]
    theirs = [rec("perfect", "capital", True, 1.0), rec("perfect", "sum", True, 2.0)]
    result = compare("echo", mine, "perfect", theirs)
    assert result.test == "sign-flip (exact)"
    # 2 * (1/2)^2 = 0.5 by the signs (was 0, "different"); the two count as 1.8 cases with
    # their weights, too few for the interval to say anything, and p is its: 1
    assert result.difference.p_value == pytest.approx(1.0)
    assert not result.significant
    # of equal weights, the signs alone: 2 * (1/2)^2
    mine = [rec("echo", "capital", False, 2.0), rec("echo", "sum", False, 2.0)]
    theirs = [rec("perfect", "capital", True, 2.0), rec("perfect", "sum", True, 2.0)]
    assert compare("echo", mine, "perfect", theirs).difference.p_value == pytest.approx(0.5)


def test_a_clustered_pass_rate_interval_stays_within_0_and_1() -> None:
    from pytest_arena.reports.verdicts import pass_rate_interval

    records = [
        Record(
            "p",
            f"c{i}",
            "m",
            PASSED if i else FAILED,
            score=float(bool(i)),
            passed=bool(i),
            group=f"g{min(i // 3, 3)}",
        )
        for i in range(10)
    ]  # 9 of 10 passed, in groups of 3, 3, 3 and 1
    interval = pass_rate_interval(records)
    assert interval.estimate == pytest.approx(0.9)
    assert 0.0 <= interval.low <= interval.high <= 1.0  # the high was 1.11


def test_one_heavy_case_that_flipped_is_no_significant_difference() -> None:
    """Two models apart on one case of weight 20 were "different" (p=0.004, paired z): the
    normal tail is no guide to one case. The signs of the cases that differ are counted out:
    one case, however heavy, gives p = 1; six that all went one way, 2 · (1/2)^6 = 0.031,
    which was "different" too, though with the heavy one among them the 11 cases count as 2.2
    (Kish) and the interval, -1.000 to +0.336, holds 0: p is then the interval's, 0.074."""
    from pytest_arena.reports.verdicts import compare

    def rec(model: str, case: str, passed: bool, weight: float) -> Record:
        status = "passed" if passed else "failed"
        return Record("w", case, model, status, score=float(passed), passed=passed, weight=weight)

    weights = {f"c{i}": 1.0 for i in range(10)} | {"big": 20.0}
    leader = [rec("a", case, True, w) for case, w in weights.items()]
    other = [rec("b", case, case != "big", w) for case, w in weights.items()]
    result = compare("b", other, "a", leader)
    assert (result.test, result.difference.p_value) == ("sign-flip (exact)", 1.0)
    assert not result.significant
    worse = [
        rec("b", case, case not in {"big", "c0", "c1", "c2", "c3", "c4"}, w)
        for case, w in weights.items()
    ]
    result = compare("b", worse, "a", leader)
    d = result.difference
    assert d.low is not None and d.high is not None and d.low < 0 < d.high
    assert d.p_value is not None and 0.05 < d.p_value < 0.1
    assert not result.significant


def grouped(model: str, outcomes: dict[str, int], groups: dict[str, str]) -> list[Record]:
    return [record(case, model, float(o), group=groups.get(case)) for case, o in outcomes.items()]


def test_one_group_with_one_flipped_case_is_no_significant_difference() -> None:
    """Ten cases of one group, one of which flipped: the clustered SE of one cluster collapsed
    (-0.100, 95% CI -0.162 to -0.038, p=0.002 paired z, clustered) and a regression gate
    failed, where without the group McNemar said p=1. The group is one draw: p = 1."""
    from pytest_arena.reports.verdicts import compare

    cases = [f"c{i}" for i in range(10)]
    groups = dict.fromkeys(cases, "g")
    then = grouped("m", dict.fromkeys(cases, 1), groups)
    now = grouped("m", {c: int(c != "c0") for c in cases}, groups)
    result = compare("m", now, "baseline", then)
    assert (result.test, result.difference.p_value) == ("sign-flip by group (exact)", 1.0)
    assert not result.significant
    plain = mean_interval([-1.0] + [0.0] * 9)
    assert (result.difference.low, result.difference.high) == (plain.low, plain.high)


def test_two_groups_are_never_told_apart_and_never_narrow_an_interval() -> None:
    """20 cases in groups a and b; b passes all, a fails one case of each group. The board said
    0.900 ± 0.030, 90.0% ± 3.0 and p<0.001 (paired z, clustered): different. Two groups that
    moved alike give a sign-flip p of 1/2, and the intervals have the standard errors of those
    without groups, with the t quantile of two groups drawn."""
    cases = [f"c{i}" for i in range(20)]
    groups = {c: "a" if i < 10 else "b" for i, c in enumerate(cases)}
    a = {c: int(c not in {"c0", "c10"}) for c in cases}
    b = dict.fromkeys(cases, 1)
    board = build_board("p", grouped("a", a, groups) + grouped("b", b, groups))
    alone = build_board("p", grouped("a", a, {}) + grouped("b", b, {}))
    row, row_alone = board.rows[1], alone.rows[1]
    assert row.model == "a"
    accuracy, accuracy_alone = row.intervals["accuracy"], row_alone.intervals["accuracy"]
    assert accuracy.se == accuracy_alone.se and accuracy.estimate == accuracy_alone.estimate
    assert accuracy.low < accuracy_alone.low  # type: ignore[operator]
    assert row.intervals["pass_rate"] == wilson_interval(18, 20)
    (c,) = board.comparisons
    assert (c.test, c.difference.p_value) == ("sign-flip by group (exact)", 0.5)
    assert [r.rank_label for r in board.rows] == ["=1", "=1"]


def test_groups_that_move_together_widen_the_pass_rate_as_wilson_over_fewer_cases() -> None:
    from pytest_arena.reports.statistics import design_effect, wilson_bounds
    from pytest_arena.reports.verdicts import pass_rate_interval

    outcomes = [1] * 5 + [0] * 5 + [1] * 4 + [0] + [1, 0, 0, 0, 0]  # groups of 5
    clusters = [f"g{i // 5}" for i in range(20)]
    records = [
        record(f"c{i}", "m", float(o), group=g)
        for i, (o, g) in enumerate(zip(outcomes, clusters, strict=True))
    ]
    got = pass_rate_interval(records)
    effect = design_effect([float(o) for o in outcomes], clusters)
    assert effect > 1.5
    assert (got.low, got.high) == pytest.approx(wilson_bounds(0.5, 20 / effect))
    plain = wilson_interval(10, 20)
    assert got.low < plain.low and got.high > plain.high  # type: ignore[operator]
    assert got.estimate == 0.5 and got.n == 20


def test_many_groups_that_differ_get_the_clustered_t_test() -> None:
    from pytest_arena.reports.verdicts import compare

    rng = random.Random(11)
    cases = [f"c{i}" for i in range(120)]
    groups = {c: f"g{i // 4}" for i, c in enumerate(cases)}  # 30 groups of 4
    leader = {c: int(rng.random() < 0.8) for c in cases}
    other = {c: int(rng.random() < 0.5) for c in cases}
    result = compare("b", grouped("b", other, groups), "a", grouped("a", leader, groups))
    assert result.test == "paired t, clustered"
    diffs = [float(other[c] - leader[c]) for c in cases]
    interval = clustered_interval(diffs, list(groups.values()))
    assert result.difference.se == interval.se
    # the t-test of 29 degrees of freedom (30 groups), as the interval's quantile
    d = result.difference
    assert d.p_value == pytest.approx(
        student_p_value(interval.estimate, interval.se, 29)  # type: ignore[arg-type]
    )
    assert (d.low, d.high) == (max(-1.0, interval.low), min(1.0, interval.high))  # type: ignore[type-var]
    assert result.difference.se >= mean_interval(diffs).se  # type: ignore[operator]


def test_scores_without_spread_get_the_bounded_interval_not_a_zero_width_one() -> None:
    from pytest_arena.reports.statistics import no_spread_interval

    same = [record(f"c{i}", "m", 0.6, passed=True, metrics={"n": 3.0}) for i in range(6)]
    row = build_board("p", same).rows[0]
    assert row.intervals["accuracy"] == no_spread_interval(0.6, 6)
    assert row.intervals["composite"] == row.intervals["accuracy"]
    # a metric without bounds: a spread of 0 says nothing, so no interval (not 3.000 ± 0.000)
    assert row.intervals["n"].estimate == 3.0 and row.intervals["n"].low is None
    # heavy cases count as fewer: Kish's effective number, (1 + 1 + 4)² / (1 + 1 + 16)
    heavy = [record(f"c{i}", "m", 1.0, weight=w) for i, w in enumerate([1.0, 1.0, 4.0])]
    got = build_board("p", heavy).rows[0].intervals["accuracy"]
    assert got == no_spread_interval(1.0, 3, effective=2.0)


def test_a_metric_another_model_takes_past_1_is_unbounded_for_every_model_of_the_board() -> None:
    """A word count of 1 on every case got 1.000 ± 0.121 (a made-up interval cut at 1) beside
    a model whose counts went to 3: whether a metric has bounds is the board's, not a row's."""
    ones = [record(f"c{i}", "short", 1.0, passed=True, metrics={"words": 1.0}) for i in range(6)]
    spread = [
        record(f"c{i}", "long", 1.0, passed=True, metrics={"words": float(i % 3 + 1)})
        for i in range(6)
    ]
    leaning = [  # in [0, 1] on this model's cases alone, with a spread: not cut at 0 or 1
        record(f"c{i}", "lean", 1.0, passed=True, metrics={"words": 0.95 + (i % 2) * 0.05})
        for i in range(6)
    ]
    rows = {r.model: r for r in build_board("p", ones + spread + leaning).rows}
    short = rows["short"].intervals["words"]
    assert (short.estimate, short.low, short.high) == (1.0, None, None)
    lean = rows["lean"].intervals["words"]
    assert lean.high is not None and lean.high > 1.0  # a t interval, uncut
    alone = build_board("p", ones).rows[0].intervals["words"]  # its board's values all in [0, 1]
    assert alone.low is not None and alone.high == 1.0


def test_a_comparison_where_every_case_moved_alike_has_an_interval_of_its_share() -> None:
    from pytest_arena.reports.statistics import unseen_share
    from pytest_arena.reports.verdicts import compare

    result = compare("b", pass_fail("b", [0] * 2), "a", pass_fail("a", [1] * 2))
    d = result.difference
    assert (d.estimate, d.low, d.p_value) == (-1.0, -1.0, 0.5)
    assert d.high == pytest.approx(-1 + 2 * unseen_share(2))
    same = compare("b", pass_fail("b", [1] * 80), "a", pass_fail("a", [1] * 80))
    share = unseen_share(80)
    assert (same.difference.low, same.difference.high) == (-share, share)
    assert same.difference.p_value == 1.0


def _composite_board(cheap: list[float], dear: list[float]) -> list[Record]:
    records = []
    for i, (x, y) in enumerate(zip(cheap, dear, strict=True)):
        records.append(record(f"c{i}", "cheap", x, cost=0.001))
        records.append(record(f"c{i}", "dear", y, cost=0.002))
    for r in records:
        r.board = {"weights": {"accuracy": 0.5, "cost": 0.5}}
    return records


def test_a_composite_is_told_apart_no_more_readily_than_a_paired_test_on_its_cases() -> None:
    """Two cases, cheap better on both: the bootstrap of two cases left out 0 in every draw
    and ranked 1 and 2, where no paired test of two cases gets below p = 1/2."""
    from pytest_arena.reports.verdicts import PairedInterval, separated

    two = build_board("p", _composite_board([1.0, 1.0], [0.6, 0.6]))
    assert [(r.model, r.rank_label) for r in two.rows] == [("cheap", "=1"), ("dear", "=1")]
    # eight cases that all favour cheap: the sign-flip p is 2/256, and they are told apart
    eight = build_board("p", _composite_board([1.0] * 8, [0.6, 0.5] * 4))
    assert [r.rank_label for r in eight.rows] == ["1", "2"]
    assert separated(PairedInterval(0.1, 0.01, 0.05, 0.2, 8, 0.01))
    assert not separated(PairedInterval(0.1, 0.01, 0.05, 0.2, 2, 0.5))
    assert separated(PairedInterval(0.1, 0.01, 0.05, 0.2, 40, None))  # too many to count out


def test_a_composite_of_cases_in_one_group_is_one_draw() -> None:
    """Eight cases that all favour cheap are told apart (sign-flip p = 2/256); the same eight
    in one group are one draw, and a paired test of one draw cannot tell them apart."""
    records = _composite_board([1.0] * 8, [0.6, 0.5] * 4)
    for r in records:
        r.group = "doc"
    board = build_board("p", records)
    assert [r.rank_label for r in board.rows] == ["=1", "=1"]


def test_a_composite_of_grouped_cases_draws_whole_groups_and_is_no_narrower() -> None:
    """40 groups of 5 cases that come out alike within each group: drawing cases as if each
    were on its own gave an interval about √5 too narrow; drawing whole groups gives the
    width the 40 groups hold, and the interval is never narrower than the cases' own."""
    rng = random.Random(3)
    cheap = [float(rng.random() < 0.7) for _ in range(40) for _ in range(5)]
    dear = [float(rng.random() < 0.6) for _ in range(40) for _ in range(5)]
    cheap = [cheap[i - i % 5] for i in range(200)]  # each group's five cases alike
    dear = [dear[i - i % 5] for i in range(200)]
    alone = build_board("p", _composite_board(cheap, dear))
    records = _composite_board(cheap, dear)
    for r in records:
        r.group = f"g{int(r.case_id[1:]) // 5}"
    grouped = build_board("p", records)
    for name in ("cheap", "dear"):
        plain = next(r for r in alone.rows if r.model == name).intervals["composite"]
        wide = next(r for r in grouped.rows if r.model == name).intervals["composite"]
        assert wide.estimate == plain.estimate
        assert wide.low is not None and plain.low is not None
        assert wide.high is not None and plain.high is not None
        assert wide.low <= plain.low and wide.high >= plain.high
        assert (wide.high - wide.low) > 1.8 * (plain.high - plain.low)  # about √5 = 2.2


def test_the_power_line_of_grouped_cases_counts_each_case_for_less() -> None:
    """30 groups of 4 cases that move alike: the power line sized the run as if 120 cases
    were independent, promising differences of a quarter of the size they can show."""
    from pytest_arena.reports.json_report import build_report
    from pytest_arena.reports.statistics import design_effect

    rng = random.Random(5)
    cases = [f"c{i:03}" for i in range(120)]
    groups = {c: f"g{i // 4}" for i, c in enumerate(cases)}
    leader_of_group = [int(rng.random() < 0.8) for _ in range(30)]
    other_of_group = [int(rng.random() < 0.6) for _ in range(30)]
    leader = {c: leader_of_group[i // 4] for i, c in enumerate(cases)}
    other = {c: other_of_group[i // 4] for i, c in enumerate(cases)}
    alone = build_board(
        "p", pass_fail("a", list(leader.values())) + pass_fail("b", list(other.values()))
    )
    board = build_board("p", grouped("a", leader, groups) + grouped("b", other, groups))
    power, plain = board.power, alone.power
    assert power is not None and plain is not None
    top = board.rows[0].model
    diffs = [
        float((other if top == "a" else leader)[c] - (leader if top == "a" else other)[c])
        for c in cases
    ]
    effect = design_effect(diffs, list(groups.values()))
    assert effect > 3  # four cases that move alike are worth about one
    assert power.design_effect == pytest.approx(effect)
    assert power.paired_sd == pytest.approx(plain.paired_sd)  # the sd said is the cases' own
    spread = power.paired_sd * effect**0.5
    # t quantiles of 29 degrees of freedom: the test counts the 30 groups
    assert power.groups == 30 and power.test == "paired t, clustered"
    assert power.detectable == pytest.approx(min_detectable_difference(spread, 120, df=29))
    assert power.detectable > 1.7 * plain.detectable
    assert power.needed == cases_needed(0.03, spread, per_unit=4)
    assert power.needed_groups == power.needed // 4 + (power.needed % 4 > 0)
    said = render_board(board)
    assert f"in groups, each case counts as 1/{effect:.2f} of one, the design effect)" in said
    assert "design effect" not in render_board(alone)
    report = build_report([], [board])
    jsonschema.validate(report, schema())
    assert report["leaderboards"][0]["power"]["design_effect"] == pytest.approx(effect)


def heavy(model: str, outcomes: list[int], weights: list[float]) -> list[Record]:
    return [
        record(f"c{i:03}", model, float(o), weight=w)
        for i, (o, w) in enumerate(zip(outcomes, weights, strict=True))
    ]


def test_one_heavy_case_is_about_one_case_drawn() -> None:
    """Cases a, b, d of weight 1 and c of weight 1,000, which only `a` passed: the board said
    `b` 0.003 ± 0.008 and -0.997 (95% CI -1.000 to -0.984), p=1.000 sign-flip, not told apart,
    and that a 3-point difference needs about 14 cases. Kish's effective number of cases is
    1.006: too few to measure a spread, so the intervals are all a score (a difference) can
    take, and agree with the test."""
    weights = [1.0, 1.0, 1000.0, 1.0]
    board = build_board("p", heavy("a", [1, 1, 1, 1], weights) + heavy("b", [1, 1, 0, 1], weights))
    b = board.rows[1]
    assert b.model == "b" and b.accuracy == pytest.approx(3 / 1003)
    accuracy = b.intervals["accuracy"]
    assert (accuracy.low, accuracy.high) == (0.0, 1.0)
    (c,) = board.comparisons
    d = c.difference
    assert d.low is not None and d.high is not None and d.low < 0 < d.high
    assert d.p_value == 1.0 and not c.significant
    said = render_board(board)
    assert "b -0.997 (95% CI -1.000 to +1.000), p=1.000 sign-flip (exact)" in said
    assert "b  0.003 ± 0.500" in said
    assert board.power is not None and board.power.needed is not None
    assert board.power.needed > 1000  # not 14: the spread of the light cases says little


def test_weights_that_leave_one_case_give_no_interval_of_width_0() -> None:
    """Weights 1e-300, 1e-300 and 1: the board said 0.000 ± 0.000 for scores 1, 1, 0."""
    weights = [1e-300, 1e-300, 1.0]
    board = build_board("p", heavy("m", [1, 1, 0], weights))
    accuracy = board.rows[0].intervals["accuracy"]
    assert accuracy.estimate == pytest.approx(0.0)
    assert (accuracy.low, accuracy.high) == (0.0, 1.0)
    assert "0.000 ± 0.500" in render_board(board)


def test_a_t_test_of_weighted_cases_agrees_with_its_interval() -> None:
    """40 graded cases, one of weight 60 (Kish's effective number of cases 2.7): the board
    said -0.068 (95% CI -0.093 to -0.043), p<0.001, different, as if of 39 degrees of
    freedom, though the mean is 60/99 one case's. The interval counts 2.7 cases, and the
    paired t-test takes its degrees of freedom and standard error, so p < 0.05 exactly when
    the interval leaves out 0."""
    rng = random.Random(4)
    a = [rng.random() for _ in range(40)]
    b = [min(1.0, x + rng.gauss(0.1, 0.05)) for x in a]
    weights = [60.0] + [1.0] * 39
    records = [
        record(f"c{i}", "a", x, weight=w) for i, (x, w) in enumerate(zip(a, weights, strict=True))
    ]
    records += [
        record(f"c{i}", "b", x, weight=w) for i, (x, w) in enumerate(zip(b, weights, strict=True))
    ]
    (c,) = build_board("p", records).comparisons
    d = c.difference
    assert c.test == "paired t" and d.low is not None and d.high is not None
    assert c.significant == (d.low > 0 or d.high < 0)
    assert not c.significant and d.p_value is not None and d.p_value > 0.05
    plain = mean_interval([y - x for x, y in zip(a, b, strict=True)])
    assert plain.low is not None and plain.high is not None
    assert d.high - d.low > plain.high - plain.low  # wider than 40 equal cases'


def pass_fail_weighted(model: str, failed: set[int], weights: list[float]) -> list[Record]:
    return [
        record(f"c{i:03}", model, float(i not in failed), weight=w) for i, w in enumerate(weights)
    ]


def test_an_exact_test_of_one_heavy_case_among_many_agrees_with_its_interval() -> None:
    """40 cases, c0 of weight 1,000 and 39 of weight 1, and `b` failed c0 to c9, which `a`
    passed: the board said -0.971 (95% CI -1.000 to +1.000), p=0.002 sign-flip (exact):
    different. The ten that moved all went one way (2 / 2**10), but they count as 1.08 cases
    with their weights (Kish), too few for any interval: the test now says so too."""
    from pytest_arena.reports.verdicts import compare

    weights = [1000.0] + [1.0] * 39
    leader = pass_fail_weighted("a", set(), weights)
    other = pass_fail_weighted("b", set(range(10)), weights)
    result = compare("b", other, "a", leader)
    d = result.difference
    assert result.test == "sign-flip (exact)"
    assert d.estimate == pytest.approx(-1009 / 1039)
    assert (d.low, d.high) == (-1.0, 1.0)
    assert d.p_value is not None and d.p_value >= 0.05  # was 2 / 2**10
    assert d.p_value == pytest.approx(1.0)
    assert not result.significant


def test_a_weighted_sign_test_of_cases_that_all_moved_alike_agrees_with_its_interval() -> None:
    """More than 16 cases that all moved one way take the sign test: 20 of them, one of
    weight 1,000, said p = 2 / 2**20 while its interval was -1 to 1."""
    from pytest_arena.reports.verdicts import compare

    weights = [1000.0] + [1.0] * 19
    result = compare(
        "b",
        pass_fail_weighted("b", set(range(20)), weights),
        "a",
        pass_fail_weighted("a", set(), weights),
    )
    d = result.difference
    assert result.test == "sign test (exact)"
    assert d.low is not None and d.high is not None and d.low < 0 < d.high
    assert d.p_value == pytest.approx(1.0) and not result.significant


def test_a_weighted_exact_test_says_different_only_when_its_interval_leaves_out_0() -> None:
    """Of random weights and a few cases that moved, the exact sign-flip test gave p < 0.05
    where the interval (of cases counted as Kish's n_e) held 0: now never."""
    from pytest_arena.reports.verdicts import compare

    rng = random.Random(1)
    told_apart = 0
    for _ in range(300):
        n = rng.randint(3, 40)
        weights = [rng.choice([1.0, 1.0, 2.0, 5.0, 20.0, 100.0]) for _ in range(n)]
        failed = set(rng.sample(range(n), rng.randint(1, min(n, 14))))
        result = compare(
            "b",
            pass_fail_weighted("b", failed, weights),
            "a",
            pass_fail_weighted("a", set(), weights),
        )
        d = result.difference
        assert d.low is not None and d.high is not None
        if len(set(weights)) > 1:
            assert result.test == "sign-flip (exact)"
            assert not result.significant or d.high < 0
            told_apart += result.significant
    assert told_apart > 10  # the test still tells models apart where the interval does


def test_equal_weights_keep_the_exact_tests_p() -> None:
    """Equal weights, however large, count every case alike: p is the sign-flip test's of
    the differences as they are, as before weights were weighed against the interval."""
    from pytest_arena.reports.statistics import sign_flip_p
    from pytest_arena.reports.verdicts import compare

    rng = random.Random(7)
    for weight in (1.0, 3.0, 1000.0):
        for _ in range(30):
            n = rng.randint(2, 30)
            a = [rng.choice([0.0, 0.5, 1.0]) for _ in range(n)]
            b = [x if rng.random() < 0.6 else rng.choice([0.0, 0.25, 1.0]) for x in a]
            moved = [y - x for x, y in zip(a, b, strict=True)]
            if sum(m != 0 for m in moved) > 16:
                continue
            leader = [record(f"c{i}", "a", x, weight=weight) for i, x in enumerate(a)]
            other = [record(f"c{i}", "b", y, weight=weight) for i, y in enumerate(b)]
            result = compare("b", other, "a", leader)
            if result.test.startswith("McNemar") or not any(moved):
                continue
            assert result.test == "sign-flip (exact)"
            assert result.difference.p_value == sign_flip_p([weight * m for m in moved])
