"""What a Python scorer returns or raises, on its way into the record and every report."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pytest_arena.record import json_safe
from pytest_arena.scorers import ScoreResult, ScoreResultError
from tests.conftest import MakeProject

KEY = "sk-test-SECRET123456789"

LEAKY_SCORERS = """
import os

from pytest_arena.scorers import Scorer, ScoreResult


class Said(Scorer):
    name = "said"

    def score(self, output, reference, context):
        key = os.environ["OPENAI_API_KEY"]
        return ScoreResult(
            0.0,
            False,
            "called API with " + key,
            detail={"hdr": "Bearer " + key},
            metrics={"calls_" + key: 1.0},
        )


class Raised(Scorer):
    name = "raised"

    def score(self, output, reference, context):
        raise RuntimeError(f"401 from judge, key={os.environ['OPENAI_API_KEY']}")
"""

LEAKY_HOOKS = """
import os

from pytest_arena.scorers import ScoreResult


def override_verdict(result, output, case, context):
    if case.id == "overridden":
        return ScoreResult(1.0, True, "waived by " + os.environ["OPENAI_API_KEY"])
    return None
"""


def test_keys_a_python_scorer_or_hook_says_or_raises_are_written_as_stars_in_every_report(
    pytester: pytest.Pytester, make_project: MakeProject, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A script scorer's and a python agent's words were said with the environment's keys as
    ***; a Python scorer's reason, detail, metric names and exception, and a hook's verdict,
    reached the terminal, JSON, HTML and JUnit whole."""
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    make_project(
        "leaky",
        """
        models: [sim_echo]
        tests:
          - {id: said, input: x, reference: x, eval_type: said}
          - {id: raised, input: x, reference: x, eval_type: raised}
          - {id: overridden, input: x, reference: y}
        """,
        files={"scorers/leaky.py": LEAKY_SCORERS, "hooks.py": LEAKY_HOOKS},
    )
    result = pytester.runpytest(
        "-rA", "--arena-json", "r.json", "--arena-html", "r.html", "--junitxml", "j.xml"
    )
    result.assert_outcomes(passed=1, failed=2)
    for said in (
        result.stdout.str(),
        *(Path(f).read_text() for f in ("r.json", "r.html", "j.xml")),
    ):
        assert KEY not in said
    result.stdout.fnmatch_lines(
        [
            "*_ leaky::said[[]sim_echo] _*",
            "called API with ***",
            "*_ leaky::raised[[]sim_echo] _*",
            "scorer 'raised' raised RuntimeError: 401 from judge, key=***",
            "RuntimeError: 401 from judge, key=***",
            "leaky::overridden[[]sim_echo]: failed -> passed: waived by ***",
            "*rank*calls_****",
        ]
    )
    records = {r["case"]: r for r in json.loads(Path("r.json").read_text())["records"]}
    assert records["said"]["detail"]["hdr"] == "Bearer ***"
    assert records["said"]["metrics"] == {"calls_***": 1.0}
    assert records["overridden"]["reason"].startswith(
        "verdict overridden by hooks.py override_verdict: waived by ***"
    )


def test_a_detail_json_cannot_write_is_said_and_the_run_goes_on(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    """An object whose repr raises, or an int past Python's 4,300 digits, in a scorer's
    detail ended the run with INTERNALERROR: no leaderboard, the later cases lost."""
    make_project(
        "odd",
        """
        models: [sim_echo]
        tests:
          - {id: unprintable, input: x, reference: x, eval_type: unprintable}
          - {id: huge, input: x, reference: x, eval_type: huge}
          - {id: later, input: x, reference: x}
        """,
        files={
            "scorers/odd.py": """
            import math

            from pytest_arena.scorers import Scorer, ScoreResult


            class Unprintable:
                def __repr__(self):
                    raise RuntimeError("no repr")


            class UnprintableScorer(Scorer):
                name = "unprintable"

                def score(self, output, reference, context):
                    return ScoreResult(1.0, True, "ok", detail={"obj": Unprintable()})


            class HugeScorer(Scorer):
                name = "huge"

                def score(self, output, reference, context):
                    return ScoreResult(1.0, True, "ok", detail={"n": -math.factorial(2000)})
            """
        },
    )
    result = pytester.runpytest("--arena-json", "r.json", "--arena-html", "r.html")
    result.assert_outcomes(passed=3)
    result.stdout.fnmatch_lines(["*= arena leaderboard: odd =*"])
    records = {r["case"]: r for r in json.loads(Path("r.json").read_text())["records"]}
    assert records["unprintable"]["detail"]["obj"] == (
        "<Unprintable object: its repr() raised RuntimeError>"
    )
    assert (
        records["huge"]["detail"]["n"] == "[an integer of 5,736 digits: -33162750924506332411...]"
    )
    assert records["later"]["status"] == "passed"


@pytest.mark.parametrize(
    ("value", "safe"),
    [
        (10**5000, "[an integer of 5,001 digits: 10000000000000000000...]"),
        (10**4299, 10**4299),  # 4,300 digits: Python writes them
        ({10**5000: 1}, {"[an integer of 5,001 digits: 10000000000000000000...]": 1}),
        ([2**20000 - 1], ["[an integer of 6,021 digits: 39802768403379665923...]"]),
    ],
    ids=["too_long", "longest_written", "key", "in_a_list"],
)
def test_json_safe_turns_an_integer_too_long_to_write_into_text(
    value: object, safe: object
) -> None:
    assert json_safe(value) == safe
    json.dumps(json_safe(value))


def test_a_perfect_score_a_rounding_error_over_1_passes(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    """(0.1 + 0.2) / 0.3 is 1.0000000000000002: a rubric giving every point was an error
    of its scorer, 'ScoreResult.score must be between 0 and 1'."""
    make_project(
        "rounding",
        """
        models: [sim_perfect]
        scorers:
          default: rubric
        tests:
          - {id: every_point, input: x, reference: x}
        """,
        files={
            "scorers/rubric.py": """
            from pytest_arena.scorers import Scorer, ScoreResult


            class Rubric(Scorer):
                def score(self, output, reference, context):
                    got, total = 0.1 + 0.2, 0.3
                    return ScoreResult(got / total, reason=f"{got:.1f} of {total:.1f} points")
            """
        },
    )
    result = pytester.runpytest("--arena-json", "r.json")
    result.assert_outcomes(passed=1)
    assert json.loads(Path("r.json").read_text())["records"][0]["score"] == 1.0


@pytest.mark.parametrize(
    ("given", "score"), [(1.0000000000000002, 1.0), (-1e-17, 0.0), (0.5, 0.5), (1, 1.0)]
)
def test_a_score_a_rounding_error_outside_0_1_is_held_to_it(given: float, score: float) -> None:
    result = ScoreResult(given)
    assert result.score == score
    assert result.passed is (score == 1.0)


@pytest.mark.parametrize("given", [1.000001, -0.000001, float("nan"), float("inf"), 10**400])
def test_a_score_clearly_outside_0_1_is_still_refused(given: float) -> None:
    with pytest.raises(ScoreResultError, match=r"ScoreResult\.score must be between 0 and 1"):
        ScoreResult(given)
