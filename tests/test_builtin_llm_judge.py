"""llm_judge: the judge's verdicts become results; samples, rubrics and partial credit."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pydantic
import pytest

from pytest_arena.connectors.base import Connector, Request, Response
from pytest_arena.engine.calls import direct
from pytest_arena.evaluation.judge import Judge
from pytest_arena.scorers import ScoreResult, ScoringContext
from pytest_arena.scorers.llm_judge import DEFAULT_RUBRIC, LlmJudge
from pytest_arena.spec import Case
from pytest_arena.testing import scoring_context

CASE = Case(
    id="eta", input="When will my parcel arrive?", reference="It arrives on Thursday.", project="p"
)


class Scripted(Connector):
    """Replies with the next of a list of texts and keeps the prompts it was sent."""

    name = "scripted"
    settings_model = type(None)  # type: ignore[assignment]

    def __init__(self, replies: list[str]) -> None:
        from pytest_arena.spec.schema import Price

        super().__init__("scripted", None, Price())  # type: ignore[arg-type]
        self.replies = list(replies)
        self.prompts: list[str] = []

    def complete(self, request: Request) -> Response:
        self.prompts.append(request.prompt)
        return Response(self.replies.pop(0), tokens_in=1, tokens_out=1)


def judged(replies: list[str], **options: Any) -> tuple[ScoreResult, Scripted]:
    connector = Scripted(replies)
    judge = Judge(CASE, direct(lambda key: connector), "scripted")
    context = ScoringContext(test_case=CASE, options=options, judge=judge)
    return LlmJudge().score("Thursday, between 9 and 12.", CASE.reference, context), connector


@pytest.mark.parametrize(
    ("replies", "options", "score", "passed", "reason"),
    [
        (
            ['{"score": 0.8, "passed": true, "reason": "same day"}'],
            {},
            0.8,
            True,
            "judge scripted: same day",
        ),
        (
            ['```json\n{"score": 0.3, "passed": false, "reason": "wrong day"}\n```'],
            {},
            0.3,
            False,
            "judge scripted: wrong day",
        ),
        (
            ["Score: 6/10 - PASS. Close enough."],
            {},
            0.6,
            True,
            "judge scripted: plain grade: 'Score: 6/10 - PASS. Close enough.'",
        ),
        (['{"score": 85}'], {}, 0.85, True, "judge scripted: no reason given"),
        (
            [
                '{"score": 1, "passed": true, "reason": "a"}',
                '{"score": 0, "passed": false, "reason": "b"}',
                '{"score": 0.5, "passed": false, "reason": "c"}',
            ],
            {"samples": 3},
            0.5,
            False,
            "judge scripted: 1 of 3 judgements passed: b",
        ),
        (
            ['{"score": 0.9}', '{"score": 0.6}', '{"score": 0.6}'],
            {"samples": 3, "reduce": "mean", "threshold": 0.7},
            0.7,
            True,
            "judge scripted: mean of 3 judgements 0.70: no reason given",
        ),
        (
            ['{"score": 0.4, "reason": "vague"}', '{"score": 0.5}'],
            {"samples": 2, "reduce": "mean"},
            0.45,
            False,
            "judge scripted: mean of 2 judgements 0.45: vague",
        ),
        (
            ['{"score": 0.55, "passed": true, "reason": "lenient"}'],
            {"threshold": 0.9},
            0.55,
            True,
            "judge scripted: lenient",
        ),
    ],
    ids=[
        "json",
        "fenced",
        "plain_grade",
        "percent_scale",
        "majority",
        "mean_at_threshold",
        "mean_below",
        "one_sample_keeps_its_verdict",
    ],
)
def test_llm_judge(
    replies: list[str], options: dict[str, Any], score: float, passed: bool, reason: str
) -> None:
    result, _ = judged(replies, **options)
    assert result.score == pytest.approx(score)
    assert (result.passed, result.reason) == (passed, reason)
    assert result.detail["judge"] == "scripted"
    assert len(result.detail["samples"]) == options.get("samples", 1)


def test_the_rubric_and_the_reference_reach_the_judge() -> None:
    _, connector = judged(['{"score": 1}'], rubric="Same day means full marks.")
    prompt = connector.prompts[0]
    assert "<rubric>\nSame day means full marks.\n</rubric>" in prompt
    assert "<reference>\nIt arrives on Thursday.\n</reference>" in prompt
    assert "<answer>\nThursday, between 9 and 12.\n</answer>" in prompt


def test_without_a_rubric_the_default_one_is_used_and_the_reference_can_be_hidden() -> None:
    _, connector = judged(['{"score": 1}'], include_reference=False)
    assert DEFAULT_RUBRIC in connector.prompts[0]
    assert "<reference>" not in connector.prompts[0]


def test_a_rubric_file_is_read_from_the_project(tmp_path: Path) -> None:
    (tmp_path / "rubric.md").write_text("Grade the delivery day only.\n")
    connector = Scripted(['{"score": 1}'])
    context = ScoringContext(
        test_case=CASE,
        options={"rubric_file": "rubric.md"},
        judge=Judge(CASE, direct(lambda key: connector), "scripted"),
        project_root=tmp_path,
    )
    LlmJudge().score("Thursday", CASE.reference, context)
    assert "<rubric>\nGrade the delivery day only.\n</rubric>" in connector.prompts[0]


# sim_perfect as the judge never misreads and writes strict JSON, so its grade is the
# simulated judge's closeness measure itself: 0.8 * recall + 0.2 * precision of the words
# of the reference ("a", "an", "the" left out), passing from 0.7.
@pytest.mark.parametrize(
    ("output", "score", "passed"),
    [
        ("It arrives on Thursday.", 1.0, True),
        ("it ARRIVES on thursday", 1.0, True),
        ("It arrives on Thursday, between 9 and 12.", 0.9, True),  # recall 1, precision 4/8
        ("It arrives on Monday.", 0.75, True),  # recall 3/4, precision 3/4
        ("It arrives.", 0.6, False),  # recall 2/4, precision 1
        ("Monday.", 0.0, False),
    ],
)
def test_the_simulated_judge_gives_partial_credit_by_closeness(
    output: str, score: float, passed: bool
) -> None:
    context = scoring_context(CASE.reference, input=CASE.input, case_id="eta", judge="sim_perfect")
    result = LlmJudge().score(output, CASE.reference, context)
    assert (result.score, result.passed) == (pytest.approx(score), passed)
    assert result.reason.startswith("judge sim_perfect: the answer holds ")


def test_llm_judge_needs_a_judge() -> None:
    with pytest.raises(RuntimeError, match=r"llm_judge needs context\.judge"):
        LlmJudge().score("x", "y", scoring_context("y", judge=None))


@pytest.mark.parametrize(
    ("options", "option"),
    [
        ({"rubrik": "x"}, ("rubrik",)),
        ({"reduce": "median"}, ("reduce",)),
        ({"samples": 0}, ("samples",)),
        ({"rubric": "x", "rubric_file": "r.md"}, ()),
    ],
)
def test_llm_judge_refuses_bad_options(options: dict[str, Any], option: tuple[str, ...]) -> None:
    with pytest.raises(pydantic.ValidationError) as caught:
        judged(['{"score": 1}'], **options)
    assert caught.value.errors()[0]["loc"] == option
