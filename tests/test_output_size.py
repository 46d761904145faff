"""A scorer's `sys.exit()` is that scorer's error, not a page of pytest's internals."""

from __future__ import annotations

import pytest

from tests.conftest import MakeProject

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
    result = pytester.runpytest_subprocess()  # in this process it would stop this run too
    assert result.ret == pytest.ExitCode.INTERRUPTED
    result.stdout.fnmatch_lines(["*KeyboardInterrupt*"])
    result.stdout.no_fnmatch_line("*scorer 'stop' raised*")
