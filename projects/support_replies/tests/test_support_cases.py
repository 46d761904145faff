"""The builtins support_replies grades with, under its own options: the macro contract's
edit_similarity and contains, and llm_judge with rubrics/resolution.md."""

from __future__ import annotations

from pathlib import Path

import pytest

from pytest_arena import scoring_context
from pytest_arena.scorers.llm_judge import LlmJudge
from pytest_arena.scorers.matching import Contains
from pytest_arena.scorers.similarity import EditSimilarity
from pytest_arena.spec import load_project

PROJECT = Path(__file__).resolve().parents[1]
SPEC = load_project(PROJECT / "arena.yaml")
CASES = {case.id: case for case in SPEC.cases}
MACRO = {part.name: part for part in CASES["returns_policy_macro"].scoring or []}


def params(name):
    return MACRO[name].params


def test_both_macros_share_one_contract():
    assert CASES["delivery_times_macro"].scoring == CASES["returns_policy_macro"].scoring
    assert [(p.scorer, p.weight, p.required) for p in MACRO.values()] == [
        ("edit_similarity", 1.0, False),
        ("key_points", 2.0, True),
        ("contains", 1.0, True),
    ]


def test_the_project_loads_and_every_key_point_is_in_its_own_reference():
    assert SPEC.problems == []
    for case in SPEC.cases:
        for point in case.metadata.get("must_mention", []):
            assert point.casefold() in " ".join(case.reference.split()).casefold(), case.id


@pytest.mark.parametrize(
    "refusal",
    [
        "As an AI model, I don't have access to that information.",
        "I'm sorry, I can't help with that request.",
    ],
)
def test_the_macro_contract_catches_a_canned_refusal(refusal):
    ctx = scoring_context(options=params("no_refusal"))
    result = Contains().score(refusal, None, ctx)
    assert (result.score, result.passed) == (pytest.approx(2 / 3), False)
    assert "must not appear, found in" in result.reason
    reference = CASES["returns_policy_macro"].reference
    assert Contains().score(reference, None, ctx).passed is True


def test_the_macro_wording_tolerates_small_edits_but_not_a_cut_reply():
    reference = " ".join(CASES["returns_policy_macro"].reference.split())
    ctx = scoring_context(reference, options=params("wording"))
    edited = reference.replace("Please use", "Just use")
    assert EditSimilarity().score(edited, reference, ctx).passed is True
    # a prefix of the reference: the edits are the missing characters
    prefix = reference[:90].strip()
    cut = EditSimilarity().score(prefix, reference, ctx)
    assert cut.passed is False
    assert cut.score == pytest.approx(len(prefix) / len(reference))


def judge(output, case_id):
    case = CASES[case_id]
    options = SPEC.spec.scorers.options["llm_judge"]
    # sim_perfect as the judge: the simulated grade by closeness, never misread
    ctx = scoring_context(
        case.reference,
        input=case.input,
        options=options,
        project_root=PROJECT,
        judge="sim_perfect",
    )
    return LlmJudge().score(output, case.reference, ctx)


def test_the_judge_reads_the_project_rubric_and_passes_the_same_resolution():
    case = CASES["wrong_colour_judged"]
    result = judge(" ".join(case.reference.split()), case.id)
    assert (result.score, result.passed) == (1.0, True)
    assert (PROJECT / "rubrics" / "resolution.md").read_text().startswith("You are reviewing")


def test_the_judge_gives_partial_credit_to_a_reply_cut_short():
    case = CASES["wrong_colour_judged"]
    cut = "I'm sorry you received the grey throw instead of the sage green one."
    result = judge(cut, case.id)
    assert 0 < result.score < 0.7
    assert result.passed is False
    assert result.reason.startswith("judge sim_perfect: the answer holds ")
