"""Weighted scoring contracts: several scorers graded as one."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from pytest_arena.numbers import at_least
from pytest_arena.scorers.base import ScoreResult, shown_score


@dataclass(frozen=True)
class Part:
    """One component's result within a contract."""

    name: str
    scorer: str
    weight: float
    required: bool
    result: ScoreResult


def combine(parts: Sequence[Part], threshold: float | None) -> ScoreResult:
    """The contract's verdict: the weighted mean score, passing when every required
    component passes and the score reaches `threshold` (without one: when every
    component passes). Unscored components are left out of the score; a required one
    that is unscored keeps the case from passing: it is then unscored, unless it fails.
    So do graded components of weight 0 alone: they give no score, nothing that counts
    graded the case."""
    graded = [p for p in parts if p.result.passed is not None]
    detail = {"components": [_detail(p) for p in parts], "threshold": threshold}
    metrics = _metrics(parts)
    if not graded:
        return ScoreResult(0.0, None, _reason("no component was graded", parts), detail, metrics)
    total = sum(p.weight for p in graded)
    score = sum(p.weight * p.result.score for p in graded) / total if total else 0.0
    score = min(1.0, max(0.0, score))
    failed_required = [p.name for p in graded if p.required and not p.result.passed]
    ungraded_required = [p.name for p in parts if p.required and p.result.passed is None]
    if threshold is None:
        passed = all(p.result.passed for p in graded)
        rule = f"{sum(bool(p.result.passed) for p in graded)} of {len(graded)} components passed"
    elif not total:  # no score to hold to the threshold: only a required failure decides
        passed = not failed_required
        rule = f"no score to hold to {threshold:.2f}"
    else:
        reached = at_least(score, threshold)
        passed = reached and not failed_required
        rule = f"score {shown_score(score)} {'reaches' if reached else 'is below'} {threshold:.2f}"
    if failed_required:
        rule += f"; required {', '.join(repr(n) for n in failed_required)} failed"
    verdict: bool | None = passed
    if not total:
        rule += "; the graded components weigh 0 in total, so the case cannot pass"
        verdict = False if not passed else None  # failed anyway, else unscored: never a pass
        if verdict is None and not ungraded_required:
            rule += ": unscored"
    if ungraded_required:
        rule += (
            f"; required {', '.join(repr(n) for n in ungraded_required)} not graded, so the case"
            " cannot pass"
        )
        verdict = False if not passed else None  # failed anyway, else unscored: never a pass
        if verdict is None:
            rule += ": unscored"
    return ScoreResult(score, verdict, _reason(rule, parts), detail, metrics)


def _reason(summary: str, parts: Sequence[Part]) -> str:
    width = max(len(p.name) for p in parts)
    lines = [summary]
    for p in parts:
        verdict = {True: "passed", False: "failed", None: "unscored"}[p.result.passed]
        flag = " required" if p.required else ""
        lines.append(
            f"  {p.name:<{width}}  {shown_score(p.result.score)} x{p.weight:g}  {verdict}{flag}:"
            f" {p.result.reason or '(no reason)'}"
        )
    return "\n".join(lines)


def _detail(part: Part) -> dict[str, object]:
    r = part.result
    return {
        "name": part.name,
        "scorer": part.scorer,
        "weight": part.weight,
        "required": part.required,
        "score": r.score,
        "passed": r.passed,
        "reason": r.reason,
        "detail": r.detail,
        "metrics": r.metrics,
    }


def _metrics(parts: Sequence[Part]) -> dict[str, float]:
    """Each component's metrics under their own names; a name two emit is weight-averaged."""
    emitted: dict[str, list[tuple[float, float]]] = {}
    for part in parts:
        for name, value in part.result.metrics.items():
            emitted.setdefault(name, []).append((part.weight, value))
    return {name: _weighted_mean(pairs) for name, pairs in emitted.items()}


def _weighted_mean(pairs: Sequence[tuple[float, float]]) -> float:
    """The mean of (weight, value) pairs by weight: weight 0 counts nothing, as in the
    score; if every weight is 0 (components kept for their metrics), the plain mean."""
    total = sum(weight for weight, _ in pairs)
    if not total:
        return sum(value for _, value in pairs) / len(pairs)
    return sum(weight * value for weight, value in pairs if weight) / total
