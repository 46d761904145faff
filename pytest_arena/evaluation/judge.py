"""Grading with a model: the judge behind `context.judge` and `llm_judge`."""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from pytest_arena.connectors.base import Request
from pytest_arena.engine.calls import CallResult
from pytest_arena.numbers import at_least
from pytest_arena.scorers.text import excerpt, strip_fence
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


_REPLY_FIX = (
    "\n  fix: judge with a model that replies with its verdict as one JSON object, as its"
    " prompt asks (judge.model in arena.yaml, or llm_judge's option model), or ask for that"
    " in the rubric"
)


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
        of_sample: int = 0,
    ) -> None:
        self.case = case
        self.call = call
        self.model = model
        self.samples = samples
        self.reduce = reduce
        self.of_sample = of_sample  # the case's sample it judges (of a repeated case)
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
        # what the judge was shown and may quote: JSON from these is never its verdict, and
        # passages of them in its words are not its grade (a judge that echoes its prompt)
        shown = [as_text(_without_images(self.case.input)), output]
        shown += [as_text(reference)] if reference is not None else []
        shown += [rubric, prompt]
        votes = []
        for sample in range(samples):
            # each sample of a repeated case is judged apart, as it was drawn apart: the same
            # answer twice is not one verdict from the cache (the first sample's calls keep
            # the keys they always had)
            index = self.of_sample * samples + sample
            request = Request(model, [{"role": "user", "content": prompt}], self.case, index)
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
            try:
                score, passed, reason = parse_verdict(response.text, threshold, shown)
            except JudgeReplyError as exc:
                raise JudgeReplyError(f"{exc} (judge model '{model}'){_REPLY_FIX}") from None
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
# in lower case a word of the reasoning ("it passed the first test"), but "not a passing
# score" is a verdict all the same
_PASSING = re.compile(r"\bpass(?:es|ed|ing)?\b", re.I)
_NEGATION = {"not", "no", "never", "cannot"}
_ARTICLES = {"a", "an", "the"}
_CLAUSE = re.compile(r"[.;:!?,()\[\]\n\u2013\u2014]|\s-\s")  # a negation reaches no further
_TOKEN = re.compile(r"\w+(?:['\u2019]\w+)*")
_VERDICT_WORDS = "pass|passed|fail|failed|correct|incorrect"
# keys of a verdict written in prose without its braces: `"passed": false, "score": 0.9`
_KEY = re.compile(r"([\"'])(score|passed|verdict|grade|result)\1(\s*:)", re.I)
_PASSED_KEY = re.compile(r"\bpassed\s*:\s*(true|false)\b", re.I)
_VERDICT_KEY = re.compile(
    rf"\b(?:verdict|grade|result)\s*:\s*(?:\"({_VERDICT_WORDS})\"|'({_VERDICT_WORDS})'"
    rf"|({_VERDICT_WORDS})\b)",
    re.I,
)
# what the judge quotes: in double quotes (straight or curly), inline code, on a `>` line
_IN_QUOTES = re.compile(
    r'"[^"\n]*"|\u201c[^\u201d\n]*\u201d|(?<!`)`[^`\n]+`(?!`)|^[ \t]*>.*$', re.M
)
_PASSAGE = re.compile(r"[\n.;:!?,()]+")
_SHORT_WORD = re.compile(r"^\W*(pass(?:ed)?|fail(?:ed)?|correct|incorrect)\W*$", re.I)
_QUOTES = {'"': '"', "'": "'", "`": "`", "\u201c": "\u201d", "\u2018": "\u2019", "\u00ab": "\u00bb"}
_SPACE = re.compile(r"\s+")


