"""regex: matching, extracting a group and comparing it, and bad patterns."""

from __future__ import annotations

import time
from typing import Any

import pydantic
import pytest

from pytest_arena import Case
from pytest_arena.scorers import ScoreResult, ScoringContext, patterns
from pytest_arena.scorers.matching import Regex
from tests.conftest import MakeProject, run_ends_with_one_failed


def regex(output: str, reference: Any, **options: Any) -> ScoreResult:
    context = ScoringContext(options=options, test_case=Case("c", "q", reference))
    return Regex().score(output, reference, context)


ANSWER = r"Answer:\s*(?P<answer>\w+)"


@pytest.mark.parametrize(
    ("output", "reference", "options", "score", "passed", "reason"),
    [
        ("Order #12345 shipped", r"#\d{5}", {}, 1.0, True, r"pattern '#\d{5}' matched '#12345'"),
        (
            "Order shipped",
            r"#\d{5}",
            {},
            0.0,
            False,
            r"pattern '#\d{5}' did not match 'Order shipped'",
        ),
        (
            "ORDER 7",
            None,
            {"pattern": r"order \d"},
            0.0,
            False,
            r"pattern 'order \d' did not match 'ORDER 7'",
        ),
        (
            "ORDER 7",
            None,
            {"pattern": r"order \d", "ignore_case": True},
            1.0,
            True,
            r"pattern 'order \d' matched 'ORDER 7'",
        ),
        ("one\ntwo", "^two$", {}, 0.0, False, "pattern '^two$' did not match 'one\\ntwo'"),
        ("one\ntwo", "^two$", {"multiline": True}, 1.0, True, "pattern '^two$' matched 'two'"),
        (
            "<b>one\ntwo</b>",
            "<b>.*</b>",
            {"dotall": True},
            1.0,
            True,
            "pattern '<b>.*</b>' matched '<b>one\\ntwo</b>'",
        ),
        (
            "Answer: 42",
            "42",
            {"pattern": r"Answer:\s*(\d+)", "group": 1},
            1.0,
            True,
            "extracted '42', as expected",
        ),
        (
            "Answer: Paris",
            " paris ",
            {"pattern": ANSWER, "group": "answer", "ignore_case": True},
            1.0,
            True,
            "extracted 'Paris', as expected",
        ),
        (
            "Answer: Lyon",
            "Paris",
            {"pattern": ANSWER, "group": "answer"},
            0.0,
            False,
            "expected 'Paris', extracted 'Lyon' from 'Answer: Lyon'",
        ),
        (
            "I think it is Paris",
            "Paris",
            {"pattern": ANSWER, "group": "answer"},
            0.0,
            False,
            r"no answer found: pattern 'Answer:\s*(?P<answer>\w+)' did not match 'I think it is Paris'",
        ),
        (
            "Total: n/a",
            "12",
            {"pattern": r"Total: (\d+)?", "group": 1},
            0.0,
            False,
            r"no answer found: group 1 of pattern 'Total: (\d+)?' is empty in 'Total: '",
        ),
        (
            "Total: 12",
            12,
            {"pattern": r"Total: (\d+)", "group": "1"},
            1.0,
            True,
            "extracted '12', as expected",
        ),
    ],
)
def test_regex(
    output: str, reference: Any, options: dict[str, Any], score: float, passed: bool, reason: str
) -> None:
    result = regex(output, reference, **options)
    assert (result.score, result.passed, result.reason) == (score, passed, reason)


def test_regex_with_its_own_pattern_needs_no_reference() -> None:
    assert regex("id 7", None, pattern=r"\d").passed is True


@pytest.mark.parametrize(
    ("options", "reason"),
    [
        ({}, "no pattern to match: unscored; set the option pattern or a reference"),
        (
            {"pattern": "(x)", "group": 1},
            "no reference to compare the extracted answer with: unscored",
        ),
    ],
)
def test_regex_without_what_it_needs_is_unscored(options: dict[str, Any], reason: str) -> None:
    result = regex("x", None, **options)
    assert (result.score, result.passed, result.reason) == (0.0, None, reason)


@pytest.mark.parametrize(
    ("reference", "options", "message"),
    [
        ("(", {}, "invalid regex pattern '(': missing ) at position 1"),
        ("1", {"pattern": "(a)", "group": 2}, "pattern '(a)' has 1 group(s): there is no group 2"),
        ("1", {"pattern": "(a)", "group": "n"}, "pattern '(a)' has no group named 'n'"),
        (
            "1",
            {"group": 1},
            "the option group needs the option pattern: the reference is what the group is compared with",
        ),
    ],
)
def test_regex_names_what_is_wrong_with_the_pattern(
    reference: str, options: dict[str, Any], message: str
) -> None:
    with pytest.raises(ValueError) as caught:
        regex("a", reference, **options)
    assert str(caught.value) == message


def test_an_invalid_pattern_option_is_refused_by_the_options_model() -> None:
    with pytest.raises(pydantic.ValidationError) as caught:
        regex("a", None, pattern="[a")
    error = caught.value.errors()[0]
    assert error["loc"] == ("pattern",)
    assert "invalid regex pattern '[a': unterminated character set at position 2" in error["msg"]


def test_regex_refuses_a_misspelt_option() -> None:
    with pytest.raises(pydantic.ValidationError) as caught:
        regex("a", "a", ignorecase=True)
    assert caught.value.errors()[0]["loc"] == ("ignorecase",)


@pytest.mark.parametrize("options", [{}, {"pattern": "^(a|a)+$", "group": 1}])
def test_a_pattern_that_backtracks_without_end_is_an_error_within_its_time_limit(
    monkeypatch: pytest.MonkeyPatch, options: dict[str, Any]
) -> None:
    monkeypatch.setattr(patterns, "SEARCH_TIMEOUT", 0.2)
    started = time.monotonic()
    with pytest.raises(ValueError) as caught:
        regex("a" * 40 + "!", "^(a|a)+$", **options)  # 2**40 ways to fail, for re
    assert time.monotonic() - started < 5
    assert str(caught.value) == (
        "pattern '^(a|a)+$' took more than 0.2 s on the output: it backtracks without end"
        " on text like this; simplify it (no repeat inside a repeat, such as (a+)+ or (a|a)*)"
    )


def test_a_run_with_a_pattern_that_backtracks_without_end_ends_with_that_case_failed(
    make_project: MakeProject, pytester: pytest.Pytester
) -> None:
    make_project(
        "r",
        """
        models: [sim_perfect]
        scoring:
          - {scorer: regex, params: {pattern: '^(a|aa)+$'}}
        tests:
          - {id: endless, input: x, reference: 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa!'}
          - {id: fine, input: x, reference: aaaa}
        """,
    )
    run_ends_with_one_failed(
        pytester,
        [
            "*_ r::endless[[]sim_perfect[]] _*",
            "scorer 'regex' raised ValueError: pattern '^(a|aa)+$' took more than 2 s on the*",
        ],
    )
