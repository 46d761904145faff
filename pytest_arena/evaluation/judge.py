"""Grading with a model: the judge behind `context.judge` and `llm_judge`."""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from pytest_arena.connectors.base import Request
from pytest_arena.engine.calls import CallResult
from pytest_arena.numbers import at_least
from pytest_arena.scorers.text import excerpt, extract_json
from pytest_arena.spec.case import Case, as_text
from pytest_arena.spec.images import content_text

MARK = "<arena-judge>"
_UNSET: Any = object()

PROMPT = """{mark}
You are grading an answer to a task. Follow the rubric strictly.

<rubric>
{rubric}
</rubric>

<task>
{task}
</task>
{reference_block}
<answer>
{answer}
</answer>

Reply with one JSON object and nothing else:
{{"score": <a number from 0 to 1>, "passed": <true or false>, "reason": "<one sentence>"}}
</arena-judge>"""


class JudgeRefused(BaseException):
    """The judge's call was not started (a budget spent): the case is skipped, as one whose
    own call is refused. Not an Exception, so that no scorer's handler takes it for its own
    error; pytest's outcomes are not Exceptions either."""


class JudgeError(RuntimeError):
    """The judge model could not be asked (its call failed, or a budget stopped it)."""


class JudgeReplyError(ValueError):
    """The judge's reply held no verdict that could be read."""


@dataclass
class Verdict:
    """What the judge decided, with each sample's verdict when it was asked several times."""

    score: float
    passed: bool
    reason: str
    model: str
    samples: list[dict[str, Any]] = field(default_factory=list)


@dataclass
class Usage:
    """The judge's own tokens and cost, kept apart from the model under test."""

    tokens_in: int = 0
    tokens_out: int = 0
    cost: float | None = 0.0  # None: a judge model without a price answered (unknown)
    cached_cost: float = 0.0  # of `cost`, the verdicts the response cache gave: not spent
    calls: int = 0


class Judge:
    """`judge(rubric, output)` asks a model to grade `output`; returns a Verdict.

    Bound to one case: the case's input is the task and its reference, unless
    another is given, is shown to the judge.
    """

    def __init__(
        self,
        case: Case,
        call: Callable[[str, Request], CallResult],
        model: str,
        samples: int = 1,
        reduce: str = "majority",
    ) -> None:
        self.case = case
        self.call = call
        self.model = model
        self.samples = samples
        self.reduce = reduce
        self.usage = Usage()

    def __call__(
        self,
        rubric: str,
        output: str,
        reference: Any = _UNSET,
        *,
        model: str | None = None,
        samples: int | None = None,
        reduce: str | None = None,
        threshold: float = 0.5,
    ) -> Verdict:
        model = model or self.model
        samples = samples or self.samples
        reduce = reduce or self.reduce
        if reference is _UNSET:
            reference = self.case.reference
        prompt = render_prompt(rubric, self.case.input, reference, output)
        votes = []
        for sample in range(samples):
            request = Request(model, [{"role": "user", "content": prompt}], self.case, sample)
            result = self.call(model, request)
            if result.skipped is not None:  # a budget spent: the case is not run, as when
                # its own call is refused (an error would count 0 against the model)
                raise JudgeRefused(f"{result.skipped} (the judge's call)")
            if result.response is None:
                raise JudgeError(
                    f"judge model '{model}' gave no verdict: {result.error or result.skipped}"
                )
            response = result.response
            self.usage.calls += 1
            self.usage.tokens_in += response.tokens_in
            self.usage.tokens_out += response.tokens_out
            if self.usage.cost is not None:
                self.usage.cost = None if result.cost is None else self.usage.cost + result.cost
            if result.cached:
                self.usage.cached_cost += result.cost or 0.0
            score, passed, reason = parse_verdict(response.text, threshold)
            votes.append({"score": score, "passed": passed, "reason": reason})
        return _reduce(votes, reduce, threshold, model)


def render_prompt(rubric: str, task: Any, reference: Any, answer: str) -> str:
    reference_block = (
        f"\n<reference>\n{as_text(reference)}\n</reference>\n" if reference is not None else ""
    )
    return PROMPT.format(
        mark=MARK,
        rubric=rubric.strip(),
        task=as_text(_without_images(task)),
        reference_block=reference_block,
        answer=answer,
    )


