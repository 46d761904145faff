"""Weighted scoring contracts: several scorers, weights, required components, thresholds."""

from __future__ import annotations

import pytest

from pytest_arena.scorers import ScoreResult
from pytest_arena.scorers.contract import Part, combine
from tests.conftest import MakeProject

SCORERS = {
    "scorers/tone.py": """
    from pytest_arena.scorers import Scorer, ScoreResult


    class ToneScorer(Scorer):
        name = "tone"

        def score(self, output, reference, context):
            polite = "please" in output.lower()
            return ScoreResult(1.0 if polite else 0.0, polite, "found 'please'" if polite else "no politeness marker")
    """,
    "scorers/length.py": """
    from pytest_arena.scorers import Scorer, ScoreResult


    class LengthScorer(Scorer):
        name = "length"

        def score(self, output, reference, context):
            limit = context.options.get("max_words", 10)
            words = len(output.split())
            share = min(1.0, limit / words) if words else 1.0
            return ScoreResult(share, words <= limit, f"{words} words, limit {limit}", metrics={"words": words})
    """,
}

CONTRACT = """
models: [sim_perfect]
scoring:
  - {scorer: tone, weight: 1, required: true}
  - {name: brevity, scorer: length, weight: 3, params: {max_words: 5}}
tests:
  - id: polite_long
    input: "?"
    reference: "Please wait while we check your order and get back to you."
  - id: polite_short
    input: "?"
    reference: "Please hold on."
  - id: curt_short
    input: "?"
    reference: "Hold on."
  - id: with_threshold
    input: "?"
    reference: "Please wait while we check your order and get back to you."
    threshold: 0.3
  - id: curt_with_threshold
    input: "?"
    reference: "Wait."
    threshold: 0.5
"""


