"""Tool use in parts: provider formats, schemas from signatures, the agent builtins, the
sims' tool calls, the whole response kept for records."""

from __future__ import annotations

import inspect
import json
import time
from pathlib import Path
from typing import Any, Literal

import pytest

from pytest_arena.connectors import Request
from pytest_arena.connectors.sim import SimConnector, SimSettings
from pytest_arena.connectors.sim_tools import MISTAKES
from pytest_arena.connectors.tool_format import (
    anthropic_messages,
    openai_calls,
    openai_messages,
    render_calls,
)
from pytest_arena.engine.calls import CallResult
from pytest_arena.evaluation.project_tools import load_tools, schema_of
from pytest_arena.evaluation.response_data import capped, response_data
from pytest_arena.scorers import patterns
from pytest_arena.scorers.tool_use import ToolCall, Trajectory
from pytest_arena.spec import Case, SpecError
from pytest_arena.spec.python_files import project_package
from pytest_arena.spec.schema import ToolsSpec
from pytest_arena.testing import scoring_context

CALL = {"id": "c1", "name": "lookup", "arguments": {"order_id": "7"}}
HISTORY: list[dict[str, Any]] = [
    {"role": "system", "content": "Be brief."},
    {"role": "user", "content": "Where is 7?"},
    {"role": "assistant", "content": "", "tool_calls": [CALL, {**CALL, "id": "c2"}]},
    {"role": "tool", "tool_call_id": "c1", "name": "lookup", "content": "shipped"},
    {"role": "tool", "tool_call_id": "c2", "name": "lookup", "content": "boom", "is_error": True},
]


def test_openai_gets_calls_with_json_string_arguments_and_tool_messages() -> None:
    out = openai_messages(HISTORY)
    assert out[2]["tool_calls"][0] == {
        "id": "c1",
        "type": "function",
        "function": {"name": "lookup", "arguments": '{"order_id": "7"}'},
    }
    assert out[2]["content"] is None
    assert out[3] == {"role": "tool", "tool_call_id": "c1", "content": "shipped"}
    assert openai_calls(out[2]) == [CALL, {**CALL, "id": "c2"}]


def test_anthropic_gets_tool_use_blocks_and_one_user_message_of_results() -> None:
    out = anthropic_messages(HISTORY)
    assert [m["role"] for m in out] == ["user", "assistant", "user"]
    assert out[1]["content"][0] == {
        "type": "tool_use",
        "id": "c1",
        "name": "lookup",
        "input": {"order_id": "7"},
    }
    results = out[2]["content"]
    assert [r["tool_use_id"] for r in results] == ["c1", "c2"]
    assert "is_error" not in results[0] and results[1]["is_error"] is True


def test_calls_alone_are_rendered_one_a_line() -> None:
    assert render_calls([CALL, {**CALL, "arguments": {}}]) == (
        'lookup({"order_id": "7"})\nlookup({})'
    )


def refund(
    order_id: str,
    amount: float,
    reason: Literal["damaged", "late"] = "late",
    note: str | None = None,
    lines: list[int] | None = None,
    workspace: Path | None = None,
) -> str:
    """Refund an order.

    Args:
        order_id: the order's number
        amount (float): how much
    """
    return ""


def test_the_schema_comes_from_the_signature_and_the_docstring() -> None:
    assert schema_of(refund) == {
        "type": "object",
        "properties": {
            "order_id": {"type": "string", "description": "the order's number"},
            "amount": {"type": "number", "description": "how much"},
            "reason": {"enum": ["damaged", "late"]},
            "note": {"type": "string"},
            "lines": {"type": "array", "items": {"type": "integer"}},
        },
        "required": ["order_id", "amount"],
    }


