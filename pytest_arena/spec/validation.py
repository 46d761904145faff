"""Turn pydantic validation errors into file:line problems with a fix."""

from __future__ import annotations

import types
import typing
from collections.abc import Collection
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel, Tag, ValidationError

from pytest_arena.spec.errors import Problem, SpecError, did_you_mean
from pytest_arena.spec.yamlfile import LineMap, Loc

M = TypeVar("M", bound=BaseModel)


def validate(
    model: type[M],
    data: Any,
    lines: LineMap | None,
    path: Path,
    base: Loc = (),
    line: int | None = None,
    beside: Collection[str] = (),
) -> M:
    """Validate `data` as `model`; raise SpecError naming file, line and key.

    `base` is where `data` sits in its file; `line` is used when no LineMap is given;
    `beside` are keys read elsewhere that may sit beside `model`'s at its top (a model
    definition's `timeout` beside its connector's settings): an unknown key there names them
    among the known ones.
    """
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        raise SpecError(_problems(model, exc, lines, path, base, line, beside)) from None


def _problems(
    model: type[BaseModel],
    exc: ValidationError,
    lines: LineMap | None,
    path: Path,
    base: Loc,
    line: int | None,
    beside: Collection[str] = (),
) -> list[Problem]:
    problems: list[Problem] = []
    seen: set[Loc] = set()
    errors = sorted(exc.errors(include_url=False), key=lambda e: e["type"] != "extra_forbidden")
    for error in errors:
        kind = error["type"]
        loc = _clean_loc(error["loc"], keep_last=kind in {"extra_forbidden", "missing"})
        if loc in seen:
            continue  # a union reports each alternative; one line per key is enough
        seen.add(loc)
        full = (*base, *loc)
        at = lines.line(full) if lines is not None else line
        key = dotted(full)
        if kind == "extra_forbidden":
            name = str(loc[-1])
            fields = _fields_at(model, tuple(error["loc"][:-1]))
            known = sorted({*fields, *(beside if len(loc) == 1 else ())})
            runloop = _runloop_key(name, known)
            meant = did_you_mean(name, known) or _alike(name, known)
            hint = f"{runloop}; " if runloop else meant + " "
            hint = f"{hint.lstrip()}known keys here: {', '.join(known)}"
            problems.append(Problem(path, at, f"unknown key '{name}'", key=key, hint=hint))
        elif kind == "missing":
            name = str(loc[-1])
            parent = dotted(full[:-1])
            message = f"'{name}' is required{' in ' + parent if parent else ''}"
            problems.append(Problem(path, at, message, hint=f"add '{name}: ...'"))
        else:
            message = error["msg"].removeprefix("Value error, ")
            got = error.get("input")
            if kind.endswith("_type") or kind in {"union_tag_invalid", "literal_error"}:
                message += f" (got {_describe(got)})"
            hint = _scorer_name_hint(full, got) if kind == "string_type" else ""
            hint = hint or _hint_for(kind, error.get("ctx") or {})
            problems.append(Problem(path, at, message, key=key, hint=hint))
    return problems


# Runloop's names in its scoring contract (a scenario's scoring_contract, 001_*), each with
# the key of ours it is, where that key is known, and the fix: said in place of a key that is
# merely spelt alike (`scorer_params` is not `scorer`)
_RUNLOOP_KEYS: dict[str, tuple[tuple[str, str], ...]] = {
    "scorer_params": (
        ("params", "rename it to 'params': Runloop's scorer_params are a component's params here"),
        ("options", "rename it to 'options': Runloop's scorer_params are a case's options here"),
    ),
    "scoring_function_parameters": (
        (
            "scoring",
            "rename it to 'scoring': Runloop's scoring_function_parameters are the components"
            " listed under scoring: here, each {name, scorer, weight, params}",
        ),
    ),
    "scoring_contract": (
        (
            "scoring",
            "write the list under its scoring_function_parameters as 'scoring:' itself:"
            " Runloop's scoring_contract is scoring: [...] here",
        ),
    ),
    "custom_scorer_type": (
        (
            "scorer",
            "write it as 'scorer: NAME': Runloop's custom_scorer_type is the scorer's name, and"
            " every scorer, builtin or your own, is named by 'scorer:' here",
        ),
    ),
    "type": (
        (
            "scorer",
            "take it out: Runloop's 'type: custom_scorer' is not needed here, where every"
            " scorer, builtin or your own, is named by 'scorer:' alone",
        ),
    ),
}


