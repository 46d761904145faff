"""The project's Python code (scorers, hooks) run with a time limit.

Each call runs on a worker thread while pytest's thread waits for it, at most `timeout`
seconds. Python cannot stop a thread from outside, so a call that overruns is left to
finish on its own: its thread is a daemon (it never holds up the end of the run), it is
no longer waited for, and the next call gets a fresh worker. Its case fails with a
"did not return within" reason. Ctrl-C while waiting stops the run as usual.

Code that must run on pytest's own thread (it installs signal handlers, or uses an object
bound to the thread that made it, such as a sqlite3 connection made at import) can have
no limit: `timeout: null`, and it is called on that thread directly.

A function that returns an awaitable (an `async def` scorer or hook) has it run to its end
by `asyncio.run` on the thread that called it, inside the same time limit.

A project's Python files are imported the same way (`import_file`), so that one whose
import never ends stops only its project; the line it was stuck at is said.
"""

from __future__ import annotations

import asyncio
import inspect
import queue
import sys
import threading
from collections.abc import Callable
from concurrent.futures import Future
from concurrent.futures import TimeoutError as FutureTimeout
from pathlib import Path
from types import ModuleType
from typing import Any

from pytest_arena.spec.python_files import ImportStuck
from pytest_arena.spec.python_files import import_file as _import_file

DEFAULT_TIMEOUT = 60.0  # seconds; generous, since a scorer may call a judge model


class Overran(Exception):
    """A call did not return in time; its thread was left running."""

    def __init__(self, message: str, frames: list[tuple[str, int]] | None = None) -> None:
        super().__init__(message)
        self.frames = frames or []  # (file, line) where the stuck thread was, innermost last


_Job = tuple[Callable[..., Any], tuple[Any, ...], "Future[Any]"]


class _Worker:
    """A daemon thread running one job at a time from its queue."""

    def __init__(self) -> None:
        self.jobs: queue.SimpleQueue[_Job | None] = queue.SimpleQueue()
        self.thread = threading.Thread(target=self._loop, name="arena-user-code", daemon=True)
        self.thread.start()

    def _loop(self) -> None:
        while (job := self.jobs.get()) is not None:
            function, args, future = job
            try:
                future.set_result(_run(function, args))
            except BaseException as exc:  # handed to the waiting thread, which decides
                future.set_exception(exc)

    def frames(self) -> list[tuple[str, int]]:
        """Where the thread is now: (file, line) of each frame, innermost last."""
        frame = sys._current_frames().get(self.thread.ident or -1)
        found: list[tuple[str, int]] = []
        while frame is not None:
            found.append((frame.f_code.co_filename, frame.f_lineno))
            frame = frame.f_back
        return found[::-1]


def _run(function: Callable[..., Any], args: tuple[Any, ...]) -> Any:
    """`function(*args)`, and the awaitable it returns (an `async def`'s) awaited."""
    result = function(*args)
    if not inspect.isawaitable(result):
        return result
    try:
        asyncio.get_running_loop()
    except RuntimeError:  # no loop runs on this thread: the usual case
        running = False
    else:
        running = True
    if not running:  # run outside the handler, or what it raises is "during" the RuntimeError
        return asyncio.run(_awaited(result))
    done: Future[Any] = Future()  # a loop already runs here: run it on a thread of its own

    def run() -> None:
        try:
            done.set_result(asyncio.run(_awaited(result)))
        except BaseException as exc:  # handed to the waiting thread
            done.set_exception(exc)

    # a daemon: if Ctrl-C stops the wait, the thread never holds up the end of the run
    threading.Thread(target=run, name="arena-user-code-async", daemon=True).start()
    return done.result()


async def _awaited(awaitable: Any) -> Any:
    return await awaitable


_worker: _Worker | None = None
_lock = threading.Lock()


def call(function: Callable[..., Any], args: tuple[Any, ...], timeout: float | None) -> Any:
    """`function(*args)`, on the worker thread; Overran after `timeout` seconds (None: no
    limit, and the call stays on this thread)."""
    global _worker
    if timeout is None:
        return _run(function, args)
    with _lock:
        worker = _worker = _worker or _Worker()
    future: Future[Any] = Future()
    worker.jobs.put((function, args, future))
    try:
        return future.result(timeout)
    except FutureTimeout:  # not the builtin TimeoutError on Python 3.10
        frames = worker.frames()
        _abandon(worker)
        raise Overran(f"did not return within {timeout:g} s", frames) from None
    except BaseException:  # the wait itself was stopped (pytest-timeout, Ctrl-C) while the
        if not future.done():  # call runs on: later calls get a worker of their own
            _abandon(worker)
        raise


def _abandon(worker: _Worker) -> None:
    """Leave `worker` to the call it is stuck in: it ends when that call does."""
    global _worker
    with _lock:
        if _worker is worker:
            _worker = None
    worker.jobs.put(None)


def import_file(path: Path, package: str) -> ModuleType:
    """Import the project's file `path` (see spec.python_files) within DEFAULT_TIMEOUT;
    ImportStuck, at the line it was stuck at, if its import does not end by then."""
    try:
        module: ModuleType = call(_import_file, (path, package), DEFAULT_TIMEOUT)
    except Overran as exc:
        lines = [line for file, line in exc.frames if _same(file, path)]
        at = lines[-1] if lines else None
        raise ImportStuck(f"did not finish importing within {DEFAULT_TIMEOUT:g} s", at) from None
    return module


def _same(file: str, path: Path) -> bool:
    try:
        return Path(file).resolve() == path.resolve()
    except OSError:
        return False
