"""Builtins for agents: `tool_call` (the expected tool calls were made) and `trajectory`
(what the steps of the case did: tools called or not, how many steps, a final answer).

Both read the calls and steps of `context.response` (see `ScoringContext.trajectory`), not
the output text, so they work for OpenAI-compatible and Anthropic models, the sims and any
connector that reports its tool calls, and an agent of your own that says the calls it made.
A case with no steps to read (no tool loop ran and the reply holds no tool call: a python or
command agent that did not say its calls) is unscored.
"""

from __future__ import annotations

import difflib
import json
from collections.abc import Sequence
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from pytest_arena.scorers.base import ScoreResult, ScoringContext
from pytest_arena.scorers.text import excerpt
from pytest_arena.scorers.typed import TypedScorer

ArgumentMatch = Literal["exact", "subset", "schema", "ignore"]
NO_TRAJECTORY = (
    "no tool loop ran and the reply holds no tool call: unscored; fix: run arena's tool loop"
    " (tools.py), or have your python agent return tool_calls: [{name, arguments, result}]"
    " with its text (a command agent prints them so, with output: json)"
)


def _unseen(context: ScoringContext) -> bool:
    """No steps to grade: no tool loop ran, and the one reply (if any) made no tool call."""
    return not context.response.get("trajectory") and not context.tool_calls


class ExpectedCall(BaseModel):
    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)

    name: str
    arguments: dict[str, Any] | None = None  # None: any arguments
    match: ArgumentMatch | None = None  # this call's own way of matching arguments


class ToolCallOptions(BaseModel):
    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)

    calls: list[ExpectedCall] | None = None  # else the reference's `tool_calls`
    arguments: ArgumentMatch = "exact"
    order: Literal["strict", "free"] = "strict"
    allow_extra: bool = True  # calls beyond the expected ones do not fail the case


class ToolCall(TypedScorer[ToolCallOptions]):
    """The model made the expected tool calls.

    The expected calls are the option `calls`, else the reference's `tool_calls`
    ([{name, arguments}]). Arguments match `exact`ly, as a `subset` (the expected keys
    with their values; others allowed), against a JSON `schema` (the expected `arguments`
    is the schema), or are ignored; per call with `match`. With `order: strict` the calls
    must come in the expected order (others may come between); `free`, in any order.
    Partial credit: the share of expected calls made. The reason names the first mismatch.
    """

    name = "tool_call"
    options_model = ToolCallOptions

    def case_problem(self, reference: Any, tools: Sequence[str] | None) -> tuple[str, str] | None:
        opts = self.options
        if opts is None:
            return None
        if opts.calls is not None:
            return _misspelt("calls", [call.name for call in opts.calls], tools)
        if isinstance(reference, dict) and isinstance(reference.get("tool_calls"), list):
            for index, call in enumerate(reference["tool_calls"]):
                try:
                    ExpectedCall.model_validate(call)
                except ValidationError as exc:
                    said = _first_error(exc, f"reference.tool_calls.{index}")
                    return ("reference", f"{said}; each call is {{name, arguments, match}}")
        expected = _from_reference(reference)
        found = _misspelt("tool_calls", [call.name for call in expected or ()], tools)
        return ("reference", f"reference.{found[1]}") if found else None

    def grade(
        self, output: str, reference: Any, opts: ToolCallOptions, context: ScoringContext
    ) -> ScoreResult:
        expected = opts.calls if opts.calls is not None else _from_reference(reference)
        if expected is None:
            return ScoreResult(
                0.0,
                None,
                "no expected calls: give the option calls, or a reference with"
                " tool_calls: unscored",
            )
        if _unseen(context):
            return ScoreResult(0.0, None, NO_TRAJECTORY)
        made = context.tool_calls
        used: set[int] = set()
        start = 0
        misses: list[str] = []
        pairs = _pairs(expected, made, opts.arguments) if opts.order == "free" else None
        for index, want in enumerate(expected):
            how = want.match or opts.arguments
            if pairs is not None:  # free: the pairing that matches the most calls
                found = pairs.get(index)
            else:  # strict: each after the one before
                pool = range(start, len(made))
                found = next(
                    (i for i in pool if i not in used and _matches(made[i], want, how)), None
                )
            if found is None:
                taken = used if pairs is None else set(pairs.values())
                misses.append(_why(index, expected, how, made, taken, pairs is None, start))
                continue
            used.add(found)
            start = found + 1
        extra = [c for i, c in enumerate(made) if i not in used]
        matched = len(expected) - len(misses)
        total = max(len(expected), 1)
        if not opts.allow_extra:
            total = max(total, len(made))
        score = matched / total if expected else float(not made or opts.allow_extra)
        passed = not misses and (opts.allow_extra or not extra)
        detail = {"expected": [w.model_dump() for w in expected], "made": made}
        if misses:
            reason = misses[0]
            if len(misses) > 1:
                reason += f" (and {len(misses) - 1} more expected calls not made)"
        elif not passed:
            reason = f"unexpected call {_shown(extra[0])} (allow_extra is false)"
        else:
            reason = f"all {len(expected)} expected tool calls made"
        return ScoreResult(score, passed, reason, detail)


