"""GitHub Actions: the leaderboard and the gate are appended to the job summary as markdown."""

from __future__ import annotations

import pytest

from pytest_arena.record import FAILED, PASSED, Record
from pytest_arena.reports.gates import check_gate
from pytest_arena.reports.github_summary import markdown
from pytest_arena.reports.leaderboard import build_board
from tests.conftest import MakeProject

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
    assert [row.split("|")[2].strip() for row in table[2:]] == ["sim_perfect", "sim_echo"]
    assert "**❌ gate failed: 1 of 2 checks outside their limits**" in lines
    assert "- failed  sim_echo pass_rate 0 outside min 0.5 (short by 0.5)" in lines


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
