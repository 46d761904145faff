"""The user's code run by the engine: a plain-function agent or tool on threads that never
hold the run open (one that never returns, or calls sys.exit(), ends as that case's error,
and pytest still exits at once), and an async one that blocks the engine's loop, which
fails the calls on it after STALL_LIMIT instead of hanging the run or its Ctrl-C."""

from __future__ import annotations

import asyncio
import contextvars
import json
import signal
import sys
import threading
import time
from pathlib import Path

import pytest

from pytest_arena.engine.user_threads import run_blocking
from tests.conftest import MakeProject, denied_writes, run_to_interrupt
from tests.fake_llm_server import FakeLLMServer

NEVER_RETURNS = """
    import time

    def run(prompt):
        if "stuck" in prompt:
            while True:
                time.sleep(0.01)
        if "leave" in prompt:
            raise SystemExit(3)
        return "4"
"""


def agent_project(make_project: MakeProject, agent: str, cases: list[str]) -> None:
    """A project whose model is `agent`'s `run` (0.5 s a try, no retry), with one case
    per name in `cases`; `stuck` and `leave` have their name as input, the others "2 + 2"."""
    tests = "".join(
        f"  - {{id: {c}, input: {c if c in ('stuck', 'leave') else '2 + 2'}, reference: '4'}}\n"
        for c in cases
    )
    make_project(
        "agent",
        "models:\n  default: [mine]\n  define:\n"
        '    mine: {connector: python, callable: "agent:run", timeout: 0.5, max_retries: 0}\n'
        f"tests:\n{tests}",
        {"agent.py": agent},
    )


def desk_project(
    make_project: MakeProject, fake_llm: FakeLLMServer, calls: str, tools: str, settings: str = ""
) -> None:
    """A project whose model (the local fake server) makes `calls` of the tools in `tools`
    (tools.py's text), then answers "done"."""
    make_project(
        "desk",
        "models:\n  default: [remote]\n  define:\n"
        f'    remote: {{connector: openai, base_url: "{fake_llm.base_url}", model: m, cache: false}}\n'
        f"{settings}tests:\n  - id: desk\n    input: '{calls} [[answer=done]]'\n    reference: done\n",
        {"tools.py": tools},
    )


def told_to_the_model(report: Path) -> list[str]:
    """What the tools' results said to the model, in order, from the JSON report."""
    steps = json.loads(report.read_text())["records"][0]["response"]["trajectory"]
    return [r["content"] for step in steps for r in step.get("tool_results", ())]


def test_a_result_an_exception_and_the_callers_context_reach_the_awaiting_coroutine() -> None:
    where: contextvars.ContextVar[str] = contextvars.ContextVar("where")

    def work(n: int, *, text: str) -> str:
        return f"{text} {n} in {where.get()} on {threading.current_thread().name}"

    def fail() -> None:
        raise LookupError("no order")

    async def main() -> tuple[str, BaseException, BaseException]:
        where.set("the case")
        value = await run_blocking(work, 2, text="got")
        errors = []
        for function in (fail, lambda: exit(3)):
            try:
                await run_blocking(function)
            except BaseException as exc:
                errors.append(exc)
        return value, errors[0], errors[1]

    value, lookup, leave = asyncio.run(main())
    assert value.startswith("got 2 in the case on arena-user-blocking-")
    assert isinstance(lookup, LookupError) and str(lookup) == "no order"
    assert isinstance(leave, SystemExit) and leave.code == 3


def test_a_call_given_up_on_leaves_its_thread_running_and_its_result_is_dropped() -> None:
    release = threading.Event()
    finished = threading.Event()

    def slow() -> str:
        release.wait(10)
        finished.set()
        return "late"

    async def main() -> None:
        with pytest.raises(asyncio.TimeoutError):  # not the builtin one on Python 3.10
            await asyncio.wait_for(run_blocking(slow), 0.1)
        release.set()
        assert finished.wait(10)
        await asyncio.sleep(0.05)  # the late result arrives at a cancelled future: dropped

    asyncio.run(main())  # nothing raised by the late result (InvalidStateError)
    worker = next(t for t in threading.enumerate() if t.name.startswith("arena-user-blocking-"))
    assert worker.daemon


