"""What a project gives the tool loop, checked: a tool's result the model cannot be sent as
it is, `@tool(...)` arguments and `tools:` settings that would break every call."""

from __future__ import annotations

import asyncio
import datetime
import enum
import json
import uuid
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from pytest_arena.engine.tool_loop import Tool, ToolSet, _run
from pytest_arena.evaluation.project_tools import load_tools
from pytest_arena.spec import SpecError
from pytest_arena.spec.python_files import project_package
from pytest_arena.spec.schema import ToolsSpec
from tests.conftest import MakeProject


class Opaque:  # neither __str__ nor __repr__ of its own: its text is its address
    pass


class Colour(enum.Enum):
    RED = "red"


def numbers() -> Any:
    yield 1


async def later() -> int:
    return 1


def result_of(value: Any) -> dict[str, Any]:
    def tool() -> Any:
        return value() if callable(value) and value in (numbers, later) else value

    tools = ToolSet((Tool("tool", tool, "", {"type": "object"}, 5, False),), 4)
    out: dict[str, Any] = asyncio.run(
        _run(tools, ["tool"], {"id": "1", "name": "tool", "arguments": {}}, None)
    )
    return out


@pytest.mark.parametrize(
    ("value", "kind"),
    [
        (Opaque(), "Opaque"),
        ({"rows": [Opaque()]}, "Opaque"),
        (numbers, "generator"),
        (later, "coroutine"),
        (lambda: None, "function"),
    ],
    ids=["object", "inside-a-dict", "generator", "coroutine", "function"],
)
def test_a_tool_result_whose_text_is_a_memory_address_is_an_error(value: Any, kind: str) -> None:
    """`<X object at 0x7f..>` was sent as a success, and told the model nothing; its address
    changed each run, so the response cache never answered the next turn again."""
    out = result_of(value)
    assert out["is_error"] is True
    assert out["content"] == (
        f"error: tool returned a value that is not JSON: Object of type {kind} is not JSON"
        " serializable"
    )


@pytest.mark.parametrize(
    ("value", "sent"),
    [
        (datetime.date(2026, 1, 2), '"2026-01-02"'),
        ({"total": Decimal("39.90")}, '{"total": "39.90"}'),
        (Path("orders/1182.txt"), '"orders/1182.txt"'),
        (uuid.UUID(int=1), '"00000000-0000-0000-0000-000000000001"'),
        (Colour.RED, '"Colour.RED"'),
    ],
    ids=["date", "decimal", "path", "uuid", "enum"],
)
def test_a_tool_result_with_a_text_of_its_own_is_sent_as_that_text(value: Any, sent: str) -> None:
    out = result_of(value)
    assert (out["is_error"], out["content"]) == (False, sent)
    json.loads(out["content"])


@pytest.mark.parametrize(
    ("decorator", "said", "fix"),
    [
        (
            '@tool(timeout="5")',
            "tool lookup: @tool(timeout='5'): the timeout is seconds, a number greater than 0",
            "give a number of seconds, as @tool(timeout=5)",
        ),
        (
            "@tool(timeout=-1)",
            "tool lookup: @tool(timeout=-1): the timeout is seconds, a number greater than 0",
            "give a number of seconds, as @tool(timeout=5)",
        ),
        (
            '@tool(parameters="n is an int")',
            "tool lookup: @tool(parameters='n is an int'): parameters is the JSON schema of the"
            " arguments, an object",
            'give a dict, as @tool(parameters={"type": "object", "properties": {"n":'
            ' {"type": "integer"}}})',
        ),
        (
            "@tool(description=['Look up'])",
            "tool lookup: @tool(description=['Look up']): description is text",
            "give description as a str",
        ),
    ],
    ids=["timeout-text", "timeout-negative", "parameters-text", "description-list"],
)
def test_tool_arguments_that_would_break_every_call_are_an_error_at_the_tool(
    make_project: MakeProject, pytester: pytest.Pytester, decorator: str, said: str, fix: str
) -> None:
    """Each of these made every call of the tool fail (a TypeError inside arena, a timeout
    at once) or offered the model a schema that is none, and the cases stayed green."""
    make_project(
        "desk",
        """
        models: [sim_perfect]
        scorers: {default: trajectory}
        tests:
          - id: one
            input: Where is order 1182?
            reference: {tool_calls: [{name: lookup, arguments: {n: 1}}], answer: shipped}
        """,
        {
            "tools.py": (
                "from pytest_arena import tool\n\n\n"
                f"{decorator}\n"
                "def lookup(n: int) -> str:\n"
                '    """Look an order up."""\n'
                "    return 'shipped'\n"
            )
        },
    )
    result = pytester.runpytest("-p", "no:cacheprovider")
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines([f"projects/desk/tools.py:4: {said}", f"  fix: {fix}"])


def test_tool_arguments_that_fit_load_as_given(tmp_path: Path) -> None:
    (tmp_path / "tools.py").write_text(
        "from pytest_arena import tool\n\n\n"
        '@tool(timeout=0.5, name="find", description="Find it.",'
        ' parameters={"type": "object", "properties": {}})\n'
        "def lookup():\n    return 1\n"
    )
    tools = load_tools(tmp_path, project_package(tmp_path), ToolsSpec())
    assert tools is not None
    (made,) = tools.tools
    assert (made.name, made.description, made.timeout) == ("find", "Find it.", 0.5)
    (tmp_path / "tools.py").write_text(
        "from pytest_arena import tool\n\n\n@tool(timeout=float('nan'))\ndef lookup():\n    pass\n"
    )
    with pytest.raises(SpecError, match=r"tools.py:4: tool lookup: @tool\(timeout=nan\)"):
        load_tools(tmp_path, project_package(tmp_path), ToolsSpec())


@pytest.mark.parametrize("setting", ["max_turns: true", "max_turns: 2.5", "timeout: true"])
def test_tools_settings_that_are_not_numbers_are_refused(
    make_project: MakeProject, pytester: pytest.Pytester, setting: str
) -> None:
    """`max_turns: true` ran as 1 turn, `timeout: true` as 1 second."""
    make_project(
        "desk",
        f"""
        models: [sim_perfect]
        tools: {{{setting}}}
        tests:
          - {{id: one, input: x, reference: x}}
        """,
    )
    result = pytester.runpytest("-p", "no:cacheprovider")
    assert result.ret != 0
    key = setting.split(":")[0]
    result.stdout.fnmatch_lines([f"projects/desk/arena.yaml:2: *tools.{key}*"])


def test_max_turns_of_one_says_one_turn(
    make_project: MakeProject, pytester: pytest.Pytester
) -> None:
    make_project(
        "desk",
        """
        models: [sim_perfect]
        tools: {max_turns: 1}
        scorers: {default: trajectory}
        tests:
          - id: one
            input: Where is order 1182?
            reference: {tool_calls: [{name: lookup, arguments: {n: 1}}], answer: shipped}
        """,
        {"tools.py": "def lookup(n: int) -> str:\n    return 'shipped'\n"},
    )
    result = pytester.runpytest("-p", "no:cacheprovider")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            "*max_turns reached: the model still called tools after 1 turn (last called: lookup);"
            " no final answer"
        ]
    )