def test_tools_py_offers_its_own_public_functions_and_says_where_one_cannot_be(
    tmp_path: Path,
) -> None:
    (tmp_path / "tools.py").write_text(
        "from json import dumps\n\n"
        "from pytest_arena import tool\n\n\n"
        "def _helper():\n    pass\n\n\n"
        "def lookup(order_id: str) -> str:\n"
        '    """Look an order up.\n\n    More words.\n    """\n'
        "    return order_id\n\n\n"
        '@tool(parameters={"type": "object", "properties": {"q": {}}}, timeout=2)\n'
        "def search(**query):\n    return query\n"
    )
    tools = load_tools(tmp_path, project_package(tmp_path), ToolsSpec(max_turns=4))
    assert tools is not None and tools.max_turns == 4
    assert [t.name for t in tools.tools] == ["lookup", "search"]
    assert tools.tools[0].description == "Look an order up."
    assert tools.tools[1].parameters["properties"] == {"q": {}}
    assert tools.tools[1].timeout == 2

    (tmp_path / "tools.py").write_text("\n\ndef bad(x: object) -> None:\n    pass\n")
    with pytest.raises(SpecError) as caught:
        load_tools(tmp_path, project_package(tmp_path), ToolsSpec())
    text = caught.value.format()
    assert "tools.py:3" in text and "tool bad: parameter 'x'" in text


def test_a_decorated_function_is_a_tool_called_through_its_decorator(tmp_path: Path) -> None:
    """functools.cache (or any decorator keeping __wrapped__) still makes a tool: it was
    silently left out, so the model was never offered it."""
    (tmp_path / "tools.py").write_text(
        "import functools\nfrom dataclasses import dataclass\n\n"
        "calls = []\n\n\n"
        "def _logged(function):\n"
        "    @functools.wraps(function)\n"
        "    def wrapper(*args, **kwargs):\n"
        "        calls.append(function.__name__)\n"
        "        return function(*args, **kwargs)\n"
        "    return wrapper\n\n\n"
        "@functools.cache\n"
        "def rate(currency: str) -> float:\n"
        '    """The exchange rate of a currency."""\n'
        "    calls.append('rate')\n"
        "    return 1.1\n\n\n"
        "@_logged\n"
        "def lookup(order_id: str) -> str:\n"
        '    """Look an order up."""\n'
        "    return order_id\n\n\n"
        "@dataclass\nclass Order:\n    order_id: str\n"
    )
    tools = load_tools(tmp_path, project_package(tmp_path), ToolsSpec())
    assert tools is not None
    assert [t.name for t in tools.tools] == ["rate", "lookup"]
    rate, lookup = tools.tools
    assert rate.description == "The exchange rate of a currency."
    assert rate.parameters["required"] == ["currency"]
    assert lookup.parameters["properties"] == {"order_id": {"type": "string"}}
    assert rate.function("EUR") == rate.function("EUR") == 1.1
    assert lookup.function("1182") == "1182"
    module_calls = inspect.unwrap(rate.function).__globals__["calls"]
    assert module_calls == ["rate", "lookup"]  # cached once; called through the decorator


@pytest.mark.parametrize(
    ("source", "said"),
    [
        (  # the common pattern: the hint names what only type checkers import
            "from __future__ import annotations\nfrom typing import TYPE_CHECKING\n"
            "if TYPE_CHECKING:\n    from pathlib import Path\n\n"
            "def save(text: str, workspace: Path) -> str:\n    return text\n",
            "tools.py:6: tool save: its type hints cannot be read: NameError:",
        ),
        (
            "from pytest_arena import tool\n\n@tool(name='lookup')\ndef by_order(order_id: str):\n"
            "    return order_id\n\n@tool(name='lookup')\ndef by_customer(customer_id: str):\n"
            "    return customer_id\n",
            "tools.py:7: tool by_customer is named 'lookup', as by_order is",
        ),
    ],
    ids=["type-checking-hint", "one-name-twice"],
)
def test_a_tool_that_cannot_be_offered_is_an_error_at_its_line(
    tmp_path: Path, source: str, said: str
) -> None:
    (tmp_path / "tools.py").write_text(source)
    with pytest.raises(SpecError) as caught:
        load_tools(tmp_path, project_package(tmp_path), ToolsSpec())
    assert caught.value.format(tmp_path).startswith(said)


