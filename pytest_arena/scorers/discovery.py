"""Finding the scorers a project can use: builtins and `scorers/*.py`."""

from __future__ import annotations

import inspect
import math
import os
import stat
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from pathlib import Path
from types import ModuleType

from pydantic import BaseModel

from pytest_arena.scorers.base import Scorer, ScoresOutputs
from pytest_arena.scorers.builtins import BUILTINS, builtin
from pytest_arena.scorers.script import ScriptScorer
from pytest_arena.spec.errors import Problem, did_you_mean
from pytest_arena.spec.python_files import import_file, import_problem
from pytest_arena.spec.text_files import file_mode

SCORERS_DIR = "scorers"
SHELL_SUFFIXES = (".sh", ".bash")


@dataclass(frozen=True)
class ScorerEntry:
    scorer: ScoresOutputs
    source: Path | None = None  # None for builtins and plugins
    line: int | None = None
    options_model: type[BaseModel] | None = None
    origin: str = "a builtin"  # said when another scorer wants this name

    @classmethod
    def of(cls, scorer: Scorer, source: Path | None = None, line: int | None = None) -> ScorerEntry:
        return cls(scorer, source, line, type(scorer).options_model)


@dataclass
class ScorerSet:
    """The scorers known to one project, and the files that failed to give theirs."""

    entries: dict[str, ScorerEntry] = field(default_factory=dict)
    problems: list[Problem] = field(default_factory=list)
    builtins: frozenset[str] = frozenset()  # builtins' names: each made on first use
    # scorer classes a file imports (not found there): name -> "file imports Class from module"
    imported: dict[str, str] = field(default_factory=dict)

    def get(self, name: str) -> ScorerEntry | None:
        entry = self.entries.get(name)
        if entry is None and name in self.builtins:
            entry = self.entries.setdefault(name, ScorerEntry.of(builtin(name)()))
        return entry

    def names(self) -> list[str]:
        """Every scorer's name, sorted."""
        return sorted({*self.entries, *self.builtins})

    def unknown(self, name: str) -> str:
        """Why `name` names no scorer, with the known names and any broken files."""
        text = f"no scorer is named '{name}'"
        hint = did_you_mean(name, self.names())
        if hint:
            text += f" ({hint})"
        text += f"; known scorers: {', '.join(self.names())}"
        broken = [p.path.name for p in self.problems]
        if broken:
            text += f"; these scorer files failed to load and may define it: {', '.join(broken)}"
        if name in self.imported:
            text += (
                f"; {self.imported[name]}, and a class is found only where it is defined:"
                " subclass it there (class Mine(TheirScorer): pass)"
            )
        return text


def discover(
    project_root: Path,
    package: str,
    builtins: Iterable[str] = BUILTINS,
    plugins: Iterable[tuple[str, type[Scorer]]] = (),
    importer: Callable[[Path, str], ModuleType] = import_file,
    create: Callable[[type[Scorer]], Scorer] = lambda cls: cls(),
) -> ScorerSet:
    """The `builtins` named (each made on first use), scorers from plugins, then what
    `project_root/scorers/` holds: Scorer subclasses in `*.py` files (imported by
    `importer` and made by `create`, each of which may bound the time it takes), and
    executable scripts named after their file's stem."""
    found = ScorerSet(builtins=frozenset(builtins))
    for plugin, cls in plugins:
        _add_plugin_scorer(found, plugin, cls)
    folder = project_root / SCORERS_DIR
    if not folder.is_dir():
        return found
    try:  # unreadable, or its files cannot be looked at: the project's problem
        paths = [p for p in sorted(folder.iterdir()) if _is_file(p)]
    except OSError as exc:
        found.problems.append(
            Problem(
                folder,
                None,
                f"the scorers folder {SCORERS_DIR}/ cannot be read ({exc.strerror or exc})",
                hint=f"let it be read (chmod u+rx {SCORERS_DIR}), or move it away",
            )
        )
        return found
    for path in paths:
        if path.name.startswith(("_", ".")) or _pytests(path):
            continue
        if path.suffix == ".py":
            _load_module(found, path, package, importer, create)
        elif path.suffix in SHELL_SUFFIXES or os.access(path, os.X_OK):
            _add_script(found, path)
        elif _has_shebang(path):
            found.problems.append(
                Problem(
                    path,
                    1,
                    f"{SCORERS_DIR}/{path.name} starts with '#!' but is not executable",
                    hint=f"make it a script scorer with: chmod +x {SCORERS_DIR}/{path.name}",
                )
            )
    return found


