"""Finding the scorers a project can use: builtins and `scorers/*.py`."""

from __future__ import annotations

import ast
import inspect
import math
import os
import re
import stat
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from pathlib import Path
from types import ModuleType

from pydantic import BaseModel

from pytest_arena.scorers.base import Scorer, ScoresOutputs
from pytest_arena.scorers.builtins import BUILTINS, builtin
from pytest_arena.scorers.script import CONTEXT_VARS, ScriptScorer
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
    # the `.py` files that hold no Scorer class (helpers, or scripts saved as modules): by stem
    classless: dict[str, str] = field(default_factory=dict)
    folder: Path | None = None  # the project's scorers/ folder, when it has one

    def get(self, name: str) -> ScorerEntry | None:
        entry = self.entries.get(name)
        if entry is None and name in self.builtins:
            entry = self.entries.setdefault(name, ScorerEntry.of(builtin(name)()))
        return entry

    def names(self) -> list[str]:
        """Every scorer's name, sorted."""
        return sorted({*self.entries, *self.builtins})

    def unknown(self, name: str) -> str:
        """Why `name` names no scorer, with the known names and any broken files, and what
        it may have meant: a scorer whose class it names, a `.py` file of that name that
        holds no Scorer class (a script saved as a module), a file of that name in a
        subfolder of scorers/ (where none is looked for)."""
        text = f"no scorer is named '{name}'"
        meant, cls = self._meant(name)
        if cls:
            text += (
                f" (did you mean '{meant}'? {cls} is the class of scorer '{meant}', and a"
                " scorer is named by its `name`)"
            )
        else:
            hint = f"did you mean '{meant}'?" if meant else did_you_mean(name, self.names())
            text += f" ({hint})" if hint else ""
        text += f"; known scorers: {', '.join(self.names())}"
        if name in self.classless:
            shown = self.classless[name]
            text += (
                f"; {shown} holds no Scorer class, and a file ending in .py is a Python module,"
                f" imported, never run: a script scorer that prints its score goes without the"
                f" suffix ({SCORERS_DIR}/{name}), executable and starting with a '#!' line"
            )
        for below in self._in_subfolders(name):
            text += (
                f"; {below} is in a subfolder, and scorers are looked for in {SCORERS_DIR}/"
                f" itself only: move it to {SCORERS_DIR}/ (a subfolder may hold helpers that"
                " scorers import)"
            )
        broken = [p.path.name for p in self.problems]
        if broken:
            text += f"; these scorer files failed to load and may define it: {', '.join(broken)}"
        if name in self.imported:
            text += (
                f"; {self.imported[name]}, and a class is found only where it is defined:"
                " subclass it there (class Mine(TheirScorer): pass)"
            )
        return text

    def _meant(self, name: str) -> tuple[str, str]:
        """(scorer, its class) when `name` is a scorer's class name; (scorer, '') when it is
        a scorer's name, or its class's, in other letters or with `Scorer` on its end
        (`Tone`, `tone_scorer`, `ExactMatchScorer`); else ('', '')."""
        classes = {known: self._class_name(known) for known in self.names()}
        for known, cls in classes.items():
            if cls and name == cls and name != known:
                return known, cls
        folded = _folded(name)
        for known, cls in classes.items():
            if folded in (_folded(known), _folded(cls)):
                return known, ""
        return "", ""

    def _class_name(self, name: str) -> str:
        """The name of the class of scorer `name` ('' for a script), no builtin imported."""
        entry = self.entries.get(name)
        if entry is not None:
            return type(entry.scorer).__name__ if isinstance(entry.scorer, Scorer) else ""
        return BUILTINS.get(name, "").partition(":")[2]

    def _in_subfolders(self, name: str, most: int = 5000) -> list[str]:
        """The files named `name` (any suffix) in the subfolders of scorers/, as paths from
        the project folder; at most `most` files are looked at."""
        if self.folder is None:
            return []
        found: list[str] = []
        seen = 0
        for top, folders, files in os.walk(self.folder):
            folders[:] = sorted(f for f in folders if not f.startswith((".", "_")))
            if Path(top) == self.folder:
                continue
            for file in sorted(files):
                seen += 1
                if Path(file).stem == name and not file.startswith((".", "_")):
                    found.append(Path(top, file).relative_to(self.folder.parent).as_posix())
            if seen > most:
                break
        return found


def _folded(name: str) -> str:
    """`name` as `_meant` compares it: lower case, letters and digits, `scorer` off its end."""
    plain = re.sub(r"[\W_]", "", name).lower()
    return plain.removesuffix("scorer") or plain


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
    found.folder = folder
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
        script = f"{SCORERS_DIR}/{path.name}"
        if os.access(path, os.X_OK) and _has_shebang(path):  # meant as a script scorer
            hint = (
                "it starts with '#!' as a script does, but a file ending in .py is a Python"
                " scorer module, imported, not run; a script scorer must not end in .py:"
                f" drop the suffix (mv {script} {SCORERS_DIR}/{path.stem})"
            )
            problem = replace(problem, hint=hint)
        elif sign := _script_sign(path):  # a script that prints its score, as Runloop's do
            problem = replace(problem, hint=_script_fix(path, sign))
        found.problems.append(problem)
        return
    if not any(
        inspect.isclass(v) and issubclass(v, Scorer) and v is not Scorer
        for v in module.__dict__.values()
    ):  # a helper, or a script saved as a module: said if its name is asked for
        found.classless[path.stem] = f"{SCORERS_DIR}/{path.name}"
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


def _script_sign(path: Path) -> str:
    """What shows the Python file `path` to be a script that prints its score, not a module
    of Scorer classes: '' when it defines a class, or shows no such sign."""
    try:
        source = path.read_text(encoding="utf-8", errors="replace")
        tree = ast.parse(source)
    except (OSError, SyntaxError, ValueError):
        return ""
    if any(isinstance(node, ast.ClassDef) for node in ast.walk(tree)):
        return ""
    read = [name for name in CONTEXT_VARS if name in source]
    if read:
        return f"it reads {read[-1]}"
    for node in tree.body:
        if isinstance(node, ast.If) and "__main__" in ast.unparse(node.test):
            return "it runs under 'if __name__ == \"__main__\"'"
        call = node.value if isinstance(node, ast.Expr) else None
        if isinstance(call, ast.Call) and ast.unparse(call.func) == "print":
            return "it prints"
    return ""


def _script_fix(path: Path, sign: str) -> str:
    """The fix for a script scorer saved as `path`, a `.py` file, which is imported."""
    script = f"{SCORERS_DIR}/{path.stem}"
    steps = [f"mv {SCORERS_DIR}/{path.name} {script}"]
    first = "" if _has_shebang(path) else ", its first line '#!/usr/bin/env python3'"
    if not os.access(path, os.X_OK):
        steps.append(f"chmod +x {script}")
    return (
        f"{sign} and defines no class, as a script scorer does, but a file ending in .py is a"
        f" Python scorer module, imported, never run: save the script without the suffix"
        f"{first} ({' && '.join(steps)})"
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
