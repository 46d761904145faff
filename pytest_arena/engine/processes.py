"""Programs run for a case (script scorers, command agents), kept on a short leash.

Each runs in a process group of its own and is done when it exits, not when everything it
started has closed its output: its output goes to files, not pipes, so a background child
that inherited them cannot hold the case. The whole group is killed when the program exits
(whatever it left running in the background), on a timeout, on Ctrl-C and when its call is
cancelled; killing it at once, while the group still has the program's id, can never reach
another program that reused the id later. A program that writes more than MAX_OUTPUT to
stdout, or more than MAX_STDERR to stderr, is stopped then (it would fill the disk); of
stderr only the end is read back.

A group of its own is out of reach of a signal sent to pytest's (a CI job cancelled with
SIGTERM, which kills pytest before any code of its can run): a watchdog, a small process
started with the first program, kills the groups still running when pytest's end of a pipe
to it closes, however pytest ended.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Literal

MAX_OUTPUT = 16 * 1024 * 1024  # bytes of stdout read back: a program that writes more is stopped
# bytes of stderr held on disk while a program runs: one that writes more is stopped. A
# chatty log (a million debug lines, 20 MB) fits three times over, and a program writing
# in a loop holds this much of /tmp for each call running at once, not gigabytes.
MAX_STDERR = 64 * 1024 * 1024
STDERR_KEPT = 64 * 1024  # bytes of the end of stderr kept (its end says why a program failed)
WATCH = 0.05  # seconds between looks at how much a running program has written
_POSIX = os.name == "posix"

Stream = Literal["stdout", "stderr"]


@dataclass(frozen=True)
class Finished:
    """A program that exited: its status and what it wrote."""

    returncode: int
    stdout: bytes  # the first MAX_OUTPUT bytes, and one more if it wrote more
    stderr: bytes  # the last STDERR_KEPT bytes
    # the stream it wrote too much to (MAX_OUTPUT of stdout, MAX_STDERR of stderr), when
    # arena killed it for that; "" when it was not stopped
    stopped: Stream | Literal[""] = ""

    @property
    def stdout_cut(self) -> bool:
        """Whether it wrote more than MAX_OUTPUT bytes to stdout (`stdout` holds the first)."""
        return len(self.stdout) == MAX_OUTPUT + 1

    def how(self) -> str:
        """How it ended, as a person says it."""
        if self.stopped == "stdout":
            return (
                f"was stopped once it had written more than {MAX_OUTPUT // 2**20} MiB to"
                " stdout, more than arena reads"
            )
        if self.stopped == "stderr":
            return (
                f"was stopped once it had written more than {MAX_STDERR // 2**20} MiB to"
                " stderr, more than arena holds on disk while it runs; log less there (or to"
                " a file of your own)"
            )
        return ended(self.returncode)


class TimedOut(Exception):
    """The program did not exit in time; its group was killed."""

    def __init__(self, seconds: float, stderr: bytes) -> None:
        super().__init__(f"timed out after {seconds:g} s")
        self.stderr = stderr  # its last STDERR_KEPT bytes


def ended(returncode: int) -> str:
    """'exited with status 3', or 'was killed by signal 9 (SIGKILL)'."""
    if returncode >= 0:
        return f"exited with status {returncode}"
    try:
        name = f" ({signal.Signals(-returncode).name})"
    except ValueError:
        name = ""
    return f"was killed by signal {-returncode}{name}"


def shebang_problem(root: Path, argv0: str, exc: OSError) -> str:
    """Why program `argv0` could not be started from `root`: when the file exists, what its
    '#!' line names is what is missing, and a carriage return there (CRLF) is named."""
    said = str(exc.strerror or exc)
    program = root / argv0
    shown = program.relative_to(root) if program.is_relative_to(root) else program
    if exc.errno != errno.ENOENT or not program.is_file():
        return said
    try:
        with program.open("rb") as handle:
            first = handle.readline(256)
    except OSError:
        return said
    if not first.startswith(b"#!"):
        return said
    line = first[2:].rstrip(b"\n")
    words = line.rstrip(b"\r").decode(errors="replace").split()
    interpreter = words[0] if words else ""
    if line.endswith(b"\r"):
        return (
            "its '#!' line ends in a carriage return (the file has Windows CRLF line"
            f" endings), so the system looks for '{interpreter}\\r', which no program is"
            f"\n  fix: save it with LF line endings: sed -i 's/\\r$//' {shown}"
        )
    return (
        f"its interpreter {interpreter or '(none)'}, named by its '#!' line, is not"
        f" installed ({said})\n  fix: install it, or name one that is, such as #!/bin/sh"
    )


def run(
    argv: Sequence[str],
    *,
    cwd: Path,
    env: Mapping[str, str],
    timeout: float | None,
    stdin: bytes = b"",
) -> Finished:
    """Run `argv` until it exits; TimedOut after `timeout` seconds, OSError if it cannot start.
    Ctrl-C kills its group too."""
    with _outputs() as outputs:
        process = subprocess.Popen(
            list(argv),
            cwd=cwd,
            env=_encoded(env),
            stdin=subprocess.PIPE if stdin else subprocess.DEVNULL,
            stdout=outputs.out,
            stderr=outputs.err,
            start_new_session=_POSIX,
        )
        _watchdog.guard(process.pid)
        try:
            ended_by = _waited(process, outputs, timeout, stdin)
        except BaseException:  # Ctrl-C, or anything else: nothing of it may outlive the case
            _kill(process)
            _watchdog.release(process.pid)
            raise
        if ended_by == "exit":
            _kill_group(process.pid, None)  # what it left running in the background
        else:
            _kill(process)
        _watchdog.release(process.pid)
        if ended_by == "timeout":
            raise TimedOut(timeout or 0, outputs.stderr())
        stopped: Stream | Literal[""] = "" if ended_by == "exit" else ended_by
        return Finished(process.returncode, outputs.stdout(), outputs.stderr(), stopped)


def _waited(
    process: subprocess.Popen[bytes], outputs: _Outputs, timeout: float | None, stdin: bytes
) -> Stream | Literal["exit", "timeout"]:
    """How the wait for `process` ended: "exit", "timeout", or the stream it wrote too
    much to (see `_Outputs.look`); it is left running but on "exit"."""
    deadline = None if timeout is None else time.monotonic() + timeout
    if stdin and process.stdin is not None:
        # written as the program reads it, by a thread: one that never does still times out
        # (and the thread ends once the program is killed: its pipe then breaks)
        threading.Thread(target=_feed, args=(process.stdin, stdin), daemon=True).start()
    while True:
        left = WATCH if deadline is None else min(WATCH, max(0.0, deadline - time.monotonic()))
        try:
            process.wait(left)
            return "exit"
        except subprocess.TimeoutExpired:
            pass
        flooded = outputs.look()
        if flooded:
            return flooded
        if deadline is not None and time.monotonic() >= deadline:
            return "timeout"


def _feed(pipe: IO[bytes], data: bytes) -> None:
    """Write `data` to a program's stdin and close it; a program that exits, or closes its
    stdin, before reading it all is no error here (its exit status says what happened)."""
    with contextlib.suppress(OSError, ValueError):  # BrokenPipeError; a closed pipe
        pipe.write(data)
    with contextlib.suppress(OSError, ValueError):
        pipe.close()


async def arun(
    argv: Sequence[str], *, cwd: Path, env: Mapping[str, str], stdin: bytes = b""
) -> Finished:
    """`run` for the event loop; cancelling it (the engine's timeout, a stopped run) kills
    the program's group. OSError if it cannot start."""
    with _outputs() as outputs:
        pipe = await _StdinPipe.open() if stdin and _POSIX else None
        # (on Windows asyncio's pipes are pipes, and there is no /dev/stdin)
        piped = asyncio.subprocess.PIPE if stdin else asyncio.subprocess.DEVNULL
        try:
            process = await asyncio.create_subprocess_exec(
                *argv,
                cwd=cwd,
                env=_encoded(env),
                stdin=pipe.reading if pipe is not None else piped,
                stdout=outputs.out,
                stderr=outputs.err,
                start_new_session=_POSIX,
            )
        except BaseException:
            if pipe is not None:
                pipe.abort()
            raise
        finally:
            if pipe is not None:
                pipe.started()
        _watchdog.guard(process.pid)
        stopped: Stream | None = None
        try:
            if pipe is not None:
                pipe.send(stdin)
            elif stdin and process.stdin is not None:  # Windows
                await _afeed(process.stdin, stdin)
            stopped = await _awatched(process, outputs)
            if stopped:
                _kill_group(process.pid, process.returncode is None and process)
            returncode = await process.wait()
        except BaseException:
            _kill_group(process.pid, process.returncode is None and process)
            await asyncio.shield(process.wait())  # reaped even while being cancelled
            _watchdog.release(process.pid)
            raise
        finally:
            if pipe is not None:
                pipe.unsent()
        if not stopped:  # (a stopped one's group is killed already)
            _kill_group(process.pid, None)  # what it left running in the background
        _watchdog.release(process.pid)
        return Finished(returncode, outputs.stdout(), outputs.stderr(), stopped or "")


async def _awatched(process: asyncio.subprocess.Process, outputs: _Outputs) -> Stream | None:
    """Wait for `process` to exit (None); the stream it wrote too much to (see
    `_Outputs.look`), with it still running, if it does that first."""
    exited = asyncio.ensure_future(process.wait())
    try:
        while True:
            await asyncio.wait([exited], timeout=WATCH)
            if exited.done():
                return None
            flooded = outputs.look()
            if flooded:
                return flooded
    finally:
        if not exited.done():
            exited.cancel()


class _StdinPipe:
    """A pipe of the system for a program's stdin, its write end fed by the event loop.

    uvloop's `stdin=PIPE` is a socket (as asyncio's was before bpo-46364, in the first
    releases of Python 3.10): a program that opens /dev/stdin (`cat /dev/stdin`,
    `jq . /dev/stdin`) cannot (ENXIO). The loop writes the prompt as the program reads
    it, so a prompt bigger than the pipe holds blocks neither the loop nor a program that
    never reads it.
    """

    def __init__(self, reading: int, transport: asyncio.WriteTransport) -> None:
        self.reading: int | None = reading  # the program's end, until it has started
        self._transport = transport

    @classmethod
    async def open(cls) -> _StdinPipe:
        reading, writing = os.pipe()  # neither inherited by the program: it gets a copy of one
        file = os.fdopen(writing, "wb", buffering=0)
        try:
            loop = asyncio.get_running_loop()
            transport, _ = await loop.connect_write_pipe(asyncio.BaseProtocol, file)
        except BaseException:
            file.close()
            os.close(reading)
            raise
        return cls(reading, transport)

    def started(self) -> None:
        """The program has its copy of the read end (or failed to start): close ours, so
        that it alone holds the pipe and writing to it fails once it is gone."""
        if self.reading is not None:
            os.close(self.reading)
            self.reading = None

    def send(self, data: bytes) -> None:
        """Write `data` and close the pipe once the program has read it all. The loop keeps
        what the pipe cannot hold yet; if the program exits, or closes its stdin, before
        reading it all, the loop drops the rest (its exit status says what happened)."""
        self._transport.write(data)
        self._transport.close()

    def unsent(self) -> None:
        """The program is done (or the call cancelled): drop what it did not read, and close
        the pipe, which something it left running may still hold."""
        if self._transport.get_write_buffer_size():
            self._transport.abort()

    def abort(self) -> None:
        self.started()
        self._transport.abort()


def _encoded(env: Mapping[str, str]) -> Mapping[str, str] | Mapping[bytes, bytes]:
    """`env` as the bytes a program gets on POSIX: in the locale's encoding, as Python
    would (so a path or an inherited value keeps its bytes), or in UTF-8 where the locale
    cannot hold the text (under LC_ALL=C, a case's "café"). (Windows takes text.)"""
    if not _POSIX:
        return dict(env)
    return {os.fsencode(name): _bytes(value) for name, value in env.items()}


def _bytes(value: str) -> bytes:
    try:
        return os.fsencode(value)
    except UnicodeEncodeError:
        return value.encode("utf-8", "surrogateescape")


async def _afeed(pipe: asyncio.StreamWriter, data: bytes) -> None:
    """Write the program's stdin and close it. A program that exits, or closes its stdin,
    before reading it all is no error here: its exit status says what happened (asyncio's
    loop says so with BrokenPipeError or ConnectionResetError, uvloop's with RuntimeError
    on the closed pipe)."""
    try:
        pipe.write(data)
        await pipe.drain()
    except (BrokenPipeError, ConnectionResetError):
        pass
    except RuntimeError:
        if not pipe.is_closing():
            raise
    with contextlib.suppress(BrokenPipeError, ConnectionResetError, RuntimeError):
        pipe.close()


class _Outputs:
    """The files a program's stdout and stderr go to, and what is read back of them."""

    def __init__(self, out: IO[bytes], err: IO[bytes]) -> None:
        self.out, self.err = out, err

    def look(self) -> Stream | None:
        """The stream that has passed its bound, MAX_OUTPUT of stdout or MAX_STDERR of
        stderr, if one has. (stderr is left whole on disk while the program runs: emptying
        a file another process writes to loses what it writes meanwhile, and on Python 3.10
        lost megabytes before the last line; so its size is bounded instead.)"""
        if os.fstat(self.out.fileno()).st_size > MAX_OUTPUT:
            return "stdout"
        if os.fstat(self.err.fileno()).st_size > MAX_STDERR:
            return "stderr"
        return None

    def stdout(self) -> bytes:
        """The first MAX_OUTPUT bytes of stdout, and one more if it wrote more."""
        self.out.seek(0)
        return self.out.read(MAX_OUTPUT + 1)

    def stderr(self) -> bytes:
        """The last STDERR_KEPT bytes of stderr."""
        size = self.err.seek(0, os.SEEK_END)
        self.err.seek(max(0, size - STDERR_KEPT))
        return self.err.read()[-STDERR_KEPT:]


@contextlib.contextmanager
def _outputs() -> Iterator[_Outputs]:
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        yield _Outputs(out, err)


def _kill(process: subprocess.Popen[bytes]) -> None:
    _kill_group(process.pid, process.poll() is None and process)
    process.wait()


def _kill_group(pid: int, leader: object) -> None:
    if _POSIX:
        _signal_group(pid)
    elif leader:
        with contextlib.suppress(ProcessLookupError, OSError):
            leader.kill()  # type: ignore[attr-defined]


def _signal_group(pgid: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, signal.SIGKILL)


class _Watchdog:
    """A process that kills the groups of the programs still running once this one is gone.

    Started with the first program, in a session of its own (a signal to pytest's group
    does not reach it; where posix_spawn cannot make one, in pytest's, ignoring the
    signals a group is sent), it reads "+pid" and "-pid" lines from a pipe whose write end
    only this process holds (non-inheritable: no program gets it); when the pipe closes, as
    the kernel closes it when this process ends, even by SIGKILL, it kills the groups it was
    told of and not told were done, and exits. A run that ends as usual has none left.
    Where it cannot start (no posix_spawn, no process to spare), programs run unguarded.
    """

    _CODE = (
        "import os, signal\n"
        "for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):\n"
        "    signal.signal(s, signal.SIG_IGN)\n"
        "groups, rest = set(), b''\n"
        "while data := os.read(0, 4096):\n"
        "    *lines, rest = (rest + data).split(b'\\n')\n"
        "    for line in lines:\n"
        "        (groups.add if line[:1] == b'+' else groups.discard)(int(line[1:]))\n"
        "for group in groups:\n"
        "    try:\n"
        "        os.killpg(group, signal.SIGKILL)\n"
        "    except OSError:\n"
        "        pass\n"
    )

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._pipe: int | None = None  # the write end; -1: no watchdog (it could not start)

    def forked(self) -> None:
        """In a child forked from this process: its programs get a watchdog of their own,
        and the parent's is no longer held open by the child."""
        if self._pipe is not None and self._pipe >= 0:
            os.close(self._pipe)
        self._lock = threading.Lock()  # another thread may have held it at the fork
        self._pipe = None

    def guard(self, pid: int) -> None:
        """Have the group `pid` killed should this process end while it runs."""
        self._tell(b"+%d\n" % pid)

    def release(self, pid: int) -> None:
        """The group `pid` is done: its id may be another's from now on."""
        self._tell(b"-%d\n" % pid)

    def _tell(self, line: bytes) -> None:
        if not _POSIX:
            return
        with self._lock:
            if self._pipe is None:
                self._pipe = self._start()
            if self._pipe < 0:
                return
            try:
                os.write(self._pipe, line)  # a short line: written whole, at once
            except OSError:  # the watchdog is gone (killed): groups are no longer guarded
                os.close(self._pipe)
                self._pipe = -1

    def _start(self) -> int:
        if not sys.executable:
            return -1
        reading, writing = os.pipe()
        argv = [sys.executable, "-I", "-S", "-c", self._CODE]
        actions = [
            (os.POSIX_SPAWN_DUP2, reading, 0),
            (os.POSIX_SPAWN_OPEN, 1, os.devnull, os.O_WRONLY, 0),
            (os.POSIX_SPAWN_OPEN, 2, os.devnull, os.O_WRONLY, 0),
        ]
        try:
            try:
                os.posix_spawn(sys.executable, argv, os.environ, file_actions=actions, setsid=True)
            except NotImplementedError:  # no POSIX_SPAWN_SETSID: it ignores the signals itself
                os.posix_spawn(sys.executable, argv, os.environ, file_actions=actions)
        except (OSError, AttributeError):
            os.close(writing)
            return -1
        finally:
            os.close(reading)
        return writing


_watchdog = _Watchdog()
if _POSIX:
    os.register_at_fork(after_in_child=_watchdog.forked)
