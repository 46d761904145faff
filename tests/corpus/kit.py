"""What a corpus entry is, how a category of entries is run, and what entries share.

An entry is one defective input: the files of a project folder `projects/<name>/` and the
lines the run must say of it. Entries that cannot interfere with each other share a
category, and a category is one pytest run (`Run`): all its projects, beside one good
project unless the category says otherwise.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

PY = sys.executable

GOOD = """
models: [sim_perfect]
tests:
  - {id: one, input: "1", reference: "1"}
  - {id: two, input: "2", reference: "2"}
"""


# -- what an entry is -----------------------------------------------------------------------


@dataclass(frozen=True)
class Run:
    """How a category is run: its arguments, whether the good project is beside it, the
    exit status it must end with (None: any but 0), and the most seconds it may take."""

    args: tuple[str, ...] = ()
    good: bool = True
    status: int | None = None
    seconds: float = 30.0
    hook_timeout: float | None = None  # user_code.DEFAULT_TIMEOUT for this run
    subprocess: bool = False  # run apart: what it leaves behind must not reach this process,
    # and stopped after `seconds`
    said: tuple[str, ...] = ()  # said in the run's output whatever the entry
    env: Mapping[str, str | None] = field(default_factory=dict)


@dataclass(frozen=True)
class Entry:
    """One defective input: the files of `projects/<name>/` and what the run says of it.

    `said` are fnmatch patterns matched in order in the entry's lines. `kind` is what
    becomes of its items: `fails` (one fails or errors), `runs` (they all pass: the input
    must load), `empty` (no item: a warning), `usage` (nothing is collected), `board` (the
    end of the run says it: a gate, the leaderboard).
    """

    name: str
    category: str
    files: Mapping[str, str | bytes]
    said: tuple[str, ...]
    kind: str = "fails"
    executable: tuple[str, ...] = ()
    traceback: bool = False  # the user's own traceback is shown (their code raised)
    xfail: str = ""
    check: Callable[[Outcome, Entry], None] | None = None


CATEGORIES: dict[str, Run] = {}
ENTRIES: list[Entry] = []


def category(name: str, run: Run | None = None) -> Callable[..., Entry]:
    """Declare a category; returns a function that adds an entry to it."""
    CATEGORIES[name] = run or Run()

    def add(
        entry_name: str,
        files: Mapping[str, str | bytes] | str,
        *said: str,
        **extra: Any,
    ) -> Entry:
        if isinstance(files, str):
            files = {"arena.yaml": files}
        entry = Entry(entry_name, name, files, said, **extra)
        ENTRIES.append(entry)
        return entry

    return add


def case_yaml(cases: str, head: str = "models: [sim_perfect]\n") -> str:
    """A project whose `tests:` are `cases` (one flow mapping a line), after `head`."""
    lines = "".join(f"  - {c}\n" for c in cases.strip().splitlines())
    return f"{head}tests:\n{lines}"


@dataclass
class Outcome:
    """What a category's run gave: its exit status, output, time and `--arena-json` records."""

    ret: int
    stdout: str
    stderr: str
    took: float
    records: list[dict[str, Any]]

    @property
    def lines(self) -> list[str]:
        return self.stdout.splitlines()


# -- inputs more than one table uses --------------------------------------------------------

OK_CASE = "tests:\n  - {id: a, input: x, reference: x}\n"
ROWS = '{"id": "r1", "input": "x", "reference": "x"}\n'
HOOKED = case_yaml("{id: a, input: x, reference: x}\n{id: b, input: y, reference: y}")


def scored(scorers: str, cases: str = "{id: a, input: x, reference: x}") -> str:
    """A project on sim_perfect with `scorers:` set to `scorers` (a flow mapping)."""
    return case_yaml(cases, f"models: [sim_perfect]\nscorers: {scorers}\n")


def with_data(path: str, content: str | bytes, entry: str = "") -> dict[str, str | bytes]:
    """A project whose cases come from the dataset file `path` (named at arena.yaml:3)."""
    return {
        "arena.yaml": f"models: [sim_perfect]\ndatasets:\n  - {entry or path}\n",
        path: content,
    }


def hooked(text: str) -> dict[str, str | bytes]:
    """A project of two cases with `text` as its hooks.py."""
    return {"arena.yaml": HOOKED, "hooks.py": text}
