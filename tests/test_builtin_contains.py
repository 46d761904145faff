"""contains: one string, all or any of several, negated; partial credit and reasons."""

from __future__ import annotations

from typing import Any

import pydantic
import pytest

from pytest_arena import Case
from pytest_arena.scorers import ScoreResult, ScoringContext
from pytest_arena.scorers.matching import Contains


def contains(output: str, reference: Any, **options: Any) -> ScoreResult:
    context = ScoringContext(options=options, test_case=Case("c", "q", reference))
    return Contains().score(output, reference, context)


@pytest.mark.parametrize(
    ("output", "reference", "options", "score", "passed", "reason"),
    [
        ("The capital is Paris.", "paris", {}, 1.0, True, "found 'paris'"),
        (
            "The capital is Paris.",
            "paris",
            {"ignore_case": False},
            0.0,
            False,
            "'paris' not found in 'The capital is Paris.'; 'paris' in other letter case: set the option ignore_case: true",
        ),
        (
            "The capital is Lyon.",
            "Paris",
            {},
            0.0,
            False,
            "'Paris' not found in 'The capital is Lyon.'",
        ),
        ("It costs 42 euros", 42, {}, 1.0, True, "found '42'"),
        (
            "red, green and blue",
            ["red", "green", "blue"],
            {},
            1.0,
            True,
            "found all of 'red', 'green', 'blue'",
        ),
        (
            "red and blue",
            ["red", "green", "blue"],
            {},
            2 / 3,
            False,
            "missing 'green' (found 2 of 3) in 'red and blue'",
        ),
        (
            "red and blue",
            ["red", "green", "blue"],
            {"mode": "any"},
            1.0,
            True,
            "found 'red', 'blue'",
        ),
        (
            "purple",
            ["red", "green"],
            {"mode": "any"},
            0.0,
            False,
            "none of 'red', 'green' found in 'purple'",
        ),
        (
            "Refunds take 5 days",
            None,
            {"values": ["refund", "days"]},
            1.0,
            True,
            "found all of 'refund', 'days'",
        ),
        (
            "Refunds take 5 days",
            "ignored",
            {"values": ["weeks"]},
            0.0,
            False,
            "'weeks' not found in 'Refunds take 5 days'",
        ),
        ("Happy to help!", "sorry", {"negate": True}, 1.0, True, "'sorry' does not appear"),
        (
            "Sorry, I cannot.",
            "sorry",
            {"negate": True},
            0.0,
            False,
            "'sorry' must not appear, found in 'Sorry, I cannot.'",
        ),
        (
            "As an AI, I cannot help",
            ["as an ai", "i cannot", "policy"],
            {"negate": True},
            1 / 3,
            False,
            "'as an ai', 'i cannot' must not appear, found in 'As an AI, I cannot help'",
        ),
        (
            "Happy to help",
            ["sorry", "apologise"],
            {"negate": True},
            1.0,
            True,
            "none of 'sorry', 'apologise' appears",
        ),
        (
            "Sorry about that",
            ["sorry", "apologise"],
            {"negate": True, "mode": "any"},
            1.0,
            True,
            "'apologise' does not appear",
        ),
        (
            "Sorry, I apologise",
            ["sorry", "apologise"],
            {"negate": True, "mode": "any"},
            0.0,
            False,
            "all of 'sorry', 'apologise' appear, and one must not, in 'Sorry, I apologise'",
        ),
    ],
)
def test_contains(
    output: str, reference: Any, options: dict[str, Any], score: float, passed: bool, reason: str
) -> None:
    result = contains(output, reference, **options)
    assert result.score == pytest.approx(score)
    assert (result.passed, result.reason) == (passed, reason)


def test_contains_reports_what_was_found_and_missing() -> None:
    result = contains("red and blue", ["red", "green", "blue"])
    assert result.detail == {"found": ["red", "blue"], "missing": ["green"]}


@pytest.mark.parametrize("reference", [None, []])
def test_contains_without_strings_is_unscored(reference: Any) -> None:
    result = contains("anything", reference)
    assert (result.score, result.passed) == (0.0, None)
    assert result.reason == "no reference or values to look for: unscored"


@pytest.mark.parametrize(
    ("options", "option"),
    [
        ({"ignore_cases": True}, "ignore_cases"),
        ({"mode": "some"}, "mode"),
        ({"values": []}, "values"),
    ],
)
def test_contains_refuses_bad_options(options: dict[str, Any], option: str) -> None:
    with pytest.raises(pydantic.ValidationError) as caught:
        contains("text", "text", **options)
    assert caught.value.errors()[0]["loc"] == (option,)


@pytest.mark.parametrize("reference", ["", "  ", ["", " "]])
def test_an_empty_reference_is_unscored_not_found_in_every_output(reference: Any) -> None:
    """An empty reference cell (SQuAD v2's unanswerable questions) passed every output:
    "" is in any text."""
    result = contains("I don't know.", reference)
    assert (result.passed, result.reason) == (
        None,
        "the reference is empty: nothing to look for: unscored",
    )


def test_text_written_in_either_unicode_form_is_found() -> None:
    """ "café" with a combining accent was not found in "café" written as one character;
    the reason showed two texts that looked the same."""
    assert contains("It is caf\u00e9 au lait.", "cafe\u0301").passed is True
    assert contains("It is cafe\u0301 au lait.", "CAF\u00c9").passed is True


def test_a_typographic_apostrophe_is_the_one_a_keyboard_types() -> None:
    assert contains("I don\u2019t know", "don't").passed is True
    assert contains("I don't know", "don\u2019t").passed is True


def test_a_quote_mark_alone_is_looked_for_as_written() -> None:
    """`values: ["\u2019"], negate: true` (no curly quotes, please) failed "It's fine", whose
    quote is the keyboard's: it was read as "'" too."""
    assert contains("It's fine", None, values=["\u2019"], negate=True).passed is True
    assert contains("It\u2019s fine", None, values=["\u2019"], negate=True).passed is False
    assert contains("It's fine", None, values=["It\u2019s"]).passed is True  # words: as read
