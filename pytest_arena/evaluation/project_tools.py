"""A project's `tools.py`: the functions a model may call, with their JSON schemas.

Every public function defined in `tools.py` is a tool, decorated ones too (`functools.cache`,
or any decorator that keeps `__wrapped__`, as `functools.wraps` does). Its name is the
tool's name, its docstring's first paragraph the description, and its signature the JSON
schema of its arguments (str, int, float, bool, list, dict, Literal and Optional
annotations; a parameter without a default is required). A parameter named `workspace` is
not offered to the model: it receives the case's workspace folder. A function may give
its schema itself with `@tool(parameters={...}, description=...)` from `pytest_arena.tools`.
"""

from __future__ import annotations

import ast
import inspect
import math
import sys
import textwrap
import types
import typing
from pathlib import Path
from typing import Any, Literal, Union, get_args, get_origin

from pytest_arena.engine.tool_loop import Tool, ToolSet
from pytest_arena.evaluation import user_code
from pytest_arena.spec.errors import Problem, SpecError
from pytest_arena.spec.python_files import import_problem
from pytest_arena.spec.schema import ToolsSpec

TOOLS_FILE = "tools.py"
SCHEMA_ATTRIBUTE = "__arena_tool__"  # set by `pytest_arena.tools.tool`
_JSON_TYPES: dict[Any, str] = {
    str: "string",
    int: "integer",
    float: "number",
    bool: "boolean",
    list: "array",
    dict: "object",
}


def load_tools(root: Path, package: str, spec: ToolsSpec) -> ToolSet | None:
    """The tools of `root/tools.py`, or None without one; SpecError naming the file and
    line of a broken one."""
    path = root / TOOLS_FILE
    if not path.is_file():
        return None
    try:
        module = user_code.import_file(path, package)
    except (Exception, SystemExit, GeneratorExit) as exc:
        raise SpecError([import_problem(path, exc, TOOLS_FILE)]) from None
    tools: list[Tool] = []
    for name, function in vars(module).items():
        defined = _defined_function(function)
        if name.startswith("_") or defined is None:
            continue
        if defined.__module__ != module.__name__:
            continue  # imported into tools.py, not defined there
        line = defined.__code__.co_firstlineno
        wrong = _given_problem(getattr(function, SCHEMA_ATTRIBUTE, {}))
        if wrong is not None:
            raise SpecError([Problem(path, line, f"tool {name}: {wrong[0]}", hint=wrong[1])])
        try:
            made = tool_of(function, spec.timeout)
        except (TypeError, ValueError) as exc:
            raise SpecError(
                [
                    Problem(
                        path,
                        line,
                        f"tool {name}: {exc}",
                        hint="annotate its parameters with str, int, float, bool, list or"
                        " dict, or give the schema: @tool(parameters={...})",
                    )
                ]
            ) from None
        except Exception as exc:  # a hint that names what exists only for type checkers
            raise SpecError(
                [
                    Problem(
                        path,
                        line,
                        f"tool {name}: its type hints cannot be read: {type(exc).__name__}: {exc}",
                        hint="import what the hints name at run time (not only under"
                        " TYPE_CHECKING), or give the schema: @tool(parameters={...})",
                    )
                ]
            ) from None
        twin = next((t for t in tools if t.name == made.name), None)
        if twin is not None:  # the APIs refuse two tools of one name; the second never ran
            raise SpecError(
                [
                    Problem(
                        path,
                        line,
                        f"tool {name} is named '{made.name}', as {twin.function.__name__} is",
                        hint="give each tool its own name",
                    )
                ]
            )
        tools.append(made)
    if not tools:
        return None
    return ToolSet(tuple(tools), spec.max_turns)


def _given_problem(given: Any) -> tuple[str, str] | None:
    """What is wrong with the arguments of a function's `@tool(...)`, and its fix; None if
    nothing: they would otherwise fail each call (a timeout of "5"), time each call out (-1),
    or offer the model a schema that is none."""
    if not isinstance(given, dict):
        return None
    timeout = given.get("timeout")
    if timeout is not None:
        number = isinstance(timeout, int | float) and not isinstance(timeout, bool)
        if not number or not math.isfinite(timeout) or timeout <= 0:
            return (
                f"@tool(timeout={timeout!r}): the timeout is seconds, a number greater than 0",
                "give a number of seconds, as @tool(timeout=5)",
            )
    parameters = given.get("parameters")
    if parameters is not None and not (
        isinstance(parameters, dict) and parameters.get("type") == "object"
    ):
        return (
            f"@tool(parameters={_short(parameters)}): parameters is the JSON schema of the"
            " arguments, an object",
            'give a dict, as @tool(parameters={"type": "object", "properties": {"n":'
            ' {"type": "integer"}}})',
        )
    for key in ("name", "description"):
        value = given.get(key)
        if value is not None and not isinstance(value, str):
            return (f"@tool({key}={_short(value)}): {key} is text", f"give {key} as a str")
    return None


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _defined_function(value: object) -> types.FunctionType | None:
    """The function `value` is, or wraps (a decorated function: `functools.cache`, or any
    decorator that sets `__wrapped__`); None for classes and everything else."""
    if inspect.isclass(value) or not callable(value):
        return None
    try:
        inner = inspect.unwrap(value)
    except ValueError:  # a chain of __wrapped__ that loops
        return None
    return inner if isinstance(inner, types.FunctionType) else None


