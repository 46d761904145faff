"""exact_match and json_match: verdicts, partial credit and reasons."""

from __future__ import annotations

from typing import Any

import pytest

from pytest_arena.scorers import ScoreResult, ScoringContext
from pytest_arena.scorers.base import ScoreResultError
from pytest_arena.scorers.equality import ExactMatch, JsonMatch
from pytest_arena.scorers.text import extract_json


def exact(output: str, reference: Any, **options: Any) -> ScoreResult:
    return ExactMatch().score(output, reference, ScoringContext(options=options))


def as_json(output: str, reference: Any, **options: Any) -> ScoreResult:
    return JsonMatch().score(output, reference, ScoringContext(options=options))


@pytest.mark.parametrize(
    ("output", "reference", "options", "passed", "reason"),
    [
        ("Paris", "Paris", {}, True, "exact match"),
        ("  Paris\n", "Paris", {}, True, "exact match"),
        (
            "paris",
            "Paris",
            {},
            False,
            "expected 'Paris', got 'paris'; it differs only in letter case: set the option ignore_case: true",
        ),
        ("paris", "Paris", {"ignore_case": True}, True, "exact match"),
        (
            "New  York",
            "New York",
            {},
            False,
            "expected 'New York', got 'New  York'; it differs only in whitespace: set the option normalize_whitespace: true",
        ),
        ("New  York", "New York", {"normalize_whitespace": True}, True, "exact match"),
        (
            "Answer: 42",
            "42",
            {},
            False,
            "expected '42', got 'Answer: 42'; it matches once 'Answer:' is removed: strip it in hooks.py post_process",
        ),
        (
            "```\n42\n```",
            42,
            {},
            False,
            "expected '42', got '```\\n42\\n```'; it matches once the markdown fence is removed: strip it in hooks.py post_process",
        ),
        ("42", 42, {}, True, "exact match"),
        ("Lyon", "Paris", {}, False, "expected 'Paris', got 'Lyon'"),
        (
            "12.0",
            12,
            {},
            False,
            "expected '12', got '12.0'; it is the same number written another way: normalise it in hooks.py post_process",
        ),
        (
            "1,200",
            "1200",
            {},
            False,
            "expected '1200', got '1,200'; it is the same number written another way: normalise it in hooks.py post_process",
        ),
        ("1,300", "1200", {}, False, "expected '1200', got '1,300'"),
    ],
)
def test_exact_match(
    output: str, reference: Any, options: dict[str, Any], passed: bool, reason: str
) -> None:
    result = exact(output, reference, **options)
    assert (result.passed, result.reason) == (passed, reason)
    assert result.score == (1.0 if passed else 0.0)


def test_exact_match_without_a_reference_is_unscored() -> None:
    result = exact("anything", None)
    assert result.passed is None
    assert result.reason == "no reference to compare with: unscored"


REF = {"vendor": "ACME", "total": 1200, "lines": [{"sku": "A", "qty": 2}, {"sku": "B", "qty": 1}]}


@pytest.mark.parametrize(
    ("output", "options", "score", "passed", "reason"),
    [
        (
            '{"total": 1200, "vendor": "ACME", "lines": [{"qty": 2, "sku": "A"}, {"sku": "B", "qty": 1}]}',
            {},
            1.0,
            True,
            "JSON matches",
        ),
        (
            '{"vendor": "ACME", "total": 1300, "lines": [{"sku": "A", "qty": 2}, {"sku": "B", "qty": 1}]}',
            {},
            5 / 6,
            False,
            "5 of 6 values match: $.total: expected 1200, got 1300",
        ),
        (
            '{"vendor": "ACME", "lines": [{"sku": "A", "qty": 2}]}',
            {},
            3 / 6,
            False,
            "3 of 6 values match: $.total missing; $.lines[1] missing",
        ),
        (
            '{"vendor": "ACME", "total": 1200, "lines": [{"sku": "B", "qty": 1}, {"sku": "A", "qty": 2}]}',
            {},
            2 / 6,
            False,
            "2 of 6 values match: $.lines[0].sku: expected 'A', got 'B'; $.lines[0].qty: expected 2, got 1; $.lines[1].sku: expected 'B', got 'A' (+1 more)",
        ),
        (
            '{"vendor": "ACME", "total": 1200, "lines": [{"sku": "B", "qty": 1}, {"sku": "A", "qty": 2}]}',
            {"ignore_list_order": True},
            1.0,
            True,
            "JSON matches",
        ),
        (
            '{"vendor": "ACME", "total": 1200, "lines": [{"sku": "B", "qty": 1}]}',
            {"ignore_list_order": True},
            4 / 6,
            False,
            "4 of 6 values match: $.lines[0] missing",
        ),
        (
            '{"vendor": "ACME", "total": 1200, "lines": [{"sku": "B", "qty": 1}, {"sku": "A", "qty": 3}, {"sku": "C", "qty": 1}]}',
            {"ignore_list_order": True},
            5 / 7,
            False,
            "5 of 7 values match: $.lines[0].qty: expected 2, got 3; $.lines: 1 unexpected item(s)",
        ),
        (
            '{"vendor": "ACME", "total": 1200.0, "lines": [{"sku": "A", "qty": 2}, {"sku": "B", "qty": 1}], "note": "x"}',
            {},
            1.0,
            True,
            "JSON matches",
        ),
        (
            '{"vendor": "ACME", "total": 1200, "lines": [{"sku": "A", "qty": 2}, {"sku": "B", "qty": 1}], "note": "x"}',
            {"allow_extra_keys": False},
            6 / 7,
            False,
            "6 of 7 values match: $.note not expected",
        ),
        (
            '{"vendor": "ACME", "total": "1200", "lines": [{"sku": "A", "qty": 2}, {"sku": "B", "qty": 1}]}',
            {"threshold": 0.8},
            5 / 6,
            True,
            "5 of 6 values match: $.total: expected 1200, got '1200'",
        ),
        (
            "vendor: ACME",
            {},
            0.0,
            False,
            "output is not valid JSON (Expecting value at line 1 column 1): 'vendor: ACME'",
        ),
    ],
)
def test_json_match(
    output: str, options: dict[str, Any], score: float, passed: bool, reason: str
) -> None:
    result = as_json(output, REF, **options)
    assert result.score == pytest.approx(score)
    assert (result.passed, result.reason) == (passed, reason)