def _runloop_key(name: str, known: Collection[str]) -> str:
    """The fix for Runloop's key `name` where its own key is one of `known`, else ''."""
    return next((fix for ours, fix in _RUNLOOP_KEYS.get(name, ()) if ours in known), "")


# keys other tools give an image for arena's own, spelt too unlike it for a did-you-mean
_ALIKE = {"caption": "alt", "description": "alt", "alt_text": "alt"}


def _alike(name: str, known: Collection[str]) -> str:
    """A did-you-mean for `name` written for one of `known` that it does not resemble."""
    ours = _ALIKE.get(name.lower())
    return f"did you mean '{ours}'?" if ours in known else ""


def _scorer_name_hint(loc: Loc, got: Any) -> str:
    """The fix for a list or a mapping written at `loc` where one scorer's name goes (a
    component's `scorer`, an `eval_type`, `scorers.default`), else ''. Several scorers are a
    contract under `scoring:`; a mapping is Runloop's scorer block, or a scorer with params."""
    if len(loc) >= 3 and loc[-3] == "scoring" and isinstance(loc[-2], int) and loc[-1] == "scorer":
        field = "scorer"
    elif loc[-1:] == ("eval_type",) and loc[-2:-1] != ("fields",):
        field = "eval_type"
    elif loc == ("scorers", "default"):
        field = "default"
    else:
        field = ""
    if not field or not isinstance(got, list | dict):
        return ""
    if isinstance(got, dict):
        return _scorer_block_hint(field, got)
    names = [n for n in got if isinstance(n, str) and n]
    if len(got) == 1:
        return f"write a string, the scorer's name: {field}: {names[0] if names else 'NAME'}"
    listed = ", ".join(f"{{scorer: {n}}}" for n in (names or ["a", "b"])[:4])
    contract = f"scoring: [{listed}]"
    if field == "scorer":
        return f"write a string: a component names one scorer; give each its own: {contract}"
    shown, owner = ("scorers.default", "the project's") if field == "default" else (field, "")
    owner = owner or ("the dataset's" if loc[0] == "datasets" else "the case's")
    return (
        f"write a string: {shown} names one scorer; to grade with several, list them under"
        f" {owner} 'scoring:' in its place: {contract}"
    )


def _scorer_block_hint(field: str, block: dict[Any, Any]) -> str:
    """The fix for a mapping written as `field`, a scorer's name: Runloop's nested scorer
    block (`{type: custom_scorer, custom_scorer_type: NAME, scorer_params: {...}}`) or not."""
    written = block.get("custom_scorer_type")
    name = written if isinstance(written, str) and written else "NAME"
    params = ", params: {...}" if "scorer_params" in block else ""
    runloop = any(k in block for k in ("type", "custom_scorer_type", "scorer_params"))
    if field == "scorer" and runloop:
        return (
            f"write a string, the scorer's name: {{scorer: {name}{params}}}. Runloop's nested"
            " scorer block is flat here: its custom_scorer_type is the scorer's name, its"
            " scorer_params are the component's params, and 'type: custom_scorer' is not needed"
        )
    if field == "scorer":
        return "write a string, the scorer's name: scorer: NAME; its options go under params:"
    contract = f"scoring: [{{scorer: {name}, params: {{...}}}}]"
    return (
        f"write a string, the scorer's name: {field}: {name}; a scorer with params of its own"
        f" is a component of 'scoring:' in its place: {contract}"
    )


def _clean_loc(loc: tuple[int | str, ...], keep_last: bool) -> Loc:
    # pydantic names union branches in the location ("str", "list[Message]"); drop them.
    # An unknown or missing key ends the location and is the user's own name, even
    # one that looks like a branch ("[" or "str"), so it is kept.
    head, last = (loc[:-1], loc[-1:]) if keep_last else (loc, ())
    kept = (p for p in head if not (isinstance(p, str) and ("[" in p or p in _TYPES)))
    return (*kept, *last)


