"""choice: reading the chosen letter or option text, ambiguity and bad references."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pydantic
import pytest

from pytest_arena import Case
from pytest_arena.scorers import ScoreResult, ScoringContext
from pytest_arena.scorers.matching import Choice

CITIES = ["London", "Paris", "Rome"]


def choice(
    output: str, reference: Any, metadata: Mapping[str, Any] | None = None, **options: Any
) -> ScoreResult:
    case = Case("c", "q", reference, metadata=metadata or {})
    return Choice().score(output, reference, ScoringContext(options=options, test_case=case))


@pytest.mark.parametrize(
    ("output", "passed", "reason"),
    [
        ("B", True, "chose B (Paris)"),
        ("(B)", True, "chose B (Paris)"),
        ("B)", True, "chose B (Paris)"),
        ("b.", True, "chose B (Paris)"),
        ("**B**", True, "chose B (Paris)"),
        ("```\nB\n```", True, "chose B (Paris)"),
        ("```text\nThe answer is (B)\n```", True, "chose B (Paris)"),
        ("The answer is (B)", True, "chose B (Paris)"),
        ("Answer: b", True, "chose B (Paris)"),
        ("The correct answer is: B. Paris is the capital.", True, "chose B (Paris)"),
        ("I'd go with option B because it is the capital", True, "chose B (Paris)"),
        ("Option A is wrong; the answer is B", True, "chose B (Paris)"),
        ("B) Paris", True, "chose B (Paris)"),
        ("Paris", True, "chose B (Paris)"),
        ("The capital of France is Paris.", True, "chose B (Paris)"),
        ("C", False, "expected B (Paris), chose C (Rome)"),
        ("Answer: (c)", False, "expected B (Paris), chose C (Rome)"),
        ("Rome, of course", False, "expected B (Paris), chose C (Rome)"),
        ("E", False, "expected B (Paris), chose E, which is not one of A-C"),
        ("A or B", False, "ambiguous: A (London) or B (Paris) in 'A or B'"),
        (
            "The answer is B or C",
            False,
            "ambiguous: B (Paris) or C (Rome) in 'The answer is B or C'",
        ),
        ("London or Paris", False, "ambiguous: A (London) or B (Paris) in 'London or Paris'"),
        ("I don't know", False, "no choice found in 'I don't know'"),
        ("Answer: I think B", False, "no choice found in 'Answer: I think B'"),
        ("It's B, not C", True, "chose B (Paris)"),
        ("It\u2019s (B).", True, "chose B (Paris)"),
        ("It is B.", True, "chose B (Paris)"),
        ("It's not C, it's B", True, "chose B (Paris)"),
        ("B, not C", True, "chose B (Paris)"),
        ("The answer is B. It is A that most people pick, wrongly.", True, "chose B (Paris)"),
        ("I picked A at first, but on reflection it's B.", True, "chose B (Paris)"),
        ("The answer is A? No wait, it's B.", True, "chose B (Paris)"),
        ("C - not B!", False, "expected B (Paris), chose C (Rome)"),
    ],
)
def test_choice(output: str, passed: bool, reason: str) -> None:
    result = choice(output, "B", choices=CITIES)
    assert (result.score, result.passed, result.reason) == (float(passed), passed, reason)


@pytest.mark.parametrize(
    ("reference", "metadata", "options", "reason"),
    [
        ("Paris", {"choices": CITIES}, {}, "expected B (Paris), chose C (Rome)"),
        ("(b)", {"choices": CITIES}, {}, "expected B (Paris), chose C (Rome)"),
        (
            "B",
            {"choices": ["x", "y", "z"]},
            {"choices": CITIES},
            "expected B (Paris), chose C (Rome)",
        ),
        ("B", {}, {}, "expected B, chose C"),
    ],
)
def test_choice_reads_the_reference_and_the_choices(
    reference: str, metadata: dict[str, Any], options: dict[str, Any], reason: str
) -> None:
    result = choice("Answer: C", reference, metadata, **options)
    assert (result.passed, result.reason) == (False, reason)
    assert result.detail == {"chosen": "C", "expected": "B"}


@pytest.mark.parametrize(
    ("reference", "metadata", "message"),
    [
        (
            "Madrid",
            {"choices": CITIES},
            "reference 'Madrid' is neither a choice letter nor one of the choices 'London', 'Paris', 'Rome'",
        ),
        (
            "Madrid",
            {},
            "reference 'Madrid' is not a choice letter; to give the answer as text, give the choices too",
        ),
        ("F", {"choices": CITIES}, "reference 'F' is not one of the letters A-C of the 3 choices"),
        (
            "B",
            {"choices": "London, Paris"},
            "metadata choices must be a list of option texts, got 'London, Paris'",
        ),
    ],
)
def test_choice_names_a_reference_it_cannot_use(
    reference: str, metadata: dict[str, Any], message: str
) -> None:
    with pytest.raises(ValueError) as caught:
        choice("B", reference, metadata)
    assert str(caught.value) == message


def test_choice_without_a_reference_is_unscored() -> None:
    result = choice("B", None, choices=CITIES)
    assert (result.score, result.passed, result.reason) == (
        0.0,
        None,
        "no reference to compare with: unscored",
    )


def test_choice_refuses_a_misspelt_option() -> None:
    with pytest.raises(pydantic.ValidationError) as caught:
        choice("B", "B", choises=CITIES)
    assert caught.value.errors()[0]["loc"] == ("choises",)


@pytest.mark.parametrize(
    ("output", "reason"),
    [
        # a letter weighed in the reasoning does not count against the final answer
        ("Let us check whether the answer is B. It is not...\nANSWER: A", "chose A (London)"),
        ("The answer is C? No: C is Rome.\nAnswer: A", "chose A (London)"),
        # letters wrapped in LaTeX
        ("ANSWER: $A$", "chose A (London)"),
        ("\\boxed{A}", "chose A (London)"),
        ("so the answer is $\\boxed{A}$.", "chose A (London)"),
        ("The answer is $\\textbf{(A)}$", "chose A (London)"),
    ],
)
def test_choice_reads_the_final_marked_answer(output: str, reason: str) -> None:
    result = choice(output, "A", choices=CITIES)
    assert (result.passed, result.reason) == (True, reason)


@pytest.mark.parametrize(
    ("output", "passed", "reason"),
    [
        ("Thinking...\nANSWER: A", True, "chose A (London)"),
        ("ANSWER: a.", True, "chose A (London)"),
        ("ANSWER: $A$", False, "no 'ANSWER: X' line found in 'ANSWER: $A$'"),
        ("The answer is A", False, "no 'ANSWER: X' line found in 'The answer is A'"),
        ("ANSWER: A, B", False, "no 'ANSWER: X' line found in 'ANSWER: A, B'"),
        ("ANSWER: D", False, "no 'ANSWER: X' line found in 'ANSWER: D'"),
    ],
)
def test_choice_grades_as_inspect_ai(output: str, passed: bool, reason: str) -> None:
    result = choice(output, "A", choices=CITIES, convention="inspect")
    assert (result.passed, result.reason) == (passed, reason)


@pytest.mark.parametrize(
    "output",
    [
        "**Answer**: B\n\nWhy not (A)? London is not in France.",
        "## Answer\nB\n\nOption A is London",
        "**Final Answer**: B",
    ],
)
def test_an_answer_marked_in_markdown_is_the_choice(output: str) -> None:
    """A bold or heading "Answer" was not taken for a mark: a letter from the explanation
    was chosen instead, or none."""
    result = choice(output, "B", choices=CITIES)
    assert (result.passed, result.reason) == (True, "chose B (Paris)")
