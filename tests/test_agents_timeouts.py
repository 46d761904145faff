"""Your own python agents and their time: an `async def` one that blocks the engine's loop
past its timeout fails though it then answered, and the calls it held up are not charged
that time; a plain function that times out is not tried again, is said where it is stuck,
and keeps its place among the model's `concurrency` calls while it runs on."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from tests.conftest import MakeProject

BLOCKS = """
import time


async def blocks(prompt):
    if prompt == "block":
        time.sleep(2)  # no await: the engine's loop stops for 2 s
    return "hello"


def base(prompt):
    time.sleep(0.3)  # in flight, on its thread, while the loop is blocked
    return "hello"
"""


def test_an_async_agent_that_blocked_the_loop_past_its_timeout_fails_and_others_keep_their_time(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    """Alone it failed (the wait for its item saw the loop stalled); beside a plain agent its
    case passed, at 2000 ms against a timeout of 1 s, and the plain agent's latency was the
    block's, not its own 300 ms."""
    make_project(
        "p",
        """
        models:
          default: [base, blocker]
          define:
            base: {connector: python, callable: "agent:base"}
            blocker: {connector: python, callable: "agent:blocks", timeout: 1, max_retries: 0}
        tests:
          - {id: q1, input: block, reference: hello}
          - {id: q2, input: fine, reference: hello}
        """,
        {"agent.py": BLOCKS},
    )
    result = pytester.runpytest("-p", "no:cacheprovider", "--arena-json=r.json")
    result.assert_outcomes(passed=3, failed=1)
    result.stdout.fnmatch_lines(
        [
            "*_ p::q1[[]blocker[]] _*",
            "model 'blocker' call failed: the call blocked the engine's event loop for 2.0 s,"
            " past the model's timeout of 1 s, so no timeout could stop it (an async def agent"
            " that calls time.sleep, a blocking client or a long computation; every other call"
            " waited meanwhile); fix: make that function a plain def (it then runs on a thread"
            " of its own), or await asyncio.sleep and async clients in it",
        ]
    )
    records = json.loads(Path("r.json").read_text())["records"]
    latency = {(r["case"], r["model"]): r["latency_ms"] for r in records}
    assert 250 < latency[("q1", "base")] < 1200, latency  # its own 300 ms, not the 2 s block
    assert 250 < latency[("q2", "base")] < 1200, latency


SERIAL = """
import threading
import time
from pathlib import Path

lock = threading.Lock()
active = 0


def run(prompt):
    global active
    with lock:
        active += 1
        Path("most.txt").open("a").write(f"{active}\\n")
    time.sleep(0.8)  # past the timeout of 0.5 s: it runs on, abandoned
    with lock:
        active -= 1
    return "hello"
"""


def test_concurrency_1_is_kept_while_a_call_that_timed_out_runs_on(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    """With `concurrency: 1`, timeout 0.5 and retries, the retry and the next cases ran while
    the thread of the try that timed out was still inside the function (2 at once)."""
    make_project(
        "p",
        """
        models:
          default: [serial]
          define:
            serial:
              connector: python
              callable: "agent:run"
              concurrency: 1
              timeout: 0.5
              max_retries: 2
        tests:
          - {id: q1, input: a, reference: hello}
          - {id: q2, input: b, reference: hello}
          - {id: q3, input: c, reference: hello}
        """,
        {"agent.py": SERIAL},
    )
    result = pytester.runpytest("-p", "no:cacheprovider")
    result.assert_outcomes(failed=3)
    result.stdout.fnmatch_lines(
        [
            "model 'serial' call failed: no answer within 0.5 s (the model's timeout); its"
            " function is still running, at run() at */projects/p/agent.py:14 (Python cannot"
            " stop a thread), so it is not tried again; fix: see what it waits for there (a"
            " lock, a queue, a server that does not answer), or raise timeout: in models.define"
            " if it is that slow",
        ]
    )
    assert "tries" not in result.stdout.str()  # not tried again while it runs
    time.sleep(1)  # the last one's thread ends
    at_once = Path("most.txt").read_text().split()
    assert at_once == ["1", "1", "1"]


STUCK = """
import threading

never = threading.Event()


def run(prompt):
    never.wait()  # a deadlock: it never returns
    return "hello"
"""


def test_a_stuck_agent_with_concurrency_1_fails_its_remaining_cases_saying_where_it_is_stuck(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    """A deadlocked agent cost each case its timeout once per try (10 minutes a case by
    default), and said to raise the timeout. The function is said where it waits; with
    `concurrency: 1` it is not called beside itself, and once it has not returned a
    timeout later either, the model's other cases fail at once."""
    make_project(
        "p",
        """
        models:
          default: [stuck]
          define:
            stuck: {connector: python, callable: "agent:run", concurrency: 1, timeout: 0.5}
        tests:
          - {id: q1, input: a, reference: hello}
          - {id: q2, input: b, reference: hello}
          - {id: q3, input: c, reference: hello}
        """,
        {"agent.py": STUCK},
    )
    started = time.monotonic()
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", timeout=60)
    assert time.monotonic() - started < 20  # not 3 cases x 5 tries x 0.5 s, nor for ever
    result.assert_outcomes(failed=3)
    result.stdout.fnmatch_lines(
        [
            "*_ p::q1[[]stuck[]] _*",
            "model 'stuck' call failed: no answer within 0.5 s (the model's timeout); its"
            " function is still running, at run() at */projects/p/agent.py:7 (Python cannot"
            " stop a thread), so it is not tried again; fix: *",
            "*_ p::q2[[]stuck[]] _*",
            "model 'stuck' call failed: not called: a call of this model that timed out is"
            " still running 0.5 s later, at run() at */projects/p/agent.py:7; with"
            " concurrency: 1 it is not called again beside it; fix: see what it waits for"
            " there (a lock, a queue, a server that does not answer), or raise timeout: in"
            " models.define if it is that slow",
        ]
    )
