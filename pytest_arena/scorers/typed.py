"""Scorers whose options are a pydantic model, validated once and bound to the scorer.

The plan of a case binds each component's options when it is made (`bind`), as
inspect_ai's scorers take theirs when they are made: every output is then graded
with that one validated object. A scorer used directly, unbound
(`ExactMatch().score(output, reference, scoring_context(options={...}))`),
validates `context.options` on each call instead.
"""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, ClassVar, Generic, TypeVar, cast

from pydantic import BaseModel

from pytest_arena.scorers.base import Scorer, ScoreResult, ScoringContext
from pytest_arena.spec.case import Case

OptionsT = TypeVar("OptionsT", bound=BaseModel)

NO_REFERENCE = "no reference to compare with: unscored"


class TypedScorer(Scorer, Generic[OptionsT]):
    """A scorer that grades with options of its `options_model`; subclasses implement `grade`.

    With `needs_reference`, an output whose case has no reference (see `lacks_reference`)
    is unscored without calling `grade`.
    """

    needs_reference: ClassVar[bool] = False
    # the builtins end by themselves (llm_judge's calls have the model's timeout), so they
    # run on pytest's thread, without a worker thread's hand-off per output
    timeout: ClassVar[float | None] = None

    def __init__(self, options: OptionsT | None = None) -> None:
        self.options = options  # None: read context.options on each call

    def bind(self, options: Mapping[str, Any]) -> TypedScorer[OptionsT]:
        """A scorer of this class with `options` validated and bound (pydantic's
        ValidationError if they are wrong)."""
        return type(self)(self.read_options(options))

    def read_options(self, options: Mapping[str, Any]) -> OptionsT:
        model = self.options_model
        if model is None:
            raise TypeError(f"{type(self).__name__} sets no options_model")
        return cast(OptionsT, model.model_validate(dict(options)))

    def check_file(self, option: str, path: Path) -> None:
        """Check the file that option `option` (a `*_file` option) names, once, when a plan
        binds the options: SpecError naming the file and line if it cannot be used. The
        plan has already checked that it exists and is UTF-8 text."""

    def case_problem(self, reference: Any, tools: Sequence[str] | None) -> tuple[str, str] | None:
        """What makes these bound options unusable for a case with `reference` in a project
        whose tools.py defines `tools` (None: it has none), said once when the plan is made:
        (the option that holds it, or "reference"; what is wrong). None if nothing does."""
        return None

    def problem_in(self, case: Case, tools: Sequence[str] | None) -> tuple[str, str] | None:
        """`case_problem` for the whole `case`: the option, "reference" or "metadata" that
        holds the problem, and what is wrong; by default, of its reference alone."""
        return self.case_problem(case.reference, tools)

    def lacks_reference(self, reference: Any) -> bool:
        return reference is None

    def score(self, output: str, reference: Any, context: ScoringContext) -> ScoreResult:
        opts = self.options if self.options is not None else self.read_options(context.options)
        if self.needs_reference and self.lacks_reference(reference):
            return ScoreResult(0.0, None, NO_REFERENCE)
        return self.grade(output, reference, opts, context)

    @abstractmethod
    def grade(
        self, output: str, reference: Any, opts: OptionsT, context: ScoringContext
    ) -> ScoreResult:
        """Grade `output` against `reference` with these options."""
