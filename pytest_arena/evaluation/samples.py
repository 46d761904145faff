"""A repeated case: how many samples to draw, the verdict its samples give, and the one
record that holds them all.

A case passes when its samples' pass rate reaches `min_pass_rate` (default 1.0: every
sample must pass, so one sample behaves as a case always did). With a fixed `repeat: N`
the verdict is the rate of the N samples. With a range `repeat: {min: A, max: B}`
sampling is sequential: after the first A samples it stops as soon as the 95% Wilson
interval of the pass rate lies wholly above `min_pass_rate` (passed) or below it (failed);
a case still undecided after B samples is FLAKY if its samples disagree, and passed or
failed by its rate if they all agree (ten passes of ten cannot show a rate of 80% at 95%,
yet nothing about them is flaky). A sample that errors makes the case an error (a model
down is not a statistic); unscored samples are left out of the rate.
"""

from __future__ import annotations

import functools
import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from pytest_arena.record import ERROR, FAILED, FLAKY, PASSED, UNSCORED, Record
from pytest_arena.reports.statistics import wilson_interval

LEVEL = 0.95  # the confidence of the interval that stops sequential sampling


@dataclass(frozen=True)
class Sampling:
    """How a case is sampled and judged: `min` to `max` samples, the pass rate it needs,
    and whether a FLAKY verdict fails the run (`flaky: fail`) or not (`flaky: pass`)."""

    min: int = 1
    max: int = 1
    min_pass_rate: float = 1.0
    flaky: str = "fail"

    @property
    def sequential(self) -> bool:
        return self.max > self.min

    @property
    def repeated(self) -> bool:
        return self.max > 1


ONCE = Sampling()  # one sample, which must pass: the default


@functools.cache
def sampling_of(low: int, high: int, min_pass_rate: float, flaky: str) -> Sampling:
    """The Sampling of these settings: one object for all the cases that share them."""
    return Sampling(low, high, min_pass_rate, flaky)


def interval_verdict(passes: int, graded: int, min_pass_rate: float) -> bool | None:
    """True when the pass rate's 95% interval lies wholly at or above `min_pass_rate`,
    False when wholly below, None while it straddles. At 1.0 (every sample must pass) one
    failure decides, and no number of passes does."""
    if graded == 0:
        return None
    if min_pass_rate >= 1.0:
        return False if passes < graded else None
    interval = wilson_interval(passes, graded, LEVEL)
    assert interval.low is not None and interval.high is not None
    if interval.low >= min_pass_rate:
        return True
    if interval.high < min_pass_rate:
        return False
    return None


def reaches(passes: int, graded: int, min_pass_rate: float) -> bool:
    """Whether `passes` of `graded` is a pass rate of at least `min_pass_rate`."""
    return passes >= min_pass_rate * graded - 1e-9


def settle(samples: Sequence[Record], sampling: Sampling) -> str | None:
    """The status of a case whose samples so far are `samples`, or None: draw another."""
    if any(s.status == ERROR for s in samples):
        return ERROR
    drawn = len(samples)
    passes, graded = counts(samples)
    if sampling.sequential and drawn >= sampling.min:
        decided = interval_verdict(passes, graded, sampling.min_pass_rate)
        if decided is not None:
            return PASSED if decided else FAILED
    if drawn < sampling.max:
        return None
    if graded == 0:
        return UNSCORED
    if sampling.sequential and 0 < passes < graded:
        return FLAKY  # samples that disagree, and an interval that still holds the threshold
    return PASSED if reaches(passes, graded, sampling.min_pass_rate) else FAILED


def counts(samples: Sequence[Record]) -> tuple[int, int]:
    """(passed, graded) among `samples`: unscored ones are not graded."""
    graded = [s for s in samples if s.status in (PASSED, FAILED)]
    return sum(s.status == PASSED for s in graded), len(graded)


def percent(share: float) -> str:
    """0.8 as '80%', 0.755 as '75.5%'."""
    return f"{round(share * 100, 1):g}%"


def tally(passes: int, graded: int, min_pass_rate: float) -> str:
    """'passed 6 of 10; needs 80%'."""
    return f"passed {passes} of {graded}; needs {percent(min_pass_rate)}"


def flaky_tally(record: Record) -> str:
    """What a FLAKY record's samples did: 'passed 9 of 10; needs 80%', and ' (flaky: pass)'
    when the project lets it pass."""
    s = record.sampling
    passes = " (flaky: pass)" if s.get("flaky") == "pass" else ""
    return tally(s["passed"], s["graded"], s["min_pass_rate"]) + passes


