"""Nothing green by accident: a command-line value that cannot work is a usage error before
anything runs, an output that cannot be written is said (not a traceback in place of the
leaderboard), and a run where no case ran, or no case counts, says so."""

from __future__ import annotations

import json
import os

import pytest

from pytest_arena.record import PASSED, Record
from pytest_arena.reports.leaderboard import build_board
from tests.conftest import XDIST, MakeProject

QUIZ = """
models: [sim_perfect]
tests:
  - {id: capital, input: "Capital of France?", reference: Paris}
  - {id: sum, input: "2+2?", reference: "4"}
"""


@pytest.fixture
def quiz(make_project: MakeProject) -> None:
    make_project("quiz", QUIZ)


@pytest.mark.parametrize("value", ["-1", "nan", "inf", "-0.01"])
def test_a_budget_that_is_no_amount_is_a_usage_error(
    pytester: pytest.Pytester, quiz: None, value: str
) -> None:
    result = pytester.runpytest(f"--arena-max-cost={value}")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        [f"ERROR: --arena-max-cost {value}: give the most the run may spend as a finite number*"]
    )
    result.stdout.no_fnmatch_line("*collected*")


def test_a_budget_of_nothing_is_an_amount(pytester: pytest.Pytester, quiz: None) -> None:
    result = pytester.runpytest("--arena-max-cost=0", "-rs")
    assert result.ret == pytest.ExitCode.OK
    result.assert_outcomes(skipped=2)  # no call starts; answers in the cache would still count
    result.stdout.fnmatch_lines(["SKIPPED * budget spent: $0.00 of $0.00 (--arena-max-cost)*"])


@pytest.mark.parametrize("value", ["", " , "])
def test_arena_models_that_names_no_model_is_a_usage_error(
    pytester: pytest.Pytester, quiz: None, value: str
) -> None:
    result = pytester.runpytest(f"--arena-models={value}")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        [
            f"ERROR: --arena-models {value!r} names no model: give model keys, comma separated"
            " (--arena-models sim_small,sim_large), or leave the option out*"
        ]
    )


def test_a_model_named_twice_runs_once(pytester: pytest.Pytester, quiz: None) -> None:
    result = pytester.runpytest("--arena-models", "sim_perfect, sim_perfect,")
    result.assert_outcomes(passed=2)


def test_a_report_path_that_is_a_folder_is_a_usage_error_before_any_call(
    pytester: pytest.Pytester, quiz: None
) -> None:
    pytester.mkdir("reports")
    result = pytester.runpytest("--arena-json", "reports")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        [
            "ERROR: --arena-json reports is a folder: give the path of a file,"
            " such as --arena-json reports/arena.json"
        ]
    )
    result.stdout.no_fnmatch_line("*passed*")


def test_a_report_path_under_a_file_is_a_usage_error(pytester: pytest.Pytester, quiz: None) -> None:
    pytester.makefile(".txt", notes="x")
    result = pytester.runpytest("--arena-json=notes.txt/arena.json")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["ERROR: --arena-json notes.txt/arena.json: *notes.txt is a file*"])


@pytest.mark.parametrize(
    ("option", "target"),
    [
        ("--arena-json", "projects/quiz/arena.yaml"),
        ("--arena-html", "projects/quiz/data.csv"),
        ("--arena-save-baseline", "projects/quiz/scorers/mine.py"),
    ],
)
def test_a_report_path_naming_a_projects_file_is_a_usage_error_that_leaves_it_whole(
    pytester: pytest.Pytester, quiz: None, option: str, target: str
) -> None:
    """`--arena-json projects/p/arena.yaml` wrote the report over the project, and the next
    run failed to load it."""
    file = pytester.path / target
    if not file.exists():
        file.parent.mkdir(parents=True, exist_ok=True)
        file.write_text("id,input\n")
    before = file.read_bytes()
    result = pytester.runpytest(option, target)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        [
            f"ERROR: {option} {target}: the report would overwrite a project's *; give it a file of its own, such as*"
        ]
    )
    assert file.read_bytes() == before


def test_a_report_path_naming_an_arena_yaml_not_there_yet_is_a_usage_error(
    pytester: pytest.Pytester, quiz: None
) -> None:
    """A report written as `arena.yaml` would be collected as a project by the next run."""
    result = pytester.runpytest("--arena-json", "out/arena.yaml")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert not (pytester.path / "out" / "arena.yaml").exists()


def test_an_empty_report_path_is_a_usage_error(pytester: pytest.Pytester, quiz: None) -> None:
    result = pytester.runpytest("--arena-json=")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["ERROR: --arena-json is empty: give the path of a file*"])


