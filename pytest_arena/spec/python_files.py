"""Importing a project's own Python files (scorers, hooks) by path.

They are imported as modules of a package made here for each project folder,
`_arena_projects.<folder>_<digest>.scorers.tone`, so that two projects' `scorers/tone.py`
never collide and a scorer can import its neighbours. Those modules stay in `sys.modules`
while the run needs them; `forget_projects` removes them when the run ends.
"""

from __future__ import annotations

import hashlib
import importlib.machinery
import importlib.util
import os
import sys
import traceback
from pathlib import Path
from types import CodeType, ModuleType

from pytest_arena.spec.errors import Problem

_ROOT = "_arena_projects"


def project_package(root: Path) -> str:
    """A module name unique to the project folder at `root`, created on first use."""
    root = root.resolve()
    # os.fsencode: a folder named in bytes that are no UTF-8 (café in Latin-1) has one
    digest = hashlib.sha1(os.fsencode(root)).hexdigest()[:10]
    safe = "".join(ch if ch.isalnum() else "_" for ch in root.name)
    name = f"{_ROOT}.{safe}_{digest}"
    _package(_ROOT, [])
    _package(name, [str(root)])
    return name


def import_file(path: Path, package: str) -> ModuleType:
    """Import `path` as a submodule of `package` (a folder package made here), afresh."""
    root = Path(sys.modules[package].__path__[0])
    # the folder resolved, not the file: a symlink to a file shared by projects is the
    # project's own module, where it is linked
    inside = (Path(os.path.realpath(path.parent)) / path.name).relative_to(root)
    parts = inside.with_suffix("").parts
    parent = package
    for part in parts[:-1]:
        folder = Path(sys.modules[parent].__path__[0]) / part
        parent = f"{parent}.{part}"
        _package(parent, [str(folder)])
    name = f"{parent}.{parts[-1]}"
    sys.modules.pop(name, None)
    spec = importlib.util.spec_from_file_location(name, path, loader=_Fresh(name, str(path)))
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        sys.modules.pop(name, None)
        raise
    return module


class _Fresh(importlib.machinery.SourceFileLoader):
    """Compiles the file as it is now: Python's bytecode cache keys a file by its size and
    its time to the second, so a file edited within the second at the same size (0.25 to
    0.75) was run as it had been."""

    def get_code(self, fullname: str) -> CodeType:
        return compile(self.get_data(self.path), self.path, "exec", dont_inherit=True)


class ImportStuck(Exception):
    """The import of a project's file did not end in time (it was left running)."""

    def __init__(self, message: str, line: int | None) -> None:
        super().__init__(message)
        self.line = line


def import_problem(path: Path, exc: BaseException, what: str) -> Problem:
    """Describe a failed import of `path`, at the line in that file where it failed."""
    line: int | None = None
    if isinstance(exc, ImportStuck):
        return Problem(
            path,
            exc.line,
            f"{what} {exc}; it was still running this line",
            hint="do not wait at import time (for input, a server, a lock): do slow set-up"
            " inside a function, on first use",
        )
    if "null bytes" in str(exc):  # compile() says so without a line (a ValueError on 3.10)
        line = _first_nul_line(path)
    elif isinstance(exc, SyntaxError) and exc.filename and Path(exc.filename) == path:
        line = exc.lineno
    else:
        for frame in traceback.extract_tb(exc.__traceback__):
            if Path(frame.filename).resolve() == path.resolve():
                line = frame.lineno
    message = f"{what} failed to import: {type(exc).__name__}: {exc}"
    hint = "fix the error and run again; other files still load"
    top = (exc.name or "").split(".")[0] if isinstance(exc, ModuleNotFoundError) else ""
    if top == _SEED_NAME:
        hint = (  # the name the scorer API was first written under
            f"the package is pytest_arena: write 'from pytest_arena.scorers import Scorer,"
            f" ScoreResult' where the file says {_SEED_NAME}"
        )
    elif top and (dots := _neighbour(path, top)):
        hint = (
            f"{top} is the project's own: import it relatively, 'from {dots}{top} import"
            " ...' (each project's files are a package of their own, so two projects' helpers"
            " never collide)"
        )
    return Problem(path, line, message, hint=hint)


def _neighbour(path: Path, module: str) -> str:
    """The dots of a relative import of `module` from `path` when the project holds it (a
    file or folder beside it, or beside the scorers folder it is in), else ""."""
    places = [(path.parent, ".")]
    if path.parent.name == "scorers":
        places.append((path.parent.parent, ".."))
    for folder, dots in places:
        if (folder / f"{module}.py").is_file() or (folder / module).is_dir():
            return dots
    return ""


_SEED_NAME = "agent_arena"


def _first_nul_line(path: Path) -> int | None:
    try:
        data = path.read_bytes()
    except OSError:
        return None
    at = data.find(b"\x00")
    return data.count(b"\n", 0, at) + 1 if at >= 0 else None


def _package(name: str, path: list[str]) -> None:
    existing = sys.modules.get(name)
    if existing is not None and list(getattr(existing, "__path__", [])) == path:
        return
    module = ModuleType(name)
    module.__path__ = path
    module.__package__ = name
    sys.modules[name] = module


def forget_projects() -> None:
    """Remove every module imported from a project folder from `sys.modules`."""
    for name in [n for n in sys.modules if n == _ROOT or n.startswith(_ROOT + ".")]:
        del sys.modules[name]
