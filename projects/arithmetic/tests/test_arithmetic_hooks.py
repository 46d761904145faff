"""arithmetic/hooks.py: post_process reduces an answer to the bare number."""

from __future__ import annotations

from pathlib import Path

import pytest

from projects.arithmetic import hooks
from pytest_arena import Case
from pytest_arena.scorers import ScoringContext
from pytest_arena.scorers.equality import ExactMatch
from pytest_arena.scorers.numeric import NumericMatch
from pytest_arena.spec import load_project

PROJECT = Path(__file__).resolve().parents[1]
CASE = Case(id="add-002", input="...", reference=4225)
CTX = ScoringContext(test_case=CASE)


@pytest.mark.parametrize(
    ("output", "expected"),
    [
        ("42", "42"),
        ("Answer: 42", "42"),
        ("answer: 42", "42"),
        ("The answer is 42.", "42"),
        ("```\n42\n```", "42"),
        ("```text\n42\n```", "42"),
        ("1,200", "1200"),
        ("12,600 people", "12600"),
        ("42.0", "42"),
        ("$60", "60"),
        ("  78\n", "78"),
        ("-5", "-5"),
        ("2.50", "2.5"),
    ],
)
def test_other_surface_forms_become_the_bare_number(output, expected):
    assert hooks.post_process(output, CASE, CTX) == expected


def test_the_last_number_is_the_answer():
    assert hooks.post_process("148 + 97 = 245", CASE, CTX) == "245"
    assert hooks.post_process("In an 8-hour shift: 16,000 bottles.", CASE, CTX) == "16000"


@pytest.mark.parametrize(
    "output",
    ["I'm sorry, I can't help with that request.", "Could you clarify what you mean?", ""],
)
def test_an_answer_without_a_number_is_left_for_the_scorer_to_show(output):
    assert hooks.post_process(output, CASE, CTX) == output.strip()


def test_numbers_inside_words_and_bad_groupings_are_not_numbers():
    assert hooks.bare_number("route A12") is None
    assert hooks.bare_number("1,2345") is None


@pytest.mark.parametrize(
    ("output", "passed"),
    [("Answer: 4,225", True), ("```\n4225\n```", True), ("The answer is 3808.", False)],
)
def test_after_the_hook_exact_match_compares_numbers(output, passed):
    result = ExactMatch().score(hooks.post_process(output, CASE, CTX), CASE.reference, CTX)
    assert result.passed is passed


def test_without_the_hook_exact_match_fails_a_right_answer_in_another_form():
    result = ExactMatch().score("Answer: 4225", CASE.reference, CTX)
    assert result.passed is False
    assert "strip it in hooks.py post_process" in result.reason


def test_the_dataset_fields_are_mapped_onto_cases():
    project = load_project(PROJECT / "arena.yaml")
    assert project.problems == []
    whole = [case for case in project.cases if case.dataset == "data/problems.jsonl"]
    rounded = [case for case in project.cases if case.dataset == "data/measures.jsonl"]
    assert (len(whole), len(rounded)) == (18, 6)
    first = whole[0]
    assert first.id == "add-001"
    assert first.input.startswith("A bakery sold 148 croissants")
    assert first.reference == 245
    assert first.tags == ("word_problem", "addition")
    assert first.eval_type == "exact_match"
    assert first.metadata == {"difficulty": "easy"}
    assert all(isinstance(case.reference, int) for case in whole)
    assert all(isinstance(case.reference, float) for case in rounded)
    assert {case.eval_type for case in rounded} == {"numeric_match"}
    assert all("rounded" in case.tags for case in rounded)


ROUNDED = Case(id="avg-001", input="...", reference=91.2, eval_type="numeric_match")
# the tolerance the project sets in arena.yaml
OPTIONS = load_project(PROJECT / "arena.yaml").spec.scorers.options["numeric_match"]
ROUNDED_CTX = ScoringContext(test_case=ROUNDED, options=OPTIONS)


def test_answers_graded_by_numeric_match_are_left_as_the_model_wrote_them():
    output = "The mean lap time is 91.2 seconds."
    assert hooks.post_process(output, ROUNDED, ROUNDED_CTX) == output


@pytest.mark.parametrize(
    ("output", "passed", "reason"),
    [
        ("The mean lap time is 91.2 seconds.", True, "found 91.2, as expected"),
        ("Answer: 91.21", True, "found 91.21, within ±0.011 of 91.2"),
        ("91.19", True, "found 91.19, within ±0.011 of 91.2"),
        ("About 91 seconds", False, "expected 91.2 (±0.011), found 91 in 'About 91 seconds'"),
        ("103.35", False, "expected 91.2 (±0.011), found 103.35 in '103.35'"),
    ],
)
def test_numeric_match_reads_a_rounded_answer_within_the_project_tolerance(output, passed, reason):
    result = NumericMatch().score(output, ROUNDED.reference, ROUNDED_CTX)
    assert (result.passed, result.reason) == (passed, reason)
