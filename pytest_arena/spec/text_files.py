"""The user's files read as text: UTF-8 checked, with the line of the first bad byte."""

from __future__ import annotations

import errno
import stat
from pathlib import Path

from pytest_arena.spec.errors import Problem, SpecError

UTF8_HINT = "save the file as UTF-8 (most editors offer it under 'Save with encoding')"
ENTER_HINT = "let its folders be entered and the file read (chmod u+rx, u+r)"
_BOMS = (  # UTF-32's first: its little-endian mark begins with UTF-16's
    (b"\xff\xfe\x00\x00", "UTF-32"),
    (b"\x00\x00\xfe\xff", "UTF-32"),
    (b"\xff\xfe", "UTF-16"),
    (b"\xfe\xff", "UTF-16"),
)


def file_mode(path: Path) -> int | None:
    """`path`'s mode (its link's target's); None where nothing is (a dangling link, a loop),
    OSError where it cannot be looked at. Up to Python 3.13 `Path.is_file()` raised a folder
    that cannot be entered's PermissionError, and from 3.14 it says False, as if nothing were
    there: a locked folder would seem empty."""
    try:
        return path.stat().st_mode
    except OSError as exc:
        if exc.errno in (errno.ENOENT, errno.ENOTDIR, errno.ELOOP):
            return None
        raise


def is_file(path: Path) -> bool:
    """Whether `path` is a file, as `file_mode` says; SpecError where it cannot be looked at."""
    try:
        mode = file_mode(path)
    except OSError as exc:
        raise SpecError([unreadable(path, exc)]) from None
    return mode is not None and stat.S_ISREG(mode)


def unreadable(path: Path, exc: OSError) -> Problem:
    """The problem of a file that cannot be looked at or read, with the fix a lock has."""
    hint = ENTER_HINT if isinstance(exc, PermissionError) else ""
    return Problem(path, None, f"cannot read the file: {exc.strerror or exc}", hint=hint)


def read_text(path: Path) -> str:
    """The text of `path`; SpecError naming the line and byte where it is not UTF-8 text."""
    return decode(path, read_bytes(path))


def read_bytes(path: Path) -> bytes:
    """The bytes of `path`; SpecError saying why it cannot be read."""
    try:
        return path.read_bytes()
    except OSError as exc:
        raise SpecError([unreadable(path, exc)]) from None


def decode(path: Path, data: bytes, first_line: int = 1) -> str:
    """`data` (read from `path`, starting at `first_line`) as text, or SpecError."""
    if first_line == 1:  # a file's start: its byte order mark, if any
        check_not_wide(path, data)
    if b"\0" in data:
        line = first_line + data[: data.index(b"\0")].count(b"\n")
        raise SpecError(
            [Problem(path, line, "a binary file, not text (it holds a NUL byte)", hint=UTF8_HINT)]
        )
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = first_line + data[: exc.start].count(b"\n")
        column = exc.start - (data.rfind(b"\n", 0, exc.start) + 1) + 1
        byte = data[exc.start : exc.start + 1].hex()
        raise SpecError(
            [
                Problem(
                    path,
                    line,
                    f"not UTF-8 text: byte 0x{byte} at column {column}",
                    hint=UTF8_HINT,
                )
            ]
        ) from None


def wide_encoding(data: bytes) -> str | None:
    """The encoding of `data` if it is UTF-16 or UTF-32 text, as iconv names it: by its byte
    order mark (`UTF-16`), or by the NUL bytes beside each character of text in the Latin
    alphabet written without one (`UTF-16LE`); None for anything else."""
    for mark, name in _BOMS:
        if data.startswith(mark):
            return name
    sample = data[:1024]
    sample = sample[: len(sample) - len(sample) % 4]
    if len(sample) < 8 or b"\0" not in sample:
        return None
    zeros = [sample[i::4].count(0) / len(sample[i::4]) for i in range(4)]
    for name, pattern in _WIDE_PATTERNS:
        if all((z >= 0.6) if nul else (z <= 0.05) for z, nul in zip(zeros, pattern, strict=True)):
            return name
    return None


# which of every 4 bytes are NUL in Latin-alphabet text in each encoding
_WIDE_PATTERNS = (
    ("UTF-32LE", (False, True, True, True)),
    ("UTF-32BE", (True, True, True, False)),
    ("UTF-16LE", (False, True, False, True)),
    ("UTF-16BE", (True, False, True, False)),
)


def check_not_wide(path: Path, data: bytes) -> None:
    """SpecError, one for the file, if `data` (the start of `path`) is UTF-16 or UTF-32
    text: what Windows tools write (PowerShell's `>`, Notepad's "Unicode"), which would
    otherwise be said to be binary, or not UTF-8, on every line."""
    name = wide_encoding(data)
    if name is None:
        return
    family = name[:6]
    raise SpecError(
        [
            Problem(
                path,
                1,
                f"{family} text: save it as UTF-8",
                hint=f"most editors offer UTF-8 under 'Save with encoding'; or run iconv -f"
                f" {name} -t UTF-8 {path.name} > utf8-{path.name} and use that file"
                " (PowerShell: Out-File -Encoding utf8, not '>')",
            )
        ]
    )
