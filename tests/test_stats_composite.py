"""The composite's interval, rank and scaling (reports/leaderboard.py, reports/verdicts.py):
an interval where per-case values do not vary, none for a model with no score, cost and
tokens per answered case, and metrics too large to sum."""

from __future__ import annotations

import json
import math

import pytest

from pytest_arena.record import ERROR, PASSED, Record
from pytest_arena.reports.leaderboard import Row, build_board, composite, normalised
from pytest_arena.reports.statistics import unseen_share
from tests.conftest import MakeProject
from tests.projects import TABLE_SCORER

PRICED = """
models:
  default: [cheap, pricey]
  define:
    cheap: {profile: sim_perfect, price: {input_per_mtok: 1, output_per_mtok: 1}}
    pricey: {profile: sim_perfect, price: {input_per_mtok: 3, output_per_mtok: 3}}
metrics:
  weights: {accuracy: 0.8, cost: 0.2}
tests:
  - {id: a, input: "Capital of France?", reference: "Capital of France?"}
  - {id: b, input: "2+2?", reference: "2+2?"}
  - {id: c, input: "Opposite of hot?", reference: "Opposite of hot?"}
  - {id: d, input: "Capital of Italy?", reference: "Capital of Italy?"}
  - {id: e, input: "3+3?", reference: "3+3?"}
"""


def report(pytester: pytest.Pytester) -> dict[str, dict[str, object]]:
    """The rows of the run's only board in its --arena-json report, by model."""
    data = json.loads((pytester.path / "report.json").read_text())
    (board,) = data["leaderboards"]
    return {row["model"]: row for row in board["rows"]}


