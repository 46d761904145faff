"""A FLAKY case under a gate: the gate decides whether it fails the run, as it does for
failed cases, and the list of flaky cases says so."""

from __future__ import annotations

import pytest

from tests.conftest import MakeProject
from tests.projects import PATTERNED_AGENT, PATTERNED_PROJECT

CASES = """tests:
  - {id: steady, input: "steady", reference: "yes"}
  - {id: mostly, input: "mostly", reference: "yes"}
"""
GATE = "gate:\n  all:\n    accuracy: {min: 0.5}\n"
SAID = (
    "the 95% interval of their pass rate still holds min_pass_rate after the most samples;"
    " they fail the run unless arena.yaml says 'flaky: pass'"
)


def test_a_gate_that_holds_lets_a_flaky_case_pass_the_run_and_says_so(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    """The run passed, as the gate decided, under a line that said the FLAKY case failed it
    (`flaky: fail`, the default)."""
    make_project("coin", PATTERNED_PROJECT + GATE + CASES, {"agent.py": PATTERNED_AGENT})
    result = pytester.runpytest("-p", "no:cacheprovider")
    assert result.ret == pytest.ExitCode.OK
    result.stdout.fnmatch_lines(
        [
            "FLAKY coin::mostly[[]patterned] - passed 9 of 10; needs 80%",
            f"{SAID} or has a gate, which then decides ('flaky: {{max: 0}}' in it fails the"
            " run on any)",
            "*held    patterned accuracy * within min 0.5*",
            "*1 passed, 1 flaky*",
        ]
    )
    # without the gate deciding, the line is as before and the FLAKY case fails the run
    result = pytester.runpytest("-p", "no:cacheprovider", "--no-arena-gate")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines([SAID])


WHY = "the 95% interval of their pass rate still holds min_pass_rate after the most samples; "


def test_flaky_pass_says_the_flaky_cases_do_not_fail_the_run(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    """Under `flaky: pass` the list still said "they fail the run unless arena.yaml says
    'flaky: pass'" above a run that exited 0; a gate's limit still can fail it."""
    make_project("coin", PATTERNED_PROJECT + "flaky: pass\n" + CASES, {"agent.py": PATTERNED_AGENT})
    result = pytester.runpytest("-p", "no:cacheprovider")
    assert result.ret == pytest.ExitCode.OK
    result.stdout.fnmatch_lines(
        [
            "FLAKY coin::mostly[[]patterned] - passed 9 of 10; needs 80% (flaky: pass)",
            f"{WHY}arena.yaml says 'flaky: pass', so they do not fail the run",
        ]
    )
    assert "they fail the run" not in result.stdout.str()
    gate = "gate:\n  all:\n    flaky: {max: 0}\n"
    project = PATTERNED_PROJECT + "flaky: pass\n" + gate + CASES
    make_project("coin", project, {"agent.py": PATTERNED_AGENT})
    result = pytester.runpytest("-p", "no:cacheprovider")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(
        [
            f"{WHY}arena.yaml says 'flaky: pass', so they do not fail the run unless a limit"
            " of its gate does ('flaky: {max: 0}' fails the run on any)",
            "*failed  patterned flaky 1 outside max 0*",
        ]
    )


def test_a_run_of_projects_with_and_without_flaky_pass_says_which_fail_it(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    """The list's line said one thing for a run whose FLAKY cases fail it in one project
    and not in the other."""
    make_project(
        "lenient", PATTERNED_PROJECT + "flaky: pass\n" + CASES, {"agent.py": PATTERNED_AGENT}
    )
    make_project("strict", PATTERNED_PROJECT + CASES, {"agent.py": PATTERNED_AGENT})
    result = pytester.runpytest("-p", "no:cacheprovider")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(
        [
            "FLAKY lenient::mostly[[]patterned] - passed 9 of 10; needs 80% (flaky: pass)",
            "FLAKY strict::mostly[[]patterned] - passed 9 of 10; needs 80%",
            f"{WHY}those marked (flaky: pass) do not fail the run, as their arena.yaml says so;"
            " the others do, as theirs does not say 'flaky: pass'",
        ]
    )
