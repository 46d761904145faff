"""How a simulated model uses tools: the expected calls when it is right, else a realistic
mistake (a wrong tool, a missing or wrong argument, a call skipped, a loop that never ends).

A case tells the sims which calls are right with a reference of the form
`{tool_calls: [{name, arguments}, ...], answer: "..."}`; the `tool_call` scorer reads the
same. The sim makes the calls one turn at a time, then answers with `answer`.
"""

from __future__ import annotations

import copy
import random
from typing import Any

from pytest_arena.connectors.sim_answers import wrong
from pytest_arena.spec.case import as_text

MISTAKES = ("wrong_tool", "missing_argument", "wrong_argument", "skipped_call", "endless_loop")


def expected_calls(reference: Any) -> list[dict[str, Any]] | None:
    """The calls a tool-use reference expects, or None for any other reference."""
    if not isinstance(reference, dict) or not isinstance(reference.get("tool_calls"), list):
        return None
    return [c for c in reference["tool_calls"] if isinstance(c, dict) and "name" in c]


def answer_of(reference: Any) -> Any:
    """What the final answer should say: a tool-use reference's `answer`, else itself."""
    if expected_calls(reference) is not None:
        return reference.get("answer", "")
    return reference


def tool_turn(
    reference: dict[str, Any],
    messages: list[dict[str, Any]],
    offered: list[str],
    right: bool,
    rng: random.Random,
) -> tuple[list[dict[str, Any]], str, str]:
    """This turn's (tool calls, answer text, verdict); no calls means the final answer.

    `rng` is drawn per case, not per turn, so a mistake is the same on every turn."""
    expected = expected_calls(reference) or []
    made = sum(len(m.get("tool_calls") or []) for m in messages if m.get("role") == "assistant")
    answer = reference.get("answer", "")
    if right:
        if made < len(expected):
            return [_call(expected[made], made)], "", "right"
        return [], _text(answer), "right"
    if not expected:  # no tool is needed: a needless call, or a wrong answer
        if made == 0 and offered and rng.random() < 0.5:
            return [_call({"name": rng.choice(offered), "arguments": {}}, 0)], "", "needless_call"
        return [], _text(wrong(answer, rng)[0]) if answer else "", "wrong"
    mistake = rng.choice(MISTAKES)
    first = expected[0]
    if mistake == "endless_loop":
        return [_call(first, made)], "", mistake
    if mistake == "skipped_call":
        return [], _text(wrong(answer, rng)[0]) if answer else "I could not find it.", mistake
    if made >= len(expected):
        return [], _text(wrong(answer, rng)[0]) if answer else "", mistake
    if made > 0:
        return [_call(expected[made], made)], "", mistake
    arguments = copy.deepcopy(first.get("arguments") or {})
    if mistake == "wrong_tool":
        others = [name for name in offered if name != first["name"]]
        if others:
            return [_call({"name": rng.choice(others), "arguments": arguments}, 0)], "", mistake
        mistake = "wrong_argument"
    if mistake == "missing_argument" and isinstance(arguments, dict) and arguments:
        arguments.pop(rng.choice(sorted(arguments)))
        return [_call({"name": first["name"], "arguments": arguments}, 0)], "", mistake
    if isinstance(arguments, dict) and arguments:
        name = rng.choice(sorted(arguments))
        arguments[name] = _wrong_value(arguments[name], rng)
        return [_call({"name": first["name"], "arguments": arguments}, 0)], "", "wrong_argument"
    return [], _text(wrong(answer, rng)[0]) if answer else "", "skipped_call"


def _call(expected: dict[str, Any], index: int) -> dict[str, Any]:
    return {
        "id": f"call_{index + 1}",
        "name": str(expected["name"]),
        "arguments": copy.deepcopy(expected.get("arguments") or {}),
    }


def _wrong_value(value: Any, rng: random.Random) -> Any:
    if isinstance(value, bool):
        return not value
    if isinstance(value, int | float):
        return value + rng.choice([1, -1, 10])
    if isinstance(value, str):
        digits = [i for i, ch in enumerate(value) if ch.isdigit()]
        if digits:  # a misread id: one digit changed
            i = rng.choice(digits)
            return value[:i] + str((int(value[i]) + rng.randint(1, 8)) % 10) + value[i + 1 :]
        return value + "s" if value else "unknown"
    return None


def _text(value: Any) -> str:
    return as_text(value)
