"""What `arena` runs and how it says a usage error: its arguments, read as a user gives them."""

from __future__ import annotations

import pytest

from tests.conftest import ARENA, MakeProject

PROJECT = """
models: [sim_perfect]
tests:
  - {id: a, input: "say x", reference: x}
  - {id: b, input: "say y", reference: y}
"""

HOOK_TESTS = {
    "tests/test_hooks.py": """
    def test_one():
        pass

    def test_two():
        pass
    """
}


def test_evaluate_given_a_test_file_or_a_tests_folder_runs_that_alone(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    """`arena evaluate projects/quiz/tests/test_hooks.py` ran the whole suite: the default
    projects/ folder was added beside a path that was not a project."""
    make_project("mine", PROJECT, HOOK_TESTS)
    make_project("other", PROJECT)
    file = pytester.run(*ARENA, "evaluate", "projects/mine/tests/test_hooks.py", "-q")
    assert file.ret == 0, file.stdout.str()
    file.stdout.fnmatch_lines(["2 passed*"])
    folder = pytester.run(*ARENA, "evaluate", "projects/mine/tests", "-q")
    folder.stdout.fnmatch_lines(["2 passed*"])
    node = pytester.run(*ARENA, "evaluate", "projects/mine/tests/test_hooks.py::test_one", "-q")
    node.stdout.fnmatch_lines(["1 passed*"])
    # an existing file given as an option's value is not what to run: projects/ still runs
    (pytester.path / "run.json").write_text("{}")
    every = pytester.run(*ARENA, "evaluate", "--arena-json", "run.json", "-q", "--co")
    every.stdout.fnmatch_lines(["*6 tests collected*"])


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (
            ["init", "a", "b"],
            ["usage: arena init *", "arena init: error: unrecognized arguments: b"],
        ),
        (["init", ""], ["usage: arena init *", "arena init: error: NAME is empty: give *"]),
        (["init", "projects/café"], ["arena init: 'café' cannot name a project: use ASCII *"]),
        (
            ["init", "projects/_x"],
            ["arena init: '_x' cannot name a project: *starting with a letter*"],
        ),
        (["init", "taken"], ["arena init: taken exists and is not an empty folder*"]),
        (["models", "--project", "nothere"], ["arena models: no project at nothere*"]),
        (
            ["models", "--project", "broken"],
            ["arena models: broken/arena.yaml:2: YAML syntax error*"],
        ),
        (["cache", "stats", "--path", "run.json"], ["arena cache: *run.json cannot be read*"]),
        (["cache", "stats", "x"], ["usage: arena cache stats *", "*unrecognized arguments: x"]),
        (["compare", "a.json"], ["usage: arena compare *", "*required: B.json"]),
    ],
    ids=[
        "init-two-names",
        "init-empty",
        "init-not-ascii",
        "init-underscore",
        "init-taken",
        "models-nowhere",
        "models-broken-yaml",
        "cache-not-a-cache",
        "cache-extra",
        "compare-one-report",
    ],
)
def test_a_usage_error_exits_4_with_its_commands_usage(
    pytester: pytest.Pytester, args: list[str], said: list[str]
) -> None:
    """They exited 1, the status of failed tests, where `arena report` and `compare` exit
    4 (pytest's usage error); `arena init a b` showed the usage of `arena`, not of init;
    `arena init projects/café` was refused as not starting with a letter and `_x` taken."""
    (pytester.path / "taken").mkdir()
    (pytester.path / "taken" / "notes.txt").write_text("mine")
    (pytester.path / "broken").mkdir()
    (pytester.path / "broken" / "arena.yaml").write_text("tests: [\n")
    (pytester.path / "run.json").write_text('{"records": []}\n')
    result = pytester.run(*ARENA, *args)
    assert result.ret == 4, result.stderr.str()
    result.stderr.fnmatch_lines(said)
    assert "Traceback" not in result.stderr.str()
    assert not (pytester.path / "projects").exists()


