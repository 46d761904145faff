"""The leaderboard is a pure function of records."""

from __future__ import annotations

import html
from typing import Any

import pytest

from pytest_arena.record import ERROR, FAILED, PASSED, UNSCORED, Record
from pytest_arena.reports.leaderboard import build_board, build_boards


def rec(model: str, case: str, status: str, score: float | None, **extra: Any) -> Record:
    return Record(project="p", case_id=case, model=model, status=status, score=score, **extra)


def test_a_single_model_has_a_well_defined_composite() -> None:
    board_settings = {"weights": {"accuracy": 0.5, "cost": 0.3, "latency": 0.2}}
    records = [
        rec("only", "a", PASSED, 1.0, cost=0.2, latency_ms=100.0, board=board_settings),
        rec("only", "b", FAILED, 0.5, cost=0.1, latency_ms=300.0, board=board_settings),
    ]
    (row,) = build_board("p", records).rows
    # alone, the model is the cheapest and the fastest: both count 1
    assert row.accuracy == pytest.approx(0.75)
    assert row.composite == pytest.approx(0.5 * 0.75 + 0.3 + 0.2)
    assert row.cost == pytest.approx(0.3)
    assert row.latency == pytest.approx(200.0)


def test_lower_is_better_dimensions_are_scored_against_the_best_model() -> None:
    settings = {"weights": {"cost": 1.0}}
    records = [
        rec("cheap", "a", PASSED, 1.0, cost=1.0, board=settings),
        rec("dear", "a", PASSED, 1.0, cost=4.0, board=settings),
    ]
    rows = {r.model: r for r in build_board("p", records).rows}
    assert rows["cheap"].composite == pytest.approx(1.0)
    assert rows["dear"].composite == pytest.approx(0.25)
    assert (rows["cheap"].rank, rows["dear"].rank) == (1, 2)


def test_latencies_under_a_millisecond_count_as_one() -> None:
    """A sim answering in 0 ms made another model at 0.003 ms score 0 on latency, though
    the board showed "0 ms" for both."""
    settings = {"weights": {"latency": 1.0}}
    records = [
        rec("instant", "a", PASSED, 1.0, latency_ms=0.0, board=settings),
        rec("quick", "a", PASSED, 1.0, latency_ms=0.003, board=settings),
        rec("slow", "a", PASSED, 1.0, latency_ms=4.0, board=settings),
    ]
    rows = {r.model: r for r in build_board("p", records).rows}
    assert rows["instant"].composite == rows["quick"].composite == pytest.approx(1.0)
    assert rows["slow"].composite == pytest.approx(0.25)


def test_custom_metrics_in_0_1_count_as_they_are_and_others_against_the_top() -> None:
    settings = {
        "weights": {"recall": 1.0, "words": 1.0, "bad_refs": 1.0},
        "lower_is_better": ["bad_refs"],
    }
    records = [
        rec(
            "a",
            "x",
            PASSED,
            1.0,
            metrics={"recall": 0.5, "words": 50, "bad_refs": 2},
            board=settings,
        ),
        rec(
            "b",
            "x",
            PASSED,
            1.0,
            metrics={"recall": 0.9, "words": 200, "bad_refs": 1},
            board=settings,
        ),
    ]
    rows = {r.model: r for r in build_board("p", records).rows}
    assert rows["a"].composite == pytest.approx((0.5 + 0.25 + 0.5) / 3)
    assert rows["b"].composite == pytest.approx((0.9 + 1.0 + 1.0) / 3)


def test_errors_count_as_wrong_and_unscored_cases_are_left_out() -> None:
    records = [
        rec("m", "a", PASSED, 1.0),
        rec("m", "b", ERROR, None),
        rec("m", "c", UNSCORED, 0.0),
        rec("m", "d", FAILED, 0.5, weight=2.0),
    ]
    (row,) = build_board("p", records).rows
    assert (row.cases, row.passed, row.failed, row.errors, row.unscored) == (4, 1, 1, 1, 1)
    assert row.accuracy == pytest.approx((1.0 + 0.0 + 2 * 0.5) / 4)
    assert row.pass_rate == pytest.approx(1 / 3)


def test_only_unscored_records_leave_accuracy_and_pass_rate_empty() -> None:
    (row,) = build_board("p", [rec("m", "a", UNSCORED, 0.0)]).rows
    assert row.accuracy is None
    assert row.pass_rate is None
    assert row.composite == 0.0


def test_a_result_seen_twice_counts_once() -> None:
    # pytest-xdist's --dist each runs every item on every worker
    records = [rec("m", "a", PASSED, 1.0), rec("m", "a", PASSED, 1.0), rec("m", "b", FAILED, 0.0)]
    (board,) = build_boards(records)
    assert board.rows[0].cases == 2


