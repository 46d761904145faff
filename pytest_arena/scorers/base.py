"""The scorer API: `Scorer`, `ScoreResult` and `ScoringContext`."""

from __future__ import annotations

import math
import numbers
import operator
import re
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar, Protocol

from pydantic import BaseModel

from pytest_arena.numbers import at_least, at_most
from pytest_arena.spec.case import Case


class ScoreResultError(ValueError):
    """A ScoreResult was built with a value it cannot hold."""


# the leaderboard's own columns (as its table heads them too: `pass rate`, `judge cost`, and
# `pass@k`, `pass^k` below) and a record's own numbers: a metric of one of these names would
# stand beside (and be taken for) arena's, in the table, the composite's formula and a gate
TAKEN_METRIC_NAMES = (
    "accuracy",
    "pass_rate",
    "cost",
    "latency",
    "tokens",
    "composite",
    "score",
    "rank",
    "model",
    "cases",
    "passed",
    "failed",
    "errors",
    "unscored",
    "flaky",
    "judge_cost",
)
_PASS_K_COLUMN = re.compile(r"pass[@^]\d+")  # the board's pass@k and pass^k of repeated cases

# what `passed` left out passes at: a script scorer's bare number (its pass_threshold's default)
PASS_AT = 1.0


class _FromScore:
    """`passed` left out: the verdict is the score's, a pass at PASS_AT."""

    def __repr__(self) -> str:
        return "<from score>"


FROM_SCORE: Any = _FromScore()


@dataclass
class ScoreResult:
    """A scorer's verdict on one output.

    `score` is 0-1 and drives accuracy; `passed` is the verdict: True, False, or None
    (unscored); left out, it is the score's (a score of 1 passes, less fails, as a script
    scorer's bare number); `reason` is shown when the case fails; `detail` is structured
    data for the drill-down; `metrics` are extra numbers that become leaderboard columns.
    Numbers may be any real number (numpy's too) and `passed` numpy's bool: they become
    float and bool.
    """

    score: float
    passed: bool | None = FROM_SCORE
    reason: str = ""
    detail: dict[str, Any] = field(default_factory=dict)
    metrics: dict[str, float] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.check()

    def check(self) -> None:
        """ScoreResultError if a field holds what it cannot (as set when built, or after:
        the run checks a result again when a scorer returns it); numbers become floats, and
        a `passed` left out the score's verdict."""
        score = _real(self.score)
        if score is None:
            raise ScoreResultError(
                f"ScoreResult.score must be a number from 0 to 1, got {self.score!r}"
            )
        within = within_0_1(score)
        if within is None:
            raise ScoreResultError(f"ScoreResult.score must be between 0 and 1, got {self.score}")
        self.score = within
        if self.passed is FROM_SCORE:
            self.passed = at_least(score, PASS_AT)
        elif _bool_like(self.passed):
            self.passed = bool(self.passed)
        elif self.passed is not None:
            raise ScoreResultError(
                f"ScoreResult.passed must be True, False or None, got {self.passed!r}"
            )
        if not isinstance(self.reason, str):
            raise ScoreResultError(f"ScoreResult.reason must be a string, got {self.reason!r}")
        if not isinstance(self.detail, dict):
            raise ScoreResultError(f"ScoreResult.detail must be a dict, got {self.detail!r}")
        if not isinstance(self.metrics, dict):
            raise ScoreResultError(f"ScoreResult.metrics must be a dict, got {self.metrics!r}")
        for name, value in self.metrics.items():
            if not isinstance(name, str) or not name:
                raise ScoreResultError(f"metric names must be non-empty strings, got {name!r}")
            if name.replace(" ", "_") in TAKEN_METRIC_NAMES or _PASS_K_COLUMN.fullmatch(name):
                raise ScoreResultError(
                    f"metric '{name}' is named like a leaderboard column of arena's own; give"
                    f" it another name (taken: {', '.join(TAKEN_METRIC_NAMES)}, pass@k, pass^k)"
                )
            number = _real(value)
            if number is None or not math.isfinite(number):
                raise ScoreResultError(
                    f"metric '{name}' must be a finite number, got {type(value).__name__} {value!r}"
                )
            self.metrics[name] = number


def within_0_1(score: float) -> float | None:
    """`score` if it is from 0 to 1, or 0 or 1 if a rounding error outside (`got / total`
    is 1.0000000000000002); None if it is outside, or NaN."""
    try:
        score = float(score)
    except OverflowError:  # an int too large for a float: far outside
        return None
    if 0.0 <= score <= 1.0:
        return score
    if math.isnan(score) or not (at_least(score, 0.0) and at_most(score, 1.0)):
        return None
    return min(1.0, max(0.0, score))


