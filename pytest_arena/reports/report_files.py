"""Writing a report file: whole or not at all, where its path leads. Light: the option
checks at start-up use it."""

from __future__ import annotations

import contextlib
import os
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import TextIO

from pytest_arena.spec.files import PROJECT_FILE, resolved

LONE_SURROGATES = "backslashreplace"  # a lone surrogate in a model's text, written as \udcxx


@contextlib.contextmanager
def written_whole(path: Path) -> Iterator[TextIO]:
    """A text file that becomes `path` once written whole (through a temporary file beside
    it, removed if the writing fails: `path` is then as it was), with the permissions of
    the file it replaces. A symlink's target is written, the link kept; a device or a
    pipe (/dev/stdout, a FIFO) is written into, as any program writes one."""
    path = written_at(path)
    if path.exists() and not path.is_file():
        with path.open("w", encoding="utf-8", errors=LONE_SURROGATES) as out:
            yield out
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    try:
        with tmp.open("w", encoding="utf-8", errors=LONE_SURROGATES) as out:
            yield out
        with contextlib.suppress(FileNotFoundError):
            os.chmod(tmp, stat.S_IMODE(path.stat().st_mode))  # a private report stays so
        tmp.replace(path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def written_at(path: Path) -> Path:
    """Where writing `path` writes: a symlink's target (a link to the latest report stays a
    link), else `path`."""
    return resolved(path) if path.is_symlink() else path


_READ_SUFFIXES = frozenset({".yaml", ".yml", ".jsonl", ".csv", ".tsv", ".py"})


def overwrites_project(option: str, raw: str, path: Path, example: str) -> str:
    """Why a report written at `path` would overwrite a project's file (an arena.yaml, or a
    file of a kind projects are read from that exists), or "" when it would not. Shared by
    the report options and `arena report`/`arena compare --html`."""
    if path.name == PROJECT_FILE or (path.is_file() and path.suffix.lower() in _READ_SUFFIXES):
        kind = f"a project's {PROJECT_FILE}" if path.name == PROJECT_FILE else "a project's file"
        return (
            f"{option} {raw}: the report would overwrite {kind} (cases, a dataset or code);"
            f" give it a file of its own, such as {option} {example}"
        )
    return ""