def test_a_contract_scores_the_weighted_mean_and_lists_each_component(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    make_project("contract", CONTRACT, files=SCORERS)
    result = pytester.runpytest("-rA")
    result.assert_outcomes(passed=2, failed=3)
    # polite_long: tone 1.0 (w1), brevity 5/12 (w3) -> (1 + 1.25) / 4 = 0.5625
    result.stdout.fnmatch_lines(
        [
            "*_ contract::polite_long[[]sim_perfect] _*",
            "1 of 2 components passed",
            "  tone     1.00 x1  passed required: found 'please'",
            "  brevity  0.42 x3  failed: 12 words, limit 5",
            "  scorer:    tone+brevity (score 0.56)",
        ]
    )
    # a threshold replaces "every component passes", but required ones must still pass
    result.stdout.fnmatch_lines(
        [
            "*_ contract::curt_with_threshold[[]sim_perfect] _*",
            "score 0.75 reaches 0.50; required 'tone' failed",
        ]
    )
    result.stdout.fnmatch_lines(
        ["PASSED projects/contract/arena.yaml::with_threshold[[]sim_perfect]"]
    )


def test_component_metrics_reach_the_leaderboard_under_their_own_names(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    make_project("contract", CONTRACT, files=SCORERS)
    result = pytester.runpytest()
    # words: 12, 3, 2, 12, 1 -> 6.0; accuracy: 0.5625, 1.0, 0.75, 0.5625, 0.75 -> 0.725
    result.stdout.re_match_lines(
        [
            r"\s+1\s+sim_perfect\s+0\.725 ± 0\.224\s+0\.725 ± 0\.224\s+40\.0% ± 32\.6\s+5\s+3\s+0\s"
            r".*\s6\.000 ± 6\.857$"
        ]
    )


def test_a_case_contract_wins_over_eval_type_and_the_project_contract(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    make_project(
        "contract",
        CONTRACT
        + """
  - id: own_scorer
    input: "?"
    reference: "Hold on."
    eval_type: exact_match
  - id: own_contract
    input: "?"
    reference: "Hold on."
    scoring:
      - {scorer: length, params: {max_words: 2}}
""",
        files=SCORERS,
    )
    result = pytester.runpytest("-v")
    result.stdout.fnmatch_lines(
        [
            "*::own_scorer[[]sim_perfect] PASSED*",
            "*::own_contract[[]sim_perfect] PASSED*",
        ]
    )


def test_an_unknown_scorer_in_a_contract_is_an_error_at_its_line(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    make_project(
        "contract",
        """
        models: [sim_perfect]
        tests:
          - id: ok
            input: x
            reference: x
          - id: broken
            input: x
            reference: x
            scoring:
              - {scorer: exact_match}
              - {scorer: tonne}
        """,
        files=SCORERS,
    )
    result = pytester.runpytest()
    result.assert_outcomes(passed=1, errors=1)
    result.stdout.fnmatch_lines(
        [
            "projects/contract/arena.yaml:11: scoring: no scorer is named 'tonne' (did you mean 'tone'?)*"
        ]
    )


def test_a_component_needs_a_scorer_or_a_command(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    make_project(
        "contract",
        """
        models: [sim_perfect]
        scoring:
          - {weight: 2}
        """,
    )
    result = pytester.runpytest()
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(
        [
            "projects/contract/arena.yaml:3: scoring[[]0]: give each component either 'scorer: NAME' or 'command: PROGRAM'"
        ]
    )


def part(
    name: str, score: float, passed: bool | None, weight: float = 1.0, required: bool = False
) -> Part:
    return Part(name, name, weight, required, ScoreResult(score, passed, f"{name} said so"))


@pytest.mark.parametrize(
    ("parts", "threshold", "score", "passed", "first_line"),
    [
        (
            [part("a", 1.0, True), part("b", 0.0, False)],
            None,
            0.5,
            False,
            "1 of 2 components passed",
        ),
        ([part("a", 1.0, True), part("b", 1.0, True)], None, 1.0, True, "2 of 2 components passed"),
        (
            [part("a", 1.0, True, 3), part("b", 0.0, False)],
            0.7,
            0.75,
            True,
            "score 0.75 reaches 0.70",
        ),
        (
            [part("a", 1.0, True, 3), part("b", 0.0, False, required=True)],
            0.7,
            0.75,
            False,
            "score 0.75 reaches 0.70; required 'b' failed",
        ),
        (
            [part("a", 0.5, False), part("b", 0.2, None)],
            None,
            0.5,
            False,
            "0 of 1 components passed",
        ),
        ([part("a", 0.5, None)], None, 0.0, None, "no component was graded"),
        (
            [part("a", 1.0, True, 0), part("b", 0.0, False, 0)],
            0.5,
            0.0,
            None,
            "no score to hold to 0.50; the graded components weigh 0 in total, so the case"
            " cannot pass: unscored",
        ),
        (
            [part("a", 1.0, True, 0), part("b", 0.0, False, 0, required=True)],
            0.5,
            0.0,
            False,
            "no score to hold to 0.50; required 'b' failed; the graded components weigh 0 in"
            " total, so the case cannot pass",
        ),
        (
            [part("a", 1.0, True, 0), part("b", 0.0, False, 0)],
            None,
            0.0,
            False,
            "1 of 2 components passed; the graded components weigh 0 in total, so the case"
            " cannot pass",
        ),
        (
            [part("a", 0.0, None), part("b", 1.0, True, 0)],
            None,
            0.0,
            None,
            "1 of 1 components passed; the graded components weigh 0 in total, so the case"
            " cannot pass: unscored",
        ),
        ([part("a", 0.6, True), part("b", 0.6, True)], 0.6, 0.6, True, "score 0.60 reaches 0.60"),
    ],
)
def test_combine(
    parts: list[Part], threshold: float | None, score: float, passed: bool | None, first_line: str
) -> None:
    result = combine(parts, threshold)
    assert result.score == pytest.approx(score)
    assert result.passed is passed
    assert result.reason.splitlines()[0] == first_line
    assert [c["name"] for c in result.detail["components"]] == [p.name for p in parts]


def test_combine_averages_a_metric_two_components_emit_by_weight() -> None:
    a = Part("a", "a", 1, False, ScoreResult(1.0, True, metrics={"x": 1.0, "only_a": 5}))
    b = Part("b", "b", 3, False, ScoreResult(1.0, True, metrics={"x": 0.0}))
    assert combine([a, b], None).metrics == {"x": 0.25, "only_a": 5.0}


def test_a_component_of_weight_0_moves_no_metric_a_weighted_one_emits() -> None:
    """A weight-0 component counted as weight 1 in the metrics, not in the score: score 0.0
    and `m` 0.5 on the board. Metrics only weight-0 components emit keep their plain mean."""
    a = Part("a", "sa", 0, False, ScoreResult(1.0, True, metrics={"m": 1.0, "words": 7}))
    b = Part("b", "sb", 1, False, ScoreResult(0.0, False, metrics={"m": 0.0}))
    c = Part("c", "sc", 0, False, ScoreResult(1.0, True, metrics={"words": 3}))
    result = combine([a, b, c], None)
    assert result.score == 0.0
    assert result.metrics == {"m": 0.0, "words": 5.0}


def test_a_case_only_components_of_weight_0_graded_is_unscored_not_passed(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    """exact_match cannot grade a case without a reference; the weight-0 word count that
    passed alone once passed the case with score 0.00."""
    make_project(
        "contract",
        """
        models: [sim_echo]
        scoring:
          - {scorer: exact_match, weight: 1}
          - {scorer: length, weight: 0}
        tests:
          - {id: with_ref, input: "What is 2+2?", reference: "What is 2+2?"}
          - {id: no_ref, input: "What is 2+2?"}
        """,
        files=SCORERS,
    )
    result = pytester.runpytest("-rA")
    assert result.parseoutcomes() == {"passed": 1, "unscored": 1}
    result.stdout.fnmatch_lines(
        [
            "PASSED projects/contract/arena.yaml::with_ref[[]sim_echo]",
            "UNSCORED projects/contract/arena.yaml::no_ref[[]sim_echo]",
        ]
    )
    result.stdout.fnmatch_lines(
        [
            "1 x 1 of 1 components passed; the graded components weigh 0 in total, so the case"
            " cannot pass: unscored",
        ]
    )
    result.stdout.no_fnmatch_line("PASSED *no_ref*")


def test_a_dataset_sets_the_contract_and_threshold_of_its_rows(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    make_project(
        "contract",
        """
        models: [sim_perfect]
        datasets:
          - path: data/replies.jsonl
            scoring:
              - {scorer: tone, required: true}
              - {name: brevity, scorer: length, weight: 3, params: {max_words: 5}}
            threshold: 0.5
        tests:
          - {id: inline, input: "?", reference: "Please wait while we check your order today."}
        """,
        files={
            **SCORERS,
            "data/replies.jsonl": (
                '{"id": "long", "input": "?", "reference": "Please wait while we check your order today."}\n'
                '{"id": "curt", "input": "?", "reference": "Wait."}\n'
            ),
        },
    )
    result = pytester.runpytest("-rA")
    # the inline case is graded by exact_match (no contract of its own or the project's)
    result.assert_outcomes(passed=2, failed=1)
    result.stdout.fnmatch_lines(["PASSED projects/contract/arena.yaml::inline[[]sim_perfect]"])
    # long: tone 1.0 (w1), brevity 5/8 (w3): (1 + 1.875) / 4 = 0.72 reaches the threshold 0.5
    result.stdout.fnmatch_lines(
        ["PASSED projects/contract/data/replies.jsonl::long[[]sim_perfect]"]
    )
    result.stdout.fnmatch_lines(
        [
            "*_ contract::curt[[]sim_perfect] _*",
            "score 0.75 reaches 0.50; required 'tone' failed",
            "  tone     0.00 x1  failed required: no politeness marker",
            "  brevity  1.00 x3  passed: 1 words, limit 5",
        ]
    )
