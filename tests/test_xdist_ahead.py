"""The calls an xdist worker starts ahead of its items: none of a `python` agent's (a crash is
its own case's), no more than worksteal leaves it, each paid for once; an agent's
pytest.exit() stops the run, and `concurrency` holds for the run's workers together."""

from __future__ import annotations

import asyncio
import json
import threading
import time

import pytest
from pydantic import BaseModel

from pytest_arena.connectors import Connector, Request, Response
from pytest_arena.engine.calls import Engine
from pytest_arena.engine.limits import Limits
from pytest_arena.reports.tables import spending
from pytest_arena.spec import Case
from tests.conftest import XDIST, MakeProject


def agent_project(inputs: list[str], settings: str = "") -> str:
    """A project of one `python` agent (agent.py's `agent`), a case for each input."""
    lines = [
        "models:",
        "  default: [mine]",
        "  define:",
        f'    mine: {{connector: python, callable: "agent:agent"{settings}}}',
        "tests:",
    ]
    lines += [
        f"  - {{id: t{i}, input: {text}, reference: {text}}}" for i, text in enumerate(inputs)
    ]
    return "\n".join(lines) + "\n"


CRASHING_AGENT = """
import os, time


def agent(prompt):
    if prompt == "BOOM":
        os._exit(3)  # as a segfault in a native library would end the worker
    time.sleep(0.1)
    return prompt
"""


