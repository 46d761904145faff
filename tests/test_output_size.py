"""Output sized for people: a huge reason, output or traceback is cut, once, with a marker
that says how much and where the whole text is; a scorer's `sys.exit()` is that scorer's
error, not a page of pytest's internals."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET

import pytest

from pytest_arena.record import FAILED, Record
from pytest_arena.reports.failures import (
    EXCERPT_LIMIT,
    MESSAGE_LIMIT,
    REASON_LIMIT,
    clip,
    clip_traceback,
    error_text,
    failure_text,
    message,
)
from tests.conftest import MakeProject

HUGE = 1_000_000

SCORER = """
import sys

from pytest_arena.scorers import Scorer, ScoreResult


class Loud(Scorer):
    name = "loud"

    def score(self, output, reference, context):
        case = context.test_case.id
        if case == "huge_reason":
            return ScoreResult(score=0.0, passed=False, reason="why " * 250_000)
        if case == "exits":
            sys.exit(3)
        if case == "exits_quietly":
            sys.exit()
        if case == "huge_error":
            raise ValueError("v" * 1_000_000)
        if case == "huge_output":
            return ScoreResult(score=0.0, passed=False, reason="too long")
        return ScoreResult(score=1.0, passed=True, reason="fine")
"""

PROJECT = """
models: [sim_perfect]
scorers: {default: loud}
tests:
  - {id: huge_reason, input: a, reference: a}
  - {id: fine, input: b, reference: b}