def parse_verdict(
    text: str, threshold: float = 0.5, quoting: Sequence[str] = ()
) -> tuple[float, bool, str]:
    """Read `{score, passed, reason}` from a judge's reply, repairing what models break; a
    reply that gives a score and no verdict passes at `threshold`.

    A reply that is one object (alone, fenced, in backticks or quotes) is the verdict; else the
    verdict is the JSON the judge writes as its own, repaired (single quotes, Python literals,
    trailing commas); JSON it quotes is none: an object inside another, in quotes or inline
    code, on a `>` line, or one that `quoting` (the task, reference, answer, rubric and prompt
    it was shown) holds. When objects stand on lines of their own (a fence), those from the
    first of them on count: JSON inline before it is the judge's reasoning. Failing all that,
    a plain grade ("Score: 8/10", "PASS") is read from the text outside the JSON, leaving out
    what the judge quotes: text in double quotes or backticks, on a `>` line, or a passage of
    what it was shown. A FAIL there fails whatever the score; a PASS with a score below
    `threshold`, or several scores, is an error. Verdicts that disagree (a "corrected" one
    after the first), or JSON that the reply's words grade the other way, are an error.
    """
    whole = _whole_reply(text)
    if whole is not None:
        return _from_mapping(whole, text, threshold)
    found = _scored_objects(text)
    shown = [_SPACE.sub("", t) for t in quoting] if found else []
    own = [f for f in found if not _quoted(text, f, shown)]
    alone = [i for i, f in enumerate(own) if _alone(text, f)]
    if alone:
        own = own[alone[0] :]
    prose = _own_words(_outside(text, found), quoting)
    verdicts = _agreeing_verdicts(own, text, threshold)
    if verdicts:
        _check_words(verdicts[0], prose, text, threshold)
        return verdicts[0]
    try:
        return _plain_grade(prose, threshold, text)
    except JudgeReplyError as exc:
        if not found:
            raise
        quoted = excerpt(text[found[0].start : found[0].end + 1], 40)
        raise JudgeReplyError(
            f"{exc} (its JSON {quoted} is quoted: in quotes, inline code, a '>' line, or as"
            " the task, reference or answer it was shown; its own verdict stands apart)"
        ) from None


def _whole_reply(text: str) -> dict[str, Any] | None:
    """The reply's object with a `score` when the reply is that and nothing else: alone,
    fenced, or in backticks or quotes, repaired as need be."""
    stripped = text.strip()
    inner = strip_fence(stripped)
    if inner is None and len(stripped) > 2 and _QUOTES.get(stripped[0]) == stripped[-1]:
        inner = stripped[1:-1].strip("`")
    for candidate in (stripped, inner):
        for form in (candidate, _repaired(candidate)) if candidate else ():
            try:
                data = json.loads(form)
            except json.JSONDecodeError:
                continue
            if isinstance(data, dict) and "score" in _lower_keys(data):
                return data
    return None


def _lower_keys(data: dict[str, Any]) -> dict[str, Any]:
    """`data` with its keys in lower case: `"Score"` is the score."""
    return {(k.lower() if isinstance(k, str) else k): v for k, v in reversed(data.items())}


def _repaired(item: str) -> str:
    """`item` with single quotes, Python literals and trailing commas made JSON."""
    fixed = re.sub(r"'([^'\\]*)'", r'"\1"', item)
    fixed = re.sub(r"\bTrue\b", "true", re.sub(r"\bFalse\b", "false", fixed))
    fixed = re.sub(r"\bNone\b", "null", fixed)
    return re.sub(r",\s*([}\]])", r"\1", fixed)


@dataclass(frozen=True)
class _Object:
    """An object with a `score` in a reply: from `start` to the `}` at `end`."""

    start: int
    end: int
    data: dict[str, Any]


def _agreeing_verdicts(
    objects: list[_Object], text: str, threshold: float
) -> list[tuple[float, bool, str]]:
    """The verdicts of `objects` (those with a readable `score`); JudgeReplyError if they
    disagree, as which one counts cannot be told, or if none can be read. Verdicts that
    agree, reasons aside, are one verdict."""
    verdicts: list[tuple[float, bool, str]] = []
    unread: JudgeReplyError | None = None
    for found in objects:
        try:
            verdicts.append(_from_mapping(found.data, text, threshold))
        except JudgeReplyError as exc:  # no verdict (a score of "high"): nothing to disagree
            unread = unread or exc
    if not verdicts:
        if unread is not None:
            raise unread
        return verdicts
    if len({passed for _, passed, _ in verdicts}) > 1:
        said = "both pass and fail"
    elif any(not math.isclose(score, verdicts[0][0]) for score, _, _ in verdicts):
        said = "different scores (" + ", ".join(f"{s:g}" for s, _, _ in verdicts) + ")"
    else:
        return verdicts
    raise JudgeReplyError(
        f"the judge's reply says {said} in {len(verdicts)} verdicts: {excerpt(text, 120)}"
    )