def test_threads_are_reused_once_free_and_made_when_every_one_is_busy() -> None:
    together = threading.Barrier(8, timeout=10)  # broken unless 8 run at once

    def meet() -> str:
        together.wait()
        return threading.current_thread().name

    async def main() -> tuple[set[str], set[str]]:
        first = set(await asyncio.gather(*(run_blocking(meet) for _ in range(8))))
        second = set(await asyncio.gather(*(run_blocking(meet) for _ in range(8))))
        return first, second

    first, second = asyncio.run(main())
    assert len(first) == 8
    assert second <= set(t.name for t in threading.enumerate())  # no thread made for it
    assert len(second) == 8


def test_an_agent_that_never_returns_or_exits_fails_its_case_and_pytest_exits_at_once(
    make_project: MakeProject, pytester: pytest.Pytester
) -> None:
    agent_project(make_project, NEVER_RETURNS, ["stuck", "leave", "fine"])
    started = time.monotonic()
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", timeout=60)
    took = time.monotonic() - started
    result.assert_outcomes(passed=1, failed=2)
    result.stdout.fnmatch_lines(
        [
            "*_ agent::stuck[[]mine[]] _*",
            "model 'mine' call failed: no answer within 0.5 s (the model's timeout); its"
            " function is still running, at run() at */projects/agent/agent.py:6 (Python"
            " cannot stop a thread), so it is not tried again; fix: see what it waits for"
            " there (a lock, a queue, a server that does not answer), or raise timeout: in"
            " models.define if it is that slow",
            "*_ agent::leave[[]mine[]] _*",
            "model 'mine' call failed: agent:run raised SystemExit: 3",
            "  File *agent.py*, line 8, in run",
        ]
    )
    assert "Warning" not in result.stdout.str() + result.stderr.str()
    assert took < 15  # the stuck agent's thread was not waited for (it never ends)


def test_a_tool_that_never_returns_or_exits_is_told_to_the_model_and_pytest_exits_at_once(
    fake_llm: FakeLLMServer, make_project: MakeProject, pytester: pytest.Pytester
) -> None:
    calls = (
        '[[call=lookup {"order": "stuck"}]] [[call=lookup {"order": "leave"}]]'
        ' [[call=ship {"order": "1"}]] [[call=lookup {"order": "1"}]]'
    )
    tools = """
        import time

        def lookup(order: str) -> str:
            \"\"\"Look an order up.\"\"\"
            if order == "stuck":
                while True:
                    time.sleep(0.01)
            if order == "leave":
                raise SystemExit(3)
            return f"order {order} shipped"

        async def ship(order: str) -> str:
            \"\"\"Ship an order.\"\"\"
            raise SystemExit(4)  # on the loop itself
    """
    desk_project(make_project, fake_llm, calls, tools, "tools:\n  timeout: 0.3\n")
    report = pytester.path / "report.json"
    started = time.monotonic()
    result = pytester.runpytest_subprocess(
        "-p", "no:cacheprovider", f"--arena-json={report}", timeout=60
    )
    took = time.monotonic() - started
    result.assert_outcomes(passed=1)
    assert told_to_the_model(report) == [
        "error: lookup did not finish within 0.3 s",
        "error: lookup raised SystemExit: 3",
        "error: ship raised SystemExit: 4",
        "order 1 shipped",
    ]
    assert took < 15


BLOCKS_THE_LOOP = """
    import pathlib
    import time

    async def run(prompt):
        if "stuck" in prompt:
            pathlib.Path("stuck.flag").touch()
            while True:
                time.sleep(0.01)  # blocks the engine's loop: no await
        return "4"
"""


