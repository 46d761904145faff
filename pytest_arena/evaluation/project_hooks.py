"""A project's `hooks.py`: `pre_request` and `post_process` around each model call, and
`override_verdict` after scoring."""

from __future__ import annotations

import ast
import difflib
import inspect
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pytest_arena.evaluation import user_code
from pytest_arena.spec.errors import Problem, SpecError
from pytest_arena.spec.python_files import import_problem

HOOKS_FILE = "hooks.py"
HOOKS = ("pre_request", "post_process", "override_verdict")


@dataclass(frozen=True)
class ProjectHooks:
    pre_request: Callable[..., Any] | None = None
    post_process: Callable[..., Any] | None = None
    override_verdict: Callable[..., Any] | None = None
    source: Path | None = None


def load_hooks(root: Path, package: str) -> ProjectHooks:
    """Load `root/hooks.py` if there is one; SpecError naming the file and line if broken."""
    path = root / HOOKS_FILE
    if not path.is_file():
        return ProjectHooks()
    try:
        module = user_code.import_file(path, package)
    except (Exception, SystemExit, GeneratorExit) as exc:  # sys.exit() at import is a mistake too
        raise SpecError([import_problem(path, exc, HOOKS_FILE)]) from None
    _check_names(module, path)
    found: dict[str, Callable[..., Any]] = {}
    for name in HOOKS:
        function = getattr(module, name, None)
        if function is None:
            continue
        if not callable(function):
            raise SpecError(
                [
                    Problem(
                        path,
                        _assigned_at(path, name),
                        f"{name} must be a function, not {type(function).__name__}",
                        hint=f"define it as 'def {name}({_ARGS[name]}):'",
                    )
                ]
            )
        try:
            inspect.signature(function).bind(*[None] * _ARGS[name].count(","), None)
        except TypeError:
            line = _line(function)
            raise SpecError(
                [
                    Problem(
                        path,
                        line,
                        f"{name} must accept the arguments ({_ARGS[name]})",
                        hint=f"define it as 'def {name}({_ARGS[name]}):'",
                    )
                ]
            ) from None
        except ValueError:
            pass  # builtins without a signature: trust them
        found[name] = function
    return ProjectHooks(
        found.get("pre_request"), found.get("post_process"), found.get("override_verdict"), path
    )


def _check_names(module: Any, path: Path) -> None:
    """A public function of hooks.py that is not a hook but looks like one is a mistake: it
    would never be called. It looks like a hook when its parameters are a hook's
    (`def override(result, output, case, context)`), or when its name is spelt like a
    hook's and the hook's arguments fit it (`def post_proces(output, case, context)`).
    Any other function is a helper: `def request(url)` is left alone."""
    for name, value in vars(module).items():
        if name in HOOKS or name.startswith("_") or not inspect.isfunction(value):
            continue
        if value.__module__ != module.__name__:
            continue  # imported from elsewhere
        try:
            signature = inspect.signature(value)
        except (TypeError, ValueError):
            continue
        params = tuple(signature.parameters)
        same = [hook for hook in HOOKS if params == tuple(_ARGS[hook].split(", "))]
        if same:
            said = f"its parameters are {same[0]}'s; "
        else:
            said = ""
            close = difflib.get_close_matches(name, HOOKS, n=len(HOOKS), cutoff=0.75)
            same = [hook for hook in close if _fits(signature, hook)]
        if same:
            raise SpecError(
                [
                    Problem(
                        path,
                        _line(value),
                        f"'{name}' is not a hook, so it is never called; {said}did you mean"
                        f" '{same[0]}'?",
                        hint=f"rename it to '{same[0]}', or start its name with '_' if it"
                        " is a helper",
                    )
                ]
            )


def _fits(signature: inspect.Signature, hook: str) -> bool:
    """Whether a function of this signature can be called with `hook`'s arguments."""
    try:
        signature.bind(*[None] * (_ARGS[hook].count(",") + 1))
    except TypeError:
        return False
    return True


_ARGS = {
    "pre_request": "request, case, context",
    "post_process": "output, case, context",
    "override_verdict": "result, output, case, context",
}


def _assigned_at(path: Path, name: str) -> int | None:
    """The line of hooks.py's last top-level statement that binds `name`."""
    try:
        tree = ast.parse(path.read_bytes())
    except (OSError, SyntaxError, ValueError):
        return None
    found = None
    for node in tree.body:
        targets = node.targets if isinstance(node, ast.Assign) else []
        if isinstance(node, ast.AnnAssign):
            targets = [node.target]
        for target in (n for t in targets for n in ast.walk(t)):  # `a = b = ...`, `a, b = ...`
            if isinstance(target, ast.Name) and target.id == name:
                found = node.lineno
        imported = node.names if isinstance(node, ast.ImportFrom | ast.Import) else []
        if any((alias.asname or alias.name) == name for alias in imported):
            found = node.lineno
    return found


def _line(function: Callable[..., Any]) -> int | None:
    try:
        return inspect.getsourcelines(function)[1]
    except (OSError, TypeError):
        return None