def test_a_python_agent_that_crashes_its_worker_is_blamed_on_its_own_case_alone(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    """Started ahead, its call crashed the worker while another case ran, which took the
    blame, and each new worker crashed the same way on yet another case."""
    inputs = [f"q{i}" for i in range(24)]
    inputs[8] = "BOOM"
    make_project("p", agent_project(inputs), files={"agent.py": CRASHING_AGENT})
    result = pytester.runpytest(*XDIST, "-n", "2")
    result.assert_outcomes(passed=23, failed=1)
    result.stdout.fnmatch_lines(
        ["FAILED projects/p/arena.yaml::t8[[]mine] - worker 'gw*' crashed while running*"]
    )
    assert result.stdout.str().count("crashed while running") == 2  # its row and its summary


STOPPING_AGENT = """
import time

import pytest


def agent(prompt):
    if prompt == "STOP":
        pytest.exit("agent says stop", returncode=RETURNCODE)
    time.sleep(0.05)
    return prompt
"""


@pytest.mark.parametrize("returncode", [None, 3])
def test_pytest_exit_in_an_agent_stops_the_run_under_xdist_as_without(
    pytester: pytest.Pytester, make_project: MakeProject, returncode: int | None
) -> None:
    """It ended its worker, which xdist took for a crash of the case, and the run went on;
    then the run stopped, but with exit status 2 whatever returncode it gave, and the JSON
    report said another plugin had stopped it."""
    inputs = [f"q{i}" for i in range(30)]
    inputs[4] = "STOP"
    agent = STOPPING_AGENT.replace("RETURNCODE", repr(returncode))
    make_project("p", agent_project(inputs), files={"agent.py": agent})
    result = pytester.runpytest(*XDIST, "-n", "2", "--arena-json", "r.json")
    assert result.ret == (pytest.ExitCode.INTERRUPTED if returncode is None else returncode)
    assert json.loads((pytester.path / "r.json").read_text())["stopped_by"] == "interrupt"
    result.stdout.fnmatch_lines(
        [
            "arena: the run stopped early (Exit: agent says stop): the boards hold only the *",
            "*Interrupted: Exit: agent says stop*",
        ]
    )
    text = result.stdout.str()
    assert "crashed" not in text and "errors" not in result.parseoutcomes()
    assert result.parseoutcomes()["passed"] < 29  # the workers stopped: not every case ran


# A connector that logs each answer it is paid for (a cent each): fast for project a's
# cases, slow for project b's
LOGGED = """
import asyncio, json, os

from pydantic import BaseModel

from pytest_arena.connectors.base import Connector, Response

LOG = {log!r}


class Settings(BaseModel):
    pass


class Logged(Connector):
    name = "logged"
    settings_model = Settings
    cacheable = False

    async def acomplete(self, request):
        await asyncio.sleep(0.2 if request.prompt.startswith("slow") else 0.01)
        with open(LOG, "a") as f:
            f.write(json.dumps(request.case.project + "/" + request.case.id) + "\\n")
        return Response(request.case.reference, cost=0.01)


def pytest_arena_connectors():
    return [Logged]
"""


def logged_project(kind: str, count: int) -> str:
    lines = ["models:", "  default: [m]", "  define:", "    m: {connector: logged}", "tests:"]
    lines += [f"  - {{id: {kind}{i}, input: {kind}{i}, reference: ok}}" for i in range(count)]
    return "\n".join(lines) + "\n"


def test_worksteal_pays_for_each_case_about_once(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    """The worker that is given the slow project has started the calls of its whole queue
    when the other, done with the fast one, takes half of it and calls them again: 80
    cases made about 110 calls."""
    log = pytester.path / "calls.log"
    pytester.makeconftest(LOGGED.format(log=str(log)))
    make_project("a", logged_project("fast", 40))
    make_project("b", logged_project("slow", 40))
    result = pytester.runpytest(*XDIST, "-n", "2", "--dist", "worksteal")
    result.assert_outcomes(passed=80)
    calls = [json.loads(line) for line in log.read_text().splitlines()]
    assert len(set(calls)) == 80
    # a call begun of a case taken from the worker's last few is paid twice, rarely
    assert len(calls) <= 83, len(calls)


def test_calls_of_cases_that_left_for_another_worker_are_said_in_the_spend_line() -> None:
    said = spending([], spent_on_calls=0.02, xdist=True)
    assert said.endswith(
        "$0.02 on answers no case was graded by (of cases the run stopped, skipped, cut short,"
        " ran again or gave to another xdist worker)"
    )
    assert "xdist" not in spending([], spent_on_calls=0.02)


class NoSettings(BaseModel):
    pass


class Waiting(Connector):
    """Answers once `release` is set; keeps the cases it was asked for."""

    name = "waiting"
    settings_model = NoSettings

    def __init__(self) -> None:
        super().__init__("m", NoSettings())
        self.asked: list[str] = []
        self.release = threading.Event()

    async def acomplete(self, request: Request) -> Response:
        self.asked.append(request.case.id)
        while not self.release.is_set():
            await asyncio.sleep(0.01)
        return Response(request.case.id)


def test_a_call_waiting_for_its_place_is_called_off_and_asks_nothing() -> None:
    """The engine's side of a case another worker took: a call that has not begun makes no
    request and ends skipped; one that has begun runs on."""
    connector, engine, limits = Waiting(), Engine(), Limits(concurrency=1)
    try:
        first, second = (
            engine.submit(connector, Request("m", [], Case(id=case, input=case)), limits)
            for case in ("first", "second")
        )
        deadline = time.monotonic() + 10
        while not connector.asked and time.monotonic() < deadline:
            time.sleep(0.01)
        assert engine.call_off(second)  # it waits for the one place, which the first holds
        assert not engine.call_off(first)
        connector.release.set()
        answered, called_off = engine.wait(first), engine.wait(second)
    finally:
        engine.close()
    assert answered.response is not None and answered.response.text == "first"
    assert called_off.response is None and called_off.skipped is not None
    assert connector.asked == ["first"]


# Never two calls at once: one that finds another running leaves a mark
ALONE_AGENT = """
import os, time

HERE = os.path.dirname(__file__)


def agent(prompt):
    if prompt == "BOOM":
        os._exit(3)  # its worker ends holding the model's one place
    try:
        os.close(os.open(os.path.join(HERE, "busy"), os.O_CREAT | os.O_EXCL))
    except FileExistsError:
        with open(os.path.join(HERE, "together"), "a") as f:
            f.write(prompt + "\\n")
        return prompt
    time.sleep(0.05)
    os.remove(os.path.join(HERE, "busy"))
    return prompt
"""


def test_concurrency_1_holds_for_the_run_under_xdist_and_a_crashed_worker_frees_its_place(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    """Each of 2 workers took half of it, rounded up: one call each, two at once."""
    inputs = [f"q{i}" for i in range(24)]
    inputs[5] = "BOOM"
    root = make_project(
        "p", agent_project(inputs, ", concurrency: 1"), files={"agent.py": ALONE_AGENT}
    )
    result = pytester.runpytest(*XDIST, "-n", "2")
    result.assert_outcomes(passed=23, failed=1)  # the rest ran: the crash gave its place back
    assert not (root / "together").exists(), (root / "together").read_text()


# A connector (started ahead, unlike a python agent) that marks a call that finds another
# running, and logs which worker made each
ALONE = """
import asyncio, os

from pydantic import BaseModel

from pytest_arena.connectors.base import Connector, Response

HERE = {here!r}


class Settings(BaseModel):
    pass


class Alone(Connector):
    name = "alone"
    settings_model = Settings
    cacheable = False

    async def acomplete(self, request):
        with open(os.path.join(HERE, "calls.log"), "a") as f:
            f.write(f"{{os.getpid()}}\\n")
        try:
            os.close(os.open(os.path.join(HERE, "busy"), os.O_CREAT | os.O_EXCL))
        except FileExistsError:
            with open(os.path.join(HERE, "together"), "a") as f:
                f.write(request.case.id + "\\n")
            return Response(request.case.reference)
        await asyncio.sleep(0.03)
        os.remove(os.path.join(HERE, "busy"))
        return Response(request.case.reference)


def pytest_arena_connectors():
    return [Alone]
"""


def test_workers_take_turns_at_a_concurrency_1_models_one_place(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    """A worker whose calls run ahead gives the place back and takes it again at once: the
    other worker, looking for it now and then, would wait for all of its calls."""
    pytester.makeconftest(ALONE.format(here=str(pytester.path)))
    cases = "".join(f"  - {{id: c{i}, input: c{i}, reference: c{i}}}\n" for i in range(30))
    make_project(
        "p",
        "models:\n  default: [m]\n  define:\n    m: {connector: alone, concurrency: 1}\n"
        f"tests:\n{cases}",
    )
    result = pytester.runpytest(*XDIST, "-n", "2")
    result.assert_outcomes(passed=30)
    assert not (pytester.path / "together").exists(), (pytester.path / "together").read_text()
    callers = (pytester.path / "calls.log").read_text().split()
    # each worker calls for about its half of the cases; without turns, its first few
    assert len(set(callers)) == 2 and min(callers.count(pid) for pid in set(callers)) >= 8
