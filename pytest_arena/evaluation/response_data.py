"""The whole response as scorers, records and reports see it: JSON data beside the text."""

from __future__ import annotations

import json
from typing import Any

from pytest_arena.connectors.base import AGENT_META, AGENT_STEPS
from pytest_arena.engine.calls import CallResult
from pytest_arena.record import json_safe

RECORD_LIMIT = 200_000  # characters of JSON a record keeps of one response
STRING_LIMIT = 4_000  # characters of one text kept when the whole is over RECORD_LIMIT
LIFTED = ("exit_status", "stderr_tail", "workspace")  # a command agent's, said at the top


def response_data(result: CallResult) -> dict[str, Any]:
    """`context.response`: the assistant message as returned (tool calls as [{id, name,
    arguments}], refusal), the finish reason, usage, duration, what the connector adds (a
    python agent's `meta`; a command agent's exit status and stderr tail) and the trajectory
    of a tool loop, or of the tool calls a python agent said ([] for a single call)."""
    response = result.response
    meta: dict[str, Any] = dict(response.meta) if response is not None else {}
    rendered = bool(meta.pop("rendered_calls", False))
    text = response.text if response is not None else ""
    message: dict[str, Any] = {
        "role": "assistant",
        "content": "" if rendered else text,
        "tool_calls": meta.pop("tool_calls", None) or [],
    }
    refusal = meta.pop("refusal", None)
    if refusal:
        message["refusal"] = refusal
    data: dict[str, Any] = {
        "message": message,
        "finish_reason": meta.pop("finish_reason", None),
        "usage": {
            "tokens_in": response.tokens_in if response is not None else 0,
            "tokens_out": response.tokens_out if response is not None else 0,
            "cost": result.cost,
        },
        "duration_ms": result.latency_ms,
    }
    for key in LIFTED:
        if key in meta:
            data[key] = meta.pop(key)
    agent = meta.pop(AGENT_META, None)  # a python agent's own, as it returned it
    said = meta.pop(AGENT_STEPS, None)  # the steps of the tool calls a python agent said
    data["meta"] = {**meta, **agent} if isinstance(agent, dict) else meta
    data["trajectory"] = result.trajectory or said or []
    safe: dict[str, Any] = json_safe(data)
    return safe


def capped(data: dict[str, Any], limit: int = RECORD_LIMIT) -> dict[str, Any]:
    """`data` as a record keeps it: whole when its JSON is at most `limit` characters, else
    with long texts cut and, if still too long, the middle steps of the trajectory left
    out; `cut` then says what was cut."""
    size = len(json.dumps(data, ensure_ascii=False))
    if size <= limit:
        return data
    out: dict[str, Any] = _cut_strings(data)
    notes = [f"texts over {STRING_LIMIT:,} characters cut (the whole was {size:,} characters)"]
    steps = list(out.get("trajectory") or [])
    dropped = 0
    while len(steps) > 2 and len(json.dumps(out, ensure_ascii=False)) > limit:
        steps.pop(len(steps) // 2)
        dropped += 1
        out["trajectory"] = steps
    if dropped:
        notes.append(f"{dropped} middle steps of the trajectory left out")
    out["cut"] = "; ".join(notes)
    return out


def _cut_strings(value: Any) -> Any:
    if isinstance(value, str) and len(value) > STRING_LIMIT:
        return value[:STRING_LIMIT] + f"… [{len(value) - STRING_LIMIT:,} more characters cut]"
    if isinstance(value, dict):
        return {k: _cut_strings(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_cut_strings(v) for v in value]
    return value