def test_a_composite_whose_cases_do_not_vary_gets_the_no_spread_interval(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    """Every case passed on both models, at a price 3 times as high for one: each resample
    gave the same composites, and the board said 1.000 ± 0.000 and 0.867 ± 0.000 (yet tied,
    by the sign-flip test). As for the accuracy, unseen cases may lie anywhere in [0, 1]."""
    make_project("priced", PRICED)
    result = pytester.runpytest("--arena-json", "report.json")
    result.stdout.fnmatch_lines(
        ["    =1    cheap  1.000 ± 0.217  1.000 ± 0.217  *", "    =1   pricey  0.867 ± 0.217  *"]
    )
    rows = report(pytester)
    share = unseen_share(5)  # Wilson's upper bound for none of 5 cases
    cheap = rows["cheap"]["intervals"]["composite"]  # type: ignore[index]
    pricey = rows["pricey"]["intervals"]["composite"]  # type: ignore[index]
    assert cheap["low"] == pytest.approx(1 - share) and cheap["high"] == 1.0
    assert cheap["low"] <= 0.8 * (1 - share) + 0.2  # no narrower than the accuracy's allows
    assert pricey["low"] == pytest.approx(0.8 + 0.2 / 3 - share * (0.8 + 0.2 / 3))


UNSCORED_ONE = """
models: [sim_perfect, sim_small]
scorers: {default: table}
tests:
""" + "".join(
    f"""  - id: c{i}
    input: abcd
    reference: abcd
    metadata:
      sim_perfect: {{score: {score}, passed: {str(score == 1.0).lower()}}}
      sim_small: {{score: 0.0, passed: null}}
"""
    for i, score in enumerate([0.0, 0.5, 1.0, 0.0, 0.5, 1.0])
)


def test_a_model_with_no_scored_case_gets_no_interval_and_no_shared_rank(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    """No case of sim_small was scored: its composite of 0 was said 0.000 ± 0.000 and ranked
    =1 beside a model at 0.500. A 0 the composite counts for a missing score is not one."""
    make_project("notes", UNSCORED_ONE, files={"scorers/table.py": TABLE_SCORER})
    pytester.runpytest("--arena-json", "report.json").stdout.fnmatch_lines(
        ["     1  sim_perfect  0.500 ± *", "     2    sim_small          0.000              -  *"]
    )
    rows = report(pytester)
    assert "composite" not in rows["sim_small"]["intervals"]  # type: ignore[operator]
    assert [rows[m]["rank_label"] for m in ("sim_perfect", "sim_small")] == ["1", "2"]


UNEVEN = """
models:
  default: [cheap, pricey]
  define:
    cheap: {profile: sim_perfect, price: {input_per_mtok: 1, output_per_mtok: 1}}
    pricey: {profile: sim_perfect, price: {input_per_mtok: 3, output_per_mtok: 3}}
metrics:
  weights: {accuracy: 0.5, cost: 0.5}
tests:
  - {id: a, input: "Capital of France?", reference: "Capital of France?"}
  - {id: b, input: "Capital of Spain?", reference: "Capital of Spain?"}
  - {id: c, input: "Capital of Italy?", reference: "Capital of Italy?", models: [cheap]}
  - {id: d, input: "Capital of Chile?", reference: "Capital of Chile?", models: [cheap]}
  - {id: e, input: "Capital of Japan?", reference: "Capital of Japan?", models: [cheap]}
  - {id: f, input: "Capital of Kenya?", reference: "Capital of Kenya?", models: [cheap]}
"""


def test_cost_is_weighed_per_answered_case(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    """pricey costs 3 times as much a token but ran 2 of the 6 cases: its total was the
    same as cheap's, and both scored a composite of 1.000. The cost column stays the total."""
    make_project("uneven", UNEVEN)
    pytester.runpytest("--arena-json", "report.json")
    rows = report(pytester)
    assert rows["cheap"]["cost"] == pytest.approx(rows["pricey"]["cost"])  # the totals
    assert rows["cheap"]["composite"] == 1.0
    assert rows["pricey"]["composite"] == pytest.approx(0.5 + 0.5 / 3)


def priced(model: str, case: str, cost: float, status: str = PASSED) -> Record:
    tokens = 0 if status == ERROR else 10
    record = Record("p", case, model, status, 1.0, status == PASSED, tokens_in=tokens, cost=cost)
    record.board = {"weights": {"accuracy": 0.5, "cost": 0.25, "tokens": 0.25}}
    return record


def test_failed_calls_cost_nothing_and_do_not_make_a_model_look_cheap() -> None:
    """`flaky` erred on 3 of 6 cases (a failed call costs nothing, and has no tokens):
    its total of $9 beat steady's $12, though each answer cost it $3 to steady's $2."""
    records = [priced("steady", f"c{i}", 2.0) for i in range(6)]
    records += [priced("flaky", f"c{i}", 3.0) for i in range(3)]
    records += [priced("flaky", f"c{i}", 0.0, ERROR) for i in range(3, 6)]
    rows = {r.model: r for r in build_board("p", records).rows}
    assert (rows["flaky"].cost, rows["steady"].cost) == (9.0, 12.0)  # the column: totals
    assert (rows["flaky"].cost_per_case, rows["steady"].cost_per_case) == (3.0, 2.0)
    assert rows["flaky"].tokens_per_case == rows["steady"].tokens_per_case == 10.0
    assert rows["steady"].composite == 1.0
    assert rows["flaky"].composite == pytest.approx(0.5 * 0.5 + 0.25 * 2 / 3 + 0.25)


BIG = """
models: [sim_perfect, sim_small]
scorers: {default: big}
metrics:
  weights: {accuracy: 1, big: 1}
tests:
  - {id: c0, input: abcd, reference: abcd, metadata: {sim_perfect: 1e308, sim_small: 0.0}}
  - {id: c1, input: abcd, reference: abcd, metadata: {sim_perfect: 1e308, sim_small: 1e307}}
  - {id: c2, input: abcd, reference: abcd, metadata: {sim_perfect: 1e308, sim_small: 2e307}}
"""

BIG_SCORER = """
from pytest_arena.scorers import Scorer, ScoreResult


class BigScorer(Scorer):
    name = "big"

    def score(self, output, reference, context):
        value = float(context.test_case.metadata[context.model_key])
        return ScoreResult(0.5, True, "a big metric", metrics={"big": value})
"""


def test_metrics_too_large_to_sum_keep_their_mean(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    """A metric of 1e308 on 3 cases was summed to inf: the terminal said inf, the JSON
    report null (its interval 1e308), and the composite scaled inf / inf to NaN, then 0:
    0.250 for the model with the largest metric, which scores 0.750."""
    make_project("big", BIG, files={"scorers/big.py": BIG_SCORER})
    result = pytester.runpytest("--arena-json", "report.json")
    result.stdout.fnmatch_lines(["*sim_perfect  0.750 *  1e+308", "*sim_small  0.300 *1e+307 ± *"])
    rows = report(pytester)
    big = rows["sim_perfect"]
    assert big["metrics"] == {"big": 1e308}
    assert big["intervals"]["big"]["estimate"] == 1e308  # type: ignore[index]
    assert rows["sim_small"]["metrics"] == {"big": pytest.approx(1e307)}


def test_an_interval_of_metrics_too_large_to_sum_is_no_crash() -> None:
    """Values of 1e308 that differ: the interval's mean summed them past the largest float
    and the board was not built (OverflowError), weighted or not."""
    for weights in ([1.0, 1.0, 1.0], [1.0, 2.0, 1.0]):
        records = [
            Record("p", f"c{i}", "a", PASSED, 1.0, True, metrics={"big": v}, weight=w)
            for i, (v, w) in enumerate(zip([1e308, 1e308, 5e307], weights, strict=True))
        ]
        (row,) = build_board("p", records).rows
        expected = 5e307 * ((2 * weights[0] + 2 * weights[1] + 1) / sum(weights))
        assert row.metrics["big"] == pytest.approx(expected)
        assert row.intervals["big"].estimate == pytest.approx(expected)
        assert row.intervals["big"].low < expected < row.intervals["big"].high  # type: ignore[operator]


def test_a_nan_is_never_scaled_to_0() -> None:
    """max(0, NaN) is 0: a NaN value ranked as the worst, not as unknown."""
    rows = [Row("a", metrics={"m": math.nan}), Row("b", metrics={"m": 2.0})]
    assert math.isnan(normalised("m", math.nan, rows, set()))
    assert normalised("m", 2.0, rows, set()) == 1.0
    assert math.isnan(composite(rows[0], rows, {"m": 1.0}, set()))


ECHO_FAILS = """
models: [sim_perfect, sim_echo]
metrics:
  weights: {accuracy: 0.8, tokens: 0.2}
tests:
  - {id: a, input: "Capital of France?", reference: "Paris"}
  - {id: b, input: "2+2?", reference: "4"}
  - {id: c, input: "Opposite of hot?", reference: "cold"}
  - {id: d, input: "Capital of Italy?", reference: "Rome"}
  - {id: e, input: "3+3?", reference: "6"}
"""


def test_an_accuracy_that_does_not_vary_widens_the_composite_it_weighs(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    """sim_echo failed all 5 cases, its tokens varying: the bootstrap moved only the tokens,
    and the board said 0.162 ± 0.018, the composite [0.148, 0.184] of an accuracy in
    [0, 0.434] that weighs 0.8 (0.8 · 0.434 + 0.2 is reachable). The accuracy's own reach
    over the cases not drawn counts, at its weight."""
    make_project("echo", ECHO_FAILS)
    result = pytester.runpytest("--arena-json", "report.json")
    result.stdout.fnmatch_lines(["    =1     sim_echo  0.162 ± 0.192  0.000 ± 0.217  *"])
    echo = report(pytester)["sim_echo"]["intervals"]
    accuracy, composite = echo["accuracy"], echo["composite"]  # type: ignore[index]
    assert (accuracy["low"], accuracy["high"]) == (0.0, pytest.approx(unseen_share(5)))
    width = composite["high"] - composite["low"]
    assert width >= 0.8 * (accuracy["high"] - accuracy["low"])
    assert composite["high"] >= composite["estimate"] + 0.8 * accuracy["high"]