def _without_images(task: Any) -> Any:
    """A chat input's images as `[image: alt]`: the judge reads text, and an inline image's
    base64 would be a million characters of it."""
    if not isinstance(task, list):
        return task
    return [
        {**m, "content": [_image_text(p) for p in m["content"]]}
        if isinstance(m, dict) and isinstance(m.get("content"), list)
        else m
        for m in task
    ]


def _image_text(part: Any) -> Any:
    if isinstance(part, dict) and part.get("type") == "image_url":
        return content_text([part])
    return part


def _reduce(votes: list[dict[str, Any]], how: str, threshold: float, model: str) -> Verdict:
    mean = sum(v["score"] for v in votes) / len(votes)
    if len(votes) == 1:  # `mean` of one: its score against the threshold, as of several
        only = votes[0]
        passed = at_least(only["score"], threshold) if how == "mean" else only["passed"]
        return Verdict(only["score"], passed, only["reason"], model, votes)
    if how == "mean":
        passed = at_least(mean, threshold)
        reason = f"mean of {len(votes)} judgements {mean:.2f}: {votes[0]['reason']}"
        return Verdict(mean, passed, reason, model, votes)
    yes = sum(1 for v in votes if v["passed"])
    passed = yes * 2 > len(votes)
    side = [v for v in votes if v["passed"] == passed]
    reason = f"{yes} of {len(votes)} judgements passed: {side[0]['reason']}"
    return Verdict(mean, passed, reason, model, votes)


_SCORE = re.compile(
    r"\bscore\b\W{0,3}(?P<num>\d+(?:\.\d+)?)(?P<pct>\s*%)?(?:\s*(?:/|out of)\s*(?P<den>\d+))?",
    re.I,
)
_FRACTION = re.compile(r"\b(?P<num>\d+(?:\.\d+)?)\s*(?:/|out of)\s*(?P<den>10|100|5)\b")
_WORD = re.compile(r"\b(PASS(?:ED)?|FAIL(?:ED)?|CORRECT|INCORRECT)\b")  # shouted: a verdict
_SHORT_WORD = re.compile(r"^\W*(pass(?:ed)?|fail(?:ed)?|correct|incorrect)\W*$", re.I)


def parse_verdict(text: str, threshold: float = 0.5) -> tuple[float, bool, str]:
    """Read `{score, passed, reason}` from a judge's reply, repairing what models break; a
    reply that gives a score and no verdict passes at `threshold`.

    Tries strict JSON, then JSON inside a fence or prose, then JSON with single quotes,
    Python literals or trailing commas, then a plain grade ("Score: 8/10", "PASS"). A reply
    holding several verdicts that disagree (a "corrected" one after the first) is an error.
    """
    found = _agreeing_verdicts(text, threshold)
    for candidate in _json_candidates(text):
        try:
            data = json.loads(candidate)
        except json.JSONDecodeError:
            continue
        if isinstance(data, dict) and "score" in data:
            return _from_mapping(data, text, threshold)
    if found:  # several objects, each repaired: none of the whole reply's repairs parse
        return found[0]
    return _plain_grade(text, threshold)


def _json_candidates(text: str) -> list[str]:
    stripped = text.strip()
    found = [stripped]
    inner = extract_json(stripped) or _braces(stripped)
    if inner:
        found.append(inner)
    for item in list(found):
        found.append(_repaired(item))
    return found


def _repaired(item: str) -> str:
    """`item` with single quotes, Python literals and trailing commas made JSON."""
    fixed = re.sub(r"'([^'\\]*)'", r'"\1"', item)
    fixed = re.sub(r"\bTrue\b", "true", re.sub(r"\bFalse\b", "false", fixed))
    fixed = re.sub(r"\bNone\b", "null", fixed)
    return re.sub(r",\s*([}\]])", r"\1", fixed)


def _agreeing_verdicts(text: str, threshold: float) -> list[tuple[float, bool, str]]:
    """The verdicts in the reply (every object in it with a readable `score`); JudgeReplyError
    if they disagree, as which one counts cannot be told. Verdicts that agree, reasons aside,
    are one verdict."""
    verdicts: list[tuple[float, bool, str]] = []
    for data in _verdict_objects(text):
        try:
            verdicts.append(_from_mapping(data, text, threshold))
        except JudgeReplyError:  # no verdict (a score of "high"): nothing to disagree with
            continue
    if len({passed for _, passed, _ in verdicts}) > 1:
        said = "both pass and fail"
    elif any(not math.isclose(score, verdicts[0][0]) for score, _, _ in verdicts):
        said = "different scores (" + ", ".join(f"{s:g}" for s, _, _ in verdicts) + ")"
    else:
        return verdicts
    raise JudgeReplyError(
        f"the judge's reply says {said} in {len(verdicts)} verdicts: {excerpt(text, 120)}"
    )


