"""A model's limits (concurrency, rpm, tpm, timeout, retries) and the pacing that keeps them."""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass

from pytest_arena.connectors.base import Connector, Request
from pytest_arena.connectors.base import estimate_tokens as _estimate
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


@dataclass
class Lane:
    """The state of one model's calls: its limits and the pacing of its requests."""

    limits: Limits
    semaphore: asyncio.Semaphore
    rpm: Pacer | None
    tpm: Pacer | None
    tokens_out: float = 0.0  # answers' tokens seen so far, to guess the next answer's
    answers: int = 0

    def expected_tokens(self, request: Request) -> float:
        """Tokens a call will use: its input, and an answer as long as the mean so far
        (before any answer, as long as the input)."""
        given = sum(_estimate(m.get("content", "")) for m in request.messages)
        return given + (self.tokens_out / self.answers if self.answers else given)