def test_a_report_folder_that_cannot_be_written_is_a_usage_error(
    pytester: pytest.Pytester, quiz: None
) -> None:
    locked = pytester.mkdir("locked")
    locked.chmod(0o555)
    try:
        if os.access(locked, os.W_OK):
            pytest.skip("this user writes anywhere (root)")
        result = pytester.runpytest("--arena-json=locked/new/arena.json")
    finally:
        locked.chmod(0o755)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["ERROR: --arena-json locked/new/arena.json: cannot write in *"])


def test_missing_folders_of_a_report_path_are_made_as_for_junitxml(
    pytester: pytest.Pytester, quiz: None
) -> None:
    result = pytester.runpytest("--arena-json=out/deeper/arena.json", "--junitxml=out/j/r.xml")
    assert result.ret == pytest.ExitCode.OK
    assert json.loads((pytester.path / "out/deeper/arena.json").read_text())["records"]


def test_a_cache_path_that_is_a_folder_is_a_usage_error_unless_the_cache_is_off(
    pytester: pytest.Pytester, quiz: None
) -> None:
    pytester.mkdir("cache")
    result = pytester.runpytest("--arena-cache-path=cache")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["ERROR: --arena-cache-path cache is a folder*"])
    result = pytester.runpytest("--arena-cache-path=cache", "--arena-cache=off")
    assert result.ret == pytest.ExitCode.OK


def test_a_usage_error_is_raised_on_the_controller_under_xdist(
    pytester: pytest.Pytester, quiz: None
) -> None:
    result = pytester.runpytest(*XDIST, "-n", "2", "--arena-max-cost=-1")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["ERROR: --arena-max-cost -1: *"])


def test_a_report_that_fails_to_be_written_at_the_end_is_said_under_the_board(
    pytester: pytest.Pytester, quiz: None
) -> None:
    # the folder is fine when the run starts, and a file by the time the report is written
    pytester.makeconftest(
        """
        def pytest_collection_finish(session):
            (session.config.rootpath / "out").write_text("in the way")
        """
    )
    result = pytester.runpytest("--arena-json=out/arena.json")
    result.assert_outcomes(passed=2)
    result.stdout.fnmatch_lines(
        [
            "*= arena leaderboard: quiz =*",
            "*sim_perfect*1.000*",
            "arena: the --arena-json report was not written: *out*",
        ]
    )
    result.stdout.no_fnmatch_line("*Traceback*")
    result.stdout.no_fnmatch_line("*INTERNALERROR*")
    assert result.ret == pytest.ExitCode.TESTS_FAILED  # asked for and not delivered


def test_a_report_named_by_a_link_to_itself_is_said_under_the_board(
    pytester: pytest.Pytester, quiz: None
) -> None:
    """Up to Python 3.12 the check that two reports name two files raised the loop
    (INTERNALERROR, no run)."""
    (pytester.path / "arena.json").symlink_to("arena.json")
    result = pytester.runpytest("--arena-json=arena.json")
    result.assert_outcomes(passed=2)
    result.stdout.fnmatch_lines(
        [
            "*sim_perfect*1.000*",
            "arena: the --arena-json report was not written: *symbolic links*arena.json*",
        ]
    )
    result.stdout.no_fnmatch_line("*INTERNALERROR*")
    assert result.ret == pytest.ExitCode.TESTS_FAILED


