"""Threads for the user's blocking code (a plain-function agent, a tool), awaited from the
engine's loop (scorers and hooks, called from pytest's thread: evaluation.user_code).

They never hold the process open: a function that never returns is left behind when the
run ends, where a `ThreadPoolExecutor`'s thread would be waited for at exit, for ever.
The user's code may cancel tasks of its own: `cancelled_from_outside` tells that from the
engine's cancelling it. The engine learns of a function it stopped waiting for (a timeout)
that runs on, and where it is, from `left_running`.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import contextvars
import functools
import os
import queue
import sys
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from types import FrameType
from typing import Any

_Job = Callable[[], None]

# the folders of what runs the user's code (asyncio's loop, concurrent.futures' threads and
# futures), whose frames a traceback of the user's code leaves out: Python's own, not a
# project's folder that happens to be called "asyncio"
RUNNER_FOLDERS = tuple(
    str(Path(module.__file__ or "").resolve().parent) + os.sep
    for module in (asyncio, concurrent.futures)
)


class _Threads:
    """Daemon threads made on demand (as many as calls run at once) and kept for reuse."""

    def __init__(self, name: str) -> None:
        self._name = name
        self._jobs: queue.SimpleQueue[_Job] = queue.SimpleQueue()
        self._lock = threading.Lock()
        self._idle = 0
        self._made = 0

    def submit(self, job: _Job) -> None:
        with self._lock:
            made = self._idle == 0
            if made:
                self._made += 1
            else:
                self._idle -= 1
        self._jobs.put(job)
        if made:
            name = f"{self._name}-{self._made}"
            threading.Thread(target=self._work, name=name, daemon=True).start()

    def _work(self) -> None:
        while True:
            self._jobs.get()()
            with self._lock:
                self._idle += 1


_THREADS = _Threads("arena-user-blocking")


class Work:
    """A function handed to a thread by `run_blocking`: whether it runs, where, and a future
    (on the loop that handed it over) done once it has returned or was never started."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.ended: asyncio.Future[None] = loop.create_future()
        self.thread: int | None = None  # the ident of the thread running it
        self.running = False  # it started and has not returned

    def where(self) -> str:
        """Where its thread is now, in the user's own code (see `user_line`), or ""."""
        frames = getattr(sys, "_current_frames", None)  # CPython's, documented
        if not self.running or self.thread is None or frames is None:
            return ""
        return user_line(frames().get(self.thread))


_HANDED: contextvars.ContextVar[list[Work] | None] = contextvars.ContextVar(
    "arena_handed", default=None
)


@contextlib.contextmanager
def left_running() -> Iterator[list[Work]]:
    """The work `run_blocking` is handed inside (in this context, and in the tasks started
    from it), for the caller to see which still runs once it stopped waiting (a timeout)."""
    handed: list[Work] = []
    token = _HANDED.set(handed)
    try:
        yield handed
    finally:
        _HANDED.reset(token)


def run_blocking(function: Callable[..., Any], /, *args: Any, **kwargs: Any) -> asyncio.Future[Any]:
    """Run `function(*args, **kwargs)` on a daemon thread, in a copy of the caller's context;
    the future of its result, on the running loop. Cancelling the future (a timeout)
    abandons the thread's work; it runs on, and its result is dropped (one cancelled before
    a thread took it up is never started).

    What the function raises is the future's exception, `SystemExit` and `KeyboardInterrupt`
    too: the caller awaits the future itself (a future, not a coroutine, which wait_for would
    run as a task of its own before Python 3.12) and reports them as the function's error
    (`except BaseException`, letting `asyncio.CancelledError` through), since escaping a task
    they would stop the loop."""
    loop = asyncio.get_running_loop()
    future: asyncio.Future[Any] = loop.create_future()
    call = functools.partial(contextvars.copy_context().run, function, *args, **kwargs)
    work = Work(loop)
    handed = _HANDED.get()
    if handed is not None:
        handed.append(work)

    def job() -> None:
        work.thread, work.running = threading.get_ident(), True
        try:
            if future.cancelled():  # given up on before it started: it never runs
                return
            value = call()
        except StopIteration as exc:  # which asyncio will not put in a future
            settle = functools.partial(_fail, future, Raised(exc))
        except BaseException as exc:  # sys.exit() too: the caller's to report
            settle = functools.partial(_fail, future, exc)
        else:
            settle = functools.partial(_succeed, future, value)
        finally:
            work.running = False
            with contextlib.suppress(RuntimeError):  # the loop is closed: nobody waits now
                loop.call_soon_threadsafe(_succeed, work.ended, None)
        with contextlib.suppress(RuntimeError):
            loop.call_soon_threadsafe(settle)

    _THREADS.submit(job)
    return future


def user_line(frame: FrameType | None) -> str:
    """`name() at file:line` of the innermost frame of `frame`'s stack in the user's own
    code (not Python's, nor an installed package's, nor pytest-arena's), or ""."""
    while frame is not None:
        file = frame.f_code.co_filename
        if not file.startswith(not_user_code()):
            return f"{frame.f_code.co_name}() at {file}:{frame.f_lineno}"
        frame = frame.f_back
    return ""


@functools.cache
def not_user_code() -> tuple[str, ...]:
    """Where code that is not the user's lives: Python's library, installed packages, this
    package (looked up when first needed, not at every run's start)."""
    import sysconfig

    places = {sysconfig.get_path(name) for name in ("stdlib", "platstdlib", "purelib", "platlib")}
    return (*places, str(Path(__file__).resolve().parent.parent), "<")


class Raised(Exception):
    """What user code raised, carried as an Exception where it cannot go as it is: a
    SystemExit out of a task, a StopIteration into a future. `raised` is it."""

    def __init__(self, raised: BaseException) -> None:
        super().__init__(type(raised).__name__)  # its own str() may fail
        self.raised = raised


def cancelled_from_outside() -> bool:
    """Whether the running task was asked to stop (a timeout, the run's end), as against a
    CancelledError of the user's code's own (a task it awaited was cancelled). Python 3.10
    cannot tell: there every CancelledError is taken for the engine's."""
    task = asyncio.current_task()
    cancelling = getattr(task, "cancelling", None)
    return cancelling is None or cancelling() > 0


def _succeed(future: asyncio.Future[Any], value: Any) -> None:
    if not future.done():  # not given up on (a timeout cancels it)
        future.set_result(value)


def _fail(future: asyncio.Future[Any], exc: BaseException) -> None:
    if not future.done():
        future.set_exception(exc)