def _misspelt(
    option: str, names: Sequence[str], tools: Sequence[str] | None
) -> tuple[str, str] | None:
    """A name in `names` that tools.py does not define but nearly does: a typo, which would
    make `must_not_call` hold for every output. A name unlike every tool may be meant (a
    model can call a tool that does not exist), so it is not said."""
    if not tools:
        return None
    for name in names:
        if name not in tools:
            close = difflib.get_close_matches(name, list(tools), n=1, cutoff=0.75)
            if close:
                said = f"{option} names the tool '{name}', which tools.py does not define"
                return (option, f"{said}; did you mean '{close[0]}'?")
    return None


def _first_error(exc: ValidationError, at: str) -> str:
    error = exc.errors()[0]
    where = ".".join([at, *(str(part) for part in error["loc"])])
    return f"{where}: {error['msg']}"


def _from_reference(reference: Any) -> list[ExpectedCall] | None:
    if isinstance(reference, dict) and isinstance(reference.get("tool_calls"), list):
        return [ExpectedCall.model_validate(c) for c in reference["tool_calls"]]
    return None


def _matches(call: dict[str, Any], want: ExpectedCall, how: ArgumentMatch) -> bool:
    return call.get("name") == want.name and _argument_problem(call, want, how) is None


def _pairs(
    expected: list[ExpectedCall], made: list[dict[str, Any]], how: ArgumentMatch
) -> dict[int, int]:
    """Expected call -> made call, pairing as many as can be (a maximum bipartite matching:
    taking the first fit could leave a later expected call without the one it needed)."""
    fits = [
        [i for i, call in enumerate(made) if _matches(call, want, want.match or how)]
        for want in expected
    ]
    owner: dict[int, int] = {}  # made call -> expected call

    def place(index: int, seen: set[int]) -> bool:
        for i in fits[index]:
            if i not in seen:
                seen.add(i)
                if i not in owner or place(owner[i], seen):
                    owner[i] = index
                    return True
        return False

    for index in range(len(expected)):
        place(index, set())
    return {want: call for call, want in owner.items()}


def _same(given: Any, wanted: Any) -> bool:
    """JSON equality: true is not 1, nor false 0 (Python's == says they are)."""
    if isinstance(given, bool) or isinstance(wanted, bool):
        return type(given) is type(wanted) and given == wanted
    if isinstance(given, dict) and isinstance(wanted, dict):
        return given.keys() == wanted.keys() and all(_same(given[k], wanted[k]) for k in given)
    if isinstance(given, list) and isinstance(wanted, list):
        return len(given) == len(wanted) and all(map(_same, given, wanted))
    return bool(given == wanted)


def _argument_problem(call: dict[str, Any], want: ExpectedCall, how: ArgumentMatch) -> str | None:
    """Why the call's arguments do not match, or None."""
    given = call.get("arguments")
    if want.arguments is None or how == "ignore":
        return None
    if not isinstance(given, dict):
        return f"its arguments are not a JSON object: {excerpt(str(given), 60)}"
    if how == "schema":
        from jsonschema import Draft202012Validator  # type: ignore[import-untyped]

        from pytest_arena.scorers.schema_patterns import iter_errors

        errors = sorted(iter_errors(Draft202012Validator, want.arguments, given), key=str)
        return f"its arguments do not fit the schema: {errors[0].message}" if errors else None
    for key, value in want.arguments.items():
        if key not in given:
            return f"argument '{key}' is missing"
        if not _same(given[key], value):
            return f"argument '{key}' is {_json(given[key])}, expected {_json(value)}"
    if how == "exact":
        unexpected = sorted(set(given) - set(want.arguments))
        if unexpected:
            return f"unexpected argument '{unexpected[0]}'"
    return None


