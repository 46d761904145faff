"""GitHub Actions: the leaderboard and the gate are appended to the job summary as markdown."""

from __future__ import annotations

import re

import pytest

from pytest_arena.record import FAILED, PASSED, Record
from pytest_arena.reports.gates import check_gate
from pytest_arena.reports.github_summary import markdown
from pytest_arena.reports.leaderboard import build_board
from pytest_arena.reports.markdown import escape_markdown
from tests.conftest import MakeProject
from tests.projects import PRICED_PROJECT

QUIZ = """
models: [sim_perfect, sim_echo]
gate: {all: {pass_rate: {min: 0.5}}}
tests:
  - id: capital
    input: "Capital of France?"
    reference: Paris
"""


def test_the_job_summary_gets_the_board_and_the_gate_appended(
    pytester: pytest.Pytester, make_project: MakeProject, monkeypatch: pytest.MonkeyPatch
) -> None:
    make_project("quiz", QUIZ)
    summary = pytester.path / "summary.md"
    summary.write_text("# earlier step\n")
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    result = pytester.runpytest()
    assert result.ret == 1  # sim_echo passes nothing
    lines = summary.read_text().splitlines()
    assert lines[0] == "# earlier step"
    assert "### arena leaderboard: quiz" in lines
    table = [line for line in lines if line.startswith("|")]
    assert [cell.strip() for cell in table[0].split("|")[1:4]] == ["rank", "model", "composite"]
    assert set(table[1]) <= {"|", "-", ":"}
    assert [row.split("|")[2].strip() for row in table[2:]] == ["sim\\_perfect", "sim\\_echo"]
    assert "**❌ gate failed: 1 of 2 checks outside their limits**" in lines
    assert "- failed  sim\\_echo pass\\_rate 0 outside min 0.5 (short by 0.5)" in lines


def test_markdown_lists_each_project_with_its_formula() -> None:
    records = [
        Record("a", "c", "m1", PASSED, score=1.0, passed=True),
        Record("a", "d", "m1", FAILED, score=0.0, passed=False),
    ]
    board = build_board("a", records)
    text = markdown([board], [check_gate(board, {"all": {"accuracy": {"min": 0.5}}})])
    assert "### arena leaderboard: a" in text
    assert "composite = 1.00·accuracy  " in text.splitlines()
    assert "**✅ gate held: all 1 checks within their limits**" in text


