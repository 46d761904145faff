"""Errors in user input, each pointing at a file and line, and what user code raised."""

from __future__ import annotations

import difflib
import functools
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from pytest_arena.scorers.text import printable
from pytest_arena.spec.files import resolved


@dataclass(frozen=True)
class Problem:
    """One thing wrong with a file: where it is, what it is, and how to fix it."""

    path: Path
    line: int | None
    message: str
    key: str = ""
    hint: str = ""

    def format(self, root: Path | None = None) -> str:
        """The problem as the terminal shows it: what it quotes from the user's file (a key,
        a value) with control characters written as their escapes."""
        key = f"{self.key}: " if self.key else ""
        text = f"{location(self.path, self.line, root)}: {key}{self.message}"
        if self.hint:
            text += f"\n  fix: {self.hint}"
        return printable(text, lines=True)


class SpecError(Exception):
    """One or more problems found while loading a project."""

    def __init__(self, problems: Iterable[Problem]):
        self.problems = list(problems)
        super().__init__(self.format())

    def format(self, root: Path | None = None) -> str:
        return "\n".join(p.format(root) for p in self.problems)


def did_you_mean(word: str, choices: Iterable[str]) -> str:
    """A ' (did you mean X?)' suffix when a close match exists, else ''."""
    close = difflib.get_close_matches(word, list(choices), n=1, cutoff=0.6)
    return f"did you mean '{close[0]}'?" if close else ""


def location(path: Path, line: int | None = None, root: Path | None = None) -> str:
    """`path:line`, the path relative to `root` (default: the working directory) when inside it."""
    shown = _shown(path, root or Path.cwd())
    return f"{shown}:{line}" if line is not None else shown


@functools.lru_cache(maxsize=256)
def _shown(path: Path, base: Path) -> str:
    try:
        return str(resolved(path).relative_to(resolved(base)))
    except ValueError:
        return str(path)


def raised(exc: BaseException) -> str:
    """What user code raised, as Python names it: `KeyError: 'total'`, or `SystemExit` when
    it says nothing; an exception whose own `str()` fails is named all the same."""
    try:
        text = str(exc)
    except Exception as error:
        text = f"<its message could not be made: {type(error).__name__}>"
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__