def combine(samples: Sequence[Record], status: str, sampling: Sampling) -> Record:
    """The case's one record: its verdict `status`, the mean score of its graded samples
    and the mean of each metric its samples emitted (neither for an error, as a case drawn
    once that errs has none: the board counts its score 0 and no metric of it, whatever
    its other samples scored), the sums of what they cost, and every sample in `samples`.
    One sample: that sample."""
    if len(samples) == 1 and not sampling.repeated:
        return samples[0]
    passes, graded = counts(samples)
    wanted = {PASSED: PASSED, FAILED: FAILED, FLAKY: FAILED, ERROR: ERROR}.get(status, UNSCORED)
    shown = next((s for s in samples if s.status == wanted), samples[0])
    scores = [s.score or 0.0 for s in samples if s.status in (PASSED, FAILED)]
    latencies = [s.latency_ms for s in samples if s.latency_ms is not None]
    low = high = None
    if graded:
        interval = wilson_interval(passes, graded, LEVEL)
        low, high = interval.low, interval.high
    summary: dict[str, Any] = {
        "drawn": len(samples),
        "passed": passes,
        "graded": graded,
        "pass_rate": passes / graded if graded else None,
        "min_pass_rate": sampling.min_pass_rate,
        "interval": [low, high] if graded else None,
        "min": sampling.min,
        "max": sampling.max,
        "flaky": sampling.flaky,
        "shown": shown.sample,  # the sample whose output and reason the record shows
    }
    reason = shown.reason
    overrides = [s for s in samples if "override" in s.detail]
    detail = {k: v for k, v in shown.detail.items() if k != "override"}
    if overrides:
        detail["override"] = overridden(overrides, len(samples))
    if status in (PASSED, FAILED, FLAKY):
        said = tally(passes, graded, sampling.min_pass_rate)
        if status == FLAKY:
            said += f"; still undecided after {len(samples)} samples (FLAKY)"
        if overrides:
            said += (
                f"; hooks.py override_verdict changed {len(overrides)} of {len(samples)}"
                f" samples ({detail['override']['changes']})"
            )
        reason = f"{said} (sample {shown.sample}: {shown.reason})" if shown.reason else said
    return replace(
        shown,
        status=status,
        score=math.fsum(scores) / len(scores) if scores and status != ERROR else None,
        passed={PASSED: True, FAILED: False}.get(status),
        reason=reason,
        detail=detail,
        metrics=_mean_metrics(samples) if status != ERROR else {},
        tokens_in=sum(s.tokens_in for s in samples),
        tokens_out=sum(s.tokens_out for s in samples),
        cost=None
        if any(s.cost is None for s in samples)
        else math.fsum(s.cost or 0.0 for s in samples),
        latency_ms=math.fsum(latencies) / len(latencies) if latencies else None,
        retries=sum(s.retries for s in samples),
        cached=all(s.cached for s in samples),
        judge_tokens=sum(s.judge_tokens for s in samples),
        judge_cost=None
        if any(s.judge_cost is None for s in samples)
        else math.fsum(s.judge_cost or 0.0 for s in samples),
        judge_cached_cost=math.fsum(s.judge_cached_cost for s in samples),
        cached_cost=math.fsum(s.cached_cost for s in samples),
        sample=0,
        samples=[s.sample_dict() for s in samples],
        sampling=summary,
    )


_VERDICT = {True: "passed", False: "failed", None: "unscored"}


def overridden(overrides: Sequence[Record], drawn: int) -> dict[str, Any]:
    """What hooks.py override_verdict did to a repeated case's samples, for its record's
    detail: which samples, of how many, 'failed -> passed' with counts, and the reasons."""
    changes = Counter(
        f"{_VERDICT[s.detail['override'].get('passed')]} -> {_VERDICT[s.passed]}" for s in overrides
    )
    because = dict.fromkeys(str(s.detail["override"].get("because", "")) for s in overrides)
    return {
        "samples": [s.sample for s in overrides],
        "drawn": drawn,
        "changes": ", ".join(
            change if len(changes) == 1 else f"{change} x{n}" for change, n in changes.items()
        ),
        "because": "; ".join(b for b in because if b),
    }


def _total_cost(samples: Sequence[Record]) -> float | None:
    """What the samples cost; None when any one's price is unknown."""
    costs = [s.cost for s in samples]
    return None if None in costs else math.fsum(c or 0.0 for c in costs)


def _mean_metrics(samples: Sequence[Record]) -> dict[str, float]:
    values: dict[str, list[float]] = {}
    for s in samples:
        for name, value in s.metrics.items():
            values.setdefault(name, []).append(value)
    return {name: math.fsum(v) / len(v) for name, v in values.items()}
