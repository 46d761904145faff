"""The tool loop: offer a project's tools to a model, run what it calls, send the results
back, until it answers without a tool call or `max_turns` is reached.

Each turn is one model call through the engine (cache keyed by the whole message history,
limits, budgets, retries); each step of the loop is kept as the case's trajectory.
"""

from __future__ import annotations

import asyncio
import copy
import inspect
import json
import math
import os
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from pytest_arena.connectors.base import Request, Response
from pytest_arena.engine.user_threads import Raised, cancelled_from_outside, run_blocking
from pytest_arena.record import ADDRESS, encodable
from pytest_arena.secrets import environment_secrets, redacted
from pytest_arena.spec.errors import raised

TOOL_TIMEOUT = 30.0  # seconds a tool may run unless it says otherwise
RESULT_LIMIT = 20_000  # characters of a tool's result sent back to the model
DEFAULT_MAX_TURNS = 10


@dataclass(frozen=True)
class Tool:
    """A function the model may call: its name, description and JSON schema of arguments."""

    name: str
    function: Callable[..., Any]
    description: str = ""
    parameters: dict[str, Any] = field(default_factory=lambda: {"type": "object", "properties": {}})
    timeout: float | None = TOOL_TIMEOUT
    takes_workspace: bool = False  # the function has a `workspace` parameter: the case's folder

    def spec(self) -> dict[str, Any]:
        """The tool as offered in a Request (connectors turn it into their provider's format)."""
        parameters = copy.deepcopy(self.parameters)  # a request's own: hooks may change it
        return {"name": self.name, "description": self.description, "parameters": parameters}


@dataclass(frozen=True)
class ToolSet:
    """The tools offered to a model, and the most turns a case may take."""

    tools: tuple[Tool, ...]
    max_turns: int = DEFAULT_MAX_TURNS

    def specs(self) -> list[dict[str, Any]]:
        return [t.spec() for t in self.tools]

    def get(self, name: str) -> Tool | None:
        return next((t for t in self.tools if t.name == name), None)


@dataclass
class Turn:
    """What one model call of the loop gave: a response, or why there is none."""

    response: Response | None
    error: str | None = None
    skipped: str | None = None
    retries: int = 0
    cached: bool = False
    latency_ms: float = 0.0
    cost: float | None = 0.0  # None: the model's price is not known


@dataclass
class LoopResult:
    """The loop's end: the last response, the trajectory, and a failure (max_turns) if any."""

    last: Turn
    trajectory: list[dict[str, Any]]
    failure: str | None = None
    tokens_in: int = 0
    tokens_out: int = 0
    cost: float | None = 0.0  # None once a turn's cost is not known
    cached_cost: float = 0.0  # of cost, the turns the response cache answered
    retries: int = 0
    cached: bool = True
    latency_ms: float = 0.0


async def run_loop(
    ask: Callable[[Request], Awaitable[Turn]], request: Request, tools: ToolSet
) -> LoopResult:
    """Ask, run the tools called, ask again with their results; at most `tools.max_turns`
    model calls."""
    started = time.perf_counter()
    messages = list(request.messages)
    steps: list[dict[str, Any]] = []
    result = LoopResult(Turn(None), steps)
    for number in range(1, tools.max_turns + 1):
        turn = await ask(replace(request, messages=list(messages), tools=request.tools))
        result.last = turn
        result.retries += turn.retries
        known = result.cost is not None and turn.cost is not None
        result.cost = result.cost + turn.cost if known else None  # type: ignore[operator]
        result.cached = result.cached and turn.cached
        if turn.cached:
            result.cached_cost += turn.cost or 0.0
        response = turn.response
        if response is None:
            break
        result.tokens_in += response.tokens_in
        result.tokens_out += response.tokens_out
        calls = response.tool_calls
        content = "" if response.meta.get("rendered_calls") else response.text
        message: dict[str, Any] = {"role": "assistant", "content": content, "tool_calls": calls}
        if calls and response.meta.get("thinking_blocks"):  # Claude's, to send back as they came
            message["thinking_blocks"] = response.meta["thinking_blocks"]
        step: dict[str, Any] = {  # every key in every step, as docs/guides/agents.md lists them
            "step": number,
            "message": message,
            "tool_results": [],
            "finish_reason": response.meta.get("finish_reason"),
            "tokens_in": response.tokens_in,
            "tokens_out": response.tokens_out,
            "cost": turn.cost,
            "latency_ms": turn.latency_ms,
            "cached": turn.cached,
        }
        steps.append(step)
        if not calls:
            break
        messages.append(message)
        offered = [t.get("name") for t in request.tools]
        results = [await _run(tools, offered, call, request.workspace) for call in calls]
        step["tool_results"] = results
        messages += [
            {
                "role": "tool",
                "tool_call_id": r["id"],
                "name": r["name"],
                "content": r["content"],
                "is_error": r["is_error"],
            }
            for r in results
        ]
    else:
        names = ", ".join(c["name"] for c in steps[-1]["message"].get("tool_calls", []))
        result.failure = (
            f"max_turns reached: the model still called tools after {tools.max_turns}"
            f" turn{'s' if tools.max_turns != 1 else ''}"
            f" (last called: {names}); no final answer"
        )
    result.latency_ms = (time.perf_counter() - started) * 1000
    return result