def test_the_job_summary_says_when_its_boards_are_not_the_whole_benchmark(
    pytester: pytest.Pytester, make_project: MakeProject, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The terminal said the run stopped early, or that input could not be loaded; the job
    summary showed a board that looked whole."""
    more = "  - {id: sum, input: '2+2?', reference: '4'}\n"
    make_project("quiz", QUIZ.replace("gate: {all: {pass_rate: {min: 0.5}}}\n", "") + more)
    summary = pytester.path / "summary.md"
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    pytester.runpytest("-x")
    assert summary.read_text().splitlines()[:2] == [
        "> ⚠️ the run stopped early (stopping after 1 failures): the boards hold only the 2"
        " results it got, not the whole benchmark",
        "",
    ]
    summary.unlink()
    make_project("broken", "models: [sim_perfect\n")
    pytester.runpytest()
    assert summary.read_text().splitlines()[:2] == [
        "> ⚠️ 1 input could not be loaded, so its cases are on no leaderboard (the errors in"
        " the job's log say why)",
        "",
    ]


def test_the_job_summary_says_when_the_gates_did_not_decide_the_exit_status(
    pytester: pytest.Pytester, make_project: MakeProject, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A red job's summary showed "✅ gate held" alone, where the terminal said that
    --no-arena-gate, or failures outside any gate, failed the run."""
    make_project("quiz", QUIZ.replace("min: 0.5", "min: 0"))  # sim_echo fails, the gate holds
    summary = pytester.path / "summary.md"
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    result = pytester.runpytest("projects/quiz", "--no-arena-gate")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    said = "gates did not decide the exit status (--no-arena-gate): failed cases fail the run"
    result.stdout.fnmatch_lines([said])
    lines = summary.read_text().splitlines()
    assert lines[:2] == [f"> ⚠️ {said}", ""]
    assert "**✅ gate held: all 2 checks within their limits**" in lines
    summary.unlink()
    make_project("loose", "models: [sim_echo]\ntests:\n  - {id: a, input: x, reference: y}\n")
    outside = pytester.runpytest("projects")
    assert outside.ret == pytest.ExitCode.TESTS_FAILED
    said = "the gates held, but 1 failure(s) outside any gate (* fail the run"
    outside.stdout.fnmatch_lines([said])
    first = summary.read_text().splitlines()[0]
    assert first.startswith("> ⚠️ the gates held, but 1 failure(s) outside any gate (Python")
    assert first.endswith(") fail the run")
    summary.unlink()
    decided = pytester.runpytest("projects/quiz")  # the gate decides: green, nothing to add
    assert decided.ret == pytest.ExitCode.OK
    assert summary.read_text().startswith("### arena leaderboard: quiz\n")


def test_a_run_that_graded_nothing_says_why_in_the_job_summary(
    pytester: pytest.Pytester, make_project: MakeProject, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A red job with no board wrote no summary at all: its only project did not load, or
    a Python file that could not be imported stopped the run before any case."""
    summary = pytester.path / "summary.md"
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    make_project("broken", "models: [sim_perfect\n")
    result = pytester.runpytest("projects")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    assert summary.read_text().splitlines() == [
        "### arena: no case was graded",
        "",
        "> ⚠️ 1 input could not be loaded (the errors in the job's log say why)",
        "",
    ]
    summary.unlink()
    make_project("quiz", QUIZ)
    pytester.makepyfile(test_app="import no_such_module\n")
    stopped = pytester.runpytest("projects/quiz", "test_app.py")
    assert stopped.ret == pytest.ExitCode.INTERRUPTED
    assert summary.read_text().splitlines()[2] == (
        "> ⚠️ the run stopped early (1 error during collection), before it graded a case"
    )
    summary.unlink()
    python = pytester.runpytest("test_app.py")  # not arena's run: no word of arena's
    assert python.ret == pytest.ExitCode.INTERRUPTED
    pytester.makepyfile(test_app="def test_app():\n    pass\n")
    assert pytester.runpytest("test_app.py").ret == pytest.ExitCode.OK
    assert not summary.exists()


@pytest.mark.parametrize("option", ["--arena-json", "--arena-html", "--junitxml"])
def test_a_report_given_the_job_summarys_file_is_a_usage_error(
    pytester: pytest.Pytester,
    make_project: MakeProject,
    monkeypatch: pytest.MonkeyPatch,
    option: str,
) -> None:
    """`--arena-json $GITHUB_STEP_SUMMARY` wrote the report and appended the summary to it:
    a JSON file that does not parse, in a green run."""
    make_project("quiz", QUIZ)
    summary = pytester.path / "summary.md"
    summary.write_text("# earlier step\n")
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    result = pytester.runpytest("projects", f"{option}={summary}")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        [
            f"ERROR: {option} and GITHUB_STEP_SUMMARY both name {summary}: the job summary"
            " would be appended to the report; give the report a file of its own"
        ]
    )
    assert summary.read_text() == "# earlier step\n"


def test_the_job_summary_shows_emphasis_and_bare_links_as_written(
    pytester: pytest.Pytester, make_project: MakeProject, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`_` was not escaped (a project `a _u_ b` was headed in italics) and a bare URL, even
    escaped, was a link: GitHub links `https://…`, `www.…` and `@name` where they are one
    text. `<wbr>` breaks them, and is neither shown nor copied."""
    gate = "gate: {all: {accuracy: {min: 1}}}"
    make_project(
        "u",
        "name: a _u_ b at https://e.com\n"
        + QUIZ.replace("gate: {all: {pass_rate: {min: 0.5}}}", gate),
    )
    summary = pytester.path / "summary.md"
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    pytester.runpytest("projects")
    lines = summary.read_text().splitlines()
    assert "### arena leaderboard: a \\_u\\_ b at https:<wbr>//e.com" in lines
    # a model's `_` is escaped too (within a word it reads as no emphasis, but one rule)
    assert "- failed  sim\\_echo accuracy 0 outside min 1 (short by 1)" in lines
    assert escape_markdown("see http://x, https://e.com/a_b, www.e.com or me@e.com") == (
        "see http:<wbr>//x, https:<wbr>//e.com/a\\_b, www.<wbr>e.com or me@<wbr>e.com"
    )
    assert escape_markdown("pass@k: //x") == "pass@<wbr>k: //x"


def test_names_at_a_lines_start_make_no_heading_or_list_in_the_job_summary(
    pytester: pytest.Pytester, make_project: MakeProject, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each model against the leader has a line that starts with its key: models `-`, `+`
    and `1.` made those lines list items; and a project named `# evil #` lost its last `#`
    to the heading's closing sequence."""
    echo = "{profile: sim_echo}"
    make_project(
        "evil",
        f"""
        name: "# evil #"
        models:
          default: [sim_perfect, "-", "+", "1."]
          define: {{"-": {echo}, "+": {echo}, "1.": {echo}}}
        tests:
          - {{id: a, input: "Capital of France?", reference: Paris}}
          - {{id: b, input: "Capital of Spain?", reference: Madrid}}
        """,
    )
    summary = pytester.path / "summary.md"
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    pytester.runpytest("projects")
    lines = summary.read_text().splitlines()
    # a heading, a list item, a quote or a heading's underline, as GitHub reads a line
    block = re.compile(r" {0,3}(#{1,6}|[-+*>]|\d{1,9}[.)])(\s|$)| {0,3}(=+|-+) *$")
    assert [line for line in lines if block.match(line)] == ["### arena leaderboard: \\# evil \\#"]
    against = [line.split(" -1.000 ")[0] for line in lines if " -1.000 (95% CI" in line]
    assert sorted(against) == ["  1\\.", "  \\+", "  \\-"]
    assert escape_markdown("# title") == "\\# title"
    assert escape_markdown("---") == "\\---"
    assert escape_markdown("=") == "\\="
    assert escape_markdown("-1.5 and 1.5, a - b") == "-1.5 and 1.5, a - b"  # no marker


@pytest.mark.parametrize("reports", [[], ["--arena-json", "r.json"]], ids=["alone", "json"])
def test_the_job_summary_says_whose_cases_a_spent_budget_kept_from_running(
    pytester: pytest.Pytester,
    make_project: MakeProject,
    monkeypatch: pytest.MonkeyPatch,
    reports: list[str],
) -> None:
    """A run the budget kept from every case wrote no summary, or with a report an empty
    table and `composite = 0`; a project it kept from every case beside one that ran, the
    same empty table."""
    make_project("p", PRICED_PROJECT)
    make_project("q", "models: [sim_perfect]\ntests:\n  - {id: a, input: x, reference: x}\n")
    summary = pytester.path / "summary.md"
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    said = "no answer was graded: cheap's 1 case and dear's 2 cases not run: budget spent"
    pytester.runpytest("projects/p", "--arena-max-cost", "0", *reports)
    assert summary.read_text().splitlines() == [
        "### arena: no case was graded",
        "",
        f"> ⚠️ p: {said}",
        "",
    ]
    summary.unlink()
    with (pytester.path / "projects" / "p" / "arena.yaml").open("a") as yaml:
        yaml.write("budget: {max_cost: 0}\n")  # p's own: q beside it runs
    pytester.runpytest("projects", *reports)
    text = summary.read_text()
    assert text.startswith(
        f"### arena leaderboard: p\n\nnote: {said}  \n\n### arena leaderboard: q\n"
    )
    assert sum(line.startswith("|--") for line in text.splitlines()) == 1  # q's table alone
    assert text.count("composite = ") == 1
