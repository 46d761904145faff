"""Tool calls in each provider's format, and as text.

Inside arena a tool call is `{id, name, arguments}` with the arguments parsed (a dict), an
assistant message that calls tools carries them under `tool_calls`, and a tool's result is a
message `{role: tool, tool_call_id, name, content, is_error}`. These functions turn that into
OpenAI's and Anthropic's formats and back.
"""

from __future__ import annotations

import json
from typing import Any


def parse_arguments(raw: Any) -> Any:
    """A call's arguments as data: OpenAI sends a JSON string, Anthropic an object. Text that
    is not JSON is kept as it is (a scorer then reports it)."""
    if isinstance(raw, str):
        try:
            return json.loads(raw) if raw.strip() else {}
        except ValueError:
            return raw
    return raw if raw is not None else {}


def render_calls(calls: list[dict[str, Any]]) -> str:
    """The text output of a reply that holds only tool calls: one `name({...})` a line."""
    return "\n".join(
        f"{c.get('name', '?')}({json.dumps(c.get('arguments', {}), ensure_ascii=False)})"
        for c in calls
    )


# -- OpenAI's chat completions -------------------------------------------------------------


def openai_tools(tools: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [
        {
            "type": "function",
            "function": {
                "name": t["name"],
                "description": t.get("description", ""),
                "parameters": t.get("parameters", {"type": "object", "properties": {}}),
            },
        }
        for t in tools
    ]


def openai_messages(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for m in messages:
        role = m.get("role")
        if role == "assistant" and m.get("tool_calls"):
            out.append(
                {
                    "role": "assistant",
                    "content": m.get("content") or None,
                    "tool_calls": [
                        {
                            "id": c["id"],
                            "type": "function",
                            "function": {
                                "name": c["name"],
                                "arguments": json.dumps(c.get("arguments", {})),
                            },
                        }
                        for c in m["tool_calls"]
                    ],
                }
            )
        elif role == "tool":
            out.append({"role": "tool", "tool_call_id": m["tool_call_id"], "content": m["content"]})
        else:
            out.append(m)
    return out


def openai_calls(message: dict[str, Any]) -> list[dict[str, Any]]:
    calls = []
    for c in message.get("tool_calls") or []:
        function = c["function"]
        calls.append(
            {
                "id": str(c.get("id", "")),
                "name": str(function["name"]),
                "arguments": parse_arguments(function.get("arguments")),
            }
        )
    return calls


# -- Anthropic's messages ------------------------------------------------------------------


def anthropic_tools(tools: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [
        {
            "name": t["name"],
            "description": t.get("description", ""),
            "input_schema": t.get("parameters", {"type": "object", "properties": {}}),
        }
        for t in tools
    ]


def anthropic_messages(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The non-system messages as Anthropic's: tool calls as `tool_use` blocks (after the
    turn's thinking blocks, as the reply gave them), the results of one turn together in
    one user message of `tool_result` blocks."""
    out: list[dict[str, Any]] = []
    for m in messages:
        role = m.get("role")
        if role == "system":
            continue
        if role == "assistant" and m.get("tool_calls"):
            thinking = m.get("thinking_blocks")
            blocks: list[dict[str, Any]] = (
                [b for b in thinking if isinstance(b, dict)] if isinstance(thinking, list) else []
            )
            if m.get("content"):
                blocks.append({"type": "text", "text": m["content"]})
            blocks += [
                {"type": "tool_use", "id": c["id"], "name": c["name"], "input": c["arguments"]}
                for c in m["tool_calls"]
            ]
            out.append({"role": "assistant", "content": blocks})
        elif role == "tool":
            block = {
                "type": "tool_result",
                "tool_use_id": m["tool_call_id"],
                "content": m["content"],
            }
            if m.get("is_error"):
                block["is_error"] = True
            last = out[-1] if out else None
            if last and last["role"] == "user" and isinstance(last["content"], list):
                last["content"].append(block)
            else:
                out.append({"role": "user", "content": [block]})
        else:
            out.append(
                {"role": "assistant" if role == "assistant" else "user", "content": m["content"]}
            )
    return out


def anthropic_calls(blocks: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [
        {"id": str(b.get("id", "")), "name": str(b["name"]), "arguments": b.get("input") or {}}
        for b in blocks
        if b.get("type") == "tool_use"
    ]
