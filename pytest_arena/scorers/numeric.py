"""The numeric_match builtin: the number in the output equals the reference's."""

from __future__ import annotations

import math
import re
import unicodedata
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationInfo, field_validator

from pytest_arena.scorers import graders
from pytest_arena.scorers.base import ScoreResult, ScoringContext
from pytest_arena.scorers.text import excerpt, plain_marks
from pytest_arena.scorers.typed import TypedScorer
from pytest_arena.spec.case import as_text

_FLOAT_NOISE = 1e-9

Convention = Literal["auto", "gsm8k", "lm_eval_strict", "lm_eval_flexible", "math"]


class NumericMatchOptions(BaseModel):
    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)

    abs_tol: float = Field(0.0, ge=0)
    rel_tol: float = Field(_FLOAT_NOISE, ge=0)
    pick: Literal["last", "first"] = "last"
    partial_credit: bool = False
    convention: Convention = "auto"

    @field_validator("convention")
    @classmethod
    def _numeric_options_need_auto(cls, value: str, info: ValidationInfo) -> str:
        if value == "auto":
            return value
        defaults = {
            "abs_tol": 0.0,
            "rel_tol": _FLOAT_NOISE,
            "pick": "last",
            "partial_credit": False,
        }
        given = [
            name for name, default in defaults.items() if info.data.get(name, default) != default
        ]
        if given:
            raise ValueError(
                f"convention {value} compares the answer as its benchmark's grader does,"
                f" so {', '.join(given)} cannot apply: remove it, or use convention auto"
            )
        return value


class NumericMatch(TypedScorer[NumericMatchOptions]):
    """The number the output gives equals the reference, within a tolerance.

    With `convention: auto` (the default) the number read is the marked answer:
    the last "\\boxed{…}", the first "#### N", the last "Answer: …" or "the answer
    is …" (whose number after a last "=" wins: "Answer: 5 + 7 = 12" is 12), else
    the last (or first) number in the text. Currency signs and codes, thousands
    separators (also MATH's "10,\\!000", "1{,}000", "1\\,000"), `%`, `\\%` and
    trailing units are ignored; negatives, decimals, scientific notation and
    fractions ("3/4", "\\frac{3}{4}", "\\frac12", "\\dfrac14", "1½") are read; "1/0" is
    no number, and "the answer is not 12" marks no answer.
    The other conventions grade exactly as a benchmark's own grader does (see
    `pytest_arena.scorers.graders`): `gsm8k`, `lm_eval_strict`,
    `lm_eval_flexible` and `math`.
    Options: `abs_tol` (0), `rel_tol` (1e-9), `pick` (last: or first),
    `partial_credit` (false: when true a miss scores max(0, 1 - |diff| / |reference|)),
    `convention` (auto).
    """

    name = "numeric_match"
    options_model = NumericMatchOptions
    needs_reference = True

    def grade(
        self, output: str, reference: Any, opts: NumericMatchOptions, context: ScoringContext
    ) -> ScoreResult:
        if opts.convention != "auto":
            return _by_convention(output, reference, opts.convention)
        if isinstance(reference, list):  # any of them, as token_f1 takes a list
            results = [self.grade(output, one, opts, context) for one in reference]
            if not results:
                raise ValueError("reference [] holds no number")
            return max(results, key=lambda r: (bool(r.passed), r.score))
        expected = _reference_number(reference)
        found = read_number(output, opts.pick)
        if found is None:
            return ScoreResult(0.0, False, f"no number found in {excerpt(output)}")
        detail = {"expected": expected, "found": found}
        tolerance = _tolerance(opts)
        if math.isclose(found, expected, rel_tol=opts.rel_tol, abs_tol=opts.abs_tol):
            if found == expected or not tolerance:
                return ScoreResult(1.0, True, f"found {_show(found)}, as expected", detail)
            reason = f"found {_show(found)}, within {tolerance} of {_show(expected)}"
            return ScoreResult(1.0, True, reason, detail)
        score = 0.0
        if opts.partial_credit and expected != 0:
            score = max(0.0, 1 - abs(found - expected) / abs(expected))
        allowed = f" ({tolerance})" if tolerance else ""
        reason = f"expected {_show(expected)}{allowed}, found {_show(found)} in {excerpt(output)}"
        return ScoreResult(score, False, reason, detail)