def tool_of(function: Any, timeout: float | None = None) -> Tool:
    """The Tool for `function`: its schema given by `@tool`, else read from its signature."""
    given: dict[str, Any] = getattr(function, SCHEMA_ATTRIBUTE, {})
    signature = inspect.signature(function)
    takes_workspace = "workspace" in signature.parameters
    description = given.get("description") or _first_paragraph(_doc(function))
    parameters = given.get("parameters") or schema_of(function)
    return Tool(
        name=given.get("name") or inspect.unwrap(function).__name__,
        function=function,
        description=description,
        parameters=parameters,
        timeout=given.get("timeout", timeout),
        takes_workspace=takes_workspace,
    )


def _doc(function: Any) -> str:
    """The function's docstring; under `python -OO`, which drops docstrings, read from its
    source, so that a model is offered the same tool whatever the flags."""
    doc = inspect.getdoc(function)
    if doc is not None or sys.flags.optimize < 2:
        return doc or ""
    try:
        source = textwrap.dedent(inspect.getsource(inspect.unwrap(function)))
        # optimize=0: from Python 3.14 on, parsing under -OO drops the docstrings too
        tree = compile(source, "<tool>", "exec", ast.PyCF_ONLY_AST, dont_inherit=True, optimize=0)
    except (OSError, TypeError, SyntaxError):
        return ""
    node = tree.body[0] if isinstance(tree, ast.Module) and tree.body else None
    if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
        return ast.get_docstring(node) or ""
    return ""


def schema_of(function: Any) -> dict[str, Any]:
    """The JSON schema of `function`'s arguments, from its signature and annotations."""
    hints = typing.get_type_hints(function)
    properties: dict[str, Any] = {}
    required: list[str] = []
    docs = _param_docs(_doc(function))
    for name, param in inspect.signature(function).parameters.items():
        if name == "workspace":
            continue
        if param.kind in (param.VAR_POSITIONAL, param.VAR_KEYWORD):
            raise TypeError(f"*{name} cannot be given by a model; name each parameter")
        schema = _schema(hints.get(name, Any), name)
        if name in docs:
            schema["description"] = docs[name]
        properties[name] = schema
        if param.default is param.empty:
            required.append(name)
    out: dict[str, Any] = {"type": "object", "properties": properties}
    if required:
        out["required"] = required
    return out


def _schema(annotation: Any, name: str) -> dict[str, Any]:
    if annotation is Any or annotation is inspect.Parameter.empty:
        return {}
    origin = get_origin(annotation)
    if origin is Literal:
        return {"enum": list(get_args(annotation))}
    if origin in (Union, types.UnionType):
        options = [a for a in get_args(annotation) if a is not type(None)]
        if len(options) == 1:
            return _schema(options[0], name)
        return {"anyOf": [_schema(a, name) for a in options]}
    if origin in (list, tuple, set):
        args = get_args(annotation)
        schema: dict[str, Any] = {"type": "array"}
        if args:
            schema["items"] = _schema(args[0], name)
        return schema
    if origin is dict:
        return {"type": "object"}
    if annotation in _JSON_TYPES:
        return {"type": _JSON_TYPES[annotation]}
    raise TypeError(f"parameter '{name}': {annotation!r} has no JSON schema")


def _first_paragraph(doc: str) -> str:
    return " ".join(doc.split("\n\n")[0].split())


def _param_docs(doc: str) -> dict[str, str]:
    """`name: what it is` lines of a docstring's Args section."""
    found: dict[str, str] = {}
    in_args = False
    for line in doc.splitlines():
        stripped = line.strip()
        if stripped.lower() in ("args:", "arguments:", "parameters:"):
            in_args = True
            continue
        if in_args:
            if not stripped:
                break
            head, sep, text = stripped.partition(":")
            head = head.split("(")[0].strip()
            if sep and head.isidentifier():
                found[head] = text.strip()
    return found
