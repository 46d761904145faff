"""CI gates: the decision as a pure function of the boards, and the exit status end to end."""

from __future__ import annotations

import json

import pytest

from pytest_arena.record import FAILED, PASSED, Record
from pytest_arena.reports.gates import (
    HELD,
    NOT_RUN,
    check_gate,
    check_gates,
    exit_status,
    gates_of,
)
from pytest_arena.reports.leaderboard import build_board
from tests.conftest import MakeProject
from tests.projects import PATTERNED_AGENT, PATTERNED_PROJECT


def record(model: str, case: str, passed: bool, cost: float = 0.0, **metrics: float) -> Record:
    return Record(
        project="quiz",
        case_id=case,
        model=model,
        status=PASSED if passed else FAILED,
        score=1.0 if passed else 0.0,
        passed=passed,
        cost=cost,
        metrics=dict(metrics),
    )


# sim_small: 1 of 4 right, accuracy 0.25; sim_large: 3 of 4, accuracy 0.75, costs $0.02
BOARD = build_board(
    "quiz",
    [
        *(record("sim_small", f"c{i}", i == 0, recall=0.5) for i in range(4)),
        *(record("sim_large", f"c{i}", i != 0, cost=0.005, recall=0.9) for i in range(4)),
    ],
)


def test_all_applies_to_every_model_and_says_by_how_much() -> None:
    result = check_gate(BOARD, {"all": {"accuracy": {"min": 0.5}}})
    assert not result.held
    by_model = {c.model: c for c in result.checks}
    assert by_model["sim_large"].status == HELD
    assert by_model["sim_large"].margin == pytest.approx(0.25)
    assert by_model["sim_small"].margin == pytest.approx(-0.25)
    assert result.lines() == [
        "gate failed: 1 of 2 checks outside their limits",
        "  held    sim_large accuracy 0.75 within min 0.5 (margin 0.25)",
        "  failed  sim_small accuracy 0.25 outside min 0.5 (short by 0.25)",
    ]


def test_per_model_limits_on_cost_and_custom_metrics() -> None:
    gate = {"models": {"sim_large": {"cost": {"max": 0.01}, "recall": {"min": 0.8, "max": 1}}}}
    result = check_gate(BOARD, gate)
    assert [c.metric for c in result.failed] == ["cost"]  # 4 x $0.005 = $0.02 over $0.01
    assert result.failed[0].margin == pytest.approx(-0.01)
    assert result.checks[1].margin == pytest.approx(0.1)  # recall 0.9: 0.1 from either limit


def test_a_value_at_its_limit_holds_with_margin_0_not_a_rounding_error() -> None:
    """$0.1 + $0.2 is 0.30000000000000004 and three recalls of 0.7 average 0.6999999999999999:
    both held at their limits, "(margin -5.551e-17)", a negative margin for a held check."""
    board = build_board(
        "quiz",
        [
            record("m", f"c{i}", True, cost=cost, recall=0.7)
            for i, cost in enumerate((0.1, 0.2, 0.0))
        ],
    )
    exact = {"min": 0.3, "max": 0.3}
    result = check_gate(board, {"all": {"cost": exact, "recall": {"min": 0.7, "max": 0.7}}})
    assert [c.margin for c in result.checks] == [0.0, 0.0]
    assert result.lines() == [
        "gate held: all 2 checks within their limits",
        "  held    m cost 0.3 within min 0.3 and max 0.3 (margin 0)",
        "  held    m recall 0.7 within min 0.7 and max 0.7 (margin 0)",
    ]


def test_a_value_just_outside_its_limit_shows_enough_digits_to_differ_from_it() -> None:
    """An accuracy of 0.79999 against a min of 0.8 read "failed  m accuracy 0.8 outside min
    0.8 (short by 1e-05)": four significant digits round it to its limit."""
    board = build_board(
        "quiz", [record("m", "c0", True, recall=0.69999), record("m", "c1", True, recall=0.69999)]
    )
    result = check_gate(board, {"all": {"recall": {"min": 0.7}, "accuracy": {"max": 0.99999}}})
    assert result.lines() == [
        "gate failed: 2 of 2 checks outside their limits",
        "  failed  m recall 0.69999 outside min 0.7 (short by 1e-05)",
        "  failed  m accuracy 1 outside max 0.99999 (short by 1e-05)",
    ]
    near = check_gate(board, {"all": {"recall": {"min": 0.6999}}})
    assert near.lines()[1] == "  held    m recall 0.7 within min 0.6999 (margin 9e-05)"