def _why(
    index: int,
    expected: list[ExpectedCall],
    how: ArgumentMatch,
    made: list[dict[str, Any]],
    used: set[int],
    strict: bool,
    start: int,
) -> str:
    """Why expected call `index` was not matched; `used`: the made calls other expected
    calls took."""
    want = expected[index]
    head = f"expected call {index + 1}, {want.name}"
    if not made:
        return f"{head}: the model made no tool call"
    same = [c for i, c in enumerate(made) if c.get("name") == want.name and i not in used]
    if same:
        problem = _argument_problem(same[0], want, how)
        if problem is None and strict:
            at = next(i for i, c in enumerate(made) if c is same[0]) + 1
            return (
                f"{head}: made, but out of order (as call {at} of those made, before call {start})"
            )
        return f"{head}: {problem}"
    times = sum(c.get("name") == want.name for c in made)
    if times:  # each call of it went to another expected call
        wanted = sum(w.name == want.name for w in expected)
        return f"{head}: called {_times(times)}, expected {_times(wanted)}"
    names = ", ".join(_shown(c) for c in made[:3]) + (" ..." if len(made) > 3 else "")
    return f"{head}: not called; the model called {names}"


def _times(count: int) -> str:
    return {1: "once", 2: "twice"}.get(count, f"{count} times")


def _shown(call: dict[str, Any]) -> str:
    arguments = _json(call.get("arguments"))
    if len(arguments) > 60:
        arguments = arguments[:57] + "..."
    return f"{call.get('name')}({arguments})"


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


class TrajectoryOptions(BaseModel):
    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)

    must_call: list[str] = Field(default_factory=list)
    must_not_call: list[str] = Field(default_factory=list)
    max_steps: int | None = Field(None, ge=1)
    final_answer: bool = True  # the last step answers in text, without a tool call


class Trajectory(TypedScorer[TrajectoryOptions]):
    """Checks on the steps of the case: tools that must (`must_call`) or must not
    (`must_not_call`) be called, at most `max_steps` model calls, and a final answer
    (`final_answer`, true by default: the last step is text, not a tool call). Partial
    credit: the share of checks that hold. The reason names the first that fails."""

    name = "trajectory"
    options_model = TrajectoryOptions

    def case_problem(self, reference: Any, tools: Sequence[str] | None) -> tuple[str, str] | None:
        opts = self.options
        if opts is None:
            return None
        return _misspelt("must_call", opts.must_call, tools) or _misspelt(
            "must_not_call", opts.must_not_call, tools
        )

    def grade(
        self, output: str, reference: Any, opts: TrajectoryOptions, context: ScoringContext
    ) -> ScoreResult:
        if _unseen(context):
            return ScoreResult(0.0, None, NO_TRAJECTORY)
        steps = context.trajectory
        called = [str(c.get("name")) for c in context.tool_calls]
        checks: list[tuple[bool, str]] = []
        for name in opts.must_call:
            checks.append((name in called, f"{name} was never called"))
        for name in opts.must_not_call:
            times = called.count(name)
            checks.append((not times, f"{name} was called {_times(times)} but must not be"))
        if opts.max_steps is not None:
            checks.append(
                (len(steps) <= opts.max_steps, f"{_steps(len(steps))}, more than {opts.max_steps}")
            )
        if opts.final_answer:
            last = steps[-1]["message"] if steps else {}
            answered = bool(last) and not last.get("tool_calls") and bool(last.get("content"))
            checks.append((answered, "no final answer: the last step " + _last(last)))
        if not checks:
            return ScoreResult(0.0, None, "trajectory has no checks to make: unscored")
        failed = [why for ok, why in checks if not ok]
        score = (len(checks) - len(failed)) / len(checks)
        detail = {"steps": len(steps), "called": called}
        if failed:
            more = f" (and {len(failed) - 1} more checks failed)" if len(failed) > 1 else ""
            return ScoreResult(score, False, failed[0] + more, detail)
        shown = ", ".join(called) if called else "no tools"
        return ScoreResult(score, True, f"{_steps(len(steps))}, called {shown}", detail)


def _last(message: dict[str, Any]) -> str:
    if not message:
        return "is missing"
    if message.get("tool_calls"):
        return "calls a tool"
    return "is empty"


def _steps(count: int) -> str:
    return f"{count} step{'' if count == 1 else 's'}"