"""


def loud(make_project: MakeProject, *cases: str) -> None:
    tests = "".join(f"  - {{id: {c}, input: x{c}, reference: x{c}}}\n" for c in cases)
    make_project(
        "loud",
        f"models: [sim_perfect]\nscorers: {{default: loud}}\ntests:\n{tests}",
        files={"scorers/loud.py": SCORER},
    )


def test_a_huge_reason_is_cut_once_with_where_the_whole_of_it_is(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    loud(make_project, "huge_reason", "fine")
    result = pytester.runpytest("--junitxml=out.xml", "--arena-json=out/arena.json")
    result.assert_outcomes(passed=1, failed=1)
    assert result.ret == 1
    text = result.stdout.str()
    assert len(text) < 12_000  # was over a megabyte
    result.stdout.fnmatch_lines(
        [
            "*_ loud::huge_reason[[]sim_perfect] _*",
            "why why why*… [[]998,000 more characters cut; whole in out/arena.json (--arena-json)]",
            "  scorer:    loud (score 0.00)",
            "*= arena leaderboard: loud =*",
            "*sim_perfect*0.500*",
        ]
    )
    assert text.count("more characters cut") == 1  # the summary line is pytest's, cut to fit
    report = json.loads((pytester.path / "out/arena.json").read_text())
    (kept,) = [r for r in report["records"] if r["case"] == "huge_reason"]
    assert kept["reason"] == "why " * 250_000
    testcase = ET.parse(pytester.path / "out.xml").find(".//testcase[failure]")
    assert testcase is not None
    failure = testcase.find("failure")
    assert failure is not None
    assert len(failure.get("message", "")) < MESSAGE_LIMIT + 60
    assert "more characters cut" in failure.get("message", "")
    assert len(failure.text or "") < REASON_LIMIT + 300


def test_without_arena_json_the_cut_says_how_to_keep_the_whole_text(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    loud(make_project, "huge_reason")
    result = pytester.runpytest()
    result.stdout.fnmatch_lines(["*… [[]998,000 more characters cut; --arena-json PATH keeps*"])


def test_tb_line_shows_the_message_alone(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    loud(make_project, "huge_reason", "fine")
    result = pytester.runpytest("--tb=line")
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(["projects/loud/arena.yaml:4: why why * more characters cut]"])
    result.stdout.no_fnmatch_line("  scorer:*")
    assert len(result.stdout.str()) < 4_000


def test_on_ci_the_summary_line_is_short_too(
    pytester: pytest.Pytester, make_project: MakeProject, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CI", "true")  # pytest prints whole messages in the summary on CI
    loud(make_project, "huge_reason")
    result = pytester.runpytest()
    (line,) = [s for s in result.stdout.lines if s.startswith("FAILED")]
    assert len(line) < MESSAGE_LIMIT + 120


def test_a_huge_output_and_reference_are_excerpts_that_say_they_are(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    long = "word " * 1000
    make_project(
        "loud",
        f"""
        models: [sim_perfect]
        scorers: {{default: loud}}
        tests:
          - {{id: huge_output, input: "{long}", reference: "{long}"}}
        """,
        files={"scorers/loud.py": SCORER},
    )
    result = pytester.runpytest()
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            "too long",
            "  output:    'word word*…'",
            "  reference: 'word word*…'",
            "  (cut to excerpts: output of 5,000 characters, reference of 5,000 characters;"
            " --arena-json PATH keeps the whole text)",
        ]
    )


def test_a_scorer_that_calls_sys_exit_is_that_scorers_error(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    loud(make_project, "exits", "exits_quietly", "fine")
    result = pytester.runpytest()
    result.assert_outcomes(passed=1, failed=2)
    assert result.ret == 1
    result.stdout.fnmatch_lines(
        [
            "*_ loud::exits[[]sim_perfect] _*",
            "scorer 'loud' raised SystemExit: 3",
            "",
            "Traceback (most recent call last):",
            '  File "*scorers/loud.py", line 14, in score',
            "    sys.exit(3)",
            "SystemExit: 3",
            "*_ loud::exits_quietly[[]sim_perfect] _*",
            "scorer 'loud' raised SystemExit",
            "*= arena leaderboard: loud =*",
            "*sim_perfect*0.333*3*0*2*",
        ]
    )
    result.stdout.no_fnmatch_line("*_pytest/*")
    result.stdout.no_fnmatch_line("*site-packages*")
    assert len(result.stdout.lines) < 60


def test_a_keyboard_interrupt_in_a_scorer_still_stops_the_run(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    make_project(
        "stop",
        "models: [sim_perfect]\nscorers: {default: stop}\ntests:\n"
        "  - {id: a, input: x, reference: x}\n  - {id: b, input: y, reference: y}\n",
        files={
            "scorers/stop.py": (
                "from pytest_arena.scorers import Scorer\n\n\n"
                "class Stop(Scorer):\n"
                "    name = 'stop'\n\n"
                "    def score(self, output, reference, context):\n"
                "        raise KeyboardInterrupt\n"
            )
        },
    )
    # in this process it would stop this run too
    result = pytester.runpytest_subprocess("--arena-json", "run.json")
    assert result.ret == pytest.ExitCode.INTERRUPTED
    result.stdout.fnmatch_lines(["*KeyboardInterrupt*"])
    result.stdout.no_fnmatch_line("*scorer 'stop' raised*")
    report = json.loads((pytester.path / "run.json").read_text())
    assert (report["exit_status"], report["stopped_early"]) == (2, True)


def test_a_huge_exception_message_is_cut_in_the_reason_and_in_the_traceback(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    loud(make_project, "huge_error", "fine")
    result = pytester.runpytest()
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(
        [
            "scorer 'loud' raised ValueError: vvv*… [[]998,033 more characters cut; *]",
            "Traceback (most recent call last):",
            "*",
            "ValueError: vvv*… [[]999,*more characters cut]",
            "*= arena leaderboard: loud =*",
        ]
    )
    assert len(result.stdout.str()) < 8_000


# the pure functions


def test_clip_leaves_short_text_alone_and_says_how_much_it_cut() -> None:
    assert clip("short", 10) == "short"
    assert (
        clip("x" * 25, 10, "see the report")
        == "x" * 10 + "… [15 more characters cut; see the report]"
    )


def test_the_message_is_one_line_length() -> None:
    assert message("  ok \n") == "ok"
    assert len(message("y" * HUGE)) < MESSAGE_LIMIT + 40


def test_a_long_traceback_keeps_its_start_and_its_end() -> None:
    text = "\n".join(f"line {i}" for i in range(500))
    lines = clip_traceback(text).split("\n")
    assert lines[0] == "line 0" and lines[-1] == "line 499"
    assert "  … [450 lines of the traceback cut]" in lines
    assert len(lines) == 51


def test_texts_are_bounded_whatever_the_record_holds() -> None:
    record = Record(
        "p", "c", "m", FAILED, score=0.0, reason="r" * HUGE, scorer="s", output="o" * HUGE
    )
    record.raw_output, record.reference = "w" * HUGE, {"k": "v" * HUGE}
    text = failure_text(record, "whole in x.json")
    assert len(text) < REASON_LIMIT + 4 * EXCERPT_LIMIT + 400
    assert "raw output of 1,000,000 characters" in text
    assert "reference of 1,000,009 characters" in text
    assert len(error_text(record, "t" * HUGE)) < REASON_LIMIT + 400


def test_tb_line_shows_one_line_for_a_reason_of_several(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    make_project(
        "p",
        "models: [sim_echo]\nscoring: [{scorer: exact_match}, {scorer: contains}]\n"
        "tests:\n  - {id: a, input: '2+2', reference: '4'}\n",
    )
    result = pytester.runpytest("--tb=line", "-p", "no:cacheprovider")
    result.assert_outcomes(failed=1)
    start = result.stdout.lines.index(next(s for s in result.stdout.lines if "FAILURES" in s))
    failure = result.stdout.lines[start + 1 : start + 3]
    assert failure[0] == "projects/p/arena.yaml:4: 0 of 2 components passed …"
    assert failure[1].startswith("=")  # the next section: the reason's other lines are not here