def _check_words(verdict: tuple[float, bool, str], prose: str, text: str, threshold: float) -> None:
    """JudgeReplyError when the reply's words, outside its JSON, grade the other way than
    its JSON, inline ('a reply like {"score": 1} would be wrong. FAIL') or on lines of its
    own (a fenced pass, then "on reflection, FAIL"): which one is the judge's cannot be
    told."""
    try:
        _, passed, _ = _plain_grade(prose, threshold, text)
    except _Mixed:  # "PASS" with a failing score: one of them is against the JSON
        passed = not verdict[1]
    except JudgeReplyError:  # no grade in its words (or both words): the JSON says
        return
    if passed != verdict[1]:
        raise JudgeReplyError(
            "the judge's reply says both pass and fail, in its JSON and in its words:"
            f" {excerpt(text, 120)}"
        )


def _scored_objects(text: str) -> list[_Object]:
    """Every object with a `score` in `text`, outermost first, repaired as a whole reply is."""
    found: list[_Object] = []
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
        if end is not None and isinstance(data, dict) and "score" in _lower_keys(data):
            found.append(_Object(start, end, data))
            start = text.find("{", end + 1)  # what lies inside it is no other verdict
        else:
            start = text.find("{", start + 1)
    return found


def _quoted(text: str, found: _Object, shown: list[str]) -> bool:
    """Whether the judge quotes `found` rather than writes it: in quotes or inline code, on
    a `>` line, or as one of the `shown` texts (whitespace taken out) holds it."""
    opener, closer = text[found.start - 1 : found.start], text[found.end + 1 : found.end + 2]
    fence = text[max(0, found.start - 2) : found.start] == "``"
    if opener and _QUOTES.get(opener) == closer and not fence:
        return True
    line = text[text.rfind("\n", 0, found.start) + 1 : found.start]
    if line.lstrip().startswith(">"):
        return True
    span = text[found.start : found.end + 1]
    forms = {_SPACE.sub("", span), _SPACE.sub("", _repaired(span))}
    return any(form in seen for form in forms for seen in shown)


def _alone(text: str, found: _Object) -> bool:
    """Whether `found` stands on lines of its own (as in a fence): nothing before it on its
    first line, nothing after it on its last."""
    start = text.rfind("\n", 0, found.start) + 1
    end = text.find("\n", found.end + 1)
    after = text[found.end + 1 :] if end < 0 else text[found.end + 1 : end]
    return not text[start : found.start].strip() and not after.strip()


def _outside(text: str, found: list[_Object]) -> str:
    """`text` with each of the objects `found` blanked: the words around the JSON."""
    parts, at = [], 0
    for item in found:
        parts += [text[at : item.start], " "]
        at = item.end + 1
    parts.append(text[at:])
    return "".join(parts)


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


def _own_words(prose: str, quoting: Sequence[str]) -> str:
    """`prose` (the reply outside its JSON) without what the judge quotes: a passage of a
    text it was shown (`quoting`: the rubric, task, answer, its prompt), then text in double
    quotes or backticks and `>` lines (single quotes are apostrophes too often). A verdict
    written as keys without braces (`"passed": false`) becomes its word before that."""
    stripped = prose.strip()
    if len(stripped) > 2 and _QUOTES.get(stripped[0]) == stripped[-1] != "'":
        prose = stripped[1:-1]  # the whole reply in quotes: no quotation
    prose = _without_passages(prose, quoting)
    prose = _KEY.sub(r"\2\3", prose)
    prose = _PASSED_KEY.sub(lambda m: " PASS " if m[1].lower() == "true" else " FAIL ", prose)
    prose = _VERDICT_KEY.sub(lambda m: " " + (m[1] or m[2] or m[3]).upper() + " ", prose)
    return _IN_QUOTES.sub(" ", prose)


def _without_passages(prose: str, quoting: Sequence[str]) -> str:
    """`prose` without the passages (lines and clauses of three words or more) that it
    repeats of the texts in `quoting`, whitespace aside."""
    flat = " ".join(prose.split())
    seen: set[str] = set()
    for shown in quoting:
        for passage in _PASSAGE.split(shown):
            words = passage.split()
            key = " ".join(words)
            if len(_TOKEN.findall(key)) < 3 or key in seen or key not in flat:
                continue
            seen.add(key)
            prose = re.sub(r"\s+".join(map(re.escape, words)), " ", prose)
    return prose


class _Mixed(JudgeReplyError):
    """A plain grade whose verdict word and score disagree."""