def _load_module(
    found: ScorerSet,
    path: Path,
    package: str,
    importer: Callable[[Path, str], ModuleType],
    create: Callable[[type[Scorer]], Scorer],
) -> None:
    try:
        module = importer(path, package)
    except KeyboardInterrupt:
        raise
    except BaseException as exc:  # sys.exit(), or pytest.importorskip: this file's mistake
        problem = import_problem(path, exc, f"scorer file {SCORERS_DIR}/{path.name}")
        if os.access(path, os.X_OK) and _has_shebang(path):  # meant as a script scorer
            script = f"{SCORERS_DIR}/{path.name}"
            hint = (
                "it starts with '#!' as a script does, but a file ending in .py is a Python"
                " scorer module, imported, not run; a script scorer must not end in .py:"
                f" drop the suffix (mv {script} {SCORERS_DIR}/{path.stem})"
            )
            problem = replace(problem, hint=hint)
        found.problems.append(problem)
        return
    for value in module.__dict__.values():  # said when a name is missing: not registered
        if inspect.isclass(value) and issubclass(value, Scorer) and not _ours(value, package):
            found.imported.setdefault(
                str(getattr(value, "name", "")),
                f"{SCORERS_DIR}/{path.name} imports {value.__name__} from {value.__module__}",
            )
    for cls in _scorer_classes(module.__dict__.values(), module.__name__):
        if not inspect.isabstract(cls):
            _register(found, cls, path, create)
            continue
        if not vars(cls).get("_named", False):
            continue  # an unnamed abstract class is a base for others, not a scorer
        missing = ", ".join(f"{m}()" for m in sorted(cls.__abstractmethods__))
        found.problems.append(
            Problem(
                path,
                _line_of(cls),
                f"scorer class {cls.__name__} (name '{cls.name}') lacks {missing}, so it"
                " cannot be used",
                hint="define 'def score(self, output, reference, context):' returning a"
                " ScoreResult",
            )
        )


def _add_script(found: ScorerSet, path: Path) -> None:
    name = path.stem
    other = found.get(name)
    if other is not None:
        found.problems.append(
            Problem(
                path,
                1,
                f"script scorer name '{name}' is already taken by {_where(other)}",
                hint="rename the script",
            )
        )
        return
    shown = f"{SCORERS_DIR}/{path.name}"
    argv = [str(path)]
    if path.suffix in SHELL_SUFFIXES and not (os.access(path, os.X_OK) and _has_shebang(path)):
        argv.insert(0, "bash")  # a script pasted from elsewhere, without its '#!' line first
    scorer = ScriptScorer(name, argv, f"script {shown}")
    found.entries[name] = ScorerEntry(scorer, path, None, None, shown)


def _is_file(path: Path) -> bool:
    """Whether `path` is a file; OSError where it cannot be looked at (`file_mode`)."""
    mode = file_mode(path)
    return mode is not None and stat.S_ISREG(mode)


def _add_plugin_scorer(found: ScorerSet, plugin: str, cls: type[Scorer]) -> None:
    other = found.get(cls.name)
    if other is not None:
        found.problems.append(
            Problem(
                Path(plugin),
                None,
                f"plugin {plugin} offers scorer '{cls.name}', a name already taken by"
                f" {_where(other)}",
                hint="rename the plugin's scorer",
            )
        )
        return
    found.entries[cls.name] = replace(ScorerEntry.of(cls()), origin=f"plugin {plugin}")


def _has_shebang(path: Path) -> bool:
    try:
        with path.open("rb") as handle:
            return handle.read(2) == b"#!"
    except OSError:
        return False


def _where(entry: ScorerEntry) -> str:
    if entry.source is not None and entry.line is not None:
        return f"{entry.source.name}:{entry.line}"
    return entry.origin