def test_a_metric_no_record_has_fails_with_a_suggestion() -> None:
    result = check_gate(BOARD, {"all": {"acuracy": {"min": 0.1}}})
    assert not result.held
    assert "no record has a metric 'acuracy' (did you mean 'accuracy'?)" in result.lines()[1]


def test_a_model_that_did_not_run_is_not_checked_and_does_not_fail() -> None:
    result = check_gate(BOARD, {"models": {"sim_perfect": {"accuracy": {"min": 0.9}}}})
    assert result.held
    assert result.checks[0].status == NOT_RUN
    assert result.headline() == (
        "gate checked nothing: no limit names a model this run graded cases of,"
        " so it decides nothing"
    )


def test_a_gate_that_checked_nothing_leaves_a_failing_run_failed() -> None:
    result = check_gate(BOARD, {"models": {"sim_perfect": {"accuracy": {"min": 0.9}}}})
    assert exit_status(1, [result], 0) == 1  # it turned every failed case green (exit 0)
    assert exit_status(0, [result], 0) == 0


def test_a_gate_that_checked_nothing_keeps_only_its_own_projects_failures() -> None:
    nothing = check_gate(BOARD, {"models": {"sim_perfect": {"accuracy": {"min": 0.9}}}})
    other = build_board("other", [Record(project="other", case_id="x", model="m", status=FAILED)])
    held = check_gate(other, {"all": {"accuracy": {"min": 0}}})
    assert exit_status(1, [nothing, held], 0, failed_projects={"other"}) == 0
    assert exit_status(1, [nothing, held], 0, failed_projects={"quiz", "other"}) == 1


def test_only_projects_with_a_gate_are_checked() -> None:
    with_gate = record("sim_small", "c0", True)
    with_gate.board = {"gate": {"all": {"pass_rate": {"min": 1.0}}}}
    other = Record(project="other", case_id="x", model="sim_small", status=PASSED)
    gates = gates_of([with_gate, other])
    assert gates == {"quiz": {"all": {"pass_rate": {"min": 1.0}}}}
    other_board = build_board("other", [other])
    assert [r.project for r in check_gates([BOARD, other_board], gates)] == ["quiz"]


@pytest.mark.parametrize(
    ("current", "held", "outside", "enabled", "stopped", "expected"),
    [
        (1, True, 0, True, False, 0),  # failed cases, gate held: ok
        (0, False, 0, True, False, 1),  # every case passed, gate failed: fail
        (1, True, 1, True, False, 1),  # a failure no gate covers still fails the run
        (1, True, 0, False, False, 1),  # --no-arena-gate: pytest's own status
        (1, True, 0, True, True, 1),  # stopped early by -x: the gate saw part of the run
        (2, True, 0, True, False, 2),  # interrupted
        (4, True, 0, True, False, 4),  # usage error
    ],
)
def test_the_exit_status_follows_the_gates_only_between_ok_and_failed(
    current: int, held: bool, outside: int, enabled: bool, stopped: bool, expected: int
) -> None:
    gate = {"all": {"accuracy": {"min": 0.1 if held else 0.9}}}
    results = check_gates([BOARD], {"quiz": gate})
    assert results[0].held is held
    status = exit_status(current, results, outside, enabled=enabled, stopped_early=stopped)
    assert status == expected


def test_without_gates_the_status_is_left_alone() -> None:
    assert exit_status(1, [], 0) == 1
    assert exit_status(0, [], 0) == 0


QUIZ = """
models: [sim_perfect, sim_echo]
{gate}
tests:
  - id: capital
    input: "Capital of France?"
    reference: Paris
  - id: sum
    input: "2+2?"
    reference: "4"
"""
# sim_perfect answers both (pass rate 1.0); sim_echo repeats the prompt and fails both (0.0)
ECHOED = """
models: [sim_perfect, sim_echo]
{gate}
tests:
  - id: echo_ok
    input: hello
    reference: hello
"""
# a case both models pass


