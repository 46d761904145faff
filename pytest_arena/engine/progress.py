"""A long run's progress: calls done of the total, cache hits, spend so far and time left.

Counted from the calls' results as they finish (on the engine's thread for calls started
ahead, on the main thread for inline ones), read by the terminal's progress line."""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field

from pytest_arena.engine.money import dollars


@dataclass
class Progress:
    total: int = 0  # calls started or made (one per selected case and model, and sample)
    unstarted: int = 0  # cases and models whose calls are not started yet (one each, at least)
    done: int = 0
    cached: int = 0
    spent: float = 0.0  # dollars, on live calls whose price is known
    unpriced: int = 0  # live calls whose cost is unknown
    started: float = field(default_factory=time.monotonic)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def finished(self, cost: float | None, cached: bool) -> None:
        """One call is done (answered, failed or skipped)."""
        with self._lock:
            self.done += 1
            if cached:
                self.cached += 1
            elif cost is None:
                self.unpriced += 1
            else:
                self.spent += cost

    def left(self, now: float | None = None) -> float | None:
        """Seconds until the last call is done at the rate so far; None before the first."""
        elapsed = (time.monotonic() if now is None else now) - self.started
        if self.done <= 0 or elapsed <= 0:
            return None
        return max(0, self.expected - self.done) * elapsed / self.done

    @property
    def expected(self) -> int:
        """The calls the run will make, as far as they are known."""
        return self.total + self.unstarted

    def line(self, now: float | None = None) -> str:
        done, total = self.done, max(self.expected, self.done)
        parts = [f"{done}/{total} calls"]
        if self.cached:
            parts.append(f"{self.cached} cached")
        spent = f"{dollars(self.spent)} spent"
        if self.unpriced:
            spent += f" (+{self.unpriced} unpriced)"
        parts.append(spent)
        left = self.left(now)
        if done < total:
            parts.append("time left unknown" if left is None else f"about {duration(left)} left")
        return "arena: " + ", ".join(parts)


def duration(seconds: float) -> str:
    """`42s`, `3m 10s`, `2h 05m`."""
    s = round(seconds)
    if s < 60:
        return f"{s}s"
    if s < 3600:
        return f"{s // 60}m {s % 60:02d}s"
    return f"{s // 3600}h {s % 3600 // 60:02d}m"