def test_results_whose_names_run_together_stay_apart() -> None:
    # the same characters in a row, split between the case and the model differently
    records = [rec("m:1", "a", PASSED, 1.0), rec("1:m:1", "", PASSED, 1.0)]
    records += [rec("m", "a\x00b", FAILED, 0.0), rec("b\x00m", "a", FAILED, 0.0)]
    (board,) = build_boards(records)
    assert sorted((row.model, row.cases) for row in board.rows) == [
        ("1:m:1", 1),
        ("b\x00m", 1),
        ("m", 1),
        ("m:1", 1),
    ]


def test_the_board_is_the_same_whatever_order_the_results_came_in() -> None:
    records = [
        rec(model, f"c{i}", PASSED if (i * 7 + len(model)) % 3 else FAILED, (i % 10) / 10)
        for i in range(60)
        for model in ("a", "b")
    ]
    boards = [
        build_boards(order) for order in (records, records[::-1], records[1::2] + records[::2])
    ]
    assert boards[0] == boards[1] == boards[2]


def test_ties_are_broken_by_accuracy_then_name() -> None:
    settings = {"weights": {"cost": 1.0}}
    records = [
        rec("zeta", "a", PASSED, 1.0, board=settings),
        rec("alpha", "a", FAILED, 0.0, board=settings),
        rec("beta", "a", FAILED, 0.0, board=settings),
    ]
    assert [r.model for r in build_board("p", records).rows] == ["zeta", "alpha", "beta"]


def test_records_survive_a_round_trip_through_json_data() -> None:
    import json
    from pathlib import Path

    record = rec("m", "a", PASSED, 1.0, detail={"path": Path("/x"), "seen": {2, 1}, "t": (1, 2)})
    data = json.loads(json.dumps(record.to_dict()))
    again = Record.from_dict(data)
    assert again.detail == {"path": "/x", "seen": [1, 2], "t": [1, 2]}
    assert again.key == record.key


def test_a_record_reads_as_the_mapping_of_its_fields_and_a_foreign_dict_is_copied() -> None:
    record = rec("m", "a", FAILED, 0.0, detail={"why": "wrong"})
    data = record.to_dict()
    assert dict(record) == data  # as a report's arena_record is read
    assert record["reason"] == "" and record.get("nothing") is None and "status" in record
    with pytest.raises(KeyError):
        record["nothing"]
    assert Record.from_dict(record) == record == Record.from_dict(data)
    older = {k: v for k, v in data.items() if k != "sampling"} | {"retired_field": 1}
    copied = Record.from_dict(older)  # a hand-edited or older report: its known fields
    assert copied.case_id == "a" and copied.sampling == {}


def test_a_lean_record_keeps_what_the_boards_the_baseline_and_the_terminal_read() -> None:
    from pytest_arena.reports.baseline import baseline_text

    board = {"weights": {"accuracy": 0.6, "cost": 0.4}, "lower_is_better": []}
    prompt = [{"role": "user", "content": "q"}]
    override = {"passed": True, "because": "ticket"}
    records = [
        rec("m", "a", PASSED, 1.0, cost=0.2, latency_ms=90.0, board=board, tags=["geo"],
            output="Paris", reference="Paris", messages=prompt, metrics={"f1": 1.0}),
        rec("m", "b", FAILED, 0.0, cost=0.1, reason="expected 'x', got 'y'", board=board,
            detail={"why": "wrong", "override": override}, response={"finish": "stop"}),
        rec("n", "a", ERROR, None, error="timed out", board=board, group="g1",
            detail={"crash": "worker gw1 died"}),
        rec("n", "b", PASSED, 0.5, judge_cost=0.01, judge_tokens=9, board=board,
            sampling={"graded": 3, "passed": 2}, samples=[{"cost": 0.1, "cached": False}]),
    ]  # fmt: skip
    lean = [Record.from_dict(r) for r in records]
    for r in lean:
        r.lean()
    assert build_boards(lean) == build_boards(records)
    assert baseline_text(lean) == baseline_text(records)
    a, b, c, d = lean
    assert (a.output, a.reference, a.response, a.messages) == (None, None, None, [])
    assert (a.tags, a.metrics, a.cost) == (["geo"], {"f1": 1.0}, 0.2)
    assert (b.detail, b.response) == ({"override": override}, None)
    assert (c.detail, c.error, c.group) == ({"crash": "worker gw1 died"}, "timed out", "g1")
    assert d.samples == [{"cost": 0.1, "cached": False}] and d.sampling["graded"] == 3