def blocking_project(
    make_project: MakeProject, pytester: pytest.Pytester, stall_limit: float = 1.0
) -> None:
    agent_project(make_project, BLOCKS_THE_LOOP, ["fine", "stuck", "after"])
    pytester.makeconftest(  # a stuck loop is given up after 1 s here, not 60
        f"import pytest_arena.engine.calls\npytest_arena.engine.calls.STALL_LIMIT = {stall_limit}\n"
    )


def test_an_async_agent_that_blocks_the_loop_fails_the_calls_on_it_and_the_run_ends(
    make_project: MakeProject, pytester: pytest.Pytester
) -> None:
    blocking_project(make_project, pytester)
    started = time.monotonic()
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", timeout=60)
    took = time.monotonic() - started
    outcomes = result.parseoutcomes()  # a call done before the loop blocked may pass
    assert outcomes["failed"] >= 1 and outcomes["failed"] + outcomes.get("passed", 0) == 3
    result.stdout.fnmatch_lines(
        [
            "model 'mine' call failed: the engine's event loop has not run for 1 s: code run"
            " on it blocks it (an async def agent or tool that calls time.sleep, a blocking"
            " client or a long computation); make that function a plain def (it then runs on"
            " a thread of its own), or await asyncio.sleep and async clients in it (it is"
            " running run() at */projects/agent/agent.py:8 now)",
        ]
    )
    result.stdout.fnmatch_lines(
        [
            "*_ agent::stuck[[]mine[]] _*",
            "model 'mine' call failed: the engine's event loop has not run for 1 s*",
        ]
    )
    assert "INTERNALERROR" not in result.stdout.str() + result.stderr.str()
    assert took < 20  # the stuck loop was not waited for at the end


def test_a_call_on_a_blocked_loop_fails_once_its_own_timeout_could_not_be_kept(
    make_project: MakeProject, pytester: pytest.Pytester
) -> None:
    agent_project(make_project, BLOCKS_THE_LOOP, ["stuck"])  # 0.5 s a try: given up at 2.5 s
    started = time.monotonic()
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", timeout=50)
    took = time.monotonic() - started
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        ["model 'mine' call failed: the engine's event loop has not run for 2.5 s: *"]
    )
    assert took < 40, took  # not the 60 s a loop without a timeout is given


def test_ctrl_c_ends_a_run_whose_loop_an_async_agent_blocks_at_once(
    make_project: MakeProject, pytester: pytest.Pytester
) -> None:
    # the loop stays stuck until the Ctrl-C, however late a busy machine sends it (with the
    # 1 s limit the calls failed first, and the run ended before the signal came)
    blocking_project(make_project, pytester, stall_limit=60.0)
    run = run_to_interrupt(pytester.path, "-p", "no:cacheprovider", "-p", "no:randomly")
    try:
        deadline = time.monotonic() + 30
        while not (pytester.path / "stuck.flag").exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        time.sleep(0.2)
        interrupted = time.monotonic()
        run.send_signal(signal.SIGINT)
        out, _ = run.communicate(timeout=30)
    finally:
        run.kill()  # if it hung: not left behind
    assert time.monotonic() - interrupted < 5, out  # no 30 s waits for a loop that is stuck
    assert run.returncode == 2, out  # pytest's "interrupted"
    assert "KeyboardInterrupt" in out and "INTERNALERROR" not in out


BLOCKS_IN_A_HELPER = """
    import time


    def slow_work():
        while True:
            time.sleep(0.01)  # a plain def: it is the async def calling it that blocks


    async def run(prompt):
        return slow_work()
"""


def test_a_blocked_loop_names_the_async_def_and_the_code_inside_it(
    make_project: MakeProject, pytester: pytest.Pytester
) -> None:
    """It named slow_work(), a plain def already, while the fix it gave ("make that function
    a plain def") is for the async def that calls it."""
    agent_project(make_project, BLOCKS_IN_A_HELPER, ["stuck"])
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", timeout=50)
    result.stdout.fnmatch_lines(
        ["*(it is running run() at */agent.py:10, in slow_work() at */agent.py:6 now)"]
    )


