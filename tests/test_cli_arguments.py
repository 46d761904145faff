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
