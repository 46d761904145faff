"""What a ScoreResult means: a `passed` left out is the score's verdict, and numbers may be
any real number (numpy's too), as a scorer computes them."""

from __future__ import annotations

import contextlib
from decimal import Decimal
from fractions import Fraction
from typing import Any

import pytest

from pytest_arena.scorers import ScoreResult, ScoreResultError
from tests.conftest import MakeProject

# numpy is optional (its tests skip), and imported here once for the session: an inner run
# (pytester) that imported it first would drop it, and it cannot load twice in one process
with contextlib.suppress(ImportError):
    import numpy  # noqa: F401

EXACT_SCORER = """
from pytest_arena.scorers import Scorer, ScoreResult


class ExactScorer(Scorer):
    name = "exact"

    def score(self, output, reference, context):
        right = output.strip() == str(reference)
        return ScoreResult(score=float(right), reason="right" if right else "not the reference")
"""

TWO_MODELS = """
models:
  default: [sim_perfect, sim_small]
  define:
    sim_small: {accuracy: 0.0}
scorers:
  default: exact
tests:
  - {id: capital, input: "Capital of France?", reference: "Paris"}
  - {id: sum, input: "2 + 2?", reference: "4"}
"""


def test_a_result_without_passed_fails_a_wrong_answer_and_the_run(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    """`ScoreResult(score=0.0, reason=...)` was unscored: every wrong answer vanished from the
    pass rate and the run exited 0."""
    make_project("exact", TWO_MODELS, files={"scorers/exact.py": EXACT_SCORER})
    result = pytester.runpytest("-rA")
    result.assert_outcomes(passed=2, failed=2)
    result.stdout.fnmatch_lines(
        ["FAILED projects/exact/arena.yaml::capital[[]sim_small] - not the reference"]
    )
    assert result.ret == pytest.ExitCode.TESTS_FAILED


def test_a_result_without_passed_passes_as_a_script_scorers_bare_number() -> None:
    """A score of 1 passes and anything less fails, as `pass_threshold`'s default 1 does for
    a script scorer's bare number; `passed=None`, given, is still unscored."""
    assert ScoreResult(1.0).passed is True
    assert ScoreResult(1).passed is True
    assert ScoreResult((0.7 + 0.7 + 0.7) / 2.1).passed is True  # a rounding error short of 1
    assert ScoreResult(0.99, reason="almost").passed is False
    assert ScoreResult(score=0.0, reason="wrong").passed is False
    assert ScoreResult(0.0, None, "no reference: unscored").passed is None
    assert ScoreResult(score=0.5, passed=None).passed is None
    assert ScoreResult(score=0.5, passed=True).passed is True


def test_the_seeds_custom_metrics_example_runs_with_numpy(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    """`accuracy = np.mean(...)`, `passed=accuracy >= 0.8` (numpy's bool) and numpy metrics
    were refused: "ScoreResult.passed must be True, False or None, got np.True_"."""
    pytest.importorskip("numpy")
    make_project(
        "cited",
        """
        models: [sim_perfect]
        scorers: {default: cited}
        metrics:
          weights: {accuracy: 0.5, citation_rate: 0.5}
          lower_is_better: [hallucinated_refs]
        tests:
          - {id: capital, input: "Capital of France?", reference: "Paris [doc1]"}
        """,
        files={
            "scorers/cited.py": """
            import numpy as np

            from pytest_arena.scorers import Scorer, ScoreResult


            class CitedScorer(Scorer):
                name = "cited"

                def score(self, output, reference, context):
                    checks = np.array([output == reference, "[doc1]" in output, True, True])
                    accuracy = np.mean(checks)
                    return ScoreResult(
                        score=accuracy,
                        passed=accuracy >= 0.8,
                        reason=f"{checks.sum()} of {checks.size} checks",
                        metrics={
                            "citation_rate": np.float32(0.5),
                            "hallucinated_refs": np.int64(0),
                        },
                    )
            """
        },
    )
    result = pytester.runpytest()
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(
        [
            "*rank*model*composite*accuracy*citation_rate*hallucinated_refs*",
            "*1*sim_perfect*0.750*1.000*0.500*0.000*",
        ]
    )


def test_numpy_numbers_become_floats_and_bools() -> None:
    np = pytest.importorskip("numpy")
    result = ScoreResult(
        score=np.float32(0.5),
        passed=np.True_,
        metrics={"a": np.float32(0.25), "b": np.int64(3), "c": np.float64(2.5)},
    )
    assert result == ScoreResult(0.5, True, metrics={"a": 0.25, "b": 3.0, "c": 2.5})
    assert type(result.score) is float and type(result.passed) is bool
    assert all(type(v) is float for v in result.metrics.values())
    assert ScoreResult(np.int64(1)).passed is True
    assert ScoreResult(np.mean([0.0, 1.0]), np.False_).passed is False


def test_any_real_number_is_a_score_without_numpy() -> None:
    class Bool_:  # numpy's np.bool_, as arena knows it: by its name
        def __init__(self, value: bool) -> None:
            self.value = value

        def __bool__(self) -> bool:
            return self.value

    Bool_.__name__ = "bool_"
    result = ScoreResult(Fraction(1, 2), Bool_(False), metrics={"d": Decimal("0.25")})  # type: ignore[arg-type]
    assert (result.score, result.passed, result.metrics) == (0.5, False, {"d": 0.25})


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"score": "0.5"}, "ScoreResult.score must be a number from 0 to 1, got '0.5'"),
        ({"score": 1.5}, "ScoreResult.score must be between 0 and 1, got 1.5"),
        ({"score": 1, "passed": 1}, "ScoreResult.passed must be True, False or None, got 1"),
        (
            {"score": 1, "passed": "yes"},
            "ScoreResult.passed must be True, False or None, got 'yes'",
        ),
        ({"score": 1, "metrics": {"m": [1]}}, "metric 'm' must be a finite number, got list [1]"),
        ({"score": 1, "metrics": {"m": 1j}}, "metric 'm' must be a finite number, got complex 1j"),
    ],
)
def test_what_is_no_number_is_still_refused(kwargs: dict[str, Any], message: str) -> None:
    with pytest.raises(ScoreResultError) as caught:
        ScoreResult(**kwargs)
    assert str(caught.value) == message


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda np: {"score": np.True_}, "ScoreResult.score must be a number from 0 to 1, got"),
        (
            lambda np: {"score": np.float32(1.5)},
            "ScoreResult.score must be between 0 and 1, got 1.5",
        ),
        (
            lambda np: {"score": np.float64("nan")},
            "ScoreResult.score must be between 0 and 1, got nan",
        ),
        (
            lambda np: {"score": np.array([0.5])},
            "ScoreResult.score must be a number from 0 to 1, got",
        ),
        (
            lambda np: {"score": 1, "passed": np.int64(1)},
            "ScoreResult.passed must be True, False or None, got",
        ),
        (
            lambda np: {"score": 1, "metrics": {"m": np.float32("inf")}},
            "metric 'm' must be a finite number, got float32",
        ),
        (lambda np: {"score": 1, "metrics": {"m": np.True_}}, "metric 'm' must be a finite number"),
    ],
)
def test_numpy_values_that_are_no_score_are_refused(make: Any, message: str) -> None:
    np = pytest.importorskip("numpy")
    with pytest.raises(ScoreResultError) as caught:
        ScoreResult(**make(np))
    assert str(caught.value).startswith(message)
