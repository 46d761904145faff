"""Cases become items: one per case and model, with stable node ids."""

from __future__ import annotations

import pytest

from tests.conftest import MakeProject

TWO_CASES = """
models: [sim_perfect]
tests:
  - id: capital
    input: "Capital of France?"
    reference: Paris
    tags: [geo]
  - id: sum
    input: "2+2?"
    reference: "4"
    tags: [math]
"""


def test_one_item_per_case_and_model(pytester: pytest.Pytester, make_project: MakeProject) -> None:
    make_project("quiz", TWO_CASES)
    result = pytester.runpytest("--collect-only", "-q", "--arena-models", "sim_small,sim_large")
    result.stdout.fnmatch_lines(
        [
            "projects/quiz/arena.yaml::capital[[]sim_small]",
            "projects/quiz/arena.yaml::capital[[]sim_large]",
            "projects/quiz/arena.yaml::sum[[]sim_small]",
            "projects/quiz/arena.yaml::sum[[]sim_large]",
            "4 tests collected*",
        ]
    )


def test_project_default_models_apply_without_the_option(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    make_project("quiz", TWO_CASES)
    result = pytester.runpytest("-q")
    result.assert_outcomes(passed=2)
    result.stdout.fnmatch_lines(["*arena leaderboard: quiz*", "*sim_perfect*"])


def test_no_models_anywhere_names_both_ways_to_give_them(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    make_project("quiz", TWO_CASES.replace("models: [sim_perfect]", ""))
    result = pytester.runpytest("-q")
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(
        ["*no models to run: pass --arena-models sim_small*set 'models: default: [[]sim_small]'*"]
    )


def test_unknown_model_is_an_error_with_a_suggestion(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    make_project("quiz", TWO_CASES)
    result = pytester.runpytest("-q", "--arena-models", "sim_smal,sim_perfect")
    result.assert_outcomes(passed=2, errors=1)
    result.stdout.fnmatch_lines(
        [
            "projects/quiz/arena.yaml: model 'sim_smal' (from --arena-models) is neither defined*",
            "  fix: did you mean 'sim_small'?*",
        ]
    )


def test_running_one_node_id_runs_exactly_that_item(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    make_project("quiz", TWO_CASES)
    result = pytester.runpytest(
        "-v", "--arena-models", "sim_perfect,sim_echo", "projects/quiz/arena.yaml::sum[sim_echo]"
    )
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["projects/quiz/arena.yaml::sum[[]sim_echo] FAILED*"])
    result.stdout.no_fnmatch_line("*capital*")


@pytest.mark.parametrize(
    ("expression", "expected"),
    [
        ("sim_large", {"quiz/capital[sim_large]", "quiz/sum[sim_large]", "other/city[sim_large]"}),
        ("math", {"quiz/sum[sim_small]", "quiz/sum[sim_large]"}),
        ("quiz and not geo", {"quiz/sum[sim_small]", "quiz/sum[sim_large]"}),
        ("other", {"other/city[sim_small]", "other/city[sim_large]"}),
    ],
)
def test_k_matches_model_tag_and_project(
    pytester: pytest.Pytester, make_project: MakeProject, expression: str, expected: set[str]
) -> None:
    make_project("quiz", TWO_CASES)
    make_project("other", TWO_CASES.replace("capital", "city").split("  - id: sum")[0])
    result = pytester.runpytest(
        "--collect-only", "-q", "-k", expression, "--arena-models", "sim_small,sim_large"
    )
    collected = {
        line.replace("projects/", "").replace("/arena.yaml::", "/")
        for line in result.stdout.lines
        if "::" in line
    }
    assert collected == expected


@pytest.mark.parametrize(
    ("expression", "count"),
    [
        ("arena", 4),
        ("arena(model='sim_large')", 2),
        ("arena(tag='geo')", 2),
        ("arena(project='quiz') and arena(tag='math')", 2),
        # one mark carries all three: a case's tag with its model and project
        ("arena(model='sim_large', tag='geo')", 1),
        ("arena(project='quiz', model='sim_small', tag='math')", 1),
        ("not arena(model='sim_large', tag='geo')", 3),
    ],
)
def test_the_arena_marker_selects_by_project_model_and_tag(
    pytester: pytest.Pytester, make_project: MakeProject, expression: str, count: int
) -> None:
    make_project("quiz", TWO_CASES)
    result = pytester.runpytest(
        "--strict-markers", "-q", "-m", expression, "--arena-models", "sim_small,sim_large"
    )
    outcomes = result.parseoutcomes()
    assert outcomes.get("passed", 0) + outcomes.get("failed", 0) == count


def test_the_marker_is_registered(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest("--markers")
    result.stdout.fnmatch_lines(["@pytest.mark.arena(project, model, tag)*"])


def test_dataset_cases_are_in_the_node_ids_of_their_file(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    make_project(
        "sums",
        """
        models: [sim_perfect]
        datasets:
          - path: data/sums.jsonl
            fields: {id: qid, input: question, reference: answer}
        """,
        files={"data/sums.jsonl": '{"qid": "a1", "question": "1+1", "answer": "2"}\n'},
    )
    result = pytester.runpytest("-v")
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(["projects/sums/data/sums.jsonl::a1[[]sim_perfect] PASSED*"])
    single = pytester.runpytest("-q", "projects/sums/data/sums.jsonl::a1[sim_perfect]")
    single.assert_outcomes(passed=1)
    # the node ids of earlier versions still select the case, through arena.yaml
    old = pytester.runpytest("-q", "projects/sums/arena.yaml::data/sums.jsonl::a1[sim_perfect]")
    old.assert_outcomes(passed=1)


def test_reportinfo_points_at_the_case_line(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    make_project("quiz", TWO_CASES)
    pytester.makeconftest(
        """
        def pytest_collection_modifyitems(items):
            for item in items:
                path, line, name = item.reportinfo()
                print(f"AT {item.name} {path.name}:{line} {item.location[1]} {name}")
        """
    )
    result = pytester.runpytest("--collect-only", "-s", "-q")
    # 0-based, like pytest's own items: the case "- id: capital" is on line 3, "- id: sum" on line 7
    result.stdout.fnmatch_lines(
        [
            "AT capital[[]sim_perfect] arena.yaml:2 2 quiz::capital[[]sim_perfect]",
            "AT sum[[]sim_perfect] arena.yaml:6 6 quiz::sum[[]sim_perfect]",
        ]
    )


def test_no_model_is_called_during_collection(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    root = make_project(
        "quiz",
        TWO_CASES,
        files={
            "hooks.py": """
            from pathlib import Path

            def pre_request(request, case, context):
                with open(Path(__file__).parent / "calls.log", "a") as log:
                    log.write(case.id + "\\n")
            """
        },
    )
    pytester.runpytest("--collect-only", "-q")
    assert not (root / "calls.log").exists()
    pytester.runpytest("-q")
    assert (root / "calls.log").read_text().split() == ["capital", "sum"]


def test_an_arena_yml_is_said_to_be_renamed_not_passed_over(pytester: pytest.Pytester) -> None:
    """Dataset files may be .yml, so a project file is easily named so: it ran nothing,
    and said nothing (exit 5, "no tests ran")."""
    folder = pytester.path / "projects" / "p"
    folder.mkdir(parents=True)
    (folder / "arena.yml").write_text("models: [sim_perfect]\ntests:\n  - {id: a, input: x}\n")
    result = pytester.runpytest("-p", "no:cacheprovider")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(
        [
            "arena.yml: pytest-arena reads a project from arena.yaml, and this file is not read",
            "  fix: rename it to arena.yaml",
        ]
    )


def test_arena_options_that_found_no_project_say_why(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    """A repository's `testpaths = tests` leaves projects/ out: `--arena-models` did nothing,
    the run was green, and nothing said why."""
    make_project("p", "models: [sim_perfect]\ntests:\n  - {id: a, input: x, reference: x}\n")
    pytester.makeini("[pytest]\ntestpaths = tests\n")
    (pytester.path / "tests").mkdir()
    (pytester.path / "tests" / "test_app.py").write_text("def test_app():\n    pass\n")
    result = pytester.runpytest("-p", "no:cacheprovider", "--arena-models", "sim_small")
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(
        [
            "arena: no arena.yaml was collected, so --arena-models had nothing to act on: pytest"
            " collected from testpaths (tests); run `pytest projects`, or add the projects'"
            " folder to testpaths"
        ]
    )
    plain = pytester.runpytest("-p", "no:cacheprovider")  # no arena option: nothing to say
    plain.stdout.no_fnmatch_line("arena:*")
    both = pytester.runpytest("-p", "no:cacheprovider", "--arena-models=sim_small", "projects")
    both.assert_outcomes(passed=1)
    both.stdout.no_fnmatch_line("*no arena.yaml was collected*")
