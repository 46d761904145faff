"""A model's limits (concurrency, rpm, tpm, timeout, retries) and the pacing that keeps them."""

from __future__ import annotations

import asyncio
import collections
import time
from dataclasses import dataclass, field

from pytest_arena.connectors.base import Connector, Request
from pytest_arena.connectors.base import estimate_tokens as _estimate
from pytest_arena.engine.breaker import Breaker
from pytest_arena.spec.images import content_text
from pytest_arena.spec.schema import ModelDef

DEFAULT_CONCURRENCY = 16
DEFAULT_TIMEOUT = 120.0
DEFAULT_RETRIES = 4
DEFAULT_BACKOFF = 0.5
MAX_BACKOFF = 30.0


@dataclass(frozen=True)
class Limits:
    """How the engine calls one model: its settings in `arena.yaml`, else defaults."""

    concurrency: int = DEFAULT_CONCURRENCY
    rpm: float | None = None
    tpm: float | None = None
    timeout: float | None = DEFAULT_TIMEOUT
    max_retries: int = DEFAULT_RETRIES
    backoff: float = DEFAULT_BACKOFF
    cache: bool = True

    @classmethod
    def of(cls, definition: ModelDef | None, connector: Connector) -> Limits:
        d = definition or ModelDef()
        return cls(
            concurrency=d.concurrency or connector.default_concurrency,
            rpm=d.rpm,
            tpm=d.tpm,
            timeout=d.timeout if d.timeout is not None else DEFAULT_TIMEOUT,
            max_retries=d.max_retries if d.max_retries is not None else DEFAULT_RETRIES,
            backoff=d.backoff if d.backoff is not None else DEFAULT_BACKOFF,
            cache=connector.cacheable if d.cache is None else d.cache,
        )


class Gate:
    """At most `capacity` calls in flight, let in first come first served. The capacity
    can be lowered while calls hold it: those in flight finish, and no more are let in
    until they are under it."""

    def __init__(self, capacity: int) -> None:
        self.capacity = capacity
        self.held = 0
        self._waiting: collections.deque[asyncio.Future[None]] = collections.deque()

    def lower(self, capacity: int) -> None:
        self.capacity = min(self.capacity, capacity)

    async def __aenter__(self) -> None:
        if self.held < self.capacity and not self._waiting:
            self.held += 1
            return
        turn = asyncio.get_running_loop().create_future()
        self._waiting.append(turn)
        try:
            await turn
        except asyncio.CancelledError:
            if turn.done() and not turn.cancelled():
                self._release()  # let in just as it was cancelled: pass the place on
            else:
                self._waiting.remove(turn)
            raise

    async def __aexit__(self, *exc: object) -> None:
        self._release()

    def _release(self) -> None:
        self.held -= 1
        while self._waiting and self.held < self.capacity:
            turn = self._waiting.popleft()
            if not turn.done():
                self.held += 1
                turn.set_result(None)


class Pacer:
    """Spaces out units (requests or tokens) to at most `per_minute`."""

    def __init__(self, per_minute: float) -> None:
        self.interval = 60.0 / per_minute
        self.next = 0.0

    async def take(self, units: float) -> None:
        now = time.monotonic()
        start = max(now, self.next)
        self.next = start + units * self.interval
        if start > now:
            await asyncio.sleep(start - now)

    def owe(self, units: float) -> None:
        self.next = max(self.next, time.monotonic()) + units * self.interval


def _slowest(pacer: Pacer | None, per_minute: float | None) -> Pacer | None:
    """`pacer`, slowed to `per_minute` if that is slower; a new one if there was none."""
    if not per_minute:
        return pacer
    if pacer is None:
        return Pacer(per_minute)
    pacer.interval = max(pacer.interval, 60.0 / per_minute)
    return pacer


@dataclass
class Lane:
    """The calls in this process to one provider (connector kind, base URL, model, key):
    the pacing of its requests, under the lowest limits any project gave it (each of the
    run's `processes` takes its share of them), and whether they are made at all."""

    gate: Gate
    rpm: Pacer | None = None
    tpm: Pacer | None = None
    breaker: Breaker = field(default_factory=Breaker)
    tokens_out: float = 0.0  # answers' tokens seen so far, to guess the next answer's
    answers: int = 0

    @classmethod
    def of(cls, limits: Limits, processes: int = 1) -> Lane:
        lane = cls(Gate(limits.concurrency))
        lane.tighten(limits, processes)
        return lane

    def tighten(self, limits: Limits, processes: int = 1) -> None:
        """Keep to `limits` too, where they are lower than the ones kept so far."""
        n = processes
        self.gate.lower(max(1, -(-limits.concurrency // n)))  # a share, rounded up: never 0
        self.rpm = _slowest(self.rpm, limits.rpm / n if limits.rpm else None)
        self.tpm = _slowest(self.tpm, limits.tpm / n if limits.tpm else None)

    def expected_tokens(self, request: Request) -> float:
        """Tokens a call will use: its input, and an answer as long as the mean so far
        (before any answer, as long as the input)."""
        given = sum(_estimate(content_text(m.get("content", ""))) for m in request.messages)
        return given + (self.tokens_out / self.answers if self.answers else given)