_SOURCES = {
    "gsm8k": "GSM8K's extract_answer (the first '#### N')",
    "lm_eval_strict": "lm-evaluation-harness gsm8k strict-match (the first '#### N')",
    "lm_eval_flexible": "lm-evaluation-harness gsm8k flexible-extract (the last number)",
    "math": "hendrycks/math (the last \\boxed{}, is_equiv)",
}


def _by_convention(output: str, reference: Any, convention: str) -> ScoreResult:
    text = as_text(reference)
    if convention == "math":
        found, expected = graders.math_answer(output), graders.math_answer(text, reference=True)
        if expected is None:
            raise ValueError(f"reference {excerpt(reference)} holds no \\boxed{{}} answer")
        same = graders.math_equiv(found, expected)
    elif convention == "gsm8k":
        found, expected = graders.gsm8k_answer(output), graders.gsm8k_reference(text)
        same = found == expected
    else:
        flexible = convention == "lm_eval_flexible"
        found = graders.lm_eval_gsm8k_answer(output, flexible=flexible)
        expected = text
        same = graders.lm_eval_exact_match(found, text)
    source = _SOURCES[convention]
    detail = {"expected": expected, "found": found, "convention": convention}
    if same:
        return ScoreResult(1.0, True, f"found {excerpt(found)}, as expected by {source}", detail)
    if found is None or found == graders.INVALID:
        return ScoreResult(0.0, False, f"no answer found by {source} in {excerpt(output)}", detail)
    reason = f"expected {excerpt(expected)}, found {excerpt(found)} by {source}"
    return ScoreResult(0.0, False, reason, detail)


_MINUS = str.maketrans({"\u2212": "-"})
_FRACTION_TEX = re.compile(r"\\[dt]?frac\s*(?:\{\s*(-?\d+)\s*\}|(\d))\s*(?:\{\s*(\d+)\s*\}|(\d))")
_TEX_NOISE = re.compile(r"\\!|\\left\b|\\right\b|\\[,;:]\s*(?=\d{3}(?!\d))|\{,\}")
_CURRENCY = re.compile(r"([-+])?(?:\\?[$€£]|\b(?:USD|EUR|GBP)(?![A-Za-z]))\s*")
# a comma, or a space a typesetter puts between thousands (no-break, narrow, thin)
_THOUSANDS = re.compile(r"(?<=\d)[,\u00a0\u202f\u2009](?=\d{3}(?!\d))")
# "6.02 \u00d7 10^23", "6.02 \times 10^{23}", "6.02·10^23": scientific notation as written
_TIMES_TEN = re.compile(
    r"(\d(?:\.\d+)?)\s*(?:\u00d7|\\times|\\cdot|·|\*|x)\s*10\s*\^\s*\{?\s*([-+]?\d+)\s*\}?"
)
_NUMBER = re.compile(
    r"(?<![\w.])(?P<value>[-+]?(?:\d+(?:\.\d+)?|\.\d+)(?:[eE][-+]?\d+)?)"
    r"(?:\s*/\s*(?P<denominator>\d+)(?![\d.]))?"
)
_BOXED = re.compile(r"\\boxed\s*\{((?:[^{}]|\{(?:[^{}]|\{[^{}]*\})*\})*)\}")
_HASHES = re.compile(r"####\s*([^\n]*)")
# "the answer is not 12, it's 13": a negated answer names none
_ANSWER = re.compile(r"\banswer\b\s*(?:is\b|[:=])(?!\s*not\b)\s*([^\n]*)", re.I)
_SENTENCE_END = re.compile(r"\.(?=\s|$)")
# each marker, and whether its last (else its first) occurrence is the answer
_MARKED = ((_BOXED, True), (_HASHES, False), (_ANSWER, True))


