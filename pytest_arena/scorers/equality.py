"""Builtin scorers of equality with the reference: exact_match and json_match."""

from __future__ import annotations

import contextlib
import json
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from pytest_arena.numbers import at_least
from pytest_arena.scorers.base import ScoreResult, ScoringContext
from pytest_arena.scorers.text import canonical, excerpt, read_json, surface_hint
from pytest_arena.scorers.typed import TypedScorer
from pytest_arena.spec.case import as_text


class _Options(BaseModel):
    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)


class ExactMatchOptions(_Options):
    ignore_case: bool = False
    normalize_whitespace: bool = False


class ExactMatch(TypedScorer[ExactMatchOptions]):
    """The output equals the reference, after trimming surrounding whitespace."""

    name = "exact_match"
    options_model = ExactMatchOptions
    needs_reference = True

    def grade(
        self, output: str, reference: Any, opts: ExactMatchOptions, context: ScoringContext
    ) -> ScoreResult:
        expected = as_text(reference)
        got, want = canonical(output).strip(), canonical(expected).strip()
        if opts.normalize_whitespace:
            got, want = " ".join(got.split()), " ".join(want.split())
        if opts.ignore_case:
            got, want = got.casefold(), want.casefold()
        if got == want:
            return ScoreResult(1.0, True, "exact match")
        reason = f"expected {excerpt(expected)}, got {excerpt(output)}"
        hint = surface_hint(output, expected)
        if hint:
            reason += f"; {hint}"
        return ScoreResult(0.0, False, reason)


class JsonMatchOptions(_Options):
    allow_extra_keys: bool = True
    ignore_list_order: bool = False
    extract: bool = False
    threshold: float = Field(1.0, ge=0, le=1)


class JsonMatch(TypedScorer[JsonMatchOptions]):
    """The output parses as JSON equal to the reference; object key order is ignored.

    Partial credit is the share of the reference's leaf values that match.
    """

    name = "json_match"
    options_model = JsonMatchOptions
    needs_reference = True

    def grade(
        self, output: str, reference: Any, opts: JsonMatchOptions, context: ScoringContext
    ) -> ScoreResult:
        if isinstance(reference, str):
            with contextlib.suppress(json.JSONDecodeError):
                reference = json.loads(reference)
        actual, problem = read_json(output, opts.extract)
        if problem is not None:
            return ScoreResult(0.0, False, problem, detail={"parse_error": problem})
        tally = _Tally()
        _compare(reference, actual, "$", opts, tally)
        score = tally.matched / tally.total if tally.total else 1.0
        passed = at_least(score, opts.threshold) if opts.threshold < 1.0 else not tally.diffs
        if not tally.diffs:
            reason = "JSON matches"
        else:
            shown = "; ".join(tally.diffs[:3])
            more = f" (+{len(tally.diffs) - 3} more)" if len(tally.diffs) > 3 else ""
            reason = f"{tally.matched:g} of {tally.total} values match: {shown}{more}"
        return ScoreResult(
            score,
            passed,
            reason,
            detail={"matched": tally.matched, "total": tally.total, "diffs": tally.diffs},
        )


@dataclass
class _Tally:
    matched: float = 0.0
    total: int = 0
    diffs: list[str] = field(default_factory=list)


def _leaves(value: Any) -> int:
    if isinstance(value, dict):
        return sum(_leaves(v) for v in value.values()) or 1
    if isinstance(value, list):
        return sum(_leaves(v) for v in value) or 1
    return 1


def _same_leaf(expected: Any, actual: Any) -> bool:
    if isinstance(expected, bool) or isinstance(actual, bool):
        return type(expected) is type(actual) and expected == actual
    return bool(expected == actual)


def _compare(expected: Any, actual: Any, path: str, opts: JsonMatchOptions, tally: _Tally) -> None:
    if isinstance(expected, dict) and isinstance(actual, dict):
        if not expected and not actual:
            tally.matched += 1
            tally.total += 1
        for key, value in expected.items():
            child = f"{path}.{key}"
            if key not in actual:
                tally.total += _leaves(value)
                tally.diffs.append(f"{child} missing")
            else:
                _compare(value, actual[key], child, opts, tally)
        if not opts.allow_extra_keys:
            for key in actual.keys() - expected.keys():
                tally.total += 1
                tally.diffs.append(f"{path}.{key} not expected")
        return
    if isinstance(expected, list) and isinstance(actual, list):
        if opts.ignore_list_order:
            _compare_unordered(expected, actual, path, opts, tally)
            return
        if not expected and not actual:
            tally.matched += 1
            tally.total += 1
        for index, value in enumerate(expected):
            child = f"{path}[{index}]"
            if index >= len(actual):
                tally.total += _leaves(value)
                tally.diffs.append(f"{child} missing")
            else:
                _compare(value, actual[index], child, opts, tally)
        for index in range(len(expected), len(actual)):
            tally.total += 1
            tally.diffs.append(f"{path}[{index}] not expected")
        return
    tally.total += _leaves(expected)
    if isinstance(expected, dict | list) or isinstance(actual, dict | list):
        tally.diffs.append(f"{path}: expected {excerpt(expected, 40)}, got {excerpt(actual, 40)}")
    elif _same_leaf(expected, actual):
        tally.matched += 1
    else:
        tally.diffs.append(f"{path}: expected {excerpt(expected, 40)}, got {excerpt(actual, 40)}")


def _compare_unordered(
    expected: list[Any], actual: list[Any], path: str, opts: JsonMatchOptions, tally: _Tally
) -> None:
    """Pair each expected item with the actual item it matches best, best pairs first, so
    that a dropped item is reported missing rather than compared with its neighbour. Two
    empty lists are one matching value, as in order."""
    if not expected and not actual:
        tally.matched += 1
        tally.total += 1
        return
    trials: dict[tuple[int, int], _Tally] = {}
    for index, value in enumerate(expected):
        for position, candidate in enumerate(actual):
            trial = _Tally()
            _compare(value, candidate, f"{path}[{index}]", opts, trial)
            trials[index, position] = trial
    paired: dict[int, int] = {}
    for (index, position), _trial in sorted(
        trials.items(), key=lambda item: (-_ratio(item[1]), item[0])
    ):
        if index not in paired and position not in paired.values():
            paired[index] = position
    for index, value in enumerate(expected):
        if index not in paired:
            tally.total += _leaves(value)
            tally.diffs.append(f"{path}[{index}] missing")
            continue
        best = trials[index, paired[index]]
        tally.matched += best.matched
        tally.total += best.total
        tally.diffs.extend(best.diffs)
    extra = len(actual) - len(paired)
    if extra:
        tally.total += extra
        tally.diffs.append(f"{path}: {extra} unexpected item(s)")


def _ratio(tally: _Tally) -> float:
    return tally.matched / tally.total if tally.total else 1.0