@pytest.mark.parametrize(
    ("value", "sent"),
    [
        ("caf\udce9.txt", "caf\\udce9.txt"),  # an undecodable file name, as os.listdir gives
        (["caf\udce9.txt"], '["caf\\udce9.txt"]'),
    ],
)
def test_a_tool_result_utf8_cannot_carry_is_sent_escaped(value: Any, sent: str) -> None:
    from pytest_arena.engine.tool_loop import _as_text

    assert _as_text(value) == sent
    _as_text(value).encode("utf-8")  # what the HTTP connectors do with it


def test_a_tool_result_that_is_not_json_is_an_error_the_model_is_told() -> None:
    import asyncio

    from pytest_arena.engine.tool_loop import Tool, ToolSet, _run

    def tree() -> Any:
        node: dict[str, Any] = {"name": "root"}
        node["parent"] = node
        return node

    def counts() -> Any:
        return {("A", 1): 3}

    tools = ToolSet(
        tuple(Tool(f.__name__, f, "", {"type": "object"}, 5, False) for f in (tree, counts)), 4
    )
    for name, said in (("tree", "Circular reference detected"), ("counts", "keys must be")):
        out = asyncio.run(_run(tools, [name], {"id": "1", "name": name, "arguments": {}}, None))
        assert out["is_error"] is True
        assert out["content"].startswith(f"error: {name} returned a value that is not JSON: ")
        assert said in out["content"]


def context_with(made: list[dict[str, Any]], answer: str = "done", **options: Any) -> Any:
    steps = [{"message": {"content": "", "tool_calls": [c]}} for c in made]
    steps.append({"message": {"content": answer}})
    return scoring_context(options=options, trajectory=steps)


def call(name: str, **arguments: Any) -> dict[str, Any]:
    return {"id": name, "name": name, "arguments": arguments}


EXPECTED = {
    "tool_calls": [
        {"name": "lookup", "arguments": {"order_id": "7"}},
        {"name": "refund", "arguments": {"order_id": "7", "amount": 5}},
    ]
}


def test_tool_call_passes_the_expected_calls_in_order() -> None:
    made = [call("lookup", order_id="7"), call("refund", order_id="7", amount=5)]
    result = ToolCall().score("", EXPECTED, context_with(made))
    assert (result.score, result.passed) == (1.0, True)


def test_tool_call_gives_partial_credit_and_names_the_first_mismatch() -> None:
    made = [call("lookup", order_id="8"), call("refund", order_id="7", amount=5)]
    result = ToolCall().score("", EXPECTED, context_with(made))
    assert (result.score, result.passed) == (0.5, False)
    assert result.reason == ('expected call 1, lookup: argument \'order_id\' is "8", expected "7"')
    missing = ToolCall().score("", EXPECTED, context_with([call("refund", order_id="7")]))
    assert missing.reason.startswith("expected call 1, lookup: not called; the model called")
    assert missing.reason.endswith("(and 1 more expected calls not made)")
    none = ToolCall().score("", EXPECTED, context_with([]))
    assert none.reason == (
        "expected call 1, lookup: the model made no tool call (and 1 more expected calls not made)"
    )


@pytest.mark.parametrize("order", ["strict", "free"])
def test_a_call_expected_twice_and_made_once_is_said_so(order: str) -> None:
    """The reason said "not called; the model called a(...)": it was called, once."""
    reference = {"tool_calls": [{"name": "lookup", "arguments": {"order_id": "7"}}] * 2}
    ctx = context_with([call("lookup", order_id="7")], order=order)
    result = ToolCall().score("", reference, ctx)
    assert (result.score, result.passed) == (0.5, False)
    assert result.reason == "expected call 2, lookup: called once, expected twice"