def test_a_gated_run_whose_report_is_not_written_says_the_status_it_ends_with(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    """The gates hold (exit 0 for a failed case), then the report fails to be written: the
    run exits 1, and the gate's line says 1, not "exit status 0 (not 1)"."""
    make_project(
        "gated",
        "models: [sim_perfect, sim_echo]\ngate:\n  models:\n"
        "    sim_perfect: {accuracy: {min: 0.9}}\n"
        "tests:\n  - {id: capital, input: 'Capital of France?', reference: Paris}\n",
    )
    pytester.makeconftest(
        """
        def pytest_collection_finish(session):
            (session.config.rootpath / "out").write_text("in the way")
        """
    )
    result = pytester.runpytest("-p", "no:cacheprovider", "--arena-json=out/arena.json")
    result.assert_outcomes(passed=1, failed=1)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(
        [
            "arena: the --arena-json report was not written: *out*",
            "*gate held*",
            "exit status 1: the gates held, but a report was not written",
        ]
    )
    result.stdout.no_fnmatch_line("exit status 0*")
    held = pytester.runpytest("-p", "no:cacheprovider")  # nothing asked for: the gates decide
    assert held.ret == pytest.ExitCode.OK
    held.stdout.fnmatch_lines(["exit status 0 (not 1): the gates decide for their projects;*"])


def test_a_job_summary_that_cannot_be_written_is_said_and_changes_nothing(
    pytester: pytest.Pytester, quiz: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(pytester.mkdir("summary")))
    result = pytester.runpytest()
    result.assert_outcomes(passed=2)
    assert result.ret == pytest.ExitCode.OK
    result.stdout.fnmatch_lines(["arena: the GitHub job summary was not written: *summary*"])


# projects without cases


def test_a_project_without_cases_is_a_warning_at_its_line_and_the_run_says_none_ran(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    make_project("empty", "models: [sim_perfect]\ntests: []\n")
    result = pytester.runpytest()
    assert result.ret == pytest.ExitCode.NO_TESTS_COLLECTED
    result.stdout.fnmatch_lines(
        [
            "*= warnings summary =*",
            "projects/empty/arena.yaml:2",
            "*ArenaWarning: project 'empty' has no cases, so nothing of it runs:"
            " write cases under 'tests:', or rows in a dataset file named under 'datasets:'",
            "arena: no case ran: the projects of this run hold no cases"
            " (exit status 5, as when no tests ran)",
            "  projects/empty/arena.yaml:2: project 'empty' has no cases*",
        ]
    )


def test_empty_dataset_files_are_warnings_naming_each_and_the_other_cases_run(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    make_project(
        "data",
        """
        models: [sim_perfect]
        datasets: [rows.jsonl, table.csv]
        tests:
          - {id: inline, input: x, reference: x}
        """,
        files={"rows.jsonl": "", "table.csv": "id,input,reference\n"},
    )
    result = pytester.runpytest()
    assert result.ret == pytest.ExitCode.OK
    result.assert_outcomes(passed=1, warnings=2)
    result.stdout.fnmatch_lines(
        [
            "projects/data/rows.jsonl:1",
            "*ArenaWarning: dataset file rows.jsonl holds no cases (arena.yaml line 2 names it):"
            " add rows to it, or take it out of 'datasets:'",
            "projects/data/table.csv:1",
            "*ArenaWarning: dataset file table.csv holds no cases*",
            "*= arena leaderboard: data =*",
        ]
    )
    result.stdout.no_fnmatch_line("arena: no case ran*")


def test_a_project_whose_only_dataset_is_empty_runs_nothing_and_says_why(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    make_project("data", "models: [sim_perfect]\ndatasets: [rows.jsonl]\n", {"rows.jsonl": ""})
    result = pytester.runpytest("projects/data/rows.jsonl")
    assert result.ret == pytest.ExitCode.NO_TESTS_COLLECTED
    result.stdout.fnmatch_lines(
        [
            "arena: no case ran*",
            "  projects/data/rows.jsonl:1: dataset file rows.jsonl holds no cases*",
            "  projects/data/arena.yaml:1: project 'data' has no cases*",
        ]
    )


def test_passing_python_tests_do_not_make_a_run_without_cases_green(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    make_project("empty", "models: [sim_perfect]\ntests: []\n")
    pytester.makepyfile(test_other="def test_fine():\n    pass\n")
    result = pytester.runpytest()
    result.assert_outcomes(passed=1, warnings=1)
    assert result.ret == pytest.ExitCode.NO_TESTS_COLLECTED
    result.stdout.fnmatch_lines(["arena: no case ran*"])


def test_under_xdist_the_controller_learns_that_no_case_was_collected(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    make_project("empty", "models: [sim_perfect]\ntests: []\n")
    pytester.makepyfile(test_other="def test_fine():\n    pass\n")
    result = pytester.runpytest(*XDIST, "-n", "2")
    result.assert_outcomes(passed=1)
    assert result.ret == pytest.ExitCode.NO_TESTS_COLLECTED
    result.stdout.fnmatch_lines(["arena: no case ran*", "  projects/empty/arena.yaml:2: *"])


def test_one_empty_project_beside_others_is_a_warning_only(
    pytester: pytest.Pytester, make_project: MakeProject, quiz: None
) -> None:
    make_project("empty", "models: [sim_perfect]\ntests: []\n")
    result = pytester.runpytest()
    result.assert_outcomes(passed=2, warnings=1)
    assert result.ret == pytest.ExitCode.OK
    result.stdout.fnmatch_lines(["*project 'empty' has no cases*", "*= arena leaderboard: quiz =*"])
    result.stdout.no_fnmatch_line("arena: no case ran*")


def test_cases_the_user_deselects_were_collected_and_the_run_is_as_pytest_says(
    pytester: pytest.Pytester, quiz: None
) -> None:
    pytester.makepyfile(test_other="def test_fine():\n    pass\n")
    result = pytester.runpytest("-k", "not quiz")
    result.assert_outcomes(passed=1)
    assert result.ret == pytest.ExitCode.OK
    result.stdout.no_fnmatch_line("arena: no case ran*")


# cases that all weigh nothing


def test_a_board_whose_cases_all_weigh_nothing_says_so(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    make_project(
        "light",
        """
        models: [sim_perfect]
        tests:
          - {id: a, input: x, reference: x, weight: 0}
          - {id: b, input: y, reference: y, weight: 0}
        """,
    )
    result = pytester.runpytest("--arena-json=arena.json")
    result.assert_outcomes(passed=2)
    result.stdout.fnmatch_lines(
        [
            "*= arena leaderboard: light =*",
            "*1  sim_perfect        0.000           -  100.0% ± 32.9        2*",
            "composite = 1.00·accuracy",
            "warning: every graded case of every model has weight 0, so there is no accuracy (-)"
            " and the composite counts it as 0; the pass rate counts cases, whatever their"
            " weight. Give the cases that should count a weight above 0",
        ]
    )
    (board,) = json.loads((pytester.path / "arena.json").read_text())["leaderboards"]
    assert board["rows"][0]["accuracy"] is None
    assert any("weight 0" in w for w in board["warnings"])


def test_only_the_models_whose_cases_all_weigh_nothing_are_named() -> None:
    def rec(model: str, case: str, weight: float) -> Record:
        return Record("p", case, model, PASSED, score=1.0, passed=True, weight=weight)

    board = build_board("p", [rec("heavy", "a", 1.0), rec("light", "a", 0.0)])
    assert board.warnings == [
        "every graded case of light has weight 0, so there is no accuracy (-) and the"
        " composite counts it as 0; the pass rate counts cases, whatever their weight."
        " Give the cases that should count a weight above 0"
    ]
    assert build_board("p", [rec("m", "a", 0.0), rec("m", "b", 2.0)]).warnings == []


def test_a_metric_of_cases_that_all_weigh_nothing_has_no_value_not_zero() -> None:
    light = Record("p", "a", "m", PASSED, score=1.0, passed=True, weight=0.0)
    light.metrics = {"recall": 0.9}
    board = build_board("p", [light])
    assert board.metric_names == ["recall"]
    assert board.rows[0].metrics == {}


UNREACHABLE = """
models:
  default: [local]
  define:
    local: {connector: openai, base_url: "http://127.0.0.1:9/v1", max_retries: 0, timeout: 2}
gate:
  all: {GATE}
tests:
  - {id: a, input: "What is 2+2?", reference: "4"}
  - {id: b, input: "What is 3+3?", reference: "6"}
"""


@pytest.mark.parametrize(
    ("gate", "said"),
    [
        (  # no check counts errors: they are failures outside the gate
            "{failed: {max: 0}, tokens: {max: 1000}}",
            "the gates held, but 2 failure(s) outside any gate*errors no check of the gate"
            " counts: name errors, accuracy, pass_rate or composite in it*",
        ),
        (  # what a model without a price cost is unknown: no limit on it holds
            "{failed: {max: 0}, cost: {max: 1.0}}",
            "  failed  local cost (limit max 1): no value for 'cost': model 'local' has no"
            " price, so what it cost is unknown; set price: in models.define*",
        ),
        ("{errors: {max: 0}}", "gate failed: 1 of 1 checks outside their limits"),
        ("{accuracy: {min: 0.5}}", "gate failed: 1 of 1 checks outside their limits"),
    ],
)
def test_a_gate_that_counts_no_error_does_not_let_errored_cases_pass(
    pytester: pytest.Pytester,
    make_project: MakeProject,
    monkeypatch: pytest.MonkeyPatch,
    gate: str,
    said: str,
) -> None:
    """A gate on `failed` and `cost` held while every case of a model that could not be
    reached errored (nothing graded), and the run exited 0."""
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-a-key")
    make_project("g", UNREACHABLE.replace("{GATE}", gate))
    result = pytester.runpytest("-p", "no:cacheprovider")
    result.assert_outcomes(failed=2)
    result.stdout.fnmatch_lines([said])
    assert result.ret == pytest.ExitCode.TESTS_FAILED


def test_a_gate_decides_for_an_error_only_through_a_check_that_counts_errors() -> None:
    from pytest_arena.reports.gates import decides_for

    gate = {"all": {"cost": {"max": 1}}, "models": {"m": {"pass_rate": {"min": 0.5}}}}
    assert decides_for(gate, "other", "failed")  # a verdict: any check decides
    assert not decides_for(gate, "other", "error")  # cost counts no error
    assert decides_for(gate, "m", "error")  # its pass_rate does
