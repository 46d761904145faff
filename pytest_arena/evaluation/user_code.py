"""The project's Python code (scorers, hooks) run with a time limit.

Each call runs on a worker thread while pytest's thread waits for it, at most `timeout`
seconds. Python cannot stop a thread from outside, so a call that overruns is left to
finish on its own: its thread is a daemon (it never holds up the end of the run), it is
no longer waited for, and the next call gets a fresh worker. Its case fails with a
"did not return within" reason. Ctrl-C while waiting stops the run as usual.

Code that must run on pytest's own thread (it installs signal handlers, or uses an object
bound to the thread that made it, such as a sqlite3 connection made at import) can have
no limit: `timeout: null`, and it is called on that thread directly.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable
from concurrent.futures import Future
from concurrent.futures import TimeoutError as FutureTimeout
from typing import Any

DEFAULT_TIMEOUT = 60.0  # seconds; generous, since a scorer may call a judge model


class Overran(Exception):
    """A call did not return in time; its thread was left running."""


_Job = tuple[Callable[..., Any], tuple[Any, ...], "Future[Any]"]


class _Worker:
    """A daemon thread running one job at a time from its queue."""

    def __init__(self) -> None:
        self.jobs: queue.SimpleQueue[_Job | None] = queue.SimpleQueue()
        threading.Thread(target=self._loop, name="arena-user-code", daemon=True).start()

    def _loop(self) -> None:
        while (job := self.jobs.get()) is not None:
            function, args, future = job
            try:
                future.set_result(function(*args))
            except BaseException as exc:  # handed to the waiting thread, which decides
                future.set_exception(exc)


_worker: _Worker | None = None
_lock = threading.Lock()


def call(function: Callable[..., Any], args: tuple[Any, ...], timeout: float | None) -> Any:
    """`function(*args)`, on the worker thread; Overran after `timeout` seconds (None: no
    limit, and the call stays on this thread)."""
    global _worker
    if timeout is None:
        return function(*args)
    with _lock:
        worker = _worker = _worker or _Worker()
    future: Future[Any] = Future()
    worker.jobs.put((function, args, future))
    try:
        return future.result(timeout)
    except FutureTimeout:  # not the builtin TimeoutError on Python 3.10
        with _lock:
            if _worker is worker:
                _worker = None  # abandoned to the stuck call; it ends when the call does
        worker.jobs.put(None)
        raise Overran(f"did not return within {timeout:g} s") from None
