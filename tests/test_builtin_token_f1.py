"""token_f1: SQuAD-style normalisation, word-overlap F1, several references and the threshold."""

from __future__ import annotations

from typing import Any

import pydantic
import pytest

from pytest_arena import Case
from pytest_arena.scorers import ScoreResult, ScoringContext
from pytest_arena.scorers.similarity import TokenF1, squad_tokens


def token_f1(output: str, reference: Any, **options: Any) -> ScoreResult:
    context = ScoringContext(options=options, test_case=Case("c", "q", reference))
    return TokenF1().score(output, reference, context)


@pytest.mark.parametrize(
    ("output", "reference", "options", "score", "passed", "reason"),
    [
        (
            "The Eiffel Tower!",
            "eiffel tower",
            {},
            1.0,
            True,
            "token F1 1.00 (precision 1.00, recall 1.00) against 'eiffel tower'",
        ),
        (
            "the tower",
            "Eiffel Tower",
            {},
            2 / 3,
            True,
            "token F1 0.67 (precision 1.00, recall 0.50) against 'Eiffel Tower'",
        ),
        (
            "Paris, France",
            "Paris",
            {},
            2 / 3,
            True,
            "token F1 0.67 (precision 0.50, recall 1.00) against 'Paris'",
        ),
        (
            "Paris Paris",
            "Paris",
            {},
            2 / 3,
            True,
            "token F1 0.67 (precision 0.50, recall 1.00) against 'Paris'",
        ),
        (
            "Lyon",
            "Paris",
            {},
            0.0,
            False,
            "token F1 0.00 (precision 0.00, recall 0.00) against 'Paris', below 0.5: got 'Lyon'",
        ),
        (
            "It is Paris",
            ["Lyon", "paris"],
            {},
            0.5,
            True,
            "token F1 0.50 (precision 0.33, recall 1.00) against 'paris'",
        ),
        (
            "Eiffel tower in Paris",
            "the Eiffel Tower",
            {"threshold": 0.9},
            2 / 3,
            False,
            "token F1 0.67 (precision 0.50, recall 1.00) against 'the Eiffel Tower', below 0.9: got 'Eiffel tower in Paris'",
        ),
        (
            "“Don’t” panic",
            "dont panic",
            {},
            1.0,
            True,
            "token F1 1.00 (precision 1.00, recall 1.00) against 'dont panic'",
        ),
        ("The.", "a", {}, 1.0, True, "token F1 1.00 (precision 1.00, recall 1.00) against 'a'"),
        (
            "the a",
            "Paris",
            {},
            0.0,
            False,
            "token F1 0.00 (precision 0.00, recall 0.00) against 'Paris', below 0.5: got 'the a'",
        ),
        (
            "1200 dollars",
            1200,
            {},
            2 / 3,
            True,
            "token F1 0.67 (precision 0.50, recall 1.00) against '1200'",
        ),
    ],
)
def test_token_f1(
    output: str, reference: Any, options: dict[str, Any], score: float, passed: bool, reason: str
) -> None:
    result = token_f1(output, reference, **options)
    assert result.score == pytest.approx(score)
    assert (result.passed, result.reason) == (passed, reason)


def test_squad_tokens_drops_case_punctuation_and_articles() -> None:
    assert squad_tokens("  The U.S. and   an Apple, a day!") == ["us", "and", "apple", "day"]


def test_token_f1_keeps_precision_and_recall_in_the_detail() -> None:
    result = token_f1("the tower", ["Lyon", "Eiffel Tower"])
    assert result.detail == {"precision": 1.0, "recall": 0.5, "reference": "Eiffel Tower"}


@pytest.mark.parametrize("reference", [None, []])
def test_token_f1_without_a_reference_is_unscored(reference: Any) -> None:
    result = token_f1("Paris", reference)
    assert (result.score, result.passed, result.reason) == (
        0.0,
        None,
        "no reference to compare with: unscored",
    )


@pytest.mark.parametrize(
    ("options", "option"), [({"treshold": 0.5}, "treshold"), ({"threshold": 1.5}, "threshold")]
)
def test_token_f1_refuses_bad_options(options: dict[str, Any], option: str) -> None:
    with pytest.raises(pydantic.ValidationError) as caught:
        token_f1("Paris", "Paris", **options)
    assert caught.value.errors()[0]["loc"] == (option,)


@pytest.mark.parametrize(
    ("output", "reference", "normalize", "f1"),
    [
        # SQuAD's scripts strip ASCII punctuation only
        ("“Paris”", "Paris", "unicode", 1.0),
        ("“Paris”", "Paris", "squad_v1", 0.0),
        ("“Paris”", "Paris", "squad_v2", 0.0),
        ("Paris …", "Paris", "unicode", 1.0),
        ("Paris …", "Paris", "squad_v1", pytest.approx(2 / 3)),
        # an empty answer: v1.1 scores it 0, v2.0 scores it 1 against an empty reference
        ("", "", "unicode", 1.0),
        ("", "the", "squad_v1", 0.0),
        ("", "the", "squad_v2", 1.0),
        ("the", "", "squad_v1", 0.0),
    ],
)
def test_token_f1_normalizes_as_squad(
    output: str, reference: str, normalize: str, f1: float
) -> None:
    assert token_f1(output, reference, normalize=normalize).score == f1


def test_token_f1_squad_v2_drops_references_that_normalise_to_nothing() -> None:
    assert token_f1("", ["the", "Paris"], normalize="squad_v2").score == 0.0
    assert token_f1("", ["the", "Paris"], normalize="squad_v1").score == 0.0
    assert token_f1("", ["the", "Paris"]).score == 1.0


def test_token_f1_reads_unicode_forms_alike() -> None:
    """ "café" composed and decomposed scored F1 0 against each other (normalize: unicode)."""
    assert token_f1("caf\u00e9 au lait", "cafe\u0301 au lait").score == 1.0