def test_a_held_gate_makes_the_run_pass_while_failed_cases_still_show_failed(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    make_project("quiz", QUIZ.format(gate="gate: {models: {sim_perfect: {pass_rate: {min: 1}}}}"))
    result = pytester.runpytest("-rf")
    result.assert_outcomes(passed=2, failed=2)
    assert result.ret == 0
    result.stdout.fnmatch_lines(
        [
            "*= arena leaderboard: quiz =*",
            "*",
            "*- arena gate: quiz -*",
            "gate held: all 1 checks within their limits",
            "  held    sim_perfect pass_rate 1 within min 1 (margin 0)",
            "exit status 0 (not 1): the gates decide for their projects;*",
            "FAILED projects/quiz/arena.yaml::capital[[]sim_echo]*",
        ]
    )


def test_a_failed_gate_fails_a_run_whose_cases_all_pass(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    make_project("quiz", QUIZ.format(gate="gate: {all: {cost: {max: -1}}}"))
    result = pytester.runpytest("--arena-models", "sim_perfect")
    result.assert_outcomes(passed=2)
    assert result.ret == 1
    result.stdout.fnmatch_lines(
        [
            "gate failed: 1 of 1 checks outside their limits",
            "  failed  sim_perfect cost 0 outside max -1 (short by 1)",
        ]
    )


def test_no_arena_gate_lets_failed_cases_decide_and_arena_gate_turns_it_back_on(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    make_project("quiz", QUIZ.format(gate="gate: {all: {accuracy: {min: 0}}}"))
    off = pytester.runpytest("--no-arena-gate")
    off.assert_outcomes(passed=2, failed=2)
    assert off.ret == 1
    off.stdout.fnmatch_lines(["gate held:*", "*", "*", "gates did not decide the exit status*"])
    on = pytester.runpytest("--no-arena-gate", "--arena-gate")
    assert on.ret == 0


def test_a_failing_python_test_still_fails_a_gated_run(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    make_project("quiz", QUIZ.format(gate="gate: {all: {accuracy: {min: 0}}}"))
    pytester.makepyfile(test_plain="def test_plain():\n    assert False\n")
    result = pytester.runpytest()
    result.assert_outcomes(passed=2, failed=3)
    assert result.ret == 1
    result.stdout.fnmatch_lines(["the gates held, but 1 failure(s) outside any gate*"])


def test_a_gate_that_checked_nothing_does_not_keep_another_projects_failures(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    """A gate naming only a model that did not run decides nothing, for its project alone:
    the held gate of another project still decides for that project's failed cases."""
    make_project("ga", ECHOED.format(gate="gate: {models: {sim_large: {accuracy: {min: 0.9}}}}"))
    make_project("gb", QUIZ.format(gate="gate: {all: {accuracy: {min: 0}}}"))
    result = pytester.runpytest()
    result.assert_outcomes(passed=4, failed=2)
    assert result.ret == 0
    result.stdout.fnmatch_lines(["exit status 0 (not 1): the gates decide for their projects;*"])


def test_a_failed_case_under_a_gate_that_checked_nothing_fails_the_run_saying_why(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    make_project("ga", QUIZ.format(gate="gate: {models: {sim_large: {accuracy: {min: 0.9}}}}"))
    make_project("gb", QUIZ.format(gate="gate: {all: {accuracy: {min: 0}}}"))
    result = pytester.runpytest()
    result.assert_outcomes(passed=4, failed=4)
    assert result.ret == 1
    result.stdout.fnmatch_lines(
        ["the gates held, but 2 failure(s) outside any gate*whose gate checked nothing*"]
    )


def test_a_misspelt_metric_fails_the_gate_naming_its_line_and_the_metric_meant(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    make_project("quiz", QUIZ.format(gate="gate:\n  all:\n    acuracy: {min: 0.5}"))
    result = pytester.runpytest("--arena-models", "sim_perfect")
    result.assert_outcomes(passed=2)
    assert result.ret == 1
    result.stdout.fnmatch_lines(
        [
            "gate failed: 1 of 1 checks outside their limits",
            "  failed  sim_perfect acuracy (limit min 0.5): no record has a metric 'acuracy'"
            " (did you mean 'accuracy'?); the gate names it at projects/quiz/arena.yaml:4",
        ]
    )


def test_a_broken_case_in_a_gated_project_still_fails_the_run(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    broken = QUIZ.format(gate="gate: {all: {accuracy: {min: 0}}}")
    broken += "  - id: odd\n    input: hi\n    eval_type: no_such_scorer\n"
    make_project("quiz", broken)
    result = pytester.runpytest("--arena-models", "sim_perfect")
    result.assert_outcomes(passed=2, errors=1)
    assert result.ret == 1
    result.stdout.fnmatch_lines(["the gates held, but 1 failure(s) outside any gate*"])


def test_projects_without_a_gate_keep_pytest_semantics(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    make_project("quiz", QUIZ.format(gate="gate: {all: {accuracy: {min: 0}}}"))
    make_project("plain", QUIZ.format(gate="").replace("sim_perfect, ", ""))
    result = pytester.runpytest()
    result.assert_outcomes(passed=2, failed=4)
    assert result.ret == 1


def test_a_gated_run_stopped_by_x_still_fails(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    make_project("quiz", QUIZ.format(gate="gate: {all: {accuracy: {min: 0}}}"))
    result = pytester.runpytest("-x")
    assert result.ret == 1


@pytest.mark.parametrize(
    ("gate", "expected"),
    [
        (
            "gate: {all: {accuracy: {mini: 0.8}}}",
            [
                "projects/quiz/arena.yaml:2: gate.all.accuracy.mini: unknown key 'mini'",
                "  fix: did you mean 'min'? known keys here: max, min",
            ],
        ),
        (
            "gate:\n  all:\n    accuracy: {min: 0.9, max: 0.5}",
            ["projects/quiz/arena.yaml:4: gate.all.accuracy: min 0.9 is above max 0.5*"],
        ),
        (
            "gate: {all: {accuracy: {}}}",
            ["*gate.all.accuracy: give the limit as 'min: NUMBER', 'max: NUMBER' or both"],
        ),
        (
            "gate:\n  models:\n    sim_perfekt: {accuracy: {min: 1}}",
            [
                "projects/quiz/arena.yaml:4: gate.models.sim_perfekt: the gate names model 'sim_perfekt', which is neither*",
                "  fix: did you mean 'sim_perfect'? known models:*",
            ],
        ),
    ],
)
def test_a_bad_gate_is_an_error_naming_file_line_and_fix(
    pytester: pytest.Pytester, make_project: MakeProject, gate: str, expected: list[str]
) -> None:
    make_project("quiz", QUIZ.format(gate=gate))
    result = pytester.runpytest()
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(expected)


def test_a_run_whose_last_case_stopped_it_ran_every_case(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    """-x on a failure of the last case said "the run stopped early ... not the whole
    benchmark", and the gate that held was overruled (exit 1, stopped_early true)."""
    make_project(
        "quiz",
        "models: [sim_echo]\ngate:\n  all: {accuracy: {min: 0.5}}\ntests:\n"
        "  - {id: one, input: one, reference: one}\n"
        "  - {id: two, input: two, reference: two}\n"
        "  - {id: three, input: three, reference: '3'}\n",
    )
    result = pytester.runpytest("-x", "-p", "no:randomly", "--arena-json=r.json")
    assert result.ret == 0
    assert "stopped early" not in result.stdout.str()
    data = json.loads((pytester.path / "r.json").read_text())
    assert (data["stopped_early"], data["exit_status"]) == (False, 0)


def test_stepwise_stops_at_a_failure_as_x_does(pytester: pytest.Pytester) -> None:
    """--sw waited for every case's call to be answered (and paid) before its first."""
    from pytest_arena.plugin.collect import stops_at_a_failure

    for args, stops in (((), False), (("-x",), True), (("--sw",), True), (("--sw-skip",), True)):
        config = pytester.parseconfigure(*args)
        assert stops_at_a_failure(config) is stops, args


COIN = (
    PATTERNED_PROJECT
    + """gate:
  models:
    patterned: {flaky: {max: %s}}
tests:
  - {id: steady, input: "steady", reference: "yes"}
  - {id: mostly, input: "mostly", reference: "yes"}
"""
)


@pytest.mark.parametrize(("most", "status", "line"), [(0, 1, "failed"), (1, 0, "held")])
def test_a_gate_on_flaky_counts_the_cases_still_undecided(
    pytester: pytest.Pytester, make_project: MakeProject, most: int, status: int, line: str
) -> None:
    """The leaderboard had a flaky column, and a gate on it failed with "no record has a
    metric 'flaky'"."""
    make_project("coin", COIN % most, {"agent.py": PATTERNED_AGENT})
    result = pytester.runpytest("-p", "no:cacheprovider")
    result.stdout.fnmatch_lines(["*rank*model*flaky*", "*1*patterned*1*"])
    suffix = "outside max 0 (short by 1)" if most == 0 else "within max 1 (margin 0)"
    result.stdout.fnmatch_lines([f"  {line:6}  patterned flaky 1 {suffix}"])
    assert "no record has a metric" not in result.stdout.str()
    assert result.ret == status