@pytest.mark.parametrize(
    "theirs", [["--arena-models", "sim_echo"], ["--arena-models=sim_echo"]], ids=["apart", "="]
)
def test_evaluate_refuses_models_given_both_as_its_own_and_as_pytests_option(
    pytester: pytest.Pytester, make_project: MakeProject, theirs: list[str]
) -> None:
    """`arena evaluate --models sim_perfect --arena-models sim_echo` ran sim_echo alone,
    saying nothing of the --models it was given."""
    make_project("mine", PROJECT)
    both = pytester.run(*ARENA, "evaluate", "--models", "sim_perfect", *theirs)
    assert both.ret == 4
    both.stderr.fnmatch_lines(
        [
            "usage: arena evaluate *",
            "arena evaluate: error: --models sim_perfect and --arena-models sim_echo both choose"
            " the models to run: give one of them (--models KEYS is passed to pytest as"
            " --arena-models KEYS)",
        ]
    )
    assert both.stdout.str() == ""  # nothing ran
    alone = pytester.run(*ARENA, "evaluate", *theirs, "-q", "--co")  # pytest's own, alone
    alone.stdout.fnmatch_lines(["projects/mine/arena.yaml::a[[]sim_echo]", "*2 tests collected*"])


@pytest.mark.parametrize("models", [["--models", ""], ["--models="]], ids=["apart", "="])
def test_evaluate_given_empty_models_is_a_usage_error_not_every_default_model(
    pytester: pytest.Pytester, make_project: MakeProject, models: list[str]
) -> None:
    """`arena evaluate --models "$MODELS"` with MODELS unset ran every project's default
    models (paid ones too), saying nothing, where pytest's --arena-models '' is refused."""
    make_project("mine", PROJECT)
    result = pytester.run(*ARENA, "evaluate", *models, "-q")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["ERROR: --arena-models '' names no model: *"])
    assert "passed" not in result.stdout.str()  # nothing ran


def test_evaluate_that_finds_no_project_says_so_in_its_own_terms(pytester: pytest.Pytester) -> None:
    """`arena evaluate` where there is no project said "give the projects' folder (`pytest
    projects`)" of an --arena-models the user never typed (--models), or nothing at all."""
    said = (
        "arena: no arena.yaml was collected, so there was nothing to evaluate: give a project,"
        " `arena evaluate --project PATH` (its folder or its arena.yaml), or write one with"
        " `arena init projects/NAME`"
    )
    for options in (["--models", "sim_echo"], []):
        result = pytester.run(*ARENA, "evaluate", *options)
        assert result.ret == pytest.ExitCode.NO_TESTS_COLLECTED
        result.stdout.fnmatch_lines([said])
        assert "pytest projects" not in result.stdout.str()
    pytester.makeini("[pytest]\ntestpaths = tests\n")
    (pytester.path / "tests").mkdir()
    (pytester.path / "tests" / "test_app.py").write_text("def test_app():\n    pass\n")
    elsewhere = pytester.run(*ARENA, "evaluate", "--models", "sim_echo")
    elsewhere.stdout.fnmatch_lines(
        [
            "arena: no arena.yaml was collected, so there was nothing to evaluate: pytest"
            " collected from testpaths (tests); give the projects' folder, `arena evaluate"
            " --project PATH`, or add it to testpaths"
        ]
    )
    # pytest's users keep pytest's terms
    plain = pytester.runpytest("-p", "no:cacheprovider", "--arena-models", "sim_echo", "tests")
    plain.stdout.fnmatch_lines(
        [
            "arena: no arena.yaml was collected, so --arena-models had nothing to act on: give"
            " the projects' folder (`pytest projects`)"
        ]
    )


def test_evaluate_given_an_option_with_its_value_after_an_equals_sign_runs_what_follows(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    """`arena evaluate --arena-json=run.json projects/mine` ran every project: the folder
    was taken for --arena-json's value, and projects/ was added beside it."""
    make_project("mine", PROJECT)
    make_project("other", PROJECT)
    result = pytester.run(*ARENA, "evaluate", "--arena-json=run.json", "projects/mine", "--co")
    result.stdout.fnmatch_lines(["*2 tests collected*"])
    assert "other" not in result.stdout.str()


@pytest.mark.parametrize("limit", ["-1", "0", "x"])
def test_compare_refuses_a_limit_below_one_as_it_refuses_one_not_a_number(
    pytester: pytest.Pytester, make_project: MakeProject, limit: str
) -> None:
    """`arena compare --limit -1` (or 0) was taken, and said "... and 1 more (--limit N
    ...)" of each changed case it showed; `--limit x` was a usage error."""
    make_project("mine", PROJECT)
    pytester.runpytest_subprocess("projects", "--arena-json", "a.json", "-q")
    result = pytester.run(*ARENA, "compare", "a.json", "a.json", f"--limit={limit}")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    said = "invalid int value: 'x'" if limit == "x" else f"{limit}: give a whole number, 1 or more"
    result.stderr.fnmatch_lines(
        ["usage: arena compare *", f"arena compare: error: argument --limit: {said}"]
    )
    assert result.stdout.str() == ""  # nothing compared