OWN_CANCELLATIONS = """
import asyncio
import sys


async def cancelled():
    task = asyncio.ensure_future(asyncio.sleep(10))
    asyncio.get_running_loop().call_soon(task.cancel)
    await task  # a task of its own, cancelled by its own logic (or its SDK's)


async def leaves(prompt):
    await asyncio.sleep(0.01)
    sys.exit(1)  # in a task it spawned: argparse's error(), a click command


async def run(prompt):
    if prompt == "async":
        await cancelled()
    if prompt == "spawned":
        return (await asyncio.gather(leaves(prompt)))[0]
    return "4"


def sync(prompt):
    if prompt == "sync":
        asyncio.run(cancelled())
    return "4"
"""


@pytest.mark.skipif(
    sys.version_info < (3, 11), reason="Python 3.10 cannot tell whose a CancelledError is"
)
def test_an_agent_whose_own_task_is_cancelled_fails_its_case_rather_than_skip_it(
    make_project: MakeProject, pytester: pytest.Pytester
) -> None:
    """A CancelledError of the agent's own was taken for the engine's: "the run stopped
    before this call finished", the case skipped, and the run green."""
    make_project(
        "agent",
        "models:\n  default: [mine, plain]\n  define:\n"
        '    mine: {connector: python, callable: "agent:run", max_retries: 0}\n'
        '    plain: {connector: python, callable: "agent:sync", max_retries: 0}\n'
        "tests:\n"
        "  - {id: own, input: async, reference: '4', models: [mine]}\n"
        "  - {id: sync, input: sync, reference: '4', models: [plain]}\n"
        "  - {id: fine, input: '2 + 2', reference: '4'}\n",
        {"agent.py": OWN_CANCELLATIONS},
    )
    result = pytester.runpytest("-p", "no:cacheprovider")
    result.assert_outcomes(passed=2, failed=2)
    result.stdout.fnmatch_lines(
        [
            "*_ agent::own[[]mine[]] _*",
            "model 'mine' call failed: agent:run raised CancelledError",
            "  File *agent.py*, line 8, in cancelled",
            "*_ agent::sync[[]plain[]] _*",
            "model 'plain' call failed: agent:sync raised CancelledError",
        ]
    )


def test_sys_exit_in_a_task_an_agent_spawned_fails_that_case_alone(
    make_project: MakeProject, pytester: pytest.Pytester
) -> None:
    """The SystemExit left the engine's loop, whose thread ended: every case failed with
    "the engine's event loop has not run for 7 s", the one that exited unnamed."""
    make_project(
        "agent",
        "models:\n  default: [mine]\n  define:\n"
        '    mine: {connector: python, callable: "agent:run", max_retries: 0}\n'
        "tests:\n"
        "  - {id: before, input: '2 + 2', reference: '4'}\n"
        "  - {id: spawned, input: spawned, reference: '4'}\n"
        "  - {id: after, input: '2 + 2', reference: '4'}\n",
        {"agent.py": OWN_CANCELLATIONS},
    )
    result = pytester.runpytest("-p", "no:cacheprovider", "-W", "error")
    result.assert_outcomes(passed=2, failed=1)
    result.stdout.fnmatch_lines(
        [
            "*_ agent::spawned[[]mine[]] _*",
            "model 'mine' call failed: agent:run raised SystemExit: 1",
        ]
    )


