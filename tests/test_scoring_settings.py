"""How a case's scoring settings are applied: its `options` under a contract, its
`threshold` under one scorer, settings that cancel one another, and what each call of a
scorer gets of its own."""

from __future__ import annotations

import json

import pytest

from tests.conftest import MakeProject

SECRET = "your password is hunter2"


def test_a_case_s_options_reach_the_scorers_of_its_contract(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    """A case's `options` were dropped whenever a `scoring:` contract graded it: a case with
    `negate: true` that must fail passed, and `ignore_case: true` was asked for by the very
    reason of a case that set it."""
    make_project(
        "p",
        f"""
        models: [sim_echo]
        tests:
          - id: own_contract
            input: "{SECRET}"
            reference: password
            scoring: [{{scorer: contains}}]
            options: {{negate: true}}
          - id: ignore_case
            input: PARIS
            reference: paris
            scoring: [{{scorer: exact_match}}]
            options: {{ignore_case: true}}
        """,
    )
    result = pytester.runpytest("-rA", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(["FAILED projects/p/arena.yaml::own_contract[[]sim_echo]*"])
    result.stdout.fnmatch_lines(["PASSED projects/p/arena.yaml::ignore_case[[]sim_echo]"])


def test_a_dataset_row_s_options_reach_the_project_s_contract(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    make_project(
        "p",
        """
        models: [sim_echo]
        scoring:
          - {scorer: contains}
        datasets: [data/rows.jsonl]
        """,
        files={
            "data/rows.jsonl": json.dumps(
                {
                    "id": "negated",
                    "input": SECRET,
                    "reference": "password",
                    "options": {"negate": True},
                }
            )
            + "\n"
            + json.dumps({"id": "plain", "input": SECRET, "reference": "password"})
            + "\n",
        },
    )
    result = pytester.runpytest("-rA", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(["FAILED projects/p/data/rows.jsonl::negated[[]sim_echo]*"])


def test_a_case_s_options_win_over_the_params_of_the_project_s_contract(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    """The case is the most particular setting: its options are laid over `scorers.options`
    and over each component's `params`; each component gets those its scorer takes."""
    make_project(
        "p",
        """
        models: [sim_echo]
        scorers:
          options:
            exact_match: {ignore_case: false}
        scoring:
          - {scorer: exact_match, params: {ignore_case: false}}
          - {scorer: edit_similarity, params: {threshold: 1.0}}
        tests:
          - id: loosened
            input: "Paris, France"
            reference: "paris, france"
            options: {ignore_case: true, normalize_whitespace: true}
          - id: as_the_project_says
            input: "Paris, France"
            reference: "paris, france"
        """,
    )
    result = pytester.runpytest("-rA", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(["PASSED projects/p/arena.yaml::loosened[[]sim_echo]"])


def test_an_option_no_scorer_of_the_contract_takes_is_an_error_at_its_line(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    make_project(
        "p",
        """
        models: [sim_echo]
        tests:
          - id: ok
            input: x
            reference: x
          - id: stray
            input: x
            reference: x
            scoring: [{scorer: exact_match}, {scorer: contains}]
            options: {negate: true, ignroe_case: true}
        """,
    )
    result = pytester.runpytest("-p", "no:cacheprovider")
    result.assert_outcomes(passed=1, errors=1)
    result.stdout.fnmatch_lines(
        [
            "projects/p/arena.yaml:10: options: no scorer of the case's contract takes the"
            " option 'ignroe_case' (exact_match takes ignore_case, normalize_whitespace;"
            " contains takes *)",
            "  fix: *",
        ]
    )


def test_an_option_a_contract_scorer_refuses_is_said_at_the_case_s_options(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    make_project(
        "p",
        """
        models: [sim_echo]
        scoring:
          - {scorer: contains}
        tests:
          - id: bad
            input: x
            reference: x
            options: {mode: most}
        """,
    )
    result = pytester.runpytest("-p", "no:cacheprovider")
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(["projects/p/arena.yaml:8: scorer 'contains': option 'mode': *"])


# -- threshold ------------------------------------------------------------------------------


def test_a_case_s_threshold_decides_a_case_graded_by_one_scorer(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    """`threshold: 0.99` on a case graded by `scorers.default` was ignored: the case passed
    at a similarity of 0.917. It is the score the case needs, as for a contract of one."""
    make_project(
        "p",
        """
        models: [sim_echo]
        scorers: {default: edit_similarity}
        datasets:
          - {path: data/rows.yaml, threshold: 0.5}
        tests:
          - id: strict
            input: abcdefghijkl
            reference: abcdefghijkX
            threshold: 0.99
          - id: as_the_scorer_says
            input: abcdefghijkl
            reference: abcdefghijkX
        """,
        files={"data/rows.yaml": "- {id: lenient, input: abcdefXXXX, reference: abcdefghij}\n"},
    )
    result = pytester.runpytest("-rA", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=2, failed=1)
    result.stdout.fnmatch_lines(
        [
            "*_ p::strict[[]sim_echo] _*",
            "score 0.92 is below the case's threshold 0.99; edit_similarity said: edit"
            " similarity 0.92 to 'abcdefghijkX'",
        ]
    )
    result.stdout.fnmatch_lines(["PASSED projects/p/arena.yaml::as_the_scorer_says[[]sim_echo]"])
    # the dataset's threshold is its rows': 0.6 reaches it, below edit_similarity's own 0.8
    result.stdout.fnmatch_lines(["PASSED projects/p/data/rows.yaml::lenient[[]sim_echo]"])


def test_a_project_threshold_without_a_contract_is_an_error_at_its_line(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    make_project(
        "p",
        """
        models: [sim_echo]
        scorers: {default: edit_similarity}
        threshold: 0.9
        tests:
          - {id: a, input: x, reference: x}
        """,
    )
    result = pytester.runpytest("-p", "no:cacheprovider")
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(
        [
            "projects/p/arena.yaml:3: threshold: the project's threshold is the pass mark of"
            " cases graded by a scoring contract, and no case is, so it would never be used",
            "  fix: *",
        ]
    )


# -- settings that cancel one another -------------------------------------------------------


def test_scorers_default_beside_the_project_s_scoring_is_an_error_at_its_line(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    make_project(
        "p",
        """
        models: [sim_echo]
        scoring:
          - {scorer: contains}
        scorers:
          default: exact_match
        tests:
          - {id: a, input: x, reference: x}
        """,
    )
    result = pytester.runpytest("-p", "no:cacheprovider")
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(
        [
            "projects/p/arena.yaml:5: scorers.default: cases that name no scorer are graded"
            " by the project's scoring, so scorers.default would never be used",
            "  fix: *",
        ]
    )


def test_eval_type_beside_a_case_s_own_scoring_is_an_error_at_its_line(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    make_project(
        "p",
        """
        models: [sim_echo]
        datasets:
          - {path: data/rows.jsonl, eval_type: exact_match}
        tests:
          - id: ok
            input: x
            reference: x
          - id: both
            input: x
            reference: x
            eval_type: exact_match
            scoring: [{scorer: contains}]
        """,
        files={
            # a row's own scoring wins over its dataset's eval_type, which grades the others
            "data/rows.jsonl": (
                '{"id": "own", "input": "x", "reference": "x", "scoring": [{"scorer": "contains"}]}\n'
                '{"id": "plain", "input": "x", "reference": "x"}\n'
                '{"id": "row_both", "input": "x", "reference": "x", "eval_type": "regex",'
                ' "scoring": [{"scorer": "contains"}]}\n'
            )
        },
    )
    result = pytester.runpytest("-p", "no:cacheprovider")
    result.assert_outcomes(passed=3, errors=2)
    result.stdout.fnmatch_lines(
        [
            "projects/p/arena.yaml:11: eval_type: the case's own scoring grades it, so its"
            " eval_type would never be used",
            "  fix: *",
        ]
    )
    result.stdout.fnmatch_lines(
        ["projects/p/data/rows.jsonl:3: eval_type: the case's own scoring grades it, *"]
    )


def test_a_dataset_s_eval_type_beside_its_scoring_is_an_error_of_the_dataset(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    make_project(
        "p",
        """
        models: [sim_echo]
        datasets:
          - path: data/rows.jsonl
            eval_type: exact_match
            scoring: [{scorer: contains}]
        tests:
          - {id: ok, input: x, reference: x}
        """,
        files={"data/rows.jsonl": '{"id": "row", "input": "x", "reference": "x"}\n'},
    )
    result = pytester.runpytest("-p", "no:cacheprovider")
    result.assert_outcomes(passed=1, errors=1)
    result.stdout.fnmatch_lines(
        [
            "projects/p/arena.yaml:4: datasets[[]0].eval_type: rows that name no scorer are"
            " graded by the dataset's scoring, so its eval_type would never be used",
            "  fix: *",
        ]
    )


# -- what each call of a scorer gets of its own ---------------------------------------------

GREEDY = """
from pytest_arena.scorers import Scorer, ScoreResult


class Greedy(Scorer):
    name = "greedy"

    def score(self, output, reference, context):
        floor = context.options.pop("floor", 0.5)
        seen = context.options.setdefault("seen", [])
        seen.append(output)
        picked = reference.pop("answer") if isinstance(reference, dict) else reference
        ok = floor == 0.8 and len(seen) == 1 and context.options["values"] == ["a"]
        context.options["values"].append("b")
        return ScoreResult(1.0 if ok else 0.0, ok, f"floor {floor}, {len(seen)} seen, {picked}")
"""


@pytest.mark.parametrize("grading", ["default: greedy", "scoring: [{scorer: greedy}]"])
def test_each_call_of_a_scorer_gets_its_own_options_and_reference(
    pytester: pytest.Pytester, make_project: MakeProject, grading: str
) -> None:
    """`context.options` was one dict for every case and model: a scorer that popped
    `floor` saw 0.8 once and 0.5 after; and one that popped from a mapping reference
    emptied the reference the JSON report shows."""
    default, scoring = (grading, "") if grading.startswith("default") else ("", grading)
    make_project(
        "p",
        f"""
        models: [sim_echo, sim_perfect]
        {scoring}
        scorers:
          {default}
          options:
            greedy: {{floor: 0.8, values: [a]}}
        tests:
          - {{id: a, input: x, reference: {{answer: x}}}}
          - {{id: b, input: y, reference: {{answer: y}}}}
          - {{id: c, input: z, reference: z}}
        """,
        files={"scorers/greedy.py": GREEDY},
    )
    result = pytester.runpytest("-rA", "-p", "no:cacheprovider", "--arena-json=r.json")
    result.assert_outcomes(passed=6)
    records = json.loads((pytester.path / "r.json").read_text())["records"]
    references = {(r["case"], r["model"]): r["reference"] for r in records}
    assert references[("a", "sim_echo")] == {"answer": "x"}
    assert references[("b", "sim_perfect")] == {"answer": "y"}
    assert references[("c", "sim_echo")] == "z"