def _verdict_objects(text: str) -> list[dict[str, Any]]:
    """Every object with a `score` in `text`, outermost first, repaired as a whole reply is."""
    found: list[dict[str, Any]] = []
    start = text.find("{")
    while start >= 0:
        end = _closing(text, start)
        data = None
        if end is not None:
            span = text[start : end + 1]
            for candidate in (span, _repaired(span)):
                try:
                    data = json.loads(candidate)
                    break
                except json.JSONDecodeError:
                    continue
        if end is not None and isinstance(data, dict) and "score" in data:
            found.append(data)
            start = text.find("{", end + 1)  # what lies inside it is no other verdict
        else:
            start = text.find("{", start + 1)
    return found


def _closing(text: str, start: int) -> int | None:
    """The index of the `}` that closes the `{` at `start`, braces in quotes aside."""
    depth, quote, escaped = 0, "", False
    for index in range(start, len(text)):
        char = text[index]
        if quote:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == quote:
                quote = ""
        elif char in "\"'":
            quote = char
        elif char == "{":
            depth += 1
        elif char == "}":
            depth -= 1
            if depth == 0:
                return index
    return None


def _braces(text: str) -> str | None:
    start, end = text.find("{"), text.rfind("}")
    return text[start : end + 1] if 0 <= start < end else None


def _from_mapping(data: dict[str, Any], text: str, threshold: float) -> tuple[float, bool, str]:
    score = data.get("score")
    if isinstance(score, str):
        try:
            score = float(score.strip().rstrip("%")) / (100 if score.strip().endswith("%") else 1)
        except ValueError:
            raise JudgeReplyError(f"the judge's score {score!r} is not a number") from None
    if isinstance(score, bool) or not isinstance(score, int | float):
        raise JudgeReplyError(f"the judge's score {score!r} is not a number: {excerpt(text)}")
    score = float(score)
    if score > 1 and score <= 10:
        score /= 10
    elif score > 10 and score <= 100:
        score /= 100
    if not 0 <= score <= 1:
        raise JudgeReplyError(f"the judge's score {score} is outside 0-1: {excerpt(text)}")
    passed = data.get("passed")
    if isinstance(passed, str):
        passed = passed.strip().lower() in ("true", "yes", "pass", "passed")
    if not isinstance(passed, bool):
        passed = at_least(score, threshold)
    reason = str(data.get("reason") or "no reason given")
    return score, passed, reason


def _plain_grade(text: str, threshold: float) -> tuple[float, bool, str]:
    said = f"plain grade: {excerpt(text.strip(), 80)}"
    words = {w.upper().startswith(("PASS", "CORRECT")) for w in _WORD.findall(text)}
    if not words and (short := _SHORT_WORD.match(text.strip())):
        words = {short.group(1).upper().startswith(("PASS", "CORRECT"))}
    match = _SCORE.search(text) or _FRACTION.search(text)
    if match:
        value = float(match["num"])
        den = match["den"]
        if den:
            scale = float(den)
        elif match.groupdict().get("pct"):
            scale = 100.0
        else:  # as a JSON score: out of 1, 10 or 100 by its size
            scale = 1.0 if value <= 1 else 10.0 if value <= 10 else 100.0
        if not 0 <= value <= scale:
            raise JudgeReplyError(f"the judge's score {match.group(0)!r} is out of range: {said}")
        score = value / scale
        # both words, or none: the score says
        passed = words.pop() if len(words) == 1 else at_least(score, threshold)
        return score, passed, said
    if len(words) == 1:
        passed = words.pop()
        return float(passed), passed, said
    if words:  # "PASS or FAIL": no verdict
        raise JudgeReplyError(f"the judge's reply says both pass and fail: {excerpt(text, 120)}")
    raise JudgeReplyError(f"the judge's reply holds no verdict: {excerpt(text, 120)}")
