"""A model's limits (concurrency, rpm, tpm, timeout, retries) and the pacing that keeps them."""

from __future__ import annotations

import asyncio
import collections
import contextlib
import hashlib
import os
import time
from collections.abc import Callable, Hashable
from dataclasses import dataclass, field
from pathlib import Path

try:
    import fcntl
except ImportError:  # Windows: no places shared between processes
    fcntl = None  # type: ignore[assignment]

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
SLOT_WAIT = 0.01  # seconds between looks for a place another process gave back
HUNGRY = 0.05  # seconds a call waits for a shared place before its process asks for a turn
_MARKS = 1 << 20  # where the bytes of processes that ask for a turn start, past the places
_PROCESSES = 4096  # bytes there, one for each process that asks


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


class Slots:
    """Places shared by the run's processes (pytest-xdist workers), for a `concurrency`
    that their shares would exceed: the bytes of one file, each locked by the process
    whose call holds it. The system drops a process's locks when it ends, crashed or not,
    so a killed worker holds none. A lock is the process's, not the call's: this process's
    own places are told apart here.

    Turns are shared too: a process whose call has waited HUNGRY seconds locks a byte of
    its own past the places, and one that gives a place back while another's is locked
    takes none for a moment (else it would take every place again at once, the others
    looking for one every SLOT_WAIT seconds)."""

    def __init__(self, path: Path, count: int) -> None:
        self.count = count
        self._fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)  # open till the engine closes
        self._held: set[int] = set()  # (on the engine's loop alone)
        self._hungry = 0  # this process's calls that have waited HUNGRY seconds
        self._mark: int | None = None  # the byte this process locks while they wait
        self._after = 0.0  # no place taken before (time.monotonic()): another's turn

    @classmethod
    def in_folder(cls, folder: Path, provider: Hashable, count: int) -> Slots | None:
        """The places of `provider` in `folder` (the run's ledgers); None where files cannot
        be locked, or where the folder is not (a worker on another machine)."""
        if fcntl is None or not folder.is_dir():
            return None
        digest = hashlib.sha256(repr(provider).encode("utf-8", "surrogatepass")).hexdigest()
        try:
            return cls(folder / f"{digest[:32]}.places", count)
        except OSError:
            return None

    def take(self) -> bool:
        """Take a free place, if there is one and it is this process's turn; whether one
        was taken."""
        if self._hungry and self._mark is None:
            self._mark = next(
                (b for b in range(_MARKS, _MARKS + _PROCESSES) if self._lock(b)), None
            )
        if time.monotonic() < self._after:
            return False
        for place in range(self.count):
            if place not in self._held and self._lock(place):
                self._held.add(place)
                return True
        return False

    def give_back(self) -> None:
        """Give back a place this process holds (any: they are alike)."""
        if self._held:
            self._unlock(self._held.pop())
            if self._others_hungry():
                self._after = time.monotonic() + 3 * SLOT_WAIT

    def hungry(self, more: int) -> None:
        """`more` (1 or -1) of this process's calls have waited HUNGRY seconds for a place."""
        self._hungry += more
        if not self._hungry and self._mark is not None:
            self._unlock(self._mark)
            self._mark = None

    def close(self) -> None:
        with contextlib.suppress(OSError):
            os.close(self._fd)

    def _others_hungry(self) -> bool:
        mine = self._mark if self._mark is not None else _MARKS + _PROCESSES
        for start, end in ((_MARKS, mine), (mine + 1, _MARKS + _PROCESSES)):
            if end > start:
                if not self._lock(start, end - start):  # another process holds a mark there
                    return True
                self._unlock(start, end - start)
        return False

    def _lock(self, start: int, length: int = 1) -> bool:
        try:
            fcntl.lockf(self._fd, fcntl.LOCK_EX | fcntl.LOCK_NB, length, start)
        except OSError:  # another process holds it
            return False
        return True

    def _unlock(self, start: int, length: int = 1) -> None:
        with contextlib.suppress(OSError):
            fcntl.lockf(self._fd, fcntl.LOCK_UN, length, start)


class Gate:
    """At most `capacity` calls in flight, let in first come first served; with `slots`,
    each also takes one of the places shared with the run's other processes. The capacity
    can be lowered while calls hold it: those in flight finish, and no more are let in
    until they are under it."""

    def __init__(self, capacity: int) -> None:
        self.capacity = capacity
        self.held = 0
        self.slots: Slots | None = None
        self._waiting: collections.deque[asyncio.Future[None]] = collections.deque()

    def lower(self, capacity: int) -> None:
        self.capacity = min(self.capacity, capacity)

    async def __aenter__(self) -> None:
        await self._enter()
        slots = self.slots
        if slots is None:
            return
        waited, hungry = 0.0, False
        try:
            while not slots.take():
                if waited >= HUNGRY and not hungry:
                    hungry = True
                    slots.hungry(1)
                await asyncio.sleep(SLOT_WAIT)
                waited += SLOT_WAIT
        except BaseException:  # cancelled while it waited: its place here is given back
            self._release()
            raise
        finally:
            if hungry:
                slots.hungry(-1)

    async def _enter(self) -> None:
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
        if self.slots is not None:
            self.slots.give_back()
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
    run's `processes` takes its share of them), and whether they are made at all. Where
    the shares, rounded up, add up to more than `concurrency`, the processes also share
    its places, through `slots()` (when they can)."""

    gate: Gate
    rpm: Pacer | None = None
    tpm: Pacer | None = None
    breaker: Breaker = field(default_factory=Breaker)
    tokens_out: float = 0.0  # answers' tokens seen so far, to guess the next answer's
    answers: int = 0
    slots: Callable[[int], Slots | None] | None = None  # the run's shared places, if any

    @classmethod
    def of(
        cls,
        limits: Limits,
        processes: int = 1,
        slots: Callable[[int], Slots | None] | None = None,
    ) -> Lane:
        lane = cls(Gate(limits.concurrency), slots=slots)
        lane.tighten(limits, processes)
        return lane

    def tighten(self, limits: Limits, processes: int = 1) -> None:
        """Keep to `limits` too, where they are lower than the ones kept so far."""
        n = processes
        share = max(1, -(-limits.concurrency // n))  # rounded up: never 0
        self.gate.lower(share)
        self.rpm = _slowest(self.rpm, limits.rpm / n if limits.rpm else None)
        self.tpm = _slowest(self.tpm, limits.tpm / n if limits.tpm else None)
        gate = self.gate
        if gate.slots is not None:
            gate.slots.count = min(gate.slots.count, limits.concurrency)
        elif share * n > limits.concurrency and self.slots is not None:
            gate.slots, self.slots = self.slots(limits.concurrency), None  # looked for once

    def close(self) -> None:
        if self.gate.slots is not None:
            self.gate.slots.close()

    def expected_tokens(self, request: Request) -> float:
        """Tokens a call will use: its input, and an answer as long as the mean so far
        (before any answer, as long as the input)."""
        given = sum(_estimate(content_text(m.get("content", ""))) for m in request.messages)
        return given + (self.tokens_out / self.answers if self.answers else given)