def test_tool_call_order_strict_or_free() -> None:
    made = [call("refund", order_id="7", amount=5), call("lookup", order_id="7")]
    strict = ToolCall().score("", EXPECTED, context_with(made))
    assert (strict.score, strict.passed) == (0.5, False)
    assert strict.reason == (  # which made call, in the made calls' own numbering
        "expected call 2, refund: made, but out of order (as call 1 of those made, before call 2)"
    )
    free = ToolCall().score("", EXPECTED, context_with(made, order="free"))
    assert free.passed


def test_free_order_pairs_the_calls_so_that_every_expected_call_can_match() -> None:
    expected = {
        "tool_calls": [
            {"name": "search", "arguments": {"q": "lamp"}},
            {"name": "search", "arguments": {"q": "lamp", "page": 2}},
        ]
    }
    made = [call("search", q="lamp", page=2), call("search", q="lamp")]
    result = ToolCall().score("", expected, context_with(made, order="free", arguments="subset"))
    assert (result.passed, result.reason) == (True, "all 2 expected tool calls made")
    one = ToolCall().score("", expected, context_with(made[:1], order="free", arguments="subset"))
    assert (one.score, one.passed) == (0.5, False)


@pytest.mark.parametrize(
    ("given", "wanted"),
    [(1, True), (0, False), ([1], [True]), ({"a": 1}, {"a": True}), (True, 1)],
)
def test_true_is_not_one_in_a_calls_arguments(given: Any, wanted: Any) -> None:
    expected = {"tool_calls": [{"name": "set_flag", "arguments": {"enabled": wanted}}]}
    result = ToolCall().score("", expected, context_with([call("set_flag", enabled=given)]))
    assert not result.passed
    assert result.reason.startswith("expected call 1, set_flag: ")
    assert ToolCall().score("", expected, context_with([call("set_flag", enabled=wanted)])).passed


def test_tool_call_matches_arguments_as_a_subset_or_a_schema() -> None:
    made = [call("lookup", order_id="7", verbose=True), call("refund", order_id="7", amount=5)]
    exact = ToolCall().score("", EXPECTED, context_with(made))
    assert exact.reason == "expected call 1, lookup: unexpected argument 'verbose'"
    assert ToolCall().score("", EXPECTED, context_with(made, arguments="subset")).passed
    schema = {
        "calls": [
            {
                "name": "refund",
                "match": "schema",
                "arguments": {"properties": {"amount": {"type": "number", "maximum": 3}}},
            }
        ]
    }
    result = ToolCall().score("", None, context_with(made, **schema))
    assert not result.passed
    assert result.reason == (
        "expected call 1, refund: its arguments do not fit the schema: 5 is greater than the"
        " maximum of 3"
    )


def test_tool_call_without_expectations_is_unscored_and_extra_calls_can_fail() -> None:
    assert ToolCall().score("", "text", context_with([])).passed is None
    extra = ToolCall().score(
        "", {"tool_calls": []}, context_with([call("lookup")], allow_extra=False)
    )
    assert (extra.score, extra.passed) == (0.0, False)
    assert extra.reason == "unexpected call lookup({}) (allow_extra is false)"


def test_trajectory_checks_calls_steps_and_the_final_answer() -> None:
    ctx = context_with([call("lookup"), call("lookup"), call("refund")], answer="")
    options = {"must_call": ["escalate"], "must_not_call": ["refund"], "max_steps": 3}
    result = Trajectory().score("", None, context_with([], **options))
    assert result.passed is False and result.reason.startswith("escalate was never called")
    ctx = context_with([call("lookup"), call("refund")], answer="", **options)
    result = Trajectory().score("", None, ctx)
    assert result.score == 0.25
    assert result.reason == "escalate was never called (and 2 more checks failed)"
    good = Trajectory().score("", None, context_with([call("lookup")], must_call=["lookup"]))
    assert (good.score, good.passed, good.reason) == (1.0, True, "2 steps, called lookup")


