"""Mistakes in how a project sets up its judge: said once, where they are written."""

from __future__ import annotations

from pathlib import Path

import pytest

from pytest_arena.evaluation.project import load
from pytest_arena.spec import SpecError
from tests.conftest import MakeProject

BAD_JUDGE = """
models:
  default: [sim_perfect]
  define:
    fj: {connector: openai, base_url: "http://127.0.0.1:9/v1", model: fake, retries: 0}
judge: {model: fj}
scorers: {default: llm_judge}
tests:
  - {id: a, input: "q", reference: "q"}
  - {id: b, input: "q", reference: "q"}
"""


def test_a_mistake_in_the_judge_model_is_one_config_error_not_one_per_case(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    """It was an error at the setup of every case, counted against sim_perfect (errors 2,
    accuracy 0), where a bad `price:` is one config error."""
    make_project("judged", BAD_JUDGE)
    result = pytester.runpytest("-rA")
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(
        [
            "*ERROR at setup of judged::config*",
            "projects/judged/arena.yaml:4: models.define.fj.retries: unknown key 'retries'"
            " (model 'fj' is the judge: judge.model at line 5)",
            "  fix: did you mean 'max_retries'?*",
        ]
    )
    result.stdout.no_fnmatch_line("*sim_perfect*")


def test_a_bad_judge_that_is_also_under_test_is_said_once(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    make_project("judged", BAD_JUDGE.replace("[sim_perfect]", "[sim_perfect, fj]"))
    result = pytester.runpytest()
    result.assert_outcomes(errors=1)
    assert result.stdout.str().count("unknown key 'retries'") == 1
    result.stdout.fnmatch_lines(["*ERROR at setup of judged::config*"])


@pytest.mark.parametrize(
    ("judge", "options", "named"),
    [
        (
            "",
            "\n  options:\n    llm_judge: {model: fj}",
            "scorers.options.llm_judge.model at line 8",
        ),
        (
            "scoring: [{scorer: llm_judge, params: {model: fj}}]\n",
            "",
            "scoring[0].params.model at line 5",
        ),
        ("judge: {model: sim_judge}\n", "", ""),  # fj is no judge: not checked here
        # fj is the judge, but no case grades with it: the project loads
        ("judge: {model: fj}\n", "\n  options:\n    llm_judge: {model: sim_judge}", ""),
    ],
)
def test_loading_checks_the_models_named_as_judge(
    tmp_path: Path, judge: str, options: str, named: str
) -> None:
    # beside the project's scoring, scorers.default would never be used: an error of its own
    default = "" if judge.startswith("scoring") else "\n  default: llm_judge"
    scorers = "scorers:" + default + options if default or options else "scorers: {}"
    text = BAD_JUDGE.replace("judge: {model: fj}\n", judge).replace(
        "scorers: {default: llm_judge}", scorers
    )
    (tmp_path / "arena.yaml").write_text(text.lstrip("\n"))
    if not named:
        load(tmp_path / "arena.yaml")
        return
    with pytest.raises(SpecError) as caught:
        load(tmp_path / "arena.yaml")
    assert caught.value.problems[0].line == 4
    assert caught.value.problems[0].message.endswith(f"(model 'fj' is the judge: {named})")


GRADED = """
from pytest_arena.scorers import Scorer, ScoreResult


class Graded(Scorer):
    name = "graded"

    def score(self, output, reference, context):
        verdict = context.judge("Is it the reference?", output)
        return ScoreResult(verdict.score, verdict.passed, verdict.reason)
"""


def test_a_bad_judge_stops_no_project_that_does_not_grade_with_it(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    """A judge model defined wrongly was a config error of a project that never asks it:
    none of its cases ran."""
    make_project("plain", BAD_JUDGE.replace("scorers: {default: llm_judge}\n", ""))
    result = pytester.runpytest()
    result.assert_outcomes(passed=2)
    result.stdout.no_fnmatch_line("*retries*")


def test_a_bad_judge_is_said_at_the_cases_whose_scorer_asks_it(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    """A scorer of the project's own grading with context.judge meets the bad judge in
    the cases it grades, said at the judge's lines; the other cases run."""
    make_project(
        "judged",
        BAD_JUDGE.replace("scorers: {default: llm_judge}\n", "").replace(
            '{id: b, input: "q", reference: "q"}',
            '{id: b, input: "q", reference: "q", eval_type: graded}',
        ),
        files={"scorers/graded.py": GRADED},
    )
    result = pytester.runpytest("-rA")
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(
        [
            "scorer 'graded' raised JudgeError: projects/judged/arena.yaml:4:"
            " models.define.fj.retries: unknown key 'retries'"
            " (model 'fj' is the judge: judge.model at line 5)",
            "  fix: did you mean 'max_retries'?*",
        ]
    )
    result.stdout.fnmatch_lines(["PASSED projects/judged/arena.yaml::a[[]sim_perfect]"])


def test_an_unknown_judge_model_is_said_where_a_scorer_asks_it(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    """An unknown `judge.model` stops no case that does not grade with the judge."""
    make_project(
        "judged",
        """
        models: [sim_perfect]
        judge: {model: gpt-judge}
        tests:
          - {id: a, input: "q", reference: "q"}
          - {id: b, input: "q", reference: "q", eval_type: graded}
        """,
        files={"scorers/graded.py": GRADED},
    )
    result = pytester.runpytest("-rA")
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(
        [
            "scorer 'graded' raised JudgeError: projects/judged/arena.yaml:2: judge.model:"
            " model 'gpt-judge' is neither defined in models.define nor a builtin*",
            "  fix: define it under 'models: define: gpt-judge:', pick a known model*",
        ]
    )


def test_a_rubric_file_that_is_a_folder_says_so(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    """It said "rubric_file '.' does not exist", of a folder that does."""
    make_project(
        "judged",
        """
        models: [sim_perfect]
        tests:
          - id: capital
            input: "Name the French capital."
            reference: "Paris"
            scoring: [{scorer: llm_judge, params: {rubric_file: rubrics}}]
        """,
        files={"rubrics/capital.md": "Grade the city named.\n"},
    )
    result = pytester.runpytest()
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(
        [
            "projects/judged/arena.yaml:6: rubric_file 'rubrics' is a folder (*rubrics), not a file",
            "  fix: name a file, relative to the folder holding arena.yaml, such as"
            " rubric_file: rubrics/rubric.md",
        ]
    )