def test_json_match_points_at_a_fence_and_can_extract_from_it() -> None:
    fenced = '```json\n{"a": 1}\n```'
    refused = as_json(fenced, {"a": 1})
    assert refused.passed is False
    assert refused.reason.endswith(
        "it is wrapped in a markdown fence: strip it in hooks.py post_process or set extract: true"
    )
    assert as_json(fenced, {"a": 1}, extract=True).passed is True
    assert as_json('Here you go: {"a": 1}. Anything else?', {"a": 1}, extract=True).passed is True


def test_json_match_reads_a_reference_written_as_json_text() -> None:
    assert as_json('{"b": [1, 2], "a": true}', '{"a": true, "b": [1, 2]}').passed is True


def test_json_match_does_not_take_true_for_1() -> None:
    result = as_json('{"flag": 1}', {"flag": True})
    assert result.passed is False


def test_extract_json_finds_the_record_not_a_citation_before_it() -> None:
    """A citation "[1]" before the record was taken for the JSON; a fence followed by
    another code block was read as one fence to the last backticks."""
    cited = 'According to the CRM [1], the record is {"name": "Ann", "age": 30}.'
    assert extract_json(cited) == '{"name": "Ann", "age": 30}'
    two = '```json\n{"a": 1}\n```\nIn Python:\n```python\nprint(1)\n```'
    assert extract_json(two) == '{"a": 1}'
    assert as_json(two, {"a": 1}, extract=True).passed is True
    assert extract_json("no json here") is None


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"score": 1.5}, "ScoreResult.score must be between 0 and 1, got 1.5"),
        ({"score": float("nan")}, "ScoreResult.score must be between 0 and 1, got nan"),
        ({"score": "high"}, "ScoreResult.score must be a number from 0 to 1, got 'high'"),
        ({"score": True}, "ScoreResult.score must be a number from 0 to 1, got True"),
        (
            {"score": 1, "passed": "yes"},
            "ScoreResult.passed must be True, False or None, got 'yes'",
        ),
        (
            {"score": 1, "metrics": {"rate": "0.5"}},
            "metric 'rate' must be a finite number, got str '0.5'",
        ),
        (
            {"score": 1, "metrics": {"rate": None}},
            "metric 'rate' must be a finite number, got NoneType None",
        ),
        (  # it crashed the leaderboard at the end of the run, losing every report
            {"score": 1, "metrics": {"per_cited": float("inf")}},
            "metric 'per_cited' must be a finite number, got float inf",
        ),
        (  # it stood beside the board's accuracy, and its interval replaced accuracy's
            {"score": 1, "metrics": {"accuracy": 0.1}},
            "metric 'accuracy' is named like a leaderboard column of arena's own; give it another"
            " name (taken: accuracy, pass_rate, cost, latency, tokens, composite, score, rank,"
            " model, cases, passed, failed, errors, unscored, flaky, judge_cost, pass@k, pass^k)",
        ),
    ],
)
def test_a_score_result_refuses_values_it_cannot_hold(kwargs: dict[str, Any], message: str) -> None:
    with pytest.raises(ScoreResultError) as caught:
        ScoreResult(**kwargs)
    assert str(caught.value) == message


def test_a_score_result_keeps_ints_as_floats() -> None:
    result = ScoreResult(1, True, metrics={"refs": 2})
    assert (result.score, result.metrics) == (1.0, {"refs": 2.0})


def test_the_metric_names_a_scorer_may_not_use_are_the_boards_own_columns() -> None:
    from pytest_arena.reports.leaderboard import BUILTIN_DIMENSIONS
    from pytest_arena.scorers.base import TAKEN_METRIC_NAMES

    assert set(BUILTIN_DIMENSIONS) <= set(TAKEN_METRIC_NAMES)


def test_exact_match_takes_either_unicode_form_of_a_text_as_the_same() -> None:
    """It said "expected 'café au lait', got 'café au lait'": one written with a combining
    accent, one with the composed letter."""
    assert exact("caf\u00e9 au lait", "cafe\u0301 au lait").passed is True
    assert exact("cafe au lait", "caf\u00e9 au lait").passed is False


def test_typographic_quotes_are_the_quotes_a_keyboard_types() -> None:
    """It said "expected 'It's fine', got 'It\u2019s fine'": the same words to a reader, one with
    the apostrophe a model or a word processor writes."""
    assert exact("It\u2019s \u201cfine\u201d", 'It\'s "fine"').passed is True
    assert exact("It`s fine", "It's fine").passed is False