def test_a_weighted_value_unknown_for_a_model_is_left_out_of_every_composite_saying_so() -> None:
    board_settings = {"weights": {"accuracy": 0.5, "cost": 0.5}}
    records = [  # an agent with no price (cost unknown) that gets everything right
        rec("agent", f"c{i}", PASSED, 1.0, cost=None, board=board_settings) for i in range(3)
    ] + [rec("cheap", f"c{i}", FAILED, 0.0, cost=0.0001, board=board_settings) for i in range(3)]
    board = build_board("p", records)
    assert [(r.model, r.composite) for r in board.rows] == [("agent", 1.0), ("cheap", 0.0)]
    assert board.weights == {"accuracy": 0.5}  # before: a tie at 0.5, the unknown cost as 0
    assert any("'cost' is unknown for agent" in w for w in board.warnings)


@pytest.mark.parametrize("lower", [False, True])
def test_a_weighted_metric_below_0_is_left_out_of_every_composite_saying_so(lower: bool) -> None:
    """value / top (and best / value) gave every model the same 0 (or 1) for a negative metric,
    so it weighed without ranking anything, and nothing said so."""
    settings: dict[str, Any] = {"weights": {"accuracy": 0.5, "logprob": 0.5}}
    if lower:
        settings["lower_is_better"] = ["logprob"]
    records = [
        rec(model, f"c{i}", PASSED, 1.0, metrics={"logprob": value}, board=settings)
        for model, value in (("sharp", -1.0), ("vague", -4.0))
        for i in range(3)
    ]
    board = build_board("p", records)
    assert board.weights == {"accuracy": 0.5}
    assert [r.composite for r in board.rows] == [1.0, 1.0]
    assert (
        "'logprob' is below 0 for sharp -1, vague -4, which the composite's scaling (value / top,"
        " best / value) cannot rank, so the composite leaves it out for every model; weigh a"
        " metric of 0 or more"
    ) in board.warnings


def test_the_terminals_table_is_tabulates_simple_table_for_ascii_text() -> None:
    """The board's own layout (which counts a CJK character as two columns) gives what
    tabulate's "simple" tables gave, for the text tabulate measures right."""
    from tabulate import tabulate

    from pytest_arena.reports.tables import _simple

    headers = ["rank", "model", "composite", "pass rate", "cases", "cost", "recall"]
    rows: list[list[str | int]] = [
        ["=1", "sim_small", "0.758 ± 0.248", "33.3% ± 36.5", 3, "$0.01", "0.5"],
        [2, "a-long-model-name/with:parts", "1.000", "100.0%", 12345, "–", "1"],
    ]
    for shown in (rows, rows[:1], [[*row[:-1], ""] for row in rows]):
        assert _simple(headers, shown) == tabulate(
            shown, headers=headers, tablefmt="simple", disable_numparse=True, stralign="right"
        )


def test_a_model_with_unscored_cases_only_is_named_beside_the_scored_ones() -> None:
    records = [rec("open", "a", UNSCORED, 0.0), rec("graded", "a", PASSED, 1.0)]
    board = build_board("p", records)
    said = [w for w in board.warnings if w.startswith("no case was scored")]
    assert said == [
        "no case was scored for open (each unscored case says why), so there is no accuracy"
        " (-) and the composite counts it as 0: it is not a score"
    ]
    assert build_board("p", [rec("m", "a", PASSED, 1.0)]).warnings == []


@pytest.mark.parametrize(
    ("weights", "said"),
    [
        # 0.625 and 0.375, each rounded half to even, read 0.62 + 0.37: 0.99 of the composite
        ({"accuracy": 0.5, "cost": 0.3}, "0.63·accuracy + 0.37·cost"),
        ({"a": 1, "b": 1, "c": 1}, "0.34·a + 0.33·b + 0.33·c"),
        ({"accuracy": 2, "cost": 1}, "0.67·accuracy + 0.33·cost"),
    ],
)
def test_the_composites_formula_shows_shares_that_add_up_to_one(
    weights: dict[str, float], said: str
) -> None:
    from types import SimpleNamespace

    from pytest_arena.reports.tables import formula

    assert formula(SimpleNamespace(weights=weights)) == said  # type: ignore[arg-type]


HUGE_SCORER = """
from pytest_arena.scorers import Scorer, ScoreResult


class Huge(Scorer):
    name = "huge"

    def score(self, output, reference, context):
        return ScoreResult(1.0, True, "ok", metrics={"energy": 1e300, "tiny": 0.0001234})
"""