_TYPES = {"str", "int", "float", "bool", "dict", "list", "function-after", "function-before"}


def dotted(loc: Loc) -> str:
    """`loc` as a key path, `tests[1].input` (Problem.format escapes what a key holds)."""
    out = ""
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out


def _describe(value: Any) -> str:
    if isinstance(value, dict):
        return "a mapping"
    if isinstance(value, list):
        return "a list"
    return f"{type(value).__name__} {value!r}" if value is not None else "nothing"


def _hint_for(kind: str, ctx: dict[str, Any]) -> str:
    if kind == "greater_than_equal":
        return f"use a value of {_bound(ctx, 'ge')} or more"
    if kind == "greater_than":
        return f"use a value above {_bound(ctx, 'gt')}"
    if kind == "less_than_equal":
        return f"use a value of {_bound(ctx, 'le')} or less"
    return {
        "string_type": "write a string; quote it if YAML reads it as a number or a date",
        "float_parsing": "write a number, such as 0.5",
        "float_type": "write a number, such as 0.5",
        "list_type": "write a list, such as [a, b] or one '- item' per line",
        "dict_type": "write a mapping of 'key: value' lines",
        "finite_number": "write a finite number, such as 1 or 0.5",
    }.get(kind, "")


def _bound(ctx: dict[str, Any], name: str) -> str:
    value = ctx.get(name, 0)
    return f"{value:g}" if isinstance(value, int | float) else str(value)


def _fields_at(model: type[BaseModel], loc: Loc) -> set[str]:
    """The field names of the model found at `loc` inside `model`, best effort. `loc` is
    pydantic's own: a tagged union's tag there (`part[image]`) picks its branch."""
    current: Any = model
    for part in loc:
        branch = _tagged(current, part)
        if branch is not None:
            current = branch
            continue
        if isinstance(part, str) and ("[" in part or part in _TYPES):
            continue  # another union's branch: the next part descends from here
        current = _descend(current, part)
        if current is None:
            return set()
    cls = _model_in(current)
    return set(cls.model_fields) if cls is not None else set()


def _tagged(annotation: Any, part: str | int) -> Any:
    """The branch of the tagged union `annotation` whose tag is `part`, else None."""
    for arg in typing.get_args(_bare(annotation)) if isinstance(part, str) else ():
        if any(isinstance(m, Tag) and m.tag == part for m in getattr(arg, "__metadata__", ())):
            return _bare(arg)
    return None


def _bare(annotation: Any) -> Any:
    """`annotation` without its `Annotated[...]` wrappers (a Tag, a Discriminator)."""
    while typing.get_origin(annotation) is typing.Annotated:
        annotation = typing.get_args(annotation)[0]
    return annotation


def _descend(annotation: Any, part: str | int) -> Any:
    annotation = _bare(annotation)
    cls = _model_in(annotation)
    if cls is not None and isinstance(part, str) and part in cls.model_fields:
        return cls.model_fields[part].annotation
    origin = typing.get_origin(annotation)
    args = typing.get_args(annotation)
    if origin in (dict, typing.Mapping) and len(args) == 2:
        return args[1]
    if origin in (list, tuple) and args:
        return args[0]
    if origin in (typing.Union, types.UnionType):
        for arg in args:
            found = _descend(arg, part)
            if found is not None:
                return found
    return None


def _model_in(annotation: Any) -> type[BaseModel] | None:
    annotation = _bare(annotation)
    if _is_model(annotation):
        return annotation
    if typing.get_origin(annotation) in (typing.Union, types.UnionType):
        for arg in map(_bare, typing.get_args(annotation)):
            if _is_model(arg):
                return arg
    return None


def _is_model(annotation: Any) -> typing.TypeGuard[type[BaseModel]]:
    # `dict[str, X]` passes isinstance(..., type) on Python 3.10, and issubclass then raises
    return (
        isinstance(annotation, type)
        and typing.get_origin(annotation) is None
        and issubclass(annotation, BaseModel)
    )
