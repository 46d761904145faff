"""Boards of many cases: McNemar's exact test, the composite's bootstrap and the JUnit
properties without time that grows as the square of the cases (reports/statistics.py,
reports/verdicts.py, reports/leaderboard.py, plugin/junit_xml.py)."""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from typing import Any

import pytest

from pytest_arena.record import ERROR, FAILED, PASSED, UNSCORED, Record
from pytest_arena.reports import leaderboard, verdicts
from pytest_arena.reports.leaderboard import _row, build_board, composite
from pytest_arena.reports.statistics import EXACT_MOST, mcnemar_exact
from tests.conftest import MakeProject

# min(1, 2 · Σ_{i <= min(b, c)} C(b + c, i) / 2**(b + c)), summed in whole numbers (scipy's
# binomtest agrees to 1e-13, and to 4e-12 at 1e-36)
EXACT = {
    (5000, 5200): 0.04878796312682245,
    (10000, 10300): 0.03585235973615882,
    (24900, 25100): 0.3734901856394253,
    (48000, 52000): 1.1530938666722977e-36,
    (120, 180): 0.0006342200069283569,
    (129, 171): 0.017779340914262212,
    (0, 300): 9.818186930595453e-91,
    (3000, 7000): 0.0,  # 2**-1186: below the smallest float
}


@pytest.mark.parametrize(("b", "c"), sorted(EXACT))
def test_mcnemar_of_many_discordant_cases_is_the_exact_sum(b: int, c: int) -> None:
    """The exact sum of big integers took 11.5 s at 5,000 against 5,200 and 99 s at 10,000
    against 10,300 (time as n²), on every board of pass/fail cases."""
    assert mcnemar_exact(b, c) == pytest.approx(EXACT[(b, c)], rel=1e-12, abs=0.0)
    assert mcnemar_exact(c, b) == mcnemar_exact(b, c)


def exact_sum(b: int, c: int) -> float:
    n, k = b + c, min(b, c)
    term = tail = 1
    for i in range(k):
        term = term * (n - i) // (i + 1)
        tail += term
    return min(1.0, tail / (1 << (n - 1)))


