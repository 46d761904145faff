"""Finding the scorers a project can use: builtins and `scorers/*.py`."""

from __future__ import annotations

import inspect
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from pytest_arena.importing import import_file, import_problem
from pytest_arena.scorers.base import Scorer
from pytest_arena.spec.errors import Problem, did_you_mean

SCORERS_DIR = "scorers"


@dataclass(frozen=True)
class ScorerEntry:
    scorer: Scorer
    source: Path | None = None  # None for builtins and plugins
    line: int | None = None


@dataclass
class ScorerSet:
    """The scorers known to one project, and the files that failed to give theirs."""

    entries: dict[str, ScorerEntry] = field(default_factory=dict)
    problems: list[Problem] = field(default_factory=list)

    def get(self, name: str) -> ScorerEntry | None:
        return self.entries.get(name)

    def unknown(self, name: str) -> str:
        """Why `name` names no scorer, with the known names and any broken files."""
        text = f"no scorer is named '{name}'"
        hint = did_you_mean(name, self.entries)
        if hint:
            text += f" ({hint})"
        text += f"; known scorers: {', '.join(sorted(self.entries))}"
        broken = [p.path.name for p in self.problems]
        if broken:
            text += f"; these scorer files failed to load and may define it: {', '.join(broken)}"
        return text


def discover(project_root: Path, package: str, builtins: Iterable[type[Scorer]]) -> ScorerSet:
    """Builtins plus every Scorer subclass defined in `project_root/scorers/*.py`."""
    found = ScorerSet()
    for cls in builtins:
        found.entries[cls.name] = ScorerEntry(cls())
    folder = project_root / SCORERS_DIR
    if not folder.is_dir():
        return found
    for path in sorted(folder.glob("*.py")):
        if path.name.startswith("_"):
            continue
        try:
            module = import_file(path, package)
        except Exception as exc:
            found.problems.append(
                import_problem(path, exc, f"scorer file {SCORERS_DIR}/{path.name}")
            )
            continue
        for cls in _scorer_classes(module.__dict__.values(), module.__name__):
            _register(found, cls, path)
    return found


def _scorer_classes(values: Iterable[object], module: str) -> list[type[Scorer]]:
    return [
        v
        for v in values
        if inspect.isclass(v)
        and issubclass(v, Scorer)
        and v.__module__ == module
        and not inspect.isabstract(v)
    ]


def _register(found: ScorerSet, cls: type[Scorer], path: Path) -> None:
    try:
        line = inspect.getsourcelines(cls)[1]
    except (OSError, TypeError):
        line = None
    other = found.entries.get(cls.name)
    if other is not None:
        where = f"{other.source.name}:{other.line}" if other.source else "a builtin"
        found.problems.append(
            Problem(
                path,
                line,
                f"scorer name '{cls.name}' of {cls.__name__} is already taken by {where}",
                hint="give each scorer its own `name`",
            )
        )
        return
    try:
        instance = cls()
    except Exception as exc:
        found.problems.append(
            Problem(
                path,
                line,
                f"scorer {cls.__name__} cannot be created without arguments:"
                f" {type(exc).__name__}: {exc}",
                hint="read settings from context.options instead of __init__ arguments",
            )
        )
        return
    found.entries[cls.name] = ScorerEntry(instance, path, line)