def test_large_metrics_and_an_unknown_latency_are_said_compactly_with_the_cost_dash(
    pytester: pytest.Pytester, make_project: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A metric of 1e300 printed as a number of 301 digits (and 0.0001234 as 0.000), and the
    latency of a run answered from the cache alone as a hyphen, an unknown cost an en dash."""
    make_project(
        "quiz",
        """
        models:
          default: [mine]
          define:
            mine: {connector: python, callable: "agent:answer", cache: true}
        scorers:
          default: huge
        tests:
          - {id: a, input: "say x", reference: x}
        """,
        {"scorers/huge.py": HUGE_SCORER, "agent.py": "def answer(prompt):\n    return 'x'\n"},
    )
    pytester.runpytest("-p", "no:cacheprovider")  # fills the response cache
    summary = pytester.path / "summary.md"
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    result = pytester.runpytest("-p", "no:cacheprovider")
    result.stdout.fnmatch_lines(["*latency*energy*tiny*", "*mine*\u2013*\u2013*1e+300*0.0001234"])
    assert "0" * 100 not in result.stdout.str()
    row = next(line for line in summary.read_text().splitlines() if "mine" in line)
    cells = [cell.strip() for cell in row.strip("|").split("|")]
    assert cells[-3:] == ["\u2013", "1e+300", "0.0001234"]  # latency, energy, tiny


def test_a_model_the_budget_kept_from_every_case_is_named_under_the_board() -> None:
    """It had no row, and nothing on the board, its JSON or its HTML said it ran out."""
    from pytest_arena.reports.html import render
    from pytest_arena.reports.json_report import build_report
    from pytest_arena.reports.tables import render_board

    records = [rec("cheap", "a", PASSED, 1.0), rec("cheap", "b", FAILED, 0.0)]
    not_run = {("p", "dear"): 2, ("p", "cheap"): 1, ("other", "dear"): 5}
    other, board = build_boards(records, not_run)  # sorted by project
    said = "dear has no row: its 2 cases not run: budget spent"
    assert board.notes == [said]  # not cheap, which has a row, nor another project's model
    assert other.rows == []  # a project none of whose cases ran: a board saying why
    assert other.notes == ["no answer was graded: dear's 5 cases not run: budget spent"]
    assert f"note: {said}" in render_board(board).splitlines()
    report = build_report(records, [board])
    assert report["leaderboards"][0]["notes"] == [said]
    assert f"note: {said}" in render(report)


@pytest.mark.parametrize(
    ("weights", "said"),
    [
        ((0, 0, 0), "sim_perfect: 3 cases in common, all of weight 0: nothing to compare"),
        (
            (0, 1, 0),
            "sim_perfect: 1 case of weight above 0 in common (2 more of weight 0), too few to"
            " compare",
        ),
        (
            (1, 1, 0),
            "sim_perfect 0.000 (95% CI -0.658 to +0.658), p=1.000 McNemar (exact), 2 cases (1"
            " more of weight 0 left out): not told apart",
        ),
    ],
)
def test_cases_in_common_of_weight_0_are_said_against_the_leader(
    pytester: pytest.Pytester, make_project: Any, weights: tuple[int, ...], said: str
) -> None:
    """Three cases in common, all of weight 0, were said as "0 case(s) in common, too few to
    compare" (and 0, 1, 0 as "1 case(s) in common"): the comparison counted them apart, and
    the board never said so."""
    tests = "".join(
        f"  - {{id: {case}, input: {case}, reference: {case}, weight: {weight}}}\n"
        for case, weight in zip("abc", weights, strict=True)
    )
    make_project("w", "models: [sim_perfect, sim_echo]\ntests:\n" + tests)
    result = pytester.runpytest("-p", "no:cacheprovider", "--arena-html", "report.html")
    result.stdout.fnmatch_lines([f"against the leader sim_echo, * (accuracy): {said}"])
    # the HTML report, drawn from the JSON report's numbers, says it alike
    page = html.unescape((pytester.path / "report.html").read_text())
    assert said in page


def test_one_heavy_case_among_many_is_not_told_apart_against_the_leader(
    pytester: pytest.Pytester, make_project: Any
) -> None:
    """40 cases, one of weight 1,000, and sim_echo failed it and 9 of the 39 others: the
    line said "sim_echo -0.971 (95% CI -1.000 to +1.000), p=0.002 sign-flip (exact):
    different", an interval that says nothing with a test that said "different"."""
    tests = "  - {id: c00, input: x, reference: y, weight: 1000}\n" + "".join(
        f"  - {{id: c{i:02}, input: x, reference: {'y' if i < 10 else 'x'}}}\n"
        for i in range(1, 40)
    )
    make_project("heavy", "models: [sim_perfect, sim_echo]\ntests:\n" + tests)
    result = pytester.runpytest("-p", "no:cacheprovider")
    result.stdout.fnmatch_lines(
        [
            "against the leader sim_perfect, * (accuracy): sim_echo -0.971 (95% CI -1.000 to"
            " +1.000), p=1.000 sign-flip (exact), 40 cases: not told apart",
            "power: with 40 paired cases, counting as 1.1 with their weights *",
        ]
    )
    assert "different" not in result.stdout.str()
