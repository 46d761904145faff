"""`models:` on a case or a dataset: the case is collected for those models only (keys, or
tags of model definitions), the leaderboard says the counts differ, and a name that matches
no model is a load error at its line."""

from __future__ import annotations

import json

import pytest

from tests.conftest import XDIST, MakeProject

MIXED = """
models:
  default: [sim_perfect, sim_echo, helper]
  define:
    helper:
      connector: sim
      profile: sim_perfect
      tags: [agents, cheap]
tests:
  - id: everyone
    input: "2+2?"
    reference: "4"
  - id: perfect_only
    input: "Capital of France?"
    reference: Paris
    models: [sim_perfect]
  - id: agents_only
    input: "Capital of Spain?"
    reference: Madrid
    models: agents
datasets:
  - path: data/echo.jsonl
    models: [sim_echo, cheap]
"""
ECHO = '{"id": "r1", "input": "3+3", "reference": "6"}\n{"id": "r2", "input": "1+2", "reference": "3", "models": "sim_echo"}\n'


def collected(result: pytest.RunResult) -> list[str]:
    return sorted(line for line in result.stdout.lines if "::" in line)


def test_a_case_runs_only_on_the_models_it_names(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    make_project("mixed", MIXED, files={"data/echo.jsonl": ECHO})
    listed = collected(pytester.runpytest("--collect-only", "-q"))
    assert listed == [
        "projects/mixed/arena.yaml::agents_only[helper]",
        "projects/mixed/arena.yaml::everyone[helper]",
        "projects/mixed/arena.yaml::everyone[sim_echo]",
        "projects/mixed/arena.yaml::everyone[sim_perfect]",
        "projects/mixed/arena.yaml::perfect_only[sim_perfect]",
        "projects/mixed/data/echo.jsonl::r1[helper]",  # the dataset's tag 'cheap'
        "projects/mixed/data/echo.jsonl::r1[sim_echo]",
        "projects/mixed/data/echo.jsonl::r2[sim_echo]",  # the row's own models: win
    ]
    report = pytester.path / "report.json"
    result = pytester.runpytest(f"--arena-json={report}")
    result.assert_outcomes(passed=5, failed=3)  # nothing skipped: the rest is not collected
    result.stdout.fnmatch_lines(
        [
            "*note: 4 of 5 cases ran on only some models*each row counts the cases its model"
            " answered (helper 3, sim_echo 3, sim_perfect 2)*"
        ]
    )
    board = json.loads(report.read_text())["leaderboards"][0]
    assert {r["model"]: r["cases"] for r in board["rows"]} == {
        "helper": 3,
        "sim_echo": 3,
        "sim_perfect": 2,
    }
    assert board["notes"] and "4 of 5 cases" in board["notes"][0]


def test_the_selection_and_workers_see_the_same_items(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    make_project("mixed", MIXED, files={"data/echo.jsonl": ECHO})
    only = pytester.runpytest("--arena-models", "sim_perfect,sim_echo", "-k", "only", "-v")
    only.assert_outcomes(passed=1)  # agents_only runs on helper alone, not selected here
    only.stdout.fnmatch_lines(["*perfect_only[[]sim_perfect[]] PASSED*"])
    spread = pytester.runpytest(*XDIST, "-n", "2", "-q")
    spread.assert_outcomes(passed=5, failed=3)
    again = pytester.runpytest("--lf", "-q")
    again.assert_outcomes(passed=0, failed=3)
    junit = pytester.path / "junit.xml"
    pytester.runpytest(f"--junitxml={junit}", "-q")
    assert junit.read_text().count("<testcase ") == 8


def test_every_case_on_every_model_has_no_note(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    make_project(
        "plain", "models: [sim_perfect, sim_echo]\ntests:\n  - {id: a, input: x, reference: x}\n"
    )
    result = pytester.runpytest()
    assert "ran on only some models" not in result.stdout.str()


def test_a_name_matching_no_model_is_a_load_error_at_its_line(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    make_project(
        "typo",
        MIXED.replace("models: [sim_perfect]", "models: [sim_perfct]"),
        files={"data/echo.jsonl": ECHO},
    )
    result = pytester.runpytest("-q")
    result.assert_outcomes(passed=4, failed=3, errors=1)  # the others still run
    result.stdout.fnmatch_lines(
        [
            "*projects/typo/arena.yaml:15: models: 'sim_perfct' is neither a model key nor a tag"
            " of a model in models.define*",
            "*fix: did you mean 'sim_perfect'? model keys: *; tags in models.define: agents, cheap*",
        ]
    )


def test_a_dataset_naming_no_model_is_that_datasets_error(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    """The dataset's cases are not run, said at the line of its `models:`; the project's
    other cases run (one datasets entry's mistake stopped them all)."""
    make_project(
        "typo",
        MIXED.replace("models: [sim_echo, cheap]", "models: [sim_echo, chep]"),
        files={"data/echo.jsonl": ECHO},
    )
    result = pytester.runpytest("-q", "-p", "no:cacheprovider")
    result.stdout.fnmatch_lines(
        [
            "*projects/typo/arena.yaml:22: datasets[[]0[]].models: 'chep' is neither a model key*",
            "*fix: did you mean 'cheap'?*",
        ]
    )
    result.assert_outcomes(passed=4, failed=1, errors=1)  # the inline cases, and the dataset
    assert "r1" not in result.stdout.str() and "r2" not in result.stdout.str()