def test_a_single_reply_is_a_trajectory_of_one_step() -> None:
    ctx = scoring_context(response={"message": {"content": "hi", "tool_calls": []}})
    assert len(ctx.trajectory) == 1 and ctx.tool_calls == []
    assert ctx.trajectory[0]["tool_results"] == []  # the documented shape of every step
    # the calls of a reply, when no tool loop runs, are graded
    message = {"content": "", "tool_calls": [call("lookup", order_id="7")]}
    reference = {"tool_calls": [{"name": "lookup"}]}
    options = {"must_call": ["lookup"], "final_answer": False}
    ctx = scoring_context(reference, options=options, response={"message": message})
    one = Trajectory().score("", None, ctx)
    assert one.passed and one.reason == "1 step, called lookup"  # not "1 steps"
    ctx = scoring_context(reference, response={"message": message})
    assert ToolCall().score("", reference, ctx).passed


@pytest.mark.parametrize("scorer", [ToolCall(), Trajectory()], ids=["tool_call", "trajectory"])
def test_without_a_tool_loop_or_calls_in_the_reply_the_agent_builtins_do_not_grade(
    scorer: ToolCall | Trajectory,
) -> None:
    """An agent runs its own tools: arena never sees them, so `must_not_call` held and
    `allow_extra: false` found no extra call, whatever the agent did."""
    reference = {"tool_calls": [], "answer": "no refund"}
    trajectory = scorer.name == "trajectory"
    options = {"must_not_call": ["issue_refund"]} if trajectory else {"allow_extra": False}
    response = {
        "message": {"role": "assistant", "content": "I refunded you", "tool_calls": []},
        "meta": {"tool_calls": [call("issue_refund")]},  # its own, which arena does not read
        "trajectory": [],
    }
    ctx = scoring_context(reference, options=options, response=response)
    result = scorer.score("I refunded you", reference, ctx)
    assert (result.score, result.passed) == (0.0, None)
    assert result.reason == (
        "no tool loop ran and the reply holds no tool call: unscored; fix: run arena's tool loop"
        " (tools.py), or have your python agent return tool_calls: [{name, arguments, result}]"
        " with its text (a command agent prints them so, with output: json)"
    )
    # a loop that ran and made no call is graded as ever
    loop = {**response, "trajectory": [{"step": 1, "message": response["message"]}]}
    ctx = scoring_context(reference, options=options, response=loop)
    assert scorer.score("I refunded you", reference, ctx).passed is True


TOOLS = [{"name": n, "description": "", "parameters": {}} for n in ("lookup", "refund", "cancel")]


def sim_turns(key: str, reference: Any, case_id: str, **settings: Any) -> list[dict[str, Any]]:
    """The calls a sim makes on a case, turn by turn, each answered "ok"."""
    sim = SimConnector(key, SimSettings(**settings))
    case = Case(case_id, "Refund order 7", reference, project="p")
    messages: list[dict[str, Any]] = [{"role": "user", "content": "Refund order 7"}]
    turns = []
    for _ in range(6):
        response = sim.complete(Request(key, list(messages), case, tools=TOOLS))
        turns.append({"calls": response.tool_calls, "text": response.text, **response.meta})
        if not response.tool_calls:
            break
        messages.append({"role": "assistant", "content": "", "tool_calls": response.tool_calls})
        messages += [
            {"role": "tool", "tool_call_id": c["id"], "name": c["name"], "content": "ok"}
            for c in response.tool_calls
        ]
    return turns


REFERENCE = {**EXPECTED, "answer": "Refunded 5.00 on order 7."}


def test_a_right_sim_makes_the_expected_calls_then_answers() -> None:
    turns = sim_turns("sim_perfect", REFERENCE, "c", accuracy=1.0)
    assert [t["calls"][0]["name"] for t in turns[:2]] == ["lookup", "refund"]
    assert turns[1]["calls"][0]["arguments"] == {"order_id": "7", "amount": 5}
    assert turns[2]["text"] == "Refunded 5.00 on order 7." and not turns[2]["calls"]
    assert turns[0]["text"] == 'lookup({"order_id": "7"})'
    assert sim_turns("sim_perfect", REFERENCE, "c", accuracy=1.0) == turns  # deterministic


