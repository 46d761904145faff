"""`@tool`: give a function of a project's `tools.py` its schema, name or timeout yourself."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

F = TypeVar("F", bound=Callable[..., Any])


def tool(
    *,
    parameters: dict[str, Any] | None = None,
    description: str | None = None,
    name: str | None = None,
    timeout: float | None = None,
) -> Callable[[F], F]:
    """Mark a tool with an explicit JSON schema of its arguments (`parameters`), a
    description, a name or a timeout in seconds; what is not given is read from the
    function's signature and docstring, and the project's `tools: timeout:`. They are
    checked when tools.py loads (a timeout above 0, parameters a JSON schema of an object)."""
    given: dict[str, Any] = {
        k: v
        for k, v in {
            "parameters": parameters,
            "description": description,
            "name": name,
            "timeout": timeout,
        }.items()
        if v is not None
    }

    def mark(function: F) -> F:
        function.__arena_tool__ = given  # type: ignore[attr-defined]
        return function

    return mark
