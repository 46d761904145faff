"""The leaderboard is a pure function of records."""

from __future__ import annotations

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


def test_a_record_kept_from_its_report_data_is_that_data_and_a_foreign_dict_is_copied() -> None:
    record = rec("m", "a", FAILED, 0.0, detail={"why": "wrong"})
    data = record.to_dict()
    kept = Record.adopt(data)
    assert kept == record
    assert vars(kept) is data  # one dict for the report and the run's record
    older = {k: v for k, v in data.items() if k != "sampling"} | {"retired_field": 1}
    copied = Record.adopt(older)  # a hand-edited or older report: its known fields, copied
    assert vars(copied) is not older and copied.case_id == "a" and copied.sampling == {}
