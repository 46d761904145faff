"""science_quiz: hooks.py letters the options, and every answer key is one of them."""

from __future__ import annotations

from pathlib import Path

import pytest

from projects.science_quiz import hooks
from pytest_arena import Case, scoring_context
from pytest_arena.connectors import Request
from pytest_arena.scorers.matching import Choice
from pytest_arena.spec import load_project

PROJECT = Path(__file__).resolve().parents[1]


def request_for(case):
    return Request("sim_small", [{"role": "user", "content": "Which planet?"}], case)


def test_the_options_are_lettered_under_the_question():
    case = Case(id="q", input="Which planet?", metadata={"choices": ["Mars", "Venus"]})
    request = request_for(case)
    returned = hooks.pre_request(request, case, scoring_context())
    assert returned is request
    assert request.messages[-1]["content"] == "Which planet?\n\nA) Mars\nB) Venus"


@pytest.mark.parametrize("metadata", [{}, {"choices": []}, {"choices": "Mars, Venus"}])
def test_a_case_without_a_list_of_choices_is_named(metadata):
    case = Case(id="q7", input="Which planet?", metadata=metadata)
    with pytest.raises(ValueError, match="case 'q7' has no list of choices in its metadata"):
        hooks.pre_request(request_for(case), case, scoring_context())


def test_every_question_has_four_options_and_an_answer_among_them():
    project = load_project(PROJECT / "arena.yaml")
    assert project.problems == []
    assert 10 <= len(project.cases) <= 15
    for case in project.cases:
        choices = case.metadata["choices"]
        assert len(choices) == 4, case.id
        assert len({c.casefold() for c in choices}) == 4, case.id
        # the answer key, given back as the model's answer, is graded right
        ctx = scoring_context(case.reference, metadata=case.metadata)
        result = Choice().score(str(case.reference), case.reference, ctx)
        assert result.passed, (case.id, result.reason)


@pytest.mark.parametrize(
    ("output", "passed", "reason"),
    [
        ("C", True, "chose C (Carbon dioxide)"),
        ("```\nC\n```", True, "chose C (Carbon dioxide)"),
        ("The answer is carbon dioxide.", True, "chose C (Carbon dioxide)"),
        ("A) Oxygen", False, "expected C (Carbon dioxide), chose A (Oxygen)"),
        ("C or A", False, "ambiguous: C (Carbon dioxide) or A (Oxygen) in 'C or A'"),
    ],
)
def test_answers_are_read_in_the_forms_models_write_them(output, passed, reason):
    metadata = {"choices": ["Oxygen", "Nitrogen", "Carbon dioxide", "Hydrogen"]}
    result = Choice().score(output, "C", scoring_context("C", metadata=metadata))
    assert (result.passed, result.reason) == (passed, reason)