def _pytests(path: Path) -> bool:
    """pytest's own files beside the scorers (a scorer's unit tests, a conftest.py)."""
    name = path.name
    return name == "conftest.py" or name.startswith("test_") or name.endswith("_test.py")


def _ours(cls: type, package: str) -> bool:
    """Defined by pytest-arena or by a file of this project."""
    module = cls.__module__
    return module.startswith(("pytest_arena.", f"{package}.")) or module == "pytest_arena"


def _scorer_classes(values: Iterable[object], module: str) -> list[type[Scorer]]:
    """The Scorer classes defined in `module` (not those it imports)."""
    return [
        v for v in values if inspect.isclass(v) and issubclass(v, Scorer) and v.__module__ == module
    ]


def _line_of(cls: type | Callable[..., object]) -> int | None:
    try:
        return inspect.getsourcelines(cls)[1]
    except (OSError, TypeError):
        return None


def _init_parameters(cls: type[Scorer]) -> list[inspect.Parameter]:
    try:
        return list(inspect.signature(cls).parameters.values())
    except (TypeError, ValueError):  # a signature Python cannot tell
        return []


def _attribute_problem(cls: type[Scorer], path: Path, line: int | None) -> Problem | None:
    """A class attribute the run would trip over later: `name` not text, `options_model`
    not a pydantic model, `timeout` not a number of seconds above 0 (or None)."""
    timeout = cls.timeout
    options = cls.options_model
    if not isinstance(cls.name, str) or not cls.name:
        said, hint = f"its name is {cls.name!r}", 'set `name = "my_scorer"`'
    elif options is not None and not (isinstance(options, type) and issubclass(options, BaseModel)):
        said = f"its options_model is {options!r}, not a pydantic model"
        hint = "make it a class of pydantic.BaseModel, or leave it out"
    elif timeout is not None and not (
        isinstance(timeout, int | float)
        and not isinstance(timeout, bool)
        and 0 < timeout < math.inf
    ):
        said, hint = f"its timeout is {timeout!r}", "give seconds above 0, or None for no limit"
    else:
        return None
    return Problem(path, line, f"scorer class {cls.__name__}: {said}", hint=hint)


def _signature_problem(cls: type[Scorer], path: Path) -> Problem | None:
    """A `score` that cannot take (output, reference, context) would fail every case."""
    score = cls.score
    bound = isinstance(inspect.getattr_static(cls, "score"), staticmethod | classmethod)
    try:
        inspect.signature(score).bind(*[None] * (3 if bound else 4))  # (self,) and the three
    except TypeError:
        pass
    except ValueError:  # no signature to read (a builtin): trust it
        return None
    else:
        return None
    return Problem(
        path,
        _line_of(score),
        f"{cls.__name__}.score() must accept the arguments (output, reference, context)",
        hint="define it as 'def score(self, output, reference, context):'",
    )


def _register(
    found: ScorerSet, cls: type[Scorer], path: Path, create: Callable[[type[Scorer]], Scorer]
) -> None:
    line = _line_of(cls)
    wrong = _attribute_problem(cls, path, line)
    if wrong is not None:
        found.problems.append(wrong)
        return
    other = found.get(cls.name)
    if other is not None:
        found.problems.append(
            Problem(
                path,
                line,
                f"scorer name '{cls.name}' of {cls.__name__} is already taken by {_where(other)}",
                hint="give each scorer its own `name`",
            )
        )
        return
    wrong = _signature_problem(cls, path)
    if wrong is not None:
        found.problems.append(wrong)
        return
    try:
        instance = create(cls)
    except (Exception, SystemExit) as exc:  # sys.exit() in __init__ stops only this scorer
        takes = any(
            p.default is p.empty and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)
            for p in _init_parameters(cls)
        )
        found.problems.append(
            Problem(
                path,
                line,
                f"scorer {cls.__name__} cannot be created without arguments:"
                f" {type(exc).__name__}: {exc}",
                hint="read settings from context.options instead of __init__ arguments"
                if takes
                else "its __init__ runs once, when the project loads: make it work there",
            )
        )
        return
    found.entries[cls.name] = ScorerEntry.of(instance, path, line)
