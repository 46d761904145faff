"""The progress of a long run in the terminal: calls done of the total, cache hits, spend so
far and time left.

On a terminal, one line at the end of pytest's own output, redrawn at most twice a second
once the run has taken a second, and erased (with backspaces) before pytest writes again,
never wider than the terminal (nor drawn when it does not fit); without one (CI logs), a
plain line every `--arena-progress-every` seconds (30). Plain lines too where a line
redrawn in place would go wrong: under CI (`CI`, `BUILD_NUMBER`) or `TERM=dumb`, as pytest
decides, and where others write to the terminal while the calls run (the tests' output with
`-s`, `--capture=tee-sys` or `-p no:capture`; live logs with `log_cli` or `--log-cli-level`).
Nothing under `-q`, with `--arena-progress-every 0`, or under
pytest-xdist (the calls are in the workers, whose output pytest does not show). The main
thread draws it between tests and while it waits for a call started ahead; no thread of its
own writes to the terminal.

Shown or not, it counts the answers of models without a price (an xdist worker sends its
count to the controller), so that the spend line also counts those no case graded (of cases
`-x` stopped the run before), as it adds what priced ones cost.
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import os
import shutil
import threading
import time
from typing import TYPE_CHECKING, Any

import pytest

from pytest_arena.engine.progress import Progress

if TYPE_CHECKING:
    from pytest_arena.engine.calls import Call, CallResult, Engine

PLUGIN = "arena-progress"
DEFAULT_EVERY = 30.0  # seconds between plain lines
REDRAW = 0.5  # seconds between redraws of the terminal's line
QUIET_START = 1.0  # a run shorter than this shows no line
WAIT_TICK = 0.25  # seconds the main thread waits on a call before it redraws
MIN_ROOM = 24  # characters the line needs at the end of the terminal's current line
_KEY = pytest.StashKey["ProgressLine | None"]()
UNPRICED = "arena_unpriced_answers"  # a worker's output: its answers of models without a price


def add_options(group: pytest.OptionGroup) -> None:
    group.addoption(
        "--arena-progress-every",
        type=float,
        default=DEFAULT_EVERY,
        metavar="SECONDS",
        help="without a terminal (CI logs, or with -s or live logs), print the calls done,"
        f" cache hits, spend and time left this often (default {DEFAULT_EVERY:g}); on a"
        " terminal one line is kept up to date; 0 shows nothing",
    )


def register(config: pytest.Config) -> None:
    """Start the progress line for this run: shown unless it has to stay silent, counting
    either way."""
    every = config.getoption("arena_progress_every", DEFAULT_EVERY)
    silent = (
        every is None
        or every <= 0
        or (config.getoption("verbose", 0) or 0) < 0  # (no -v/-q under -p no:terminal)
        or hasattr(config, "workerinput")
        or getattr(config.option, "dist", "no") != "no"
        or getattr(config.option, "numprocesses", None)
    )
    line = ProgressLine(config, DEFAULT_EVERY if silent else float(every), shows=not silent)
    config.stash[_KEY] = line
    config.pluginmanager.register(line, PLUGIN)


def redrawable(config: pytest.Config) -> bool:
    """Whether a terminal may get the line redrawn in place: not under CI or on a dumb
    terminal, nor with other writers on its line (the tests' output, live logs)."""
    if any(os.environ.get(var) for var in ("CI", "BUILD_NUMBER")):  # pytest's running_on_ci
        return False
    if os.environ.get("TERM") == "dumb":
        return False
    capman = config.pluginmanager.get_plugin("capturemanager")  # None under -p no:capture
    if capman is None or config.getoption("capture", "fd") in ("no", "tee-sys"):
        return False
    try:
        live_logs = config.getoption("log_cli_level", None) is not None or config.getini("log_cli")
    except ValueError:  # -p no:logging
        live_logs = False
    return not live_logs


def of(config: pytest.Config) -> ProgressLine | None:
    """The run's progress line (shown or not), or None before `register`."""
    return config.stash.get(_KEY, None)


def unpriced_answers(config: pytest.Config) -> int:
    """The answers of models without a price that this process's calls got, graded or not
    (on the xdist controller, those its workers said)."""
    line = of(config)
    return 0 if line is None else line.unpriced_answers


class ProgressLine:
    def __init__(self, config: pytest.Config, every: float, shows: bool = True) -> None:
        self.config = config
        self.shows = shows  # drawn; else it only counts
        self.tw: Any = None  # pytest's terminal writer, once the run starts
        self.file: Any = None
        self.tty = False
        self.every = every
        self.counts = Progress()
        self.shown = 0  # characters of the line on the terminal now
        self.last = time.monotonic()  # when a line was last drawn or printed
        self.begun = False  # `begin` has found the terminal
        self.unpriced_answers = 0  # answers whose cost is unknown (no price), not cached
        self._lock = threading.Lock()  # counted on the engine's thread and the main one

    # -- counting -----------------------------------------------------------------------

    def launched(self, call: Call | None) -> None:
        """One more call for the run: started ahead (`call`, counted when it finishes, on
        the engine's thread) or to be made inline (None, counted by `count`)."""
        self.counts.total += 1
        if call is not None:
            call.future.add_done_callback(self._finished)

    def _finished(self, future: Any) -> None:
        if future.cancelled():
            return
        self.count(future.result())

    def count(self, result: CallResult) -> None:
        """A call made inline, or a case that needed none, is done (or one started ahead)."""
        self.counts.finished(result.cost, result.cached)
        # an answer as the spend line counts one: a response, or a tool loop's turns
        answered = result.response is not None or bool(result.trajectory)
        if answered and result.cost is None and not result.cached:
            with self._lock:
                self.unpriced_answers += 1

    def add_unpriced(self, answers: int) -> None:
        """Count `answers` of models without a price more (an xdist worker's)."""
        with self._lock:
            self.unpriced_answers += answers

    def wait(self, engine: Engine, call: Call) -> CallResult:
        """`engine.wait(call)`, keeping the line up to date while it takes."""
        if not self.shows:
            return engine.wait(call)
        future = call.future
        while not future.done() and engine.stalled(call) is None:
            try:
                future.exception(timeout=WAIT_TICK)
            except concurrent.futures.TimeoutError:
                with self._uncaptured():  # inside the test: pytest captures the terminal
                    self.tick()
            except concurrent.futures.CancelledError:
                break  # engine.wait says so below
        return engine.wait(call)

    def wait_all(self, calls: list[Call], seconds: float) -> None:
        """Wait up to `seconds` for every one of `calls`, keeping the line up to date."""
        if not self.shows:
            concurrent.futures.wait([call.future for call in calls], timeout=seconds)
            return
        self.begin()
        deadline = time.monotonic() + seconds
        futures = {call.future for call in calls}
        while futures and (left := deadline - time.monotonic()) > 0:
            _, futures = concurrent.futures.wait(futures, timeout=min(left, WAIT_TICK))
            with self._uncaptured():
                self.tick()

    def _uncaptured(self) -> contextlib.AbstractContextManager[None]:
        capman = self.config.pluginmanager.get_plugin("capturemanager")
        if capman is None:
            return contextlib.nullcontext()
        return capman.global_and_fixture_disabled()  # type: ignore[no-any-return]

    # -- drawing ------------------------------------------------------------------------

    def tick(self) -> None:
        if self.tw is None:
            return
        now = time.monotonic()
        if self.tty:
            if now - self.last >= REDRAW and now - self.counts.started >= QUIET_START:
                self._draw(now)
        elif now - self.last >= self.every:
            self.last = now
            if self.tw.width_of_current_line:
                self.tw.line()
            self.tw.line(self.counts.line(now))

    def _draw(self, now: float) -> None:
        width = min(self.tw.fullwidth, shutil.get_terminal_size().columns)  # pytest: 80 if < 40
        room = width - self.tw.width_of_current_line - 2
        self.clear()
        self.last = now
        if room < MIN_ROOM:
            return
        text = " " + self.counts.line(now)[: room - 1]
        self.file.write(text)
        self.file.flush()
        self.shown = len(text)

    def clear(self) -> None:
        if self.shown:
            n, self.shown = self.shown, 0
            self.file.write("\b" * n + " " * n + "\b" * n)
            self.file.flush()

    # -- hooks --------------------------------------------------------------------------

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtestloop(self, session: pytest.Session) -> None:
        self.begin()

    def begin(self) -> None:
        """Find pytest's terminal and start the clock, once: before the first item, or
        when the calls started ahead get their head start (before pytest's own hook)."""
        if self.begun or not self.shows:
            return
        self.begun = True
        reporter = self.config.pluginmanager.get_plugin("terminalreporter")
        self.tw = getattr(reporter, "_tw", None)
        self.file = getattr(self.tw, "_file", None)
        if self.file is None:
            self.tw = None  # not pytest's own terminal: show nothing
            return
        isatty = getattr(self.file, "isatty", None)
        self.tty = bool(isatty and isatty()) and redrawable(self.config)
        self.counts.started = self.last = time.monotonic()

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_logstart(self) -> None:
        self.clear()

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_logreport(self) -> None:
        self.clear()

    @pytest.hookimpl(trylast=True)
    def pytest_runtest_logfinish(self) -> None:
        if self.counts.expected and self.counts.done < self.counts.expected:
            self.tick()

    @pytest.hookimpl(tryfirst=True)
    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        self.clear()
        output = getattr(session.config, "workeroutput", None)
        if output is not None:  # an xdist worker: the controller's spend line counts them
            output[UNPRICED] = self.unpriced_answers

    @pytest.hookimpl(tryfirst=True)
    def pytest_keyboard_interrupt(self) -> None:
        self.clear()
