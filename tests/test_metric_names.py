"""The names of custom metrics: `metrics.lower_is_better` must name one a record has, never a
share, and a scorer's metric may not take the name of a column of the board."""

from __future__ import annotations

import re

import pytest

from pytest_arena.reports.gates import GATE_VALUES
from pytest_arena.reports.leaderboard import Board, Row
from pytest_arena.reports.tables import render_board
from pytest_arena.scorers import ScoreResult, ScoreResultError
from tests.conftest import MakeProject

REFS_SCORER = """
from pytest_arena.scorers import Scorer, ScoreResult


class RefsScorer(Scorer):
    name = "refs"

    def score(self, output, reference, context):
        bad = context.test_case.metadata[context.model_key]
        return ScoreResult(1.0, True, f"{bad} made-up references", metrics={"hallucinated_refs": bad})
"""

REFS_PROJECT = """
models:
  default: [careful, sloppy]
  define:
    careful: {profile: sim_perfect}
    sloppy: {profile: sim_perfect}
scorers:
  default: refs
metrics:
  weights: {accuracy: 0.5, hallucinated_refs: 0.5}
  lower_is_better: [hallucinated_refs]
tests:
  - id: capital
    input: "Capital of France? Cite your sources."
    reference: "Paris [doc1]"
    metadata: {careful: 0, sloppy: 3}
"""


def test_lower_is_better_ranks_the_model_with_fewer_made_up_references_first(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    make_project("refs", REFS_PROJECT, files={"scorers/refs.py": REFS_SCORER})
    result = pytester.runpytest()
    result.stdout.fnmatch_lines(
        ["*rank*model*composite*", "---*", "*careful*1.000*", "*sloppy*0.500*"]
    )
    assert result.ret == pytest.ExitCode.OK


def test_a_misspelt_lower_is_better_fails_the_run_with_did_you_mean(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    """`lower_is_better: [halucinated_refs]` left hallucinated_refs higher-is-better: the model
    that made up three references ranked first, and the run passed."""
    make_project(
        "refs",
        REFS_PROJECT.replace(
            "lower_is_better: [hallucinated_refs]", "lower_is_better: [halucinated_refs]"
        ),
        files={"scorers/refs.py": REFS_SCORER},
    )
    result = pytester.runpytest()
    said = (
        "metrics.lower_is_better names 'halucinated_refs', which no record has (did you mean"
        " 'hallucinated_refs'?); it turns no metric lower-is-better, and the run fails"
    )
    result.stdout.fnmatch_lines(
        [
            f"warning: projects/refs/arena.yaml:*: {said}",
            "arena: the run fails: a leaderboard's settings name what no record has",
            f"  projects/refs/arena.yaml:*: {said}",
            "*2 passed*",
        ]
    )
    assert result.ret == pytest.ExitCode.TESTS_FAILED


@pytest.mark.parametrize("share", ["accuracy", "pass_rate"])
def test_a_share_in_lower_is_better_is_an_error_at_its_line(
    pytester: pytest.Pytester, make_project: MakeProject, share: str
) -> None:
    """`lower_is_better: [accuracy]` ranked the least accurate model first, under a formula
    that still read `composite = 1.00·accuracy`."""
    make_project(
        "inverted",
        f"""
        models: [sim_perfect]
        metrics:
          lower_is_better: [{share}]
        tests:
          - {{id: a, input: x, reference: x}}
        """,
    )
    result = pytester.runpytest()
    result.stdout.fnmatch_lines(
        [
            f"*projects/inverted/arena.yaml:3: metrics.lower_is_better: '{share}' is"
            " higher-is-better by definition (a share of what was right): take it out of"
            " lower_is_better, which is for custom metrics such as hallucinated_refs (cost,"
            " latency and tokens already are)*"
        ]
    )
    assert result.ret != pytest.ExitCode.OK


def test_cost_latency_and_tokens_may_be_listed_as_they_already_are_lower_is_better(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    make_project(
        "listed",
        """
        models: [sim_perfect]
        metrics:
          weights: {accuracy: 0.5, cost: 0.5}
          lower_is_better: [cost, latency, tokens]
        tests:
          - {id: a, input: x, reference: x}
        """,
    )
    result = pytester.runpytest()
    result.assert_outcomes(passed=1)
    assert "metrics.lower_is_better" not in result.stdout.str()
    assert result.ret == pytest.ExitCode.OK


def test_a_metric_named_like_a_column_of_the_board_fails_its_case(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    """`metrics={"errors": ...}` stood beside the board's errors column, made the formula
    `1.00·accuracy + 1.00·errors` ambiguous, and a gate on errors read the board's count."""
    make_project(
        "clash",
        """
        models: [sim_perfect]
        scorers: {default: lint}
        metrics:
          weights: {accuracy: 1, errors: 1}
        tests:
          - {id: a, input: x, reference: x}
        """,
        files={
            "scorers/lint.py": """
            from pytest_arena.scorers import Scorer, ScoreResult


            class LintScorer(Scorer):
                name = "lint"

                def score(self, output, reference, context):
                    return ScoreResult(1.0, True, "no lint", metrics={"errors": 0})
            """
        },
    )
    result = pytester.runpytest()
    result.stdout.fnmatch_lines(
        [
            "*scorer 'lint' raised ScoreResultError: metric 'errors' is named like a leaderboard"
            " column of arena's own; give it another name (taken: *errors*)"
        ]
    )
    assert result.ret != pytest.ExitCode.OK


def test_every_column_of_the_board_and_value_a_gate_reads_is_a_taken_metric_name() -> None:
    row = Row(model="m", cases=1, unscored=1, flaky=1, judge_cost=None, rank=1)
    board = Board("p", [row], {"accuracy": 1.0}, metric_names=[], k=3)  # every column shown
    heads = re.split(r"\s{2,}", render_board(board).splitlines()[0].strip())
    assert {"pass rate", "unscored", "flaky", "pass@3", "pass^3", "judge cost"} <= set(heads)
    for name in [*heads, *GATE_VALUES]:
        with pytest.raises(ScoreResultError, match="named like a leaderboard column"):
            ScoreResult(1.0, True, metrics={name: 1.0})
