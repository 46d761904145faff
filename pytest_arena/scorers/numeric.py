"""The numeric_match builtin: the number in the output equals the reference's."""

from __future__ import annotations

import math
import re
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from pytest_arena.scorers.base import ScoreResult, ScoringContext
from pytest_arena.scorers.text import excerpt
from pytest_arena.scorers.typed import TypedScorer
from pytest_arena.spec.case import as_text

_FLOAT_NOISE = 1e-9


class NumericMatchOptions(BaseModel):
    model_config = ConfigDict(extra="forbid")

    abs_tol: float = Field(0.0, ge=0)
    rel_tol: float = Field(_FLOAT_NOISE, ge=0)
    pick: Literal["last", "first"] = "last"
    partial_credit: bool = False


class NumericMatch(TypedScorer[NumericMatchOptions]):
    """The number the output gives equals the reference, within a tolerance.

    The number read is the marked answer ("\\boxed{42}", "#### 42", "Answer: 42",
    "the answer is 42"), else the last (or first) number in the text. Currency
    signs and codes, thousands separators, `%` and trailing units are ignored;
    negatives, decimals, scientific notation and fractions ("3/4") are read.
    The reference is a number or text holding one.
    Options: `abs_tol` (0), `rel_tol` (1e-9), `pick` (last: or first),
    `partial_credit` (false: when true a miss scores max(0, 1 - |diff| / |reference|)).
    """

    name = "numeric_match"
    options_model = NumericMatchOptions
    needs_reference = True

    def grade(
        self, output: str, reference: Any, opts: NumericMatchOptions, context: ScoringContext
    ) -> ScoreResult:
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


_MINUS = str.maketrans({"\u2212": "-"})
_FRACTION_TEX = re.compile(r"\\[dt]?frac\s*\{\s*(-?\d+)\s*\}\s*\{\s*(\d+)\s*\}")
_CURRENCY = re.compile(r"([-+])?(?:[$€£]|\b(?:USD|EUR|GBP)(?![A-Za-z]))\s*")
_THOUSANDS = re.compile(r"(?<=\d),(?=\d{3}(?!\d))")
_NUMBER = re.compile(
    r"(?<![\w.])(?P<value>[-+]?(?:\d+(?:\.\d+)?|\.\d+)(?:[eE][-+]?\d+)?)"
    r"(?:\s*/\s*(?P<denominator>\d+)(?![\d.]))?"
)
_MARKED = (
    re.compile(r"\\boxed\s*\{((?:[^{}]|\{[^{}]*\})*)\}"),
    re.compile(r"####\s*([^\n]*)"),
    re.compile(r"\banswer\b\s*(?:is\b|[:=])\s*([^\n]*)", re.I),
)


def read_number(text: str, pick: Literal["last", "first"] = "last") -> float | None:
    """The answer's number in `text`: a marked answer's, else its last (or first) number."""
    text = _normalise(text)
    for marker in _MARKED:
        for match in reversed(list(marker.finditer(text))):
            numbers = _numbers(match[1])
            if numbers:
                return numbers[0]
    numbers = _numbers(text)
    if not numbers:
        return None
    return numbers[-1] if pick == "last" else numbers[0]


def _normalise(text: str) -> str:
    text = _FRACTION_TEX.sub(r"\1/\2", text.translate(_MINUS))
    text = _CURRENCY.sub(lambda m: " " + (m[1] or ""), text)
    return _THOUSANDS.sub("", text)


def _numbers(text: str) -> list[float]:
    numbers = []
    for match in _NUMBER.finditer(text):
        value, denominator = match["value"], match["denominator"]
        number = float(value)
        if denominator and int(denominator) and not any(c in value for c in ".eE"):
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