async def _run(
    tools: ToolSet, offered: list[Any], call: dict[str, Any], workspace: Path | None
) -> dict[str, Any]:
    """Run one call of a tool the request offered: its result, or its error as the model is
    told it."""
    name, arguments = call.get("name", ""), call.get("arguments")
    out: dict[str, Any] = {"id": call.get("id", ""), "name": name, "is_error": True}
    started = time.perf_counter()
    tool = tools.get(name) if name in offered else None
    if tool is None:
        known = ", ".join(str(n) for n in offered if tools.get(n) is not None) or "none"
        out["content"] = f"error: there is no tool named {name!r}; the tools are: {known}"
    elif not isinstance(arguments, dict):
        out["content"] = f"error: the arguments of {name} are not a JSON object: {arguments!r}"
    else:
        kwargs = dict(arguments)
        if tool.takes_workspace:
            kwargs["workspace"] = workspace
        try:
            value = await _call(tool, kwargs)
        except asyncio.TimeoutError:
            out["content"] = f"error: {name} did not finish within {tool.timeout:g} s"
        except asyncio.CancelledError as exc:
            if cancelled_from_outside():  # the case's time is up, or the run's
                raise
            out["content"] = f"error: {name} raised {raised(exc)}"  # a task of its own
        except BaseException as exc:  # the model is told, as a real tool runner tells it
            what = exc.raised if isinstance(exc, Raised) else exc
            out["content"] = f"error: {name} raised {raised(what)}"
        else:
            try:
                out["content"], out["is_error"] = _as_text(value), False
            except (TypeError, ValueError, RecursionError) as exc:  # a cycle, a tuple key
                out["content"] = f"error: {name} returned a value that is not JSON: {exc}"
    # a key the tool read from the environment (or its error quotes) is written `***`, as
    # in what a python or command agent returns: here it would reach the model, the cache
    # key of the next turn, the trajectory and every report
    out["content"] = redacted(out["content"], environment_secrets(os.environ))
    out["duration_ms"] = (time.perf_counter() - started) * 1000
    return out


async def _call(tool: Tool, kwargs: dict[str, Any]) -> Any:
    if inspect.iscoroutinefunction(tool.function):
        return await asyncio.wait_for(_contained(tool.function(**kwargs)), tool.timeout)
    # a thread that overruns is left running, and never holds the process open at exit
    return await asyncio.wait_for(run_blocking(tool.function, **kwargs), tool.timeout)


async def _contained(coroutine: Awaitable[Any]) -> Any:
    """`await coroutine`, its BaseExceptions (but cancellation) carried as Raised: before
    Python 3.12 wait_for runs it as a task of its own, out of which they would stop the loop."""
    try:
        return await coroutine
    except (Exception, asyncio.CancelledError):
        raise
    except BaseException as exc:
        raise Raised(exc) from exc


def _as_text(value: Any) -> str:
    """A tool's result as the model is sent it: text as it is, other values as JSON (a value
    JSON has no type for as its text, if that text is its own: a date, a Path), cut to
    RESULT_LIMIT, and what UTF-8 cannot carry (a file name's undecodable bytes) escaped."""
    if isinstance(value, str):
        shown = value
    else:
        shown = json.dumps(_finite(value, set()), ensure_ascii=False, default=_text)
    text: str = encodable(shown)
    if len(text) > RESULT_LIMIT:
        text = text[:RESULT_LIMIT] + f"… [{len(text) - RESULT_LIMIT:,} more characters cut]"
    return text


def _finite(value: Any, within: set[int]) -> Any:
    """`value` with each number JSON has no word for (NaN, an infinity) as null, as the
    reports write it (`json_safe`): json.dumps would send the model `NaN` or `Infinity`,
    which are not JSON. A list or dict inside itself is left for json.dumps to refuse."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if not isinstance(value, dict | list | tuple) or id(value) in within:
        return value
    within.add(id(value))
    try:
        if isinstance(value, dict):
            return {k: _finite(v, within) for k, v in value.items()}
        return [_finite(v, within) for v in value]
    finally:
        within.discard(id(value))


def _text(value: Any) -> str:
    """`str(value)`; TypeError for a value whose text is no more than its type and address in
    memory (a class defining neither __str__ nor __repr__, a generator, a function): it tells
    the model nothing, and would change each run, so that the cache never answered again."""
    kind = type(value)
    if inspect.iscoroutine(value):
        value.close()  # never to be awaited: no "never awaited" warning
    text = str(value)
    inherited = all(getattr(kind, n) is getattr(object, n) for n in ("__str__", "__repr__"))
    if inherited or ADDRESS.search(text):
        raise TypeError(f"Object of type {kind.__name__} is not JSON serializable")
    return text
