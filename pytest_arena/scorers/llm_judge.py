"""llm_judge: a model grades the output against a rubric."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from pytest_arena.scorers.base import ScoreResult, ScoringContext
from pytest_arena.scorers.typed import TypedScorer
from pytest_arena.spec.text_files import read_text

DEFAULT_RUBRIC = (
    "Give a score of 1 when the answer says what the reference says, 0 when it contradicts"
    " or misses it, and partial credit in between. Ignore formatting and wording."
)


class LlmJudgeOptions(BaseModel):
    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)

    rubric: str | None = None
    rubric_file: str | None = None
    model: str | None = None
    samples: int | None = Field(None, ge=1, le=25)
    reduce: Literal["majority", "mean"] | None = None
    threshold: float = Field(0.5, ge=0, le=1)
    include_reference: bool = True

    @model_validator(mode="after")
    def _one_rubric(self) -> LlmJudgeOptions:
        if self.rubric and self.rubric_file:
            raise ValueError("give either 'rubric' or 'rubric_file', not both")
        return self


class LlmJudge(TypedScorer[LlmJudgeOptions]):
    """A judge model grades the output; its verdict and reason become the result.

    Options: `rubric` (text) or `rubric_file` (relative to the project), `model` (the
    judge's model key; default: the project's `judge.model`), `samples` and `reduce`
    (`majority` or `mean`), `threshold` (the pass mark for `mean`, 0.5), and
    `include_reference` (show the judge the reference; true).
    """

    name = "llm_judge"
    options_model = LlmJudgeOptions

    def grade(
        self, output: str, reference: Any, opts: LlmJudgeOptions, context: ScoringContext
    ) -> ScoreResult:
        if context.judge is None:
            raise RuntimeError("llm_judge needs context.judge, and this context has none")
        rubric = opts.rubric or DEFAULT_RUBRIC
        if opts.rubric_file:
            rubric = read_text(Path(context.project_root) / opts.rubric_file)
        verdict = context.judge(
            rubric,
            output,
            reference if opts.include_reference else None,
            model=opts.model,
            samples=opts.samples,
            reduce=opts.reduce,
            threshold=opts.threshold,
        )
        return ScoreResult(
            verdict.score,
            verdict.passed,
            f"judge {verdict.model}: {verdict.reason}",
            detail={"judge": verdict.model, "samples": verdict.samples},
        )
