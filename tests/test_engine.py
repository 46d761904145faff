"""The engine: calls run ahead within each model's limits, retry, time out, stop cleanly."""

from __future__ import annotations

import importlib
import json
import os
import signal
import sys
import threading
import time
from pathlib import Path

import jsonschema
import pytest

from pytest_arena.connectors import Connector, Request, build_connector
from pytest_arena.engine.budget import Budget
from pytest_arena.engine.calls import THREAD_NAME, Engine
from pytest_arena.engine.limits import Limits
from pytest_arena.engine.money import dollars
from pytest_arena.plugin.collect import HEAD_START
from pytest_arena.reports.json_report import schema
from pytest_arena.spec import Case
from pytest_arena.spec.schema import ModelDef
from tests.conftest import XDIST, MakeProject, run_to_interrupt
from tests.fake_llm_server import FakeLLMServer
from tests.projects import BUDGET_PROJECT, local_openai

# A connector whose behaviour each case asks for in its input, and which logs what happened
# to a file that the test reads afterwards: calls, the most calls in flight at once,
# cancellations.
PLUGIN = """
import asyncio, json, os, time
from pydantic import BaseModel
from pytest_arena.connectors.base import Connector, ConnectorError, Response

LOG = os.environ["ARENA_TEST_LOG"]
state = {"in_flight": 0, "peak": 0, "tries": {}}


def log(**event):
    with open(LOG, "a") as f:
        f.write(json.dumps(event) + "\\n")


class Settings(BaseModel):
    delay: float = 0.05


class Scripted(Connector):
    name = "scripted"
    settings_model = Settings
    cacheable = False

    async def acomplete(self, request):
        case = request.case.id
        what = request.prompt
        tries = state["tries"][case] = state["tries"].get(case, 0) + 1
        state["in_flight"] += 1
        state["peak"] = max(state["peak"], state["in_flight"])
        log(event="start", case=case, t=time.monotonic(), peak=state["peak"], pid=os.getpid())
        try:
            if what.startswith("flaky") and tries <= int(what.split()[1]):
                raise ConnectorError("429 too many requests", retryable=True, retry_after=0.01)
            if what == "broken":
                raise ConnectorError("400 bad request: no such model")
            if what == "late broken":
                await asyncio.sleep(0.5)
                raise ConnectorError("400 bad request: no such model")
            await asyncio.sleep(30 if what == "hang" else self.settings.delay)
        except asyncio.CancelledError:
            log(event="cancelled", case=case)
            raise
        finally:
            state["in_flight"] -= 1
        log(event="done", case=case)
        return Response(request.case.reference, tokens_in=10, tokens_out=10)


def pytest_arena_connectors():
    return [Scripted]
"""


def project(cases: list[tuple[str, str]], settings: str = "") -> str:
    lines = [
        "models:",
        "  default: [m]",
        "  define:",
        f"    m: {{connector: scripted{settings}}}",
        "tests:",
    ]
    lines += [f"  - {{id: {cid}, input: '{text}', reference: ok}}" for cid, text in cases]
    return "\n".join(lines) + "\n"


