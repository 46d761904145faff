"""Why a run stopped early, as its JSON report and `arena compare` say it."""

from __future__ import annotations

import json

import jsonschema
import pytest

from pytest_arena.reports.json_report import schema
from tests.conftest import ARENA, XDIST, MakeProject

# c1 fails; each answer takes 0.3 s, so that -x under pytest-xdist stops before the last
PROJECT = """
models:
  default: [slow]
  define:
    slow: {profile: sim_echo, latency_ms: 300}
tests:
""" + "".join(
    f"  - {{id: c{i}, input: x, reference: {'y' if i == 1 else 'x'}}}\n" for i in range(8)
)
CTRL_C_AT_TWO = (  # Ctrl-C as the second case ends
    "import pytest\n"
    "ended = []\n"
    "def pytest_runtest_logfinish(nodeid):\n"
    "    ended.append(nodeid)\n"
    "    if len(ended) == 2:\n"
    "        raise KeyboardInterrupt\n"
)
EXIT_NINE = 'pytest.exit("stop", returncode=9)'  # an exit status of the user's
AFTER = ": the cases it did not run are only in the other run, not compared"


def run_report(pytester: pytest.Pytester, name: str, *args: str) -> tuple[pytest.RunResult, dict]:
    result = pytester.runpytest("--arena-json", name, *args, no_reraise_ctrlc=True)
    report: dict = json.loads((pytester.path / name).read_text())
    jsonschema.validate(report, schema())
    return result, report


def test_a_run_stopped_by_a_collection_error_says_so_and_compare_names_it(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    """A Python test file with a syntax error stops pytest before any case runs
    ("Interrupted: 1 error during collection"): the report said only `stopped_early`, and
    `arena compare` blamed -x, --maxfail or Ctrl-C for the missing cases."""
    make_project("p", PROJECT)
    run_report(pytester, "a.json", "-p", "no:cacheprovider")
    (pytester.path / "test_broken.py").write_text("def test_x(:\n")
    result, report = run_report(
        pytester, "b.json", "-p", "no:cacheprovider", "--arena-html", "b.html"
    )
    assert result.ret == pytest.ExitCode.INTERRUPTED
    result.stdout.fnmatch_lines(["*Interrupted: 1 error during collection*"])
    assert (report["stopped_early"], report["stopped_by"]) == (True, "collection_errors")
    assert report["records"] == []
    compared = pytester.run(*ARENA, "compare", "a.json", "b.json", "--html", "cmp.html")
    said = (
        "run B stopped early (pytest stopped at errors during collection: its log names the"
        " files; fix them, or run with --continue-on-collection-errors)"
    )
    compared.stdout.fnmatch_lines([said + AFTER])
    assert "-x" not in compared.stdout.str()
    assert "--continue-on-collection-errors" in (pytester.path / "cmp.html").read_text()
    page = (pytester.path / "b.html").read_text()  # the run's own page says it too
    assert f"the run stopped early ({said[len('run B stopped early (') : -1]})" in page


@pytest.mark.parametrize(
    ("args", "cause", "said"),
    [
        (["-p", "no:cacheprovider", "-x"], "maxfail", "-x or --maxfail"),
        ([*XDIST, "-n", "2", "-p", "no:cacheprovider", "-x"], "maxfail", "-x or --maxfail"),
        (["--sw"], "stepwise", "--sw or --sw-skip"),
        (["-p", "no:cacheprovider"], "interrupt", "Ctrl-C or pytest.exit"),
    ],
    ids=["x", "xdist-x", "sw", "ctrl-c"],
)
def test_the_report_and_compare_say_what_stopped_the_run(
    pytester: pytest.Pytester, make_project: MakeProject, args: list[str], cause: str, said: str
) -> None:
    """Each stop is named for what it was (compare said "-x, --maxfail or Ctrl-C" of any);
    under pytest-xdist, -x was said to have "interrupted" the run."""
    make_project("p", PROJECT)
    _, whole = run_report(pytester, "a.json", "-p", "no:cacheprovider")
    assert (whole["stopped_early"], whole["stopped_by"]) == (False, None)
    if cause == "interrupt":
        pytester.makeconftest(CTRL_C_AT_TWO)
    result, report = run_report(pytester, "b.json", *args)
    assert (report["stopped_early"], report["stopped_by"]) == (True, cause)
    if "-n" in args:
        result.stdout.fnmatch_lines(["arena: the run stopped early (stopping after 1 failures)*"])
    compared = pytester.run(*ARENA, "compare", "a.json", "b.json")
    compared.stdout.fnmatch_lines([f"run B stopped early ({said}){AFTER}"])


def test_a_report_that_does_not_say_what_stopped_it_is_said_to_have_stopped_early(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    """A report written before `stopped_by` existed names every cause it may have had."""
    make_project("p", PROJECT)
    _, report = run_report(pytester, "a.json", "-p", "no:cacheprovider", "-x")
    del report["stopped_by"]
    (pytester.path / "a.json").write_text(json.dumps(report))
    compared = pytester.run(*ARENA, "compare", "a.json", "a.json")
    compared.stdout.fnmatch_lines(
        [f"run A stopped early (-x, --maxfail, --sw, Ctrl-C or errors during collection){AFTER}"]
    )


@pytest.mark.parametrize("workers", [[], [*XDIST, "-n", "2"]], ids=["-n0", "-n2"])
def test_pytest_exit_with_a_returncode_shows_the_boards_of_what_was_graded_as_ctrl_c_does(
    pytester: pytest.Pytester, make_project: MakeProject, workers: list[str]
) -> None:
    """pytest prints no terminal summary for an exit status of the user's: a conftest's
    `pytest.exit("stop", returncode=9)` ended the run with no leaderboard, where Ctrl-C (or
    pytest.exit without a returncode) shows the board of the cases graded, said partial."""
    tests = "".join(f"  - {{id: c{i}, input: x, reference: x}}\n" for i in range(6))
    make_project("p", "models: [sim_echo]\ntests:\n" + tests)
    pytester.makeconftest(CTRL_C_AT_TWO.replace("raise KeyboardInterrupt", EXIT_NINE))
    result, report = run_report(pytester, "r.json", "-p", "no:cacheprovider", *workers)
    assert result.ret == 9
    assert (report["exit_status"], report["stopped_by"]) == (9, "interrupt")
    got = len(report["records"])  # 2; under xdist, a result that came before the stop too
    assert got == 2 if not workers else 2 <= got < 6
    result.stdout.fnmatch_lines(
        [
            "*= arena leaderboard: p =*",
            f"*1  sim_echo  1.000 ± *  100.0% ± *  {got}         0         0*",
            f"arena: the run stopped early (Exit: stop): the boards hold only the {got} results"
            " it got, not the whole benchmark",
            f"arena: {got} answers graded; $0.00 spent on models and judges",
            f"*{got} passed*",
            "*Exit: stop*",
        ]
    )
