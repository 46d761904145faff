"""Programs run for a case (script scorers, command agents), kept on a short leash.

Each runs in a process group of its own and is done when it exits, not when everything it
started has closed its output: its output goes to files, not pipes, so a background child
that inherited them cannot hold the case. The whole group is killed when the program exits
(whatever it left running in the background), on a timeout, on Ctrl-C and when its call is
cancelled; killing it at once, while the group still has the program's id, can never reach
another program that reused the id later.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import subprocess
import tempfile
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO

MAX_OUTPUT = 16 * 1024 * 1024  # bytes of stdout or stderr read back; the rest is cut
_POSIX = os.name == "posix"


@dataclass(frozen=True)
class Finished:
    """A program that exited: its status and what it wrote."""

    returncode: int
    stdout: bytes
    stderr: bytes

    @property
    def stdout_cut(self) -> bool:
        """Whether it wrote more than MAX_OUTPUT bytes to stdout (`stdout` holds the first)."""
        return len(self.stdout) == MAX_OUTPUT + 1

    def how(self) -> str:
        """How it ended, as a person says it."""
        return ended(self.returncode)


class TimedOut(Exception):
    """The program did not exit in time; its group was killed."""

    def __init__(self, seconds: float, stderr: bytes) -> None:
        super().__init__(f"timed out after {seconds:g} s")
        self.stderr = stderr


def ended(returncode: int) -> str:
    """'exited with status 3', or 'was killed by signal 9 (SIGKILL)'."""
    if returncode >= 0:
        return f"exited with status {returncode}"
    try:
        name = f" ({signal.Signals(-returncode).name})"
    except ValueError:
        name = ""
    return f"was killed by signal {-returncode}{name}"


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
    with _outputs() as (out, err):
        process = subprocess.Popen(
            list(argv),
            cwd=cwd,
            env=_encoded(env),
            stdin=subprocess.PIPE if stdin else subprocess.DEVNULL,
            stdout=out,
            stderr=err,
            start_new_session=_POSIX,
        )
        try:
            if stdin:  # written as the program reads it: one that never does still times out
                process.communicate(stdin, timeout)
            else:
                process.wait(timeout)
        except subprocess.TimeoutExpired:
            _kill(process)
            raise TimedOut(timeout or 0, _read(err)) from None
        except BaseException:  # Ctrl-C, or anything else: nothing of it may outlive the case
            _kill(process)
            raise
        _kill_group(process.pid, None)  # what it left running in the background
        return Finished(process.returncode, _read(out, more=1), _read(err))


async def arun(
    argv: Sequence[str], *, cwd: Path, env: Mapping[str, str], stdin: bytes = b""
) -> Finished:
    """`run` for the event loop; cancelling it (the engine's timeout, a stopped run) kills
    the program's group. OSError if it cannot start."""
    with _outputs() as (out, err):
        pipe = await _StdinPipe.open() if stdin and _POSIX else None
        # (on Windows asyncio's pipes are pipes, and there is no /dev/stdin)
        piped = asyncio.subprocess.PIPE if stdin else asyncio.subprocess.DEVNULL
        try:
            process = await asyncio.create_subprocess_exec(
                *argv,
                cwd=cwd,
                env=_encoded(env),
                stdin=pipe.reading if pipe is not None else piped,
                stdout=out,
                stderr=err,
                start_new_session=_POSIX,
            )
        except BaseException:
            if pipe is not None:
                pipe.abort()
            raise
        finally:
            if pipe is not None:
                pipe.started()
        try:
            if pipe is not None:
                pipe.send(stdin)
            elif stdin and process.stdin is not None:  # Windows
                await _afeed(process.stdin, stdin)
            returncode = await process.wait()
        except BaseException:
            _kill_group(process.pid, process.returncode is None and process)
            await asyncio.shield(process.wait())  # reaped even while being cancelled
            raise
        finally:
            if pipe is not None:
                pipe.unsent()
        _kill_group(process.pid, None)  # what it left running in the background
        return Finished(returncode, _read(out, more=1), _read(err))


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


@contextlib.contextmanager
def _outputs() -> Iterator[tuple[IO[bytes], IO[bytes]]]:
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        yield out, err


def _read(file: IO[bytes], more: int = 0) -> bytes:
    """The first MAX_OUTPUT bytes of `file`, and `more` (a byte that says there were more)."""
    file.seek(0)
    return file.read(MAX_OUTPUT + more)


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
