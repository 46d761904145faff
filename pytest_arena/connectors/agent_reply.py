"""What an agent of your own says beside its answer: the dict a `python` agent returns, or
the JSON object a `command` agent prints with `output: json`.

`{"text": ..., "tokens_in", "tokens_out", "cost", "meta", "tool_calls"}`: the answer, what
it took and cost, data for the scorers, and the tool calls it made, in order.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from pytest_arena.connectors.base import ConnectorError, Response
from pytest_arena.record import json_safe
from pytest_arena.spec.surrogates import json_text

REPLY_KEYS = ("text", "tokens_in", "tokens_out", "cost", "meta", "tool_calls")
FIELDS = (
    "'text' (a string) and optionally 'tokens_in', 'tokens_out' (whole numbers, 0 or more),"
    " 'cost' (dollars, 0 or more), 'meta' (a dict) and 'tool_calls' (the tool calls it made)"
)
CALLS = (
    "a list of the calls the agent made, in order, each {'name': the tool's name,"
    " 'arguments': a dict, 'result': what the tool returned} (arguments and result optional)"
)
RESPONSE_ONLY = "; a Response may also give 'latency_ms' (milliseconds, 0 or more)"


@dataclass(frozen=True)
class Agent:
    """Who says the reply and how, for the messages: `who` 'returned' (a python agent) or
    'printed' (a command agent) it; the fix asks it to `return` or `print` one."""

    who: str
    verb: str = "returned"
    fix: str = "return"


def reply_of(agent: Agent, reply: dict[Any, Any]) -> Response:
    """The Response a reply dict says; ConnectorError naming the first field that does not
    fit, or the keys, when it has another key or no 'text'."""
    unknown = sorted(set(reply) - set(REPLY_KEYS), key=str)
    text = reply.get("text")
    if unknown or "text" not in reply:
        raise ConnectorError(
            f"{agent.who} {agent.verb} a dict with keys {sorted(reply, key=str)};"
            f" {agent.fix} one with {FIELDS}"
        )
    if not isinstance(text, str):  # {"text": None}: the keys are right, the value is not
        raise ConnectorError(
            f"{agent.who} {agent.verb} a dict whose text is {_shown(text)}; {agent.fix} one"
            f" with {FIELDS}"
        )
    cost, meta = reply.get("cost"), reply.get("meta") or {}
    if not isinstance(cost, bool) and isinstance(cost, int | float):
        cost = _float(cost)
    response = Response(
        text=text,
        tokens_in=reply.get("tokens_in") or 0,
        tokens_out=reply.get("tokens_out") or 0,
        cost=cost,
        meta=dict(meta) if isinstance(meta, dict) else meta,
    )
    return checked(agent, response, "a dict")


def checked(agent: Agent, response: Response, kind: str) -> Response:
    """`response` if its fields hold what they should; ConnectorError naming the first that
    does not (a usage of None, as an SDK gives for a reply without one; a cost of NaN or
    below 0, which would give a budget back; a latency that is not a number of
    milliseconds, which the leaderboard adds up)."""
    for name, ok in (
        ("text", isinstance(response.text, str)),
        ("tokens_in", _count(response.tokens_in)),
        ("tokens_out", _count(response.tokens_out)),
        ("cost", response.cost is None or _money(response.cost)),
        ("latency_ms", response.latency_ms is None or _money(response.latency_ms)),
        ("meta", isinstance(response.meta, dict)),
    ):
        if not ok:
            value = getattr(response, name)
            fields = FIELDS + (RESPONSE_ONLY if name == "latency_ms" else "")
            raise ConnectorError(
                f"{agent.who} {agent.verb} {kind} whose {name} is {value!r}; {agent.fix} {fields}"
            )
    return response


def steps_of(agent: Agent, reply: dict[Any, Any]) -> list[dict[str, Any]] | None:
    """The trajectory of a reply that said the tool calls its agent made, in order, as
    `tool_calls: [{name, arguments, result}]` (`arguments` and `result` may be left out):
    one step per call, then its answer; None if it said none; ConnectorError naming the
    first call that does not fit."""
    if "tool_calls" not in reply:
        return None
    calls, text = reply["tool_calls"], reply["text"]
    if not isinstance(calls, list):
        raise ConnectorError(
            f"{agent.who} {agent.verb} tool_calls of {type(calls).__name__}; {agent.fix} {CALLS}"
        )
    steps: list[dict[str, Any]] = []
    for index, call in enumerate(calls):
        name = call.get("name") if isinstance(call, dict) else None
        arguments = call.get("arguments", {}) if isinstance(call, dict) else None
        unknown = set(call) - {"name", "arguments", "result"} if isinstance(call, dict) else ()
        if not isinstance(name, str) or not name or not isinstance(arguments, dict) or unknown:
            raise ConnectorError(
                f"{agent.who} {agent.verb} tool_calls[{index}] = {call!r}; {agent.fix} {CALLS}"
            )
        made = {"id": f"call_{index + 1}", "name": name, "arguments": arguments}
        results = []
        if "result" in call:
            returned = call["result"]
            shown = returned if isinstance(returned, str) else json_text(json_safe(returned))
            results.append({"id": made["id"], "name": name, "content": shown, "is_error": False})
        steps.append(
            {
                "step": index + 1,
                "message": {"role": "assistant", "content": "", "tool_calls": [made]},
                "tool_results": results,
                "finish_reason": "tool_calls",
            }
        )
    answer = {"role": "assistant", "content": text, "tool_calls": []}
    steps.append(
        {"step": len(steps) + 1, "message": answer, "tool_results": [], "finish_reason": "stop"}
    )
    return steps


def _shown(value: object) -> str:
    """`value` as a message quotes it: its repr, cut at 200 characters."""
    shown = repr(value)
    return shown if len(shown) <= 200 else f"{shown[:200]}… ({type(value).__name__})"


def _count(value: object) -> bool:
    return type(value) is int and value >= 0


def _float(number: int | float) -> float:
    """`number` as a float; an int past a float's range (10**400) as infinity."""
    try:
        return float(number)
    except OverflowError:
        return math.inf if number > 0 else -math.inf


def _money(value: object) -> bool:
    """A finite number, 0 or more (also as a float: 10**400 is none)."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return False
    return value >= 0 and math.isfinite(_float(value))
