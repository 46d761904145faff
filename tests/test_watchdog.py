"""The watchdog's two fallbacks. Where posix_spawn cannot start it in a session of its own
(a C library without POSIX_SPAWN_SETSID), it starts in pytest's and ignores the signals
sent to that group itself, so it still ends the agents of a pytest killed by one. Where it
cannot start at all, programs run as they did before there was one."""

from __future__ import annotations

import asyncio
import contextlib
import errno
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from pytest_arena.engine import processes
from tests.conftest import MakeProject, alive, running
from tests.projects import slow_agent

pytestmark = pytest.mark.skipif(
    not sys.platform.startswith("linux"), reason="reads /proc; the watchdog is POSIX's"
)

IGNORED = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
Spawn = Callable[..., int]


def ignores(pid: int, signals: tuple[signal.Signals, ...]) -> bool:
    """Whether process `pid` ignores each of `signals` (its SigIgn mask in /proc)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("SigIgn:"):
            mask = int(line.split()[1], 16)
            return all(mask >> (number - 1) & 1 for number in signals)
    return False


def until(check: Callable[[], bool], seconds: float = 10) -> bool:
    deadline = time.monotonic() + seconds
    while not check() and time.monotonic() < deadline:
        time.sleep(0.02)
    return check()


@pytest.fixture
def watchdog(monkeypatch: pytest.MonkeyPatch) -> Iterator[processes._Watchdog]:
    """A watchdog of the test's own, not yet started (this process's may be running),
    closed afterwards: its process, if any, then exits."""
    fresh = processes._Watchdog()
    monkeypatch.setattr(processes, "_watchdog", fresh)
    yield fresh
    if fresh._pipe is not None and fresh._pipe >= 0:
        os.close(fresh._pipe)


@pytest.fixture
def spawned(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[int]]:
    """os.posix_spawn as where the C library has no POSIX_SPAWN_SETSID: `setsid=True`
    raises NotImplementedError, as Python does there. The pids it started, reaped after."""
    real: Spawn = os.posix_spawn
    pids: list[int] = []

    def without_setsid(path: str, argv: list[str], env: Any, **options: Any) -> int:
        if options.get("setsid"):
            raise NotImplementedError("setsid is unavailable on this platform")
        pid = real(path, argv, env, **options)
        pids.append(pid)
        return pid

    monkeypatch.setattr(os, "posix_spawn", without_setsid)
    yield pids
    for pid in pids:
        with contextlib.suppress(ChildProcessError):
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)


def answer(tmp_path: Path, text: str = "hi") -> None:
    """A program run both ways answers as usual."""
    argv = [sys.executable, "-c", f"print({text!r})"]
    done = processes.run(argv, cwd=tmp_path, env=os.environ, timeout=30)
    assert (done.returncode, done.stdout) == (0, f"{text}\n".encode())
    done = asyncio.run(processes.arun(argv, cwd=tmp_path, env=os.environ))
    assert (done.returncode, done.stdout) == (0, f"{text}\n".encode())


def test_without_setsid_the_watchdog_starts_in_this_session_and_ignores_its_signals(
    tmp_path: Path, watchdog: processes._Watchdog, spawned: list[int]
) -> None:
    answer(tmp_path)
    [pid] = spawned  # started once, for both programs
    assert running(pid)
    assert (os.getsid(pid), os.getpgid(pid)) == (os.getsid(0), os.getpgid(0))
    assert until(lambda: ignores(pid, IGNORED)), "a signal to pytest's group would end it"


def test_without_setsid_the_watchdog_still_ends_the_agent_of_a_pytest_killed_by_sigterm(
    pytester: pytest.Pytester, make_project: MakeProject, tmp_path: Path
) -> None:
    """A cancelled CI job sends SIGTERM to pytest's group, which the watchdog is in when it
    could not have a session of its own: it ignores the signal, outlives pytest, and kills
    the agent's group."""
    pids = tmp_path / "pids"
    pids.mkdir()
    told = tmp_path / "watchdog"
    make_project("p", *slow_agent(pids))
    pytester.makeconftest(
        f"""
        import os
        from pathlib import Path

        real = os.posix_spawn

        def without_setsid(path, argv, env, **options):
            if options.get("setsid"):
                raise NotImplementedError("setsid is unavailable on this platform")
            pid = real(path, argv, env, **options)
            Path({str(told)!r}).write_text(str(pid))
            return pid

        os.posix_spawn = without_setsid
        """
    )
    run = subprocess.Popen(
        [sys.executable, "-c", "import pytest; pytest.main(['-p', 'no:cacheprovider'])"],
        cwd=pytester.path,
        start_new_session=True,  # a process group of its own, as a CI job's
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    guard = 0
    try:
        assert until(lambda: bool(alive(pids)), 30), "the agent never started"
        guard = int(told.read_text())
        assert os.getpgid(guard) == run.pid  # in the group the signal goes to
        assert until(lambda: ignores(guard, IGNORED))
        os.killpg(run.pid, signal.SIGTERM)
        run.wait(10)
        assert until(lambda: not alive(pids)), "the agent outlived pytest"
        assert until(lambda: not running(guard))  # and the watchdog is done
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(run.pid, signal.SIGKILL)
        for pid in alive(pids) + ([guard] if guard and running(guard) else []):
            os.kill(pid, signal.SIGKILL)  # not left behind by a failing test


def failing_spawn(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """os.posix_spawn failing as when the system is out of processes; the calls it got."""
    calls: list[str] = []

    def refused(path: str, argv: list[str], env: Any, **options: Any) -> int:
        calls.append(path)
        raise OSError(errno.EAGAIN, os.strerror(errno.EAGAIN))

    monkeypatch.setattr(os, "posix_spawn", refused)
    return calls


def test_without_a_watchdog_programs_run_as_before(
    tmp_path: Path, watchdog: processes._Watchdog, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls = failing_spawn(monkeypatch)
    fds = len(os.listdir("/proc/self/fd"))
    answer(tmp_path)
    answer(tmp_path, "again")
    assert len(calls) == 1  # tried once, not again for each program
    # its pipe closed: no more open than before (files of earlier tests may close meanwhile)
    assert len(os.listdir("/proc/self/fd")) <= fds


def test_a_command_agent_answers_when_the_watchdog_cannot_start(
    pytester: pytest.Pytester,
    make_project: MakeProject,
    watchdog: processes._Watchdog,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    make_project(
        "p",
        f"""
        models:
          default: [agent]
          define:
            agent: {{connector: command, command: [{json.dumps(sys.executable)}, agent.py]}}
        scoring:
          - {{command: [{json.dumps(sys.executable)}, "-c", "print(1)"]}}
        tests:
          - {{id: a, input: "Paris", reference: "Paris"}}
        """,
        {"agent.py": "import sys\nprint(sys.stdin.read())\n"},
    )
    calls = failing_spawn(monkeypatch)
    result = pytester.runpytest("-p", "no:cacheprovider")
    result.assert_outcomes(passed=1)
    assert len(calls) == 1
