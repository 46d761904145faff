"""Node ids, reruns and locations: what IDEs and pytest's own selection rely on."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest

from tests.conftest import XDIST, MakeProject

QUIZ = """
models: [sim_perfect, sim_echo]
tests:
  - id: capital
    input: "Capital of France?"
    reference: Paris
  - id: sum
    input: "2+2?"
    reference: "4"
datasets:
  - path: data/more.jsonl
"""
MORE = '{"id": "r1", "input": "3+3", "reference": "6"}\n{"id": "r2", "input": "1+2", "reference": "3"}\n'
# sim_echo repeats the prompt, so it fails every case; sim_perfect passes every case


def collected(result: pytest.RunResult) -> list[str]:
    return [line for line in result.stdout.lines if "::" in line]


def test_node_ids_are_the_same_across_runs_folders_and_workers(
    pytester: pytest.Pytester, make_project: MakeProject, tmp_path_factory: pytest.TempPathFactory
) -> None:
    make_project("quiz", QUIZ, files={"data/more.jsonl": MORE})
    first = collected(pytester.runpytest("--collect-only", "-q"))
    assert first == collected(pytester.runpytest("--collect-only", "-q"))
    assert first[0] == "projects/quiz/arena.yaml::capital[sim_perfect]"
    assert "projects/quiz/data/more.jsonl::r2[sim_echo]" in first
    elsewhere = tmp_path_factory.mktemp("another-machine") / "checkout"
    shutil.copytree(pytester.path / "projects", elsewhere / "projects")
    moved = pytester.run(
        sys.executable, "-m", "pytest", "--collect-only", "-q", "--rootdir", elsewhere, elsewhere
    )
    assert collected(moved) == first
    spread = pytester.runpytest(*XDIST, "-n", "2", "-v")
    ran = {
        line.split()[-1]
        for line in spread.stdout.lines
        if line.startswith("[gw") and (" PASSED " in line or " FAILED " in line)
    }
    assert ran == set(first)


def test_lf_reruns_only_the_failed_cases(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    make_project("quiz", QUIZ, files={"data/more.jsonl": MORE})
    pytester.runpytest().assert_outcomes(passed=4, failed=4)
    again = pytester.runpytest("--lf", "-v")
    again.assert_outcomes(failed=4)
    again.stdout.fnmatch_lines(["run-last-failure: rerun previous 4 failures*"])
    again.stdout.no_fnmatch_line("*sim_perfect*PASSED*")


def test_ff_runs_the_failed_cases_first(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    make_project("quiz", QUIZ, files={"data/more.jsonl": MORE})
    pytester.runpytest()
    result = pytester.runpytest("--ff", "-v")
    result.assert_outcomes(passed=4, failed=4)
    verdicts = [line.split()[1] for line in result.stdout.lines if "::" in line and "[" in line]
    assert verdicts[:8] == ["FAILED"] * 4 + ["PASSED"] * 4


def test_an_ide_opens_the_case_line_from_the_item_location(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    """VS Code and PyCharm open `reportinfo()`'s path at its 0-based line plus one."""
    root = make_project("quiz", QUIZ, files={"data/more.jsonl": MORE})
    pytester.makeconftest(
        """
        def pytest_collection_modifyitems(items):
            for item in items:
                path, line, _ = item.reportinfo()
                print(f"AT {item.nodeid} | {path} | {line} | {item.location[0]}")
        """
    )
    result = pytester.runpytest("--collect-only", "-s", "-q")
    seen = 0
    for line in result.stdout.lines:
        if not line.startswith("AT "):
            continue
        nodeid, path, number, relative = line[3:].split(" | ")
        case = nodeid.rsplit("::", 1)[1].split("[")[0]
        opened = Path(path).read_text().splitlines()[int(number)]  # the IDE's line number - 1
        assert f"id: {case}" in opened or f'"id": "{case}"' in opened
        assert Path(path).is_absolute()
        assert pytester.path / relative == Path(path)
        assert nodeid.split("::")[0] == relative  # the file its node id begins with
        seen += 1
    assert seen == 8
    assert (root / "data" / "more.jsonl").exists()


@pytest.mark.parametrize(
    "selection", [("-k", "sim_perfect"), ("-m", "arena"), ("-k", "capital or sum")]
)
def test_a_project_that_cannot_be_loaded_stays_an_error_under_k_and_m(
    pytester: pytest.Pytester, make_project: MakeProject, selection: tuple[str, str]
) -> None:
    """Its error item has no case or model to match: -k and -m deselected it, and the run
    passed without the project, where a Python file that cannot be imported fails it."""
    make_project("quiz", QUIZ, files={"data/more.jsonl": MORE})
    make_project("broken", "models: [sim_perfect\ntests: [\n")
    result = pytester.runpytest("-p", "no:cacheprovider", *selection)
    outcomes = result.parseoutcomes()
    assert outcomes["errors"] == 1 and outcomes["passed"] >= 1
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(  # (pytest before 9 gives the summary line no message)
        [
            "projects/broken/arena.yaml:2: YAML syntax error: *",
            "ERROR projects/broken/arena.yaml::config*",
        ]
    )
    # a selection that matches nothing of the good project still shows the broken one
    nothing = pytester.runpytest("-p", "no:cacheprovider", "-k", "no_such_case")
    assert nothing.parseoutcomes() == {"errors": 1, "deselected": 8}
    # what --deselect names is left out, whatever -k or -m select beside it (it was run as
    # an error: a user with --deselect in addopts failed as soon as they added -k)
    named = pytester.runpytest(
        "-p", "no:cacheprovider", "--deselect", "projects/broken", *selection
    )
    assert "errors" not in named.parseoutcomes()
    assert "projects/broken" not in named.stdout.str()


def test_a_dataset_path_that_holds_a_bracket_is_refused_with_the_fix(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    """`data/set[v2].jsonl` was collected, but pytest refuses a path with `[` as an
    argument ("path cannot contain [] parametrization"): neither the file nor a node id of
    its items could be run, as VS Code runs them."""
    make_project(
        "quiz",
        'models: [sim_perfect]\ntests: [{id: t, input: x, reference: x}]\ndatasets: ["data/set[v2].jsonl"]\n',
        files={"data/set[v2].jsonl": '{"id": "a1", "input": "x", "reference": "x"}\n'},
    )
    result = pytester.runpytest("-p", "no:cacheprovider", "-rE")
    result.assert_outcomes(passed=1, errors=1)
    result.stdout.fnmatch_lines(
        [
            "projects/quiz/arena.yaml:3: datasets[[]0].path: dataset path 'data/set[[]v2].jsonl'"
            " holds '[[]', which pytest reads as the start of a test's parameters and refuses"
            ' in a path ("path cannot contain [[]] parametrization"): neither the file nor its'
            " cases could be run by path or node id, as IDEs run them",
            "  fix: rename the file without '[[]' (such as data/set-v2.jsonl), and its entry"
            " under 'datasets:'",
        ]
    )
    result.stdout.no_fnmatch_line("*::a1*")