# a citation after a word, a number, a sign or a sentence: "8.3 million [1].", "12%[2]",
# "shown.[2][3]", "[^4]"; not an answer given in brackets after "Answer:" or "="
_CITATION = re.compile(r"(?<=[^\s\[(:=])[ \t]?\[\^?\d{1,3}(?:\s*[,\u2013-]\s*\d{1,3})*\]")


def read_number(text: str, pick: Literal["last", "first"] = "last") -> float | None:
    """The answer's number in `text`: a marked answer's, else its last (or first) number.
    Citation marks ("[1]") are not numbers of the answer, unless there is no other."""
    text = _normalise(text)
    uncited = _CITATION.sub("", text)
    if uncited != text:
        number = _read(uncited, pick)
        if number is not None:
            return number
    return _read(text, pick)


def _read(text: str, pick: Literal["last", "first"]) -> float | None:
    for marker, last in _MARKED:
        matches = list(marker.finditer(text))
        for match in reversed(matches) if last else matches:
            number = _marked_number(match[1], marker is _ANSWER)
            if number is not None:
                return number
    numbers = _numbers(text)
    if not numbers:
        return None
    return numbers[-1] if pick == "last" else numbers[0]


def _marked_number(said: str, line: bool) -> float | None:
    """The number a marked answer gives: for an answer line, its first sentence's
    number after the last "=" ("Answer: 5 + 7 = 12" gives 12)."""
    if line:
        said = _SENTENCE_END.split(said, maxsplit=1)[0]
        if "=" in said:
            after = _numbers(said.rpartition("=")[2])
            if after:
                return after[0]
    numbers = _numbers(said)
    return numbers[0] if numbers else None


def _fraction(match: re.Match[str]) -> str:
    return f"{match[1] or match[2]}/{match[3] or match[4]}"


# "½", "1½", "2 ¾": a vulgar fraction, alone or after a whole number, is one number
_VULGAR = "".join(chr(c) for c in (*range(0xBC, 0xBF), *range(0x2150, 0x215F), 0x2189))
_MIXED = re.compile(rf"(?<![\d.])(\d+)?[ \u00a0\u202f\u2009]?([{_VULGAR}])")


def _mixed(match: re.Match[str]) -> str:
    return repr(int(match[1] or 0) + unicodedata.numeric(match[2]))


def _normalise(text: str) -> str:
    text = plain_marks(text.translate(_MINUS))
    text = _MIXED.sub(_mixed, text)
    text = _TIMES_TEN.sub(r"\1e\2", text)
    text = _TEX_NOISE.sub("", text)
    text = _FRACTION_TEX.sub(_fraction, text)
    text = _CURRENCY.sub(lambda m: " " + (m[1] or ""), text)
    return _THOUSANDS.sub("", text)


def _numbers(text: str) -> list[float]:
    numbers = []
    for match in _NUMBER.finditer(text):
        value, denominator = match["value"], match["denominator"]
        number = float(value)
        if denominator and not any(c in value for c in ".eE"):
            if not int(denominator):  # "1/0" is no number, nor is it 1
                continue
            number /= int(denominator)
        if math.isfinite(number):
            numbers.append(number)
    return numbers


def _reference_number(reference: Any) -> float:
    if isinstance(reference, int | float) and not isinstance(reference, bool):
        return float(reference)
    number = None if isinstance(reference, bool) else read_number(as_text(reference))
    if number is None:
        raise ValueError(f"reference {excerpt(reference)} holds no number")
    return number


def _tolerance(opts: NumericMatchOptions) -> str:
    parts = []
    if opts.abs_tol:
        parts.append(f"±{_show(opts.abs_tol)}")
    if opts.rel_tol > _FLOAT_NOISE:
        parts.append(f"±{_show(opts.rel_tol * 100)}%")
    return " or ".join(parts)


def _show(number: float) -> str:
    return f"{number:.12g}"