def test_a_wrong_sim_makes_each_kind_of_realistic_mistake() -> None:
    seen: dict[str, list[dict[str, Any]]] = {}
    for i in range(60):
        turns = sim_turns("sim_small", REFERENCE, f"case{i}", accuracy=0.0)
        seen.setdefault(turns[0]["verdict"], turns)
    assert set(seen) == set(MISTAKES)
    assert seen["wrong_tool"][0]["calls"][0]["name"] in ("refund", "cancel")
    assert seen["missing_argument"][0]["calls"][0]["arguments"] == {}
    assert seen["wrong_argument"][0]["calls"][0]["arguments"] != {"order_id": "7"}
    assert seen["skipped_call"][0]["calls"] == []
    assert len(seen["endless_loop"]) == 6 and all(t["calls"] for t in seen["endless_loop"])


def test_the_record_keeps_the_response_cut_to_size_and_says_so() -> None:
    from pytest_arena.connectors import Response

    steps = [
        {"step": i, "message": {"content": "x" * 10_000}, "tool_results": []} for i in range(60)
    ]
    result = CallResult(Response("done", 3, 4, meta={"tool_calls": [CALL]}), trajectory=steps)
    data = response_data(result)
    assert data["message"]["tool_calls"] == [CALL] and data["usage"]["tokens_out"] == 4
    kept = capped(data, limit=50_000)
    assert len(json.dumps(kept)) <= 50_000
    assert kept["cut"].startswith("texts over 4,000 characters cut")
    assert "middle steps of the trajectory left out" in kept["cut"]
    assert kept["trajectory"][0]["step"] == 0 and kept["trajectory"][-1]["step"] == 59
    assert capped(response_data(CallResult(Response("small")))).get("cut") is None


def test_an_argument_schema_whose_pattern_backtracks_without_end_is_an_error_in_time(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(patterns, "SEARCH_TIMEOUT", 0.2)
    made = [call("refund", order_id="a" * 26 + "!")]
    arguments = {"properties": {"order_id": {"type": "string", "pattern": "^(a|a)+$"}}}
    expected = {"calls": [{"name": "refund", "match": "schema", "arguments": arguments}]}
    started = time.monotonic()
    with pytest.raises(ValueError, match=r"pattern '\^\(a\|a\)\+\$' took more than 0\.2 s"):
        ToolCall().score("", None, context_with(made, **expected))
    assert time.monotonic() - started < 3.0  # untimed, regex takes 5 s and more here (loaded: 15)


def test_under_python_oo_a_tool_keeps_the_description_its_docstring_gives(tmp_path: Path) -> None:
    """`python -OO` drops docstrings: the model was offered tools with an empty description
    and no word on their parameters (and a cached run's keys no longer matched)."""
    import subprocess
    import sys

    (tmp_path / "desk_tools.py").write_text(
        "import functools\n\n\n@functools.cache\n"
        "def lookup_order(order_id: str) -> str:\n"
        '    """Look an order up: its status.\n\n    Args:\n        order_id: the order\'s number\n    """\n'
        "    return 'shipped'\n"
    )
    show = (
        "import json, desk_tools\n"
        "from pytest_arena.evaluation.project_tools import tool_of\n"
        "tool = tool_of(desk_tools.lookup_order)\n"
        "print(json.dumps([tool.description, tool.parameters], sort_keys=True))\n"
    )
    said = [
        subprocess.run(
            [sys.executable, *flags, "-c", show], cwd=tmp_path, capture_output=True, text=True
        ).stdout
        for flags in ([], ["-OO"])
    ]
    assert said[0] == said[1]
    assert "Look an order up: its status." in said[1] and "the order's number" in said[1]