def _from_mapping(data: dict[str, Any], text: str, threshold: float) -> tuple[float, bool, str]:
    data = _lower_keys(data)
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
    elif isinstance(passed, int) and not isinstance(passed, bool) and passed in (0, 1):
        passed = bool(passed)
    said = [_said(data.get(key)) for key in ("verdict", "grade", "result")]
    words = {w for w in said if w is not None}
    if isinstance(passed, bool):
        words.add(passed)
    if len(words) > 1:
        raise JudgeReplyError(f"the judge's reply says both pass and fail: {excerpt(text, 120)}")
    passed = words.pop() if words else at_least(score, threshold)
    reason = str(data.get("reason") or "no reason given")
    return score, passed, reason


def _said(value: Any) -> bool | None:
    """The verdict a `verdict`, `grade` or `result` key gives: pass or fail, else None."""
    if not isinstance(value, str):
        return None
    word = value.strip().lower()
    if word in ("pass", "passed", "correct"):
        return True
    return False if word in ("fail", "failed", "incorrect") else None


def _negated(prose: str, at: int) -> bool:
    """Whether a negation ("not", "n't", "never", "no") is among the three words before `at`
    in its clause, articles aside: "does NOT PASS", "cannot give this a passing score"."""
    clause = _CLAUSE.split(prose[:at])[-1]
    tokens = [t.lower() for t in _TOKEN.findall(clause) if t.lower() not in _ARTICLES][-3:]
    for index, token in enumerate(tokens):
        follows = tokens[index + 1] if index + 1 < len(tokens) else ""
        no = token in _NEGATION or token.endswith(("n't", "n\u2019t"))
        if no and follows != "only":  # "not only correct"
            return True
    return False


def _verdict_words(prose: str) -> dict[bool, str]:
    """The verdicts the words of `prose` give, each with the first word that gives it: a
    shouted PASS, FAIL, CORRECT or INCORRECT, the other way round after a negation, and a
    negated "pass" in any case as a fail."""
    words: dict[bool, str] = {}
    for match in _WORD.finditer(prose):
        passing = match[1].startswith(("PASS", "CORRECT"))
        words.setdefault(passing != _negated(prose, match.start()), match[1])
    for match in _PASSING.finditer(prose):
        if not _WORD.fullmatch(match[0]) and _negated(prose, match.start()):
            words.setdefault(False, match[0])
    return words


def _scores(prose: str, said: str) -> list[tuple[float, str]]:
    """Each score `prose` gives, out of 1 ("Score: 8/10", "Score: 45%", "3 out of 10"); a
    fraction counts where no "score" is written."""
    matches = list(_SCORE.finditer(prose)) or list(_FRACTION.finditer(prose))
    scores = []
    for match in matches:
        value = float(match["num"])
        den = match["den"]
        if den:
            scale = float(den)
        elif match.groupdict().get("pct"):
            scale = 100.0
        else:  # as a JSON score: out of 1, 10 or 100 by its size
            scale = 1.0 if value <= 1 else 10.0 if value <= 10 else 100.0
        if not 0 <= value <= scale or scale == 0:
            raise JudgeReplyError(f"the judge's score {match.group(0)!r} is out of range: {said}")
        scores.append((value / scale, match.group(0)))
    return scores


def _plain_grade(prose: str, threshold: float, text: str) -> tuple[float, bool, str]:
    """The grade written in words in `prose` (the reply `text` outside its JSON)."""
    said = f"plain grade: {excerpt(text.strip(), 80)}"
    written = _verdict_words(prose)
    if not written and (short := _SHORT_WORD.match(prose.strip())):
        written = {short.group(1).upper().startswith(("PASS", "CORRECT")): short.group(1)}
    words = set(written)
    scores = _scores(prose, said)
    if any(not math.isclose(s, scores[0][0]) for s, _ in scores):
        all_given = ", ".join(repr(each) for _, each in scores)
        raise JudgeReplyError(f"the judge's reply gives several scores ({all_given}): {said}")
    if scores:
        score, given = scores[0]
        if False in words:  # a FAIL fails, whatever the score
            return score, False, said
        if words and not at_least(score, threshold):
            raise _Mixed(
                f"the judge's reply says both pass and fail: the score {given!r} is below the"
                f" pass mark {threshold:g}, the word {written[True]!r} a pass: {excerpt(text, 120)}"
            )
        return score, words.pop() if words else at_least(score, threshold), said
    if len(words) == 1:
        passed = words.pop()
        return float(passed), passed, said
    if words:  # "PASS or FAIL": no verdict
        raise JudgeReplyError(f"the judge's reply says both pass and fail: {excerpt(text, 120)}")
    raise JudgeReplyError(f"the judge's reply holds no verdict: {excerpt(text, 120)}")