@pytest.mark.parametrize("n", [EXACT_MOST + 1, EXACT_MOST + 2, 400, 1001])
def test_mcnemar_above_the_whole_number_sums_agrees_with_them(n: int) -> None:
    for k in range(0, n // 2 + 1, max(1, n // 40)):
        assert mcnemar_exact(k, n - k) == pytest.approx(exact_sum(k, n - k), rel=1e-12, abs=0.0)


def pass_fail(model: str, outcomes: Sequence[int]) -> list[Record]:
    return [
        Record("p", f"c{i:05}", model, PASSED if o else FAILED, float(o), bool(o))
        for i, o in enumerate(outcomes)
    ]


def test_a_board_compares_each_pair_of_models_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """A board of accuracy alone ran McNemar's test twice for each model: against the leader
    for the lines under the board, and again against the first of its rank for the ties."""
    calls: list[tuple[str, str]] = []
    compare = verdicts.compare

    def counted(
        model: str, mine: Sequence[Record], against: str, theirs: Sequence[Record]
    ) -> verdicts.Comparison:
        calls.append((model, against))
        return compare(model, mine, against, theirs)

    monkeypatch.setattr(verdicts, "compare", counted)
    rng = random.Random(1)
    records = [r for m in "abc" for r in pass_fail(m, [rng.random() < 0.7 for _ in range(40)])]
    board = build_board("p", records)
    assert len(calls) == len(set(calls)) == 2
    assert {r.rank_label for r in board.rows} == {"=1"}


def test_junit_xml_reuses_the_boards_of_the_run(
    pytester: pytest.Pytester, make_project: MakeProject, monkeypatch: pytest.MonkeyPatch
) -> None:
    """--junitxml built every board again for its properties: at 50,000 cases, 145 s more."""
    built: list[int] = []
    build_boards = leaderboard.build_boards

    def counted(records: list[Record], not_run: Any = None) -> list[leaderboard.Board]:
        built.append(len(records))
        return build_boards(records, not_run)

    monkeypatch.setattr(leaderboard, "build_boards", counted)
    make_project(
        "quiz",
        "models: [sim_perfect, sim_small]\n"
        "tests:\n  - {id: a, input: x, reference: x}\n  - {id: b, input: y, reference: y}\n",
    )
    result = pytester.runpytest_inprocess("--junitxml=junit.xml")
    assert result.ret in (pytest.ExitCode.OK, pytest.ExitCode.TESTS_FAILED)
    assert "arena.quiz.sim_perfect.accuracy" in (pytester.path / "junit.xml").read_text()
    assert built == [4]


def slow_composites(
    by_model: dict[str, list[Record]],
    weights: dict[str, float],
    sample: Sequence[int],
    cases: list[str],
) -> dict[str, float]:
    """The composites of a resample as the bootstrap made them before: every row built again
    from the drawn records."""
    drawn = {m: [r for c in sample for r in by_model[m] if r.case_id == cases[c]] for m in by_model}
    rows = [_row(m, found) for m, found in drawn.items() if found]
    return {r.model: composite(r, rows, weights, leaderboard.LOWER_IS_BETTER) for r in rows}


def percentile(ordered: list[float], q: float) -> float:
    position = q * (len(ordered) - 1)
    below = math.floor(position)
    above = min(below + 1, len(ordered) - 1)
    return ordered[below] + (ordered[above] - ordered[below]) * (position - below)


def test_the_composite_bootstrap_sums_columns_as_the_rows_would() -> None:
    """Each resample built every model's row again from its records (51 s at 10,000 cases
    and 2 models); it now sums per-case columns. The intervals are the same: weights, cases
    a model did not run, errors, unscored cases, cached answers, metrics and all."""
    rng = random.Random(7)
    weights = {"accuracy": 0.4, "cost": 0.2, "latency": 0.1, "tokens": 0.1, "recall": 0.2}
    records = []
    for i in range(40):
        weight = rng.choice([1.0, 1.0, 2.0, 0.5])
        for model, price in (("a", 1e-6), ("b", 3e-6), ("c", 2e-6)):
            if model == "c" and i % 3 == 0:
                continue  # c ran on some cases only
            status = rng.choice([PASSED, PASSED, FAILED, ERROR, UNSCORED])
            score = float(status == PASSED) if status != UNSCORED else 0.0
            tokens = 0 if status == ERROR else rng.randint(5, 50)
            records.append(
                Record(
                    "p",
                    f"c{i:02}",
                    model,
                    status,
                    score,
                    status == PASSED,
                    tokens_in=tokens,
                    cost=price * tokens,
                    latency_ms=None if status == ERROR else rng.uniform(10, 90),
                    cached=rng.random() < 0.2,
                    weight=weight,
                    metrics={} if status == ERROR else {"recall": rng.uniform(0, 3)},
                    board={"weights": weights},
                )
            )
    board = build_board("p", records)
    by_model: dict[str, list[Record]] = {}
    for r in records:
        by_model.setdefault(r.model, []).append(r)
    cases = sorted({r.case_id for r in records})
    draws = random.Random(verdicts.SEED)
    resampled = [
        slow_composites(by_model, weights, draws.choices(range(len(cases)), k=len(cases)), cases)
        for _ in range(verdicts.resamples_for(len(cases)))
    ]
    for row in board.rows:
        ordered = sorted(values[row.model] for values in resampled)
        interval = row.intervals["composite"]
        assert interval.estimate == pytest.approx(row.composite, rel=1e-12)
        assert interval.low == pytest.approx(percentile(ordered, 0.025), rel=1e-9)
        assert interval.high == pytest.approx(percentile(ordered, 0.975), rel=1e-9)


def test_a_bootstrap_of_many_cases_takes_fewer_resamples_of_the_same_seed() -> None:
    assert verdicts.resamples_for(10) == verdicts.resamples_for(5_000) == 1000
    assert verdicts.resamples_for(10_000) == 500
    assert verdicts.resamples_for(50_000) == verdicts.resamples_for(10**6) == 200
