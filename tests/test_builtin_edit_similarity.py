"""edit_similarity: Levenshtein similarity, case and whitespace, several references."""

from __future__ import annotations

from typing import Any

import pydantic
import pytest

from pytest_arena import Case
from pytest_arena.scorers import ScoreResult, ScoringContext
from pytest_arena.scorers.similarity import EditSimilarity


def similarity(output: str, reference: Any, **options: Any) -> ScoreResult:
    context = ScoringContext(options=options, test_case=Case("c", "q", reference))
    return EditSimilarity().score(output, reference, context)


@pytest.mark.parametrize(
    ("output", "reference", "options", "score", "passed", "reason"),
    [
        ("Paris", "Paris", {}, 1.0, True, "edit similarity 1.00 to 'Paris'"),
        ("  Paris\n", "Paris", {}, 1.0, True, "edit similarity 1.00 to 'Paris'"),
        ("colour", "color", {}, 5 / 6, True, "edit similarity 0.83 to 'color'"),
        (
            "kitten",
            "sitting",
            {},
            4 / 7,
            False,
            "edit similarity 0.57 to 'sitting', below 0.8: got 'kitten'",
        ),
        ("kitten", "sitting", {"threshold": 0.5}, 4 / 7, True, "edit similarity 0.57 to 'sitting'"),
        ("Hello  world", "Hello world", {}, 1.0, True, "edit similarity 1.00 to 'Hello world'"),
        (
            "Hello  world",
            "Hello world",
            {"normalize_whitespace": False},
            11 / 12,
            True,
            "edit similarity 0.92 to 'Hello world'",
        ),
        (
            "HELLO",
            "hello",
            {},
            0.0,
            False,
            "edit similarity 0.00 to 'hello', below 0.8: got 'HELLO'",
        ),
        ("HELLO", "hello", {"ignore_case": True}, 1.0, True, "edit similarity 1.00 to 'hello'"),
        ("colour", ["colr", "color"], {}, 5 / 6, True, "edit similarity 0.83 to 'color'"),
        ("abcd", "abce", {"threshold": 0.75}, 0.75, True, "edit similarity 0.75 to 'abce'"),
        ("1201", 1200, {}, 0.75, False, "edit similarity 0.75 to '1200', below 0.8: got '1201'"),
    ],
)
def test_edit_similarity(
    output: str, reference: Any, options: dict[str, Any], score: float, passed: bool, reason: str
) -> None:
    result = similarity(output, reference, **options)
    assert result.score == pytest.approx(score)
    assert (result.passed, result.reason) == (passed, reason)


def test_edit_similarity_names_the_closest_reference() -> None:
    assert similarity("colour", ["colr", "color"]).detail == {"reference": "color"}


@pytest.mark.parametrize("reference", [None, []])
def test_edit_similarity_without_a_reference_is_unscored(reference: Any) -> None:
    result = similarity("Paris", reference)
    assert (result.score, result.passed, result.reason) == (
        0.0,
        None,
        "no reference to compare with: unscored",
    )


@pytest.mark.parametrize(
    ("options", "option"),
    [({"normalise_whitespace": True}, "normalise_whitespace"), ({"threshold": -0.1}, "threshold")],
)
def test_edit_similarity_refuses_bad_options(options: dict[str, Any], option: str) -> None:
    with pytest.raises(pydantic.ValidationError) as caught:
        similarity("Paris", "Paris", **options)
    assert caught.value.errors()[0]["loc"] == (option,)


def test_edit_similarity_reads_unicode_forms_alike() -> None:
    """ "café" composed against decomposed was 0.60 similar, below the default threshold."""
    assert similarity("caf\u00e9", "cafe\u0301").score == 1.0