def _bool_like(value: object) -> bool:
    """Whether `value` is a bool: Python's, or numpy's (`np.True_`, `np.bool_`), known by its
    type's name so that arena needs no numpy."""
    return isinstance(value, bool) or (
        type(value).__name__ in ("bool", "bool_") and not isinstance(value, numbers.Number)
    )


def _real(value: object) -> float | None:
    """`value` as a float if it is a real number: an int or float, a `numbers.Real` (numpy's
    float32, int64, np.mean's float64, Fraction), an integer (`__index__`) or a scalar with
    `__float__` (Decimal); None for a bool (no score), anything else, and an array."""
    if _bool_like(value) or isinstance(value, str | bytes | complex):
        return None
    try:
        if isinstance(value, numbers.Real):
            return float(value)
        if hasattr(value, "__index__"):
            return float(operator.index(value))
        if hasattr(value, "__float__") and not hasattr(type(value), "__len__"):
            return float(value)
    except OverflowError:  # an int past a float's range: far outside 0-1, and not finite
        return math.inf
    except (TypeError, ValueError):
        return None
    return None


JudgeCall = Callable[..., Any]  # `context.judge(...)`: an `evaluation.judge.Judge` in a run


@dataclass
class ScoringContext:
    """What a scorer may know besides the output and the reference."""

    test_case: Case | None = None
    model_key: str = ""
    options: Mapping[str, Any] = field(default_factory=dict)
    judge: JudgeCall | None = None
    project_root: Path = field(default_factory=Path.cwd)
    workspace: Path | None = None  # where an agent under test wrote its files, if anywhere
    # the whole response, JSON data: `message` ({role, content, tool_calls: [{id, name,
    # arguments}], refusal}), `finish_reason`, `usage`, `duration_ms`, `meta`, `trajectory`
    # (the steps of a tool loop), and a command agent's `exit_status` and `stderr_tail`
    response: Mapping[str, Any] = field(default_factory=dict)

    @property
    def trajectory(self) -> list[dict[str, Any]]:
        """The steps of the case: those of its tool loop, else its one reply as one step.
        Each is {step, message, tool_results?, finish_reason, tokens_in, tokens_out, ...}."""
        steps = self.response.get("trajectory")
        if steps:
            return list(steps)
        message = self.response.get("message")
        if not message:
            return []
        return [
            {
                "step": 1,
                "message": message,
                "tool_results": [],
                "finish_reason": self.response.get("finish_reason"),
            }
        ]

    @property
    def tool_calls(self) -> list[dict[str, Any]]:
        """Every tool call the model made, in order: [{id, name, arguments}]."""
        return [c for step in self.trajectory for c in step["message"].get("tool_calls") or []]


class ScoresOutputs(Protocol):
    """Anything with Scorer's `score` method: Scorer subclasses and script scorers."""

    def score(self, output: str, reference: Any, context: ScoringContext) -> ScoreResult: ...


class Scorer(ABC):
    """Base class for scorers. Subclass it, set `name`, implement `score`.

    `options_model`, when set, is a pydantic model that checks the options a
    project gives this scorer; misspelt options then fail at load time. `timeout` is how
    many seconds a call of `score` may take (a scoring entry's `timeout:` overrides it);
    None runs it on pytest's own thread with no limit.
    """

    name: ClassVar[str] = ""
    options_model: ClassVar[type[BaseModel] | None] = None
    timeout: ClassVar[float | None] = 60.0
    _named: ClassVar[bool] = False

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls._named = bool(cls.__dict__.get("name"))  # by its author: meant to be used
        if not cls.__dict__.get("name"):
            cls.name = _snake(cls.__name__.removesuffix("Scorer")) or _snake(cls.__name__)

    @abstractmethod
    def score(self, output: str, reference: Any, context: ScoringContext) -> ScoreResult:
        """Grade `output` against `reference`."""


def _snake(name: str) -> str:
    """`CitationCount` as `citation_count`, `HTTPStatus` as `http_status`, `F1` as `f1`."""
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])", "_", name).lower()


def shown_score(value: float, digits: int = 2) -> str:
    """A score in 0..1 as a reason shows it: `digits` decimals, and more when those would
    show a score that is not 0 or 1 as one (0.99537 is 0.995, never 1.00)."""
    text = f"{value:.{digits}f}"
    while float(text) in (0.0, 1.0) and value not in (0.0, 1.0):
        if digits == 6:  # 0.9999999: nearer than six decimals say
            return ">0.999999" if value > 0.5 else "<0.000001"
        digits += 1
        text = f"{value:.{digits}f}"
    return text