@pytest.fixture
def log_file(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> object:
    path = pytester.path / "calls.log"
    monkeypatch.setenv("ARENA_TEST_LOG", str(path))
    pytester.makepyfile(arena_scripted=PLUGIN)
    pytester.syspathinsert()
    return path


def events(pytester: pytest.Pytester) -> list[dict[str, object]]:
    import json

    path = pytester.path / "calls.log"
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_calls_run_ahead_up_to_the_models_concurrency_and_no_further(
    pytester: pytest.Pytester, make_project: MakeProject, log_file: object
) -> None:
    make_project("p", project([(f"c{i}", "work") for i in range(12)], ", concurrency: 4"))
    result = pytester.runpytest("-p", "arena_scripted")
    result.assert_outcomes(passed=12)
    starts = [e for e in events(pytester) if e["event"] == "start"]
    assert len(starts) == 12
    assert max(int(str(e["peak"])) for e in starts) == 4
    # every call started before the first item finished waiting: they ran ahead
    assert [e["case"] for e in starts[:4]] == ["c0", "c1", "c2", "c3"]


ITEM_LOG = """
import json, os


def pytest_runtest_call(item):
    with open(os.environ["ARENA_TEST_LOG"], "a") as f:
        f.write(json.dumps({"event": "item", "case": item.name.split("[")[0]}) + "\\n")
"""


def test_calls_start_only_so_many_items_ahead_of_the_item_running(
    pytester: pytest.Pytester,
    make_project: MakeProject,
    log_file: object,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A benchmark of any size holds the requests and answers of AHEAD items at most: the
    next items' calls start as items run, TOP_UP at a time, and every case is answered."""
    collect = importlib.import_module("pytest_arena.plugin.collect")  # the inner run's
    monkeypatch.setattr(collect, "AHEAD", 6)
    monkeypatch.setattr(collect, "TOP_UP", 2)
    monkeypatch.setattr(collect, "HEAD_START", 0.0)  # no head start: the next test takes it
    pytester.makeconftest(ITEM_LOG)
    make_project("p", project([(f"c{i}", "work") for i in range(30)], ", concurrency: 16"))
    pytester.runpytest("-p", "arena_scripted", "-p", "no:randomly").assert_outcomes(passed=30)
    started, ahead = 0, []  # as each item ran, the calls started of the items after it
    for event in events(pytester):
        if event["event"] == "start":
            started += 1
        elif event["event"] == "item":
            ahead.append(started - len(ahead) - 1)
    assert started == 30 and len(ahead) == 30
    assert 4 <= max(ahead) <= 6  # ahead, and never more than 6 items


def test_the_head_start_starts_the_next_items_calls_as_the_first_are_answered(
    pytester: pytest.Pytester,
    make_project: MakeProject,
    log_file: object,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Calls answered at once run alone for up to HEAD_START seconds, as many as they are:
    AHEAD items' at a time, each lot once the one before it is answered."""
    collect = importlib.import_module("pytest_arena.plugin.collect")
    monkeypatch.setattr(collect, "AHEAD", 6)
    pytester.makeconftest(ITEM_LOG)
    make_project("p", project([(f"c{i}", "work") for i in range(30)], ", concurrency: 16"))
    pytester.runpytest("-p", "arena_scripted", "-p", "no:randomly").assert_outcomes(passed=30)
    log = events(pytester)
    first_item = next(i for i, event in enumerate(log) if event["event"] == "item")
    assert sum(event["event"] == "done" for event in log[:first_item]) == 30  # all, alone
    done: set[int] = set()
    for event in log:
        number = int(str(event["case"])[1:])
        if event["event"] == "start":  # its lot's: the lots before it were all answered
            assert done >= set(range(number - number % 6)), (number, sorted(done))
        elif event["event"] == "done":
            done.add(number)


def test_a_retryable_error_is_tried_again_and_the_retries_are_recorded(
    pytester: pytest.Pytester, make_project: MakeProject, log_file: object
) -> None:
    make_project(
        "p", project([("flaky", "flaky 2"), ("steady", "work")], ", max_retries: 3, backoff: 0.01")
    )
    result = pytester.runpytest("-p", "arena_scripted", "--junitxml=out.xml")
    result.assert_outcomes(passed=2)
    tries = [e["case"] for e in events(pytester) if e["event"] == "start"]
    assert tries.count("flaky") == 3 and tries.count("steady") == 1


def test_retries_end_and_the_failure_says_how_often_it_was_tried(
    pytester: pytest.Pytester, make_project: MakeProject, log_file: object
) -> None:
    make_project("p", project([("flaky", "flaky 9"), ("fine", "work")], ", max_retries: 2"))
    result = pytester.runpytest("-p", "arena_scripted")
    result.assert_outcomes(passed=1, errors=0, failed=1)
    result.stdout.fnmatch_lines(["*model 'm' call failed: 429 too many requests after 3 tries*"])


def test_an_error_that_cannot_pass_by_waiting_is_not_retried(
    pytester: pytest.Pytester, make_project: MakeProject, log_file: object
) -> None:
    make_project("p", project([("bad", "broken")]))
    result = pytester.runpytest("-p", "arena_scripted")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*model 'm' call failed: 400 bad request: no such model"])
    assert [e["event"] for e in events(pytester)] == ["start"]


def test_a_call_that_takes_too_long_times_out_and_is_cancelled(
    pytester: pytest.Pytester, make_project: MakeProject, log_file: object
) -> None:
    make_project(
        "p", project([("slow", "hang"), ("quick", "work")], ", timeout: 0.2, max_retries: 0")
    )
    result = pytester.runpytest("-p", "arena_scripted")
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(["*no answer within 0.2 s (the model's timeout)*"])
    assert {"event": "cancelled", "case": "slow"} in events(pytester)


def test_stopping_at_the_first_failure_cancels_pending_calls_and_leaves_no_thread(
    pytester: pytest.Pytester, make_project: MakeProject, log_file: object
) -> None:
    before = set(threading.enumerate())
    cases = [("bad", "broken"), *[(f"c{i}", "hang") for i in range(5)]]
    make_project("p", project(cases, ", concurrency: 3"))
    result = pytester.runpytest("-p", "arena_scripted", "-x")
    result.assert_outcomes(failed=1)
    started = {e["case"] for e in events(pytester) if e["event"] == "start"}
    cancelled = {e["case"] for e in events(pytester) if e["event"] == "cancelled"}
    # three slots: 'bad', c0 and c1 start; c2 may take the slot 'bad' freed before the stop
    assert {"bad", "c0", "c1"} <= started <= {"bad", "c0", "c1", "c2"}
    assert cancelled == started - {"bad"}
    assert not [t for t in set(threading.enumerate()) - before if t.name == THREAD_NAME]


PRICED = ", price: {input_per_mtok: 1000000, output_per_mtok: 1000000}"
CUT_OFF = (
    "and an unknown amount on {} cut off in flight when the run stopped (a provider may"
    " bill what it had generated)"
)


def test_calls_the_stop_cuts_off_in_flight_are_said_as_spent_unknown(
    pytester: pytest.Pytester, make_project: MakeProject, log_file: object
) -> None:
    """A call asked and not answered when -x stopped the run may be billed: the spend line
    and the JSON report count it, priced model or not; a call still waiting for its place
    among the model's calls in flight was never asked, and is not counted."""
    cases = [("bad", "broken"), *[(f"c{i}", "hang") for i in range(5)]]
    make_project("p", project(cases, ", concurrency: 3" + PRICED))
    result = pytester.runpytest("-p", "arena_scripted", "-x", "--arena-json=r.json")
    result.assert_outcomes(failed=1)
    cancelled = [e["case"] for e in events(pytester) if e["event"] == "cancelled"]
    assert 2 <= len(cancelled) <= 3  # c0 and c1, and c2 if it took bad's place before the stop
    said = f"{len(cancelled)} calls"
    result.stdout.fnmatch_lines(
        ["arena: 0 answers graded; $0.00 spent on models and judges, " + CUT_OFF.format(said)]
    )
    spend = json.loads((pytester.path / "r.json").read_text())["spend"]
    assert (spend["calls_cut_off"], spend["total"]) == (len(cancelled), 0.0)


@pytest.mark.parametrize("after", [0.3, HEAD_START + 0.6], ids=["head start", "items"])
def test_ctrl_c_says_the_calls_it_cut_off_in_flight(
    pytester: pytest.Pytester, make_project: MakeProject, log_file: object, after: float
) -> None:
    """Ctrl-C while the calls have their head start, or once h0's item waits for its call:
    the engine is closed before the summary, which counts both calls."""
    make_project("p", project([("ok", "work"), ("h0", "hang"), ("h1", "hang")]))
    env = {**os.environ, "PYTHONPATH": str(pytester.path)}
    run = run_to_interrupt(pytester.path, "-p", "arena_scripted", "--arena-json=r.json", env=env)
    try:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and "ok" not in {
            e["case"] for e in events(pytester) if e["event"] == "done"
        }:
            time.sleep(0.05)
        time.sleep(after)
        run.send_signal(signal.SIGINT)
        out, _ = run.communicate(timeout=30)
    finally:
        run.kill()
    assert "KeyboardInterrupt" in out, out
    cancelled = sorted(str(e["case"]) for e in events(pytester) if e["event"] == "cancelled")
    assert cancelled == ["h0", "h1"], out
    assert CUT_OFF.format("2 calls") in out
    assert json.loads((pytester.path / "r.json").read_text())["spend"]["calls_cut_off"] == 2


def test_a_run_that_stops_with_no_call_in_flight_says_none_was_cut_off(
    pytester: pytest.Pytester, make_project: MakeProject, log_file: object
) -> None:
    make_project("p", project([("bad", "late broken"), ("ok", "work")], PRICED))
    for args in (("-x",), ()):  # bad fails after ok's call was answered; the whole run, too
        result = pytester.runpytest("-p", "arena_scripted", "--arena-json=r.json", *args)
        assert "cut off" not in result.stdout.str()
        assert json.loads((pytester.path / "r.json").read_text())["spend"]["calls_cut_off"] == 0


def test_xdist_workers_say_the_calls_their_stop_cut_off_to_the_controller(
    pytester: pytest.Pytester,
    make_project: MakeProject,
    log_file: object,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The controller has no engine of its own: each worker counts the calls its engine cut
    off, and the controller's spend line adds them up (one file: one worker runs it all)."""
    monkeypatch.setenv("PYTHONPATH", str(pytester.path))
    cases = [("bad", "broken"), ("c0", "hang"), ("c1", "hang")]
    make_project("p", project(cases, ", concurrency: 3"))
    result = pytester.runpytest_subprocess(
        *XDIST, "-p", "arena_scripted", "-n", "2", "--dist", "loadfile", "-x"
    )
    result.assert_outcomes(failed=1)
    cancelled = [e["case"] for e in events(pytester) if e["event"] == "cancelled"]
    assert sorted(cancelled) == ["c0", "c1"]
    result.stdout.fnmatch_lines(["arena: *, " + CUT_OFF.format("2 calls")])


def test_answers_paid_for_cases_the_run_stopped_before_are_counted(
    pytester: pytest.Pytester, make_project: MakeProject, log_file: object
) -> None:
    # the first case fails after the next three were answered, at $20 each (10 + 10 tokens)
    price = ", delay: 0, price: {input_per_mtok: 1000000, output_per_mtok: 1000000}"
    cases = [("bad", "late broken"), *[(f"c{i}", "work") for i in range(3)]]
    make_project("p", project(cases, price))
    result = pytester.runpytest("-p", "arena_scripted", "-x")
    result.assert_outcomes(failed=1)
    assert [e["case"] for e in events(pytester) if e["event"] == "done"] == ["c0", "c1", "c2"]
    result.stdout.fnmatch_lines(
        [
            "arena: 0 answers graded; $0.00 spent on models and judges,"
            " and $60.00 on answers no case was graded by (of cases the run stopped, skipped,"
            " cut short or ran again)"
        ]
    )


def test_answers_paid_for_by_xdist_workers_are_counted_when_no_case_graded_them(
    pytester: pytest.Pytester,
    make_project: MakeProject,
    log_file: object,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The controller has no engine: what its workers paid for answers that no case graded
    (under -x) went unsaid, the line adding up only the records."""
    monkeypatch.setenv("PYTHONPATH", str(pytester.path))
    price = ", delay: 0.02, price: {input_per_mtok: 1000000, output_per_mtok: 1000000}"
    cases = [("bad", "late broken"), *[(f"c{i}", "work") for i in range(9)]]
    make_project("p", project(cases, price))
    result = pytester.runpytest_subprocess(*XDIST, "-p", "arena_scripted", "-n", "2", "-x")
    answered = [e for e in events(pytester) if e["event"] == "done"]
    graded = result.parseoutcomes().get("passed", 0)
    unrecorded = 20 * (len(answered) - graded)
    assert unrecorded > 0, result.stdout.str()  # calls ahead of the stop were answered
    result.stdout.fnmatch_lines(
        [f"arena: * and ${unrecorded:.2f} on answers no case was graded by (of cases the run*"]
    )


def test_collect_only_and_deselected_items_make_no_calls(
    pytester: pytest.Pytester, make_project: MakeProject, log_file: object
) -> None:
    make_project("p", project([("one", "work"), ("two", "work"), ("three", "work")]))
    pytester.runpytest("-p", "arena_scripted", "--collect-only", "-q")
    assert events(pytester) == []
    result = pytester.runpytest("-p", "arena_scripted", "-k", "two")
    result.assert_outcomes(passed=1, deselected=2)
    assert [e["case"] for e in events(pytester) if e["event"] == "start"] == ["two"]


def test_requests_per_minute_space_the_calls_out(
    pytester: pytest.Pytester, make_project: MakeProject, log_file: object
) -> None:
    make_project("p", project([(f"c{i}", "work") for i in range(6)], ", rpm: 600, delay: 0"))
    pytester.runpytest("-p", "arena_scripted").assert_outcomes(passed=6)
    # 600 a minute: the n-th call starts n times 0.1 s after the first, or later
    assert_spaced([float(str(e["t"])) for e in events(pytester) if e["event"] == "start"], 0.1)


def assert_spaced(times: list[float], interval: float) -> None:
    """The n-th call started n `interval`s after the first was let in, or later. Read from
    the first call's own start, which a busy machine may make late by up to LATE (a call
    that wakes late leaves a shorter gap to the next one, which starts on time)."""
    assert len(times) == 6
    assert all(t - times[0] >= interval * n - LATE for n, t in enumerate(times)), times


LATE = 0.05  # seconds; calls not spaced at all, or at half the interval, are still caught


def test_calls_waiting_for_their_rpm_slot_are_not_sent_once_the_budget_is_spent(
    pytester: pytest.Pytester, make_project: MakeProject, log_file: object
) -> None:
    """Every call was checked against the budget before it waited for its slot, never after:
    ten calls at $20 each were all sent against a cap of $50."""
    settings = ", rpm: 600, delay: 0, price: {input_per_mtok: 1000000, output_per_mtok: 1000000}"
    make_project("p", project([(f"c{i}", "work") for i in range(10)], settings))
    result = pytester.runpytest("-p", "arena_scripted", "--arena-max-cost", "50", "-rs")
    started = [e for e in events(pytester) if e["event"] == "start"]
    assert len(started) <= 4  # the calls in flight when the cap was reached, at most
    outcomes = result.parseoutcomes()
    assert outcomes["skipped"] >= 6 and outcomes["passed"] == len(started)


def test_tokens_per_minute_space_the_calls_out_by_the_tokens_they_used(
    pytester: pytest.Pytester, make_project: MakeProject, log_file: object
) -> None:
    # each call reads 10 tokens (40 characters) and writes 10; before the first answer an
    # answer is guessed as long as the input: 20 tokens a call, at 200 a second one every 0.1 s
    make_project("p", project([(f"c{i}", "word " * 8) for i in range(6)], ", tpm: 12000, delay: 0"))
    pytester.runpytest("-p", "arena_scripted").assert_outcomes(passed=6)
    assert_spaced([float(str(e["t"])) for e in events(pytester) if e["event"] == "start"], 0.1)


def test_a_spent_budget_skips_the_calls_not_yet_started_and_says_how_much_went(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    make_project("p", BUDGET_PROJECT)
    # sim_large: $3 per million input tokens; each call reads about 170 tokens
    result = pytester.runpytest("--arena-max-cost", "0.001", "-rs")
    outcomes = result.parseoutcomes()
    assert outcomes["skipped"] == 4 and outcomes.get("passed", 0) + outcomes.get("failed", 0) == 2
    result.stdout.fnmatch_lines(
        [
            "SKIPPED*projects/p/arena.yaml:*: budget spent: $0.00*of $0.001 (--arena-max-cost); call not started"
        ]
    )


def test_an_amount_of_dollars_is_written_with_its_cents(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    """An answer of $0.50 against a cap of $0.40 read "budget spent: $0.5 of $0.4"."""
    pytester.makepyfile(
        **{"projects/p/agent": "def run(prompt):\n    return {'text': 'x', 'cost': 0.5}\n"}
    )
    make_project(
        "p",
        """
        models:
          default: [mine]
          define: {mine: {connector: python, callable: "agent:run", concurrency: 1}}
        tests:
          - {id: a, input: q, reference: x}
          - {id: b, input: q, reference: x}
        """,
    )
    result = pytester.runpytest("--arena-max-cost", "0.4", "-rs", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=1, skipped=1)
    result.stdout.fnmatch_lines(
        [
            "arena: 1 answer graded; $0.50 spent on models and judges; 1 not run: budget spent",
            "SKIPPED*: budget spent: $0.50 of $0.40 (--arena-max-cost); call not started",
        ]
    )
    assert [dollars(a) for a in (0.1, 0.0042, 0.000013, 0.0, 1.5, 12.345)] == [
        "$0.10",
        "$0.0042",
        "$0.000013",
        "$0.00",
        "$1.50",
        "$12.35",
    ]


def test_a_board_of_models_the_budget_stopped_unevenly_says_the_budget_may_be_why(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    """The note on cases some models did not answer blamed 'models:' or the run's selection
    alone, though the budget had kept them from running."""
    make_project(
        "p", BUDGET_PROJECT.replace("models: [sim_large]", "models: [sim_large, sim_small]")
    )
    result = pytester.runpytest("--arena-max-cost", "0.001")
    result.stdout.fnmatch_lines(
        ["note: * ran on only some models (*, or items not run: a spent budget, -x)*"]
    )


def test_a_repeated_case_the_budget_cuts_short_says_how_many_samples_it_had(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    """It said "call not started", though two of its samples were answered and paid for."""
    make_project(
        "p",
        "models:\n  default: [pricey]\n  define:\n    pricey: {accuracy: 1.0, price:"
        " {input_per_mtok: 100000, output_per_mtok: 100000}}\n"
        "budget: {max_cost: 1.5}\nrepeat: 5\n"
        "tests:\n  - {id: a, input: hello there, reference: hello there}\n",
    )
    result = pytester.runpytest("-p", "no:cacheprovider", "-rs", "--arena-json", "run.json")
    result.assert_outcomes(skipped=1)
    result.stdout.fnmatch_lines(
        [
            "SKIPPED*arena.yaml:*: budget spent: $* of $1.50 (budget.max_cost in arena.yaml"
            " of project p); call not started (after 2 of its samples: too few for a verdict)"
        ]
    )
    # no case was graded, and the line says what was spent all the same (it said nothing)
    result.stdout.fnmatch_lines(
        [
            "arena: 0 answers graded; $0.00 spent on models and judges, and $2.20 on answers"
            " no case was graded by (of cases the run stopped, skipped, cut short or ran again);"
            " 1 not run: budget spent"
        ]
    )
    # and the JSON report says so too: the case has no record, its samples' money is there
    report = json.loads((pytester.path / "run.json").read_text())
    assert report["records"] == []
    spend = report["spend"]
    assert (spend["on_graded"], spend["budget_skips"]) == (0, 1)
    assert spend["total"] == spend["on_ungraded"] == pytest.approx(2.2)
    jsonschema.validate(report, schema())


def test_a_case_whose_judge_the_budget_refuses_is_skipped_not_an_error(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    """It failed as 'scorer llm_judge raised JudgeError': an error, a 0 against the model on
    its board and in its gates, for money the run had decided not to spend."""
    make_project(
        "j",
        """
models:
  default: [m]
  define:
    m: {profile: sim_perfect, latency_ms: 5, price: {input_per_mtok: 100000, output_per_mtok: 0}}
    pj: {profile: sim_judge, price: {input_per_mtok: 100000, output_per_mtok: 0}}
judge: {model: pj}
scoring: [{scorer: llm_judge}]
budget: {max_cost: 2}
tests:
  - {id: a, input: one, reference: one}
  - {id: b, input: two, reference: two}
  - {id: c, input: three, reference: three}
""",
    )
    result = pytester.runpytest("-p", "no:cacheprovider", "-p", "no:randomly", "-rs")
    outcomes = result.parseoutcomes()
    assert outcomes["skipped"] == 2 and "errors" not in outcomes
    result.stdout.fnmatch_lines(
        [
            "*1 answer graded;*; 2 not run: budget spent",
            "SKIPPED*arena.yaml:*: budget spent: * (budget.max_cost in arena.yaml of project j);"
            " call not started (the judge's call)",
        ]
    )


def test_a_project_budget_applies_to_that_project_only(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    make_project("thrifty", BUDGET_PROJECT + "budget: {max_cost: 0.0005}\n")
    make_project("free", BUDGET_PROJECT)
    result = pytester.runpytest("-rs")
    assert result.parseoutcomes()["skipped"] == 5
    result.stdout.fnmatch_lines(
        [
            "SKIPPED*projects/thrifty/arena.yaml:*: budget spent: $0.000* of $0.0005 (budget.max_cost in arena.yaml of project thrifty); call not started"
        ]
    )


@pytest.mark.parametrize("cap", ["--arena-max-cost", "project"])
def test_a_capped_run_makes_no_call_to_an_api_model_it_has_no_price_for(
    pytester: pytest.Pytester, make_project: MakeProject, fake_llm: FakeLLMServer, cap: str
) -> None:
    """A cap of $0.000001 let every call of a model arena has no price for through (its
    cost counted as nothing) and the run passed: the cap held nothing. Its calls are not
    made, each case errors saying why, and a priced model beside it still runs."""
    url = fake_llm.base_url
    make_project(
        "p",
        f"""
models:
  default: [new, priced]
  define:
    new: {{connector: openai, base_url: "{url}", model: gpt-9-preview, cache: false}}
    priced: {{connector: openai, base_url: "{url}", model: old, cache: false,
              price: {{input_per_mtok: 1, output_per_mtok: 1}}}}
{"budget: {max_cost: 5}" if cap == "project" else ""}
tests:
  - {{id: a, input: "[[answer=x]] one", reference: x}}
  - {{id: b, input: "[[answer=x]] two", reference: x}}
""",
    )
    args = ["--arena-max-cost", "5"] if cap == "--arena-max-cost" else []
    result = pytester.runpytest("-p", "no:cacheprovider", "-p", "no:randomly", *args)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    outcomes = result.parseoutcomes()
    assert outcomes["passed"] == 2 and outcomes["failed"] == 2, outcomes
    source = "--arena-max-cost" if cap == "--arena-max-cost" else "budget.max_cost in arena.yaml"
    result.stdout.fnmatch_lines(
        [
            f"*model 'new' call failed: not made: {source}* caps spending at $5.00, and model"
            " 'new' has no price to count its answers by; set price: {input_per_mtok: ...,"
            " output_per_mtok: ...} on it in models.define*"
        ]
    )
    assert fake_llm.total == 2  # the priced model's two calls, none of the other's


def test_a_request_param_json_cannot_hold_fails_its_case_saying_where_to_look(
    pytester: pytest.Pytester, make_project: MakeProject, fake_llm: FakeLLMServer
) -> None:
    """`params: {temperature: .nan}` on a cached model failed each case as 'internal error in
    the arena engine: ValueError: cache key part ...'."""
    make_project("p", local_openai(fake_llm.base_url, "params: {temperature: .nan}"))
    result = pytester.runpytest("-p", "no:cacheprovider")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            "*model 'm' call failed: cache key part params.temperature*is not JSON data*; a"
            " request's messages and params hold strings, finite numbers,* (see the model's"
            " params: and what hooks.py's pre_request sets)"
        ]
    )
    assert "internal error" not in result.stdout.str()
    assert fake_llm.total == 0


def test_xdist_workers_start_the_calls_of_their_queued_items_ahead(
    pytester: pytest.Pytester,
    make_project: MakeProject,
    log_file: object,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("PYTHONPATH", str(pytester.path))
    make_project("p", project([(f"c{i}", "work") for i in range(40)], ", concurrency: 8"))
    result = pytester.runpytest_subprocess(*XDIST, "-p", "arena_scripted", "-n", "2")
    result.assert_outcomes(passed=40)
    peaks: dict[object, int] = {}
    for e in events(pytester):
        if e["event"] == "start":
            peaks[e["pid"]] = max(peaks.get(e["pid"], 0), int(str(e["peak"])))
    # each worker keeps its half of the model's 8 calls in flight: 8 for the run, not 16
    assert len(peaks) == 2 and set(peaks.values()) == {4}


def through_the_engine(
    processes: int, server: FakeLLMServer, limits: Limits, n: int, latency_ms: int = 0
) -> None:
    """Send `n` calls at once to the fake server's openai API, through an engine of a run of
    `processes` processes, and wait for them."""
    defined = {"m": ModelDef.model_validate({"connector": "openai", "base_url": server.base_url})}
    connector = build_connector("m", defined, Path("arena.yaml"))
    engine = Engine(processes=processes)
    try:
        # 40 characters: 10 tokens
        prompts = [f"[[latency={latency_ms}]] question {i}".ljust(40, ".") for i in range(n)]
        calls = [
            engine.submit(
                connector,
                Request("m", [{"role": "user", "content": p}], Case(id=f"c{i}", input=p)),
                limits,
            )
            for i, p in enumerate(prompts)
        ]
        answers = [engine.wait(call).response for call in calls]
    finally:
        engine.close()
    assert [a.text if a else None for a in answers] == prompts  # the fake server echoes


@pytest.mark.parametrize(
    ("processes", "peak"),
    [pytest.param(1, 5, id="alone"), pytest.param(2, 3, id="2-processes")],  # 5 / 2, rounded up
)
def test_each_of_the_runs_processes_takes_a_share_of_the_models_concurrency(
    fake_llm: FakeLLMServer, processes: int, peak: int
) -> None:
    through_the_engine(processes, fake_llm, Limits(concurrency=5), n=2 * peak, latency_ms=300)
    assert fake_llm.peak == peak


@pytest.mark.parametrize(
    ("processes", "limits", "spacing"),
    [
        pytest.param(1, Limits(rpm=300), 0.2, id="rpm-alone"),
        pytest.param(2, Limits(rpm=300), 0.4, id="rpm-2-processes"),  # 150 a minute each
        # a call of 10 tokens in, and before any answer one guessed as long: 20 tokens a call
        pytest.param(1, Limits(tpm=6000), 0.2, id="tpm-alone"),
        pytest.param(2, Limits(tpm=6000), 0.4, id="tpm-2-processes"),  # 3000 a minute each
    ],
)
def test_each_of_the_runs_processes_takes_a_share_of_the_models_pace(
    fake_llm: FakeLLMServer, processes: int, limits: Limits, spacing: float
) -> None:
    # answers come after the third call has started: a tpm lane paces by its guess alone
    # (an answer's own count, taken in as it comes, would move the pace)
    through_the_engine(processes, fake_llm, limits, n=3, latency_ms=1500)
    first, _, last = fake_llm.arrivals
    # two spacings from the first call to the third; not the pace of the other row (twice or
    # half this one)
    assert 1.9 * spacing <= last - first < 3 * spacing


@pytest.mark.parametrize("cap", ["--arena-max-cost", "project"])
def test_a_budget_caps_the_whole_run_across_xdist_workers(
    pytester: pytest.Pytester,
    make_project: MakeProject,
    log_file: object,
    monkeypatch: pytest.MonkeyPatch,
    cap: str,
) -> None:
    monkeypatch.setenv("PYTHONPATH", str(pytester.path))
    # $20 a call (10 + 10 tokens), one call at a time in each worker, a cap of $100: five
    # calls, and at most one more per worker that started as another worker's call ended
    price = (
        ", concurrency: 1, delay: 0.02, price: {input_per_mtok: 1000000, output_per_mtok: 1000000}"
    )
    text = project([(f"c{i}", "work") for i in range(20)], price)
    args = [*XDIST, "-p", "arena_scripted", "-n", "2", "-rs"]
    if cap == "project":
        text += "budget: {max_cost: 100}\n"
    else:
        args += ["--arena-max-cost", "100"]
    make_project("p", text)
    result = pytester.runpytest_subprocess(*args)
    outcomes = result.parseoutcomes()
    answered = [e for e in events(pytester) if e["event"] == "done"]
    assert len({e["pid"] for e in events(pytester) if e["event"] == "start"}) == 2
    assert 5 <= len(answered) <= 6  # a cap per worker would have let 10 through
    assert outcomes["passed"] == len(answered) and outcomes["skipped"] == 20 - len(answered)
    result.stdout.fnmatch_lines(["SKIPPED*budget spent: $1*.00 of $100.00*call not started"])


def test_a_ledger_adds_up_what_every_process_charges(tmp_path: Path) -> None:
    from pytest_arena.engine.ledger import Ledger

    first = Ledger.in_folder(tmp_path, "--arena-max-cost")
    second = Ledger.in_folder(tmp_path, "--arena-max-cost")
    other = Ledger.in_folder(tmp_path, "budget.max_cost in arena.yaml of project p")
    assert first is not None and second is not None and other is not None
    assert first.add(0.25) == 0.25
    assert second.add(1.5) == 1.75
    assert first.total() == second.total() == 1.75 and other.total() == 0.0
    # a worker on another machine cannot see the controller's folder: it counts alone
    assert Ledger.in_folder(tmp_path / "elsewhere", "--arena-max-cost") is None


def test_the_budgets_of_projects_whose_names_differ_past_ascii_are_kept_apart(
    tmp_path: Path,
) -> None:
    """Under pytest-xdist, projects 問答 and 数学 shared one ledger file (their names' unsafe
    characters all became '_'), so the two budgets capped the run together."""
    from pytest_arena.engine.ledger import Ledger

    names = [f"budget.max_cost in arena.yaml of project {p}" for p in ("問答", "数学", "café")]
    ledgers = [Ledger.in_folder(tmp_path, name) for name in names]
    assert all(ledger is not None for ledger in ledgers)
    for amount, ledger in zip((1.0, 2.0, 4.0), ledgers, strict=True):
        assert ledger is not None and ledger.add(amount) == amount
    assert len(list(tmp_path.iterdir())) == 3


def test_threads_of_one_process_adding_to_a_ledger_lose_no_amount(tmp_path: Path) -> None:
    """The file lock keeps out other processes, not this one's threads (pytest's charges
    inline calls, the engine's the rest): 4 threads adding 20,000 dollars each totalled
    about $48,000 of $80,000, so a capped run could spend past its cap."""
    from pytest_arena.engine.ledger import Ledger

    ledger = Ledger.in_folder(tmp_path, "--arena-max-cost")
    assert ledger is not None

    def add() -> None:
        for _ in range(20_000):
            ledger.add(1.0)

    threads = [threading.Thread(target=add) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert ledger.total() == 80_000.0


def test_a_process_keeps_what_it_spent_in_its_own_ledger(tmp_path: Path) -> None:
    """An xdist worker's own ledger, read by the controller when the worker's output does
    not arrive; standing in for a budget's shared ledger, it passes every amount on."""
    from pytest_arena.engine.ledger import Ledger, OwnLedger, own_path, read_own

    assert read_own(own_path(tmp_path, "gw0")) is None  # no ledger: unknown, not $0
    own = OwnLedger.of_process(tmp_path, "gw0")
    other = OwnLedger.of_process(tmp_path, "gw1")
    shared = Ledger.in_folder(tmp_path, "--arena-max-cost")
    assert own is not None and other is not None and shared is not None
    assert read_own(own_path(tmp_path, "gw0")) == 0.0  # made at once: nothing spent yet
    assert own.add(0.25) == own.total() == 0.25  # standing alone, its own total
    budget = Budget(100.0, "--arena-max-cost", other.standing_in_for(shared))
    budget.charge(1.5)
    budget.charge(0.0)
    shared.add(2.0)  # another process's spending
    assert budget.spent == 3.5 and budget.charged == 1.5
    own.close()
    own.add(4.0)  # after the engine closed: not written
    assert read_own(own_path(tmp_path, "gw0")) == 0.25
    assert read_own(own_path(tmp_path, "gw1")) == 1.5
    assert OwnLedger.of_process(tmp_path / "elsewhere", "gw0") is None


def test_agents_workspaces_of_older_runs_are_removed_but_the_latest_kept(tmp_path: Path) -> None:
    import os

    from pytest_arena.engine.workspaces import KEEP_RUNS, new_run_folder

    runs = [new_run_folder(tmp_path) for _ in range(KEEP_RUNS + 2)]
    for age, run in enumerate(reversed(runs)):
        (run / "file.txt").write_text("left by an agent")
        os.utime(run, (0, run.stat().st_mtime - 3600 * (age + 1)))
    latest = new_run_folder(tmp_path)
    kept = sorted(p.name for p in tmp_path.iterdir())
    assert latest.exists() and len(kept) == KEEP_RUNS
    assert set(kept) == {latest.name, *(r.name for r in runs[-(KEEP_RUNS - 1) :])}


def _openai_calls(server: FakeLLMServer, n: int) -> tuple[Connector, list[Request]]:
    defined = {"m": ModelDef.model_validate({"connector": "openai", "base_url": server.base_url})}
    connector = build_connector("m", defined, Path("arena.yaml"))
    prompts = [f"question {i}" for i in range(n)]
    requests = [
        Request("m", [{"role": "user", "content": p}], Case(id=f"c{i}", input=p))
        for i, p in enumerate(prompts)
    ]
    return connector, requests


def test_calls_submitted_in_a_batch_leave_in_handfuls_and_each_gets_its_own_answer(
    fake_llm: FakeLLMServer,
) -> None:
    from pytest_arena.engine import calls as engine_calls

    fake_llm.reset()
    connector, requests = _openai_calls(fake_llm, engine_calls.BATCH + 5)
    engine = Engine()
    try:
        with engine.batch():
            started = [engine.submit(connector, r, Limits()) for r in requests]
            # the first call went at once, then a full handful; the rest wait for the end
            # (however slow the machine: then no more come while the batch lasts)
            waited = time.monotonic() + 30
            while fake_llm.total < 1 + engine_calls.BATCH and time.monotonic() < waited:
                time.sleep(0.01)
            time.sleep(0.5)
            sent_inside = fake_llm.total
        answers = [engine.wait(call).response for call in started]
    finally:
        engine.close()
    assert sent_inside == 1 + engine_calls.BATCH
    assert fake_llm.total == len(requests)
    assert [a.text if a else None for a in answers] == [r.prompt for r in requests]


def test_a_batch_submitted_after_the_engine_closed_makes_no_call(fake_llm: FakeLLMServer) -> None:
    fake_llm.reset()
    connector, requests = _openai_calls(fake_llm, 4)
    engine = Engine()
    assert engine.wait(engine.submit(connector, requests[0], Limits())).response is not None
    with engine.batch():
        started = [engine.submit(connector, r, Limits()) for r in requests[1:]]
        engine.close()  # Ctrl-C or -x while the calls were being prepared
    results = [engine.wait(call) for call in started]
    assert fake_llm.total == 1
    assert all(r.skipped and "stopping" in r.skipped for r in results)


def _one_call_through(engine: Engine, server: FakeLLMServer) -> str | None:
    connector, requests = _openai_calls(server, 1)
    try:
        response = engine.wait(engine.submit(connector, requests[0], Limits())).response
    finally:
        engine.close()
    return response.text if response else None


@pytest.mark.skipif(sys.platform == "win32", reason="uvloop does not run on Windows")
def test_with_uvloop_installed_the_engine_runs_on_its_loop(fake_llm: FakeLLMServer) -> None:
    pytest.importorskip("uvloop", reason="the 'uvloop' extra is not installed")
    engine = Engine()
    assert type(engine._start()).__module__.startswith("uvloop")
    assert _one_call_through(engine, fake_llm) == "question 0"


def test_without_uvloop_the_engine_runs_on_asyncios_own_loop(
    fake_llm: FakeLLMServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    import asyncio

    monkeypatch.setitem(sys.modules, "uvloop", None)  # `import uvloop` fails, as uninstalled
    engine = Engine()
    assert isinstance(engine._start(), asyncio.BaseEventLoop)
    assert type(engine._start()).__module__.startswith("asyncio")
    assert _one_call_through(engine, fake_llm) == "question 0"


# An inner conftest noting when the first item starts, on the clock the fake server's
# arrivals are on (the run is in this process).
FIRST_ITEM = """
import time

def pytest_runtest_logstart(nodeid):
    if not hasattr(pytest_runtest_logstart, "at"):
        pytest_runtest_logstart.at = time.monotonic()
        with open("first_item.txt", "w") as f:
            f.write(repr(pytest_runtest_logstart.at))
"""


def served_project(url: str, cases: list[str], concurrency: int) -> str:
    """A project on the fake server whose cases expect "ok", which it answers unless a
    case's text asks for another answer."""
    lines = [
        "models:",
        "  default: [local]",
        "  define:",
        f"    local: {{connector: openai, base_url: '{url}', concurrency: {concurrency},"
        " cache: false}",
        "tests:",
    ]
    lines += [
        f"  - {{id: c{i}, input: '{text if '[[answer=' in text else text + ' [[answer=ok]]'}',"
        " reference: ok}"
        for i, text in enumerate(cases)
    ]
    return "\n".join(lines) + "\n"


def arrivals_before_the_first_item(pytester: pytest.Pytester, server: FakeLLMServer) -> int:
    first = float((pytester.path / "first_item.txt").read_text())
    return sum(1 for at in server.arrivals if at < first)


def test_calls_answered_at_once_are_all_made_before_the_first_item_runs(
    pytester: pytest.Pytester, make_project: MakeProject, fake_llm: FakeLLMServer
) -> None:
    # while items run, pytest's thread and the engine's take turns at the interpreter's
    # lock; calls a server answers at once get a head start of their own instead
    pytester.makeconftest(FIRST_ITEM)
    make_project("p", served_project(fake_llm.base_url, ["quick"] * 40, concurrency=2))
    pytester.runpytest("-p", "no:cacheprovider").assert_outcomes(passed=40)
    assert arrivals_before_the_first_item(pytester, fake_llm) == 40


FIRST_REPORT = """
import time

def pytest_runtest_logreport(report):
    if report.when == "call" and not hasattr(pytest_runtest_logreport, "at"):
        pytest_runtest_logreport.at = time.monotonic()
        with open("first_report.txt", "w") as f:
            f.write(repr(pytest_runtest_logreport.at))
"""


def test_an_xdist_worker_reports_each_item_once_its_own_answer_comes(
    pytester: pytest.Pytester, make_project: MakeProject, fake_llm: FakeLLMServer
) -> None:
    # a worker starts the calls of the items queued for it as each item begins (all of the
    # file's, with --dist loadfile): with a head start there, each item would wait for them
    pytester.makeconftest(FIRST_REPORT)
    make_project("p", served_project(fake_llm.base_url, ["[[latency=400]]"] * 8, concurrency=1))
    result = pytester.runpytest_subprocess(*XDIST, "-n", "1", "--dist", "loadfile")
    result.assert_outcomes(passed=8)
    first = float((pytester.path / "first_report.txt").read_text())
    # its own answer comes 0.4 s after its call; the 8 calls, one at a time, take 3.2 s,
    # and a head start would have held the first item back for up to 2 s
    assert first - fake_llm.arrivals[0] < 0.9


def test_a_run_that_stops_at_the_first_failure_gives_its_calls_no_head_start(
    pytester: pytest.Pytester, make_project: MakeProject, fake_llm: FakeLLMServer
) -> None:
    pytester.makeconftest(FIRST_ITEM)
    cases = ["[[answer=wrong]] quick", *["quick"] * 39]
    make_project("p", served_project(fake_llm.base_url, cases, concurrency=2))
    pytester.runpytest("-p", "no:cacheprovider", "-x").assert_outcomes(failed=1)
    assert arrivals_before_the_first_item(pytester, fake_llm) < 40


def test_the_head_start_is_bounded_and_slow_calls_are_answered_while_items_run(
    pytester: pytest.Pytester,
    make_project: MakeProject,
    fake_llm: FakeLLMServer,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # the module the inner run uses (an attribute of its package may be an older one)
    collect = importlib.import_module("pytest_arena.plugin.collect")
    monkeypatch.setattr(collect, "HEAD_START", 0.3)
    pytester.makeconftest(FIRST_ITEM)
    make_project("p", served_project(fake_llm.base_url, ["[[latency=1000]]"] * 4, concurrency=1))
    started = time.monotonic()
    pytester.runpytest("-p", "no:cacheprovider").assert_outcomes(passed=4)
    # the first item did not wait for the 4 s the calls take one at a time
    assert arrivals_before_the_first_item(pytester, fake_llm) == 1
    assert time.monotonic() - started < 8  # and the calls still overlapped the items


# --dist loadfile: the project's items on one worker. Two workers may each start a call
# before the other's is paid for (with -n 2 the run spent $1.00 of a $0.40 budget, and
# which model ran out depended on which worker took which case); the note then comes
# from a worker's reports to the controller
@pytest.mark.parametrize(
    "workers", [[], ["-p", "xdist", "-n", "2", "--dist", "loadfile"]], ids=["-n0", "-n2"]
)
def test_a_model_the_budget_kept_from_every_case_is_named_under_its_board(
    pytester: pytest.Pytester, make_project: MakeProject, workers: list[str]
) -> None:
    """It had no row, and neither the board nor the JSON report said that it ran out: only
    the run's count of cases not run."""
    make_project(
        "b",
        """
models:
  default: [cheap, dear]
  define:
    cheap: {profile: sim_perfect, price: {input_per_mtok: 100000, output_per_mtok: 0}}
    dear: {profile: sim_perfect, price: {input_per_mtok: 100000, output_per_mtok: 0}}
budget: {max_cost: 0.4}
tests:
  - {id: a, input: one, reference: one, models: [cheap]}
  - {id: b, input: two, reference: two, models: [dear]}
  - {id: c, input: three, reference: three, models: [dear]}
""",
    )
    result = pytester.runpytest(
        "-p", "no:cacheprovider", "-p", "no:randomly", "--arena-json", "run.json", *workers
    )
    said = "dear has no row: its 2 cases not run: budget spent"
    result.stdout.fnmatch_lines(["*arena leaderboard: b*", "*1  *cheap*", f"note: {said}"])
    report = json.loads((pytester.path / "run.json").read_text())
    assert report["leaderboards"][0]["notes"] == [said]