def test_an_agents_traceback_and_message_are_said_whatever_its_folder_and_exception(
    make_project: MakeProject, pytester: pytest.Pytester
) -> None:
    """A project in a folder named `concurrent` (or `asyncio`) lost the agent's lines, taken
    for Python's own; an exception whose str() fails was "call failed: ValueError", the
    agent unnamed."""
    make_project(
        "concurrent",
        "models:\n  default: [mine]\n  define:\n"
        '    mine: {connector: python, callable: "agent:run", max_retries: 0}\n'
        "tests:\n  - {id: lost, input: lost, reference: '4'}\n"
        "  - {id: mute, input: mute, reference: '4'}\n",
        {
            "agent.py": """
                class Mute(Exception):
                    def __str__(self):
                        raise ValueError("no str for you")


                def run(prompt):
                    if prompt == "mute":
                        raise Mute()
                    return {}["missing"]
            """
        },
    )
    result = pytester.runpytest("-p", "no:cacheprovider")
    result.assert_outcomes(failed=2)
    result.stdout.fnmatch_lines(
        [
            "model 'mine' call failed: agent:run raised KeyError: 'missing'",
            "  File *concurrent*agent.py*, line 9, in run",
            "model 'mine' call failed: agent:run raised Mute: <its message could not be made:"
            " ValueError>",
            "  File *concurrent*agent.py*, line 8, in run",
        ]
    )


@pytest.mark.skipif(
    sys.version_info < (3, 11), reason="Python 3.10 cannot tell whose a CancelledError is"
)
def test_a_tool_whose_own_task_is_cancelled_is_told_to_the_model(
    fake_llm: FakeLLMServer, make_project: MakeProject, pytester: pytest.Pytester
) -> None:
    """It was taken for the engine's cancelling the case: skipped, "the run stopped before
    this call finished", and the run green."""
    tools = """
        import asyncio

        async def lookup(order: str) -> str:
            \"\"\"Look an order up.\"\"\"
            task = asyncio.ensure_future(asyncio.sleep(10))
            asyncio.get_running_loop().call_soon(task.cancel)
            await task
    """
    desk_project(make_project, fake_llm, '[[call=lookup {"order": "1"}]]', tools)
    report = pytester.path / "report.json"
    result = pytester.runpytest("-p", "no:cacheprovider", f"--arena-json={report}")
    result.assert_outcomes(passed=1)
    assert told_to_the_model(report) == ["error: lookup raised CancelledError"]


def test_a_plain_function_agent_that_raises_stop_iteration_is_said_as_such(
    make_project: MakeProject, pytester: pytest.Pytester
) -> None:
    """asyncio will not put a StopIteration in a future: the agent's `next()` of an empty
    iterator was "raised RuntimeError: StopIteration interacts badly with generators", its
    lines lost."""
    agent_project(make_project, "def run(prompt):\n    return next(iter([]))\n", ["empty"])
    result = pytester.runpytest("-p", "no:cacheprovider")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            "model 'mine' call failed: agent:run raised StopIteration",
            "  File *agent.py*, line 2, in run",
        ]
    )


def test_an_unwritable_basetemp_fails_the_cases_that_need_a_workspace_not_the_run(
    make_project: MakeProject, pytester: pytest.Pytester
) -> None:
    """The agents' workspaces are made under --basetemp: one that cannot be written was an
    INTERNALERROR that ran nothing, where bare pytest fails only the tests using tmp_path."""
    agent_project(make_project, "def run(prompt, workspace):\n    return '4'\n", ["one", "two"])
    pytester.makepyfile(test_mine="def test_mine():\n    pass\n")
    locked = pytester.mkdir("locked")
    locked.chmod(0o555)
    try:
        result = pytester.run(
            *denied_writes(), sys.executable, "-m", "pytest", "-p", "no:cacheprovider",
            "--basetemp", str(locked / "tmp"),
        )  # fmt: skip
    finally:
        locked.chmod(0o755)
    assert "INTERNALERROR" not in result.stdout.str() + result.stderr.str()
    result.assert_outcomes(passed=1, failed=2)
    result.stdout.fnmatch_lines(
        [
            "model 'mine' call failed: no folder for the agents' workspaces could be made"
            " (*Permission denied*): give --basetemp a folder this user may write"
        ]
    )
