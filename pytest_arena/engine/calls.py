"""Model calls run ahead of pytest's items on one event loop in a background thread.

pytest's own protocol stays sequential on the main thread. Before the first item runs, the
calls of every selected item are started here (as far as each model's limits allow); each item
then waits for its own result. All model calls run on this loop; a plain-function agent's or
tool's own code runs on threads of its own (engine.user_threads).

The loop beats every BEAT seconds. Code that blocks it (an `async def` agent or tool that
calls `time.sleep`) stops every call and every timeout on it: once it has not beaten for
a call's timeout and QUIET seconds more (STALL_LIMIT at most), the call waited for ends
with an error that says so, and closing the engine does not wait for it. Each call's own
stretches on the loop are timed: one that blocked it past its timeout fails, saying so,
even if it then answered, and the time other calls blocked it for is not counted in a
call's latency.

A plain-function agent's call that times out runs on in its thread (Python cannot stop
it): it is not tried again, and keeps its place among the model's `concurrency` calls
until it returns, or for one more timeout at most.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import copy
import functools
import random
import sys
import threading
import time
import types
from collections.abc import (
    AsyncIterator,
    Awaitable,
    Callable,
    Coroutine,
    Generator,
    Hashable,
    Iterator,
)
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, TypeVar

from pytest_arena.cache import (
    CacheError,
    CacheMode,
    ReplayMiss,
    ResponseCache,
    UncacheableKey,
    canonical_json,
    key_parts,
)
from pytest_arena.connectors.base import Connector, ConnectorError, Request, Response
from pytest_arena.engine.budget import Budget, cut_short, refusal_of, uncounted
from pytest_arena.engine.ledger import Ledger
from pytest_arena.engine.limits import Lane, Limits, Slots
from pytest_arena.engine.tool_loop import ToolSet, Turn, run_loop
from pytest_arena.engine.user_threads import Work, left_running, not_user_code
from pytest_arena.engine.workspaces import SAFE, new_run_folder
from pytest_arena.spec.errors import raised

T = TypeVar("T")
THREAD_NAME = "arena-engine"
MAX_BACKOFF = 30.0
MAX_RETRY_AFTER = 60.0  # seconds a server's Retry-After may ask for; longer ends the call
REPLAY_UNCACHED = (
    "not called: the model has 'cache: false', so none of its answers is cached, and"
    " --arena-cache replay makes no call (strict and offline); fix: take 'cache: false' off"
    " the model, or run without --arena-cache replay"
)
BATCH = 64  # calls handed over to the loop's thread at once by `Engine.batch`
BEAT = 0.5  # seconds between the loop's heartbeats
STALL_LIMIT = 60.0  # seconds without a heartbeat after which the loop is taken as stuck
QUIET = 2.0  # seconds without a heartbeat after which closing stops waiting for the loop
STALLED = (
    "the engine's event loop has not run for {:g} s: code run on it blocks it (an async def"
    " agent or tool that calls time.sleep, a blocking client or a long computation); make"
    " that function a plain def (it then runs on a thread of its own), or await"
    " asyncio.sleep and async clients in it"
)
CALLED_OFF = "not started: called off before its turn came (its case went elsewhere)"
BLOCKING = 0.1  # seconds a call's stretch on the loop runs before it counts as blocking it
BLOCKED = (
    "the call blocked the engine's event loop for {:.1f} s, past the model's timeout of {:g} s,"
    " so no timeout could stop it (an async def agent that calls time.sleep, a blocking client"
    " or a long computation; every other call waited meanwhile); fix: make that function a"
    " plain def (it then runs on a thread of its own), or await asyncio.sleep and async"
    " clients in it"
)


@dataclass
class CallResult:
    """What became of one call: a response, an error, or a call never started."""

    response: Response | None = None
    error: str | None = None
    skipped: str | None = None  # why the call was not made (a spent budget)
    retries: int = 0
    cached: bool = False
    latency_ms: float = 0.0
    cost: float | None = 0.0  # None: the model's price is unknown
    cached_cost: float = 0.0  # of cost, a tool loop's turns the response cache answered
    warning: str | None = None  # the call worked, but something beside it did not
    trajectory: list[dict[str, Any]] | None = None  # the steps of a tool loop
    failure: str | None = None  # the loop ended without an answer (max_turns)
    cut_short: bool = False  # the error: a budget refused a tool loop's turn after one ran
    ends_run: BaseException | None = None  # the agent's pytest.exit(): see Engine.ends_run


_Started = tuple[Coroutine[Any, Any, "CallResult"], concurrent.futures.Future["CallResult"]]


class Start:
    """Whether a call submitted ahead has begun (taken its place among its model's calls in
    flight) or was called off before it did: pytest's thread calls off, the loop's begins,
    and the lock lets only one of them win."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.begun = False
        self.off = False

    def begin(self) -> bool:
        """Begin the call, unless it was called off; whether it has begun."""
        with self._lock:
            self.begun = self.begun or not self.off
            return self.begun

    def call_off(self) -> bool:
        """Call the call off, unless it has begun; whether it is off."""
        with self._lock:
            self.off = self.off or not self.begun
            return self.off


@dataclass
class Call:
    """A call submitted ahead: its future, and the budgets it is charged to."""

    future: concurrent.futures.Future[CallResult]
    budgets: tuple[Budget, ...] = ()
    timeout: float | None = None  # of one try: a loop stuck longer would have timed it out
    start: Start | None = None  # None: it cannot be called off


@dataclass
class Engine:
    """Runs model calls; `submit` starts one ahead, `call` makes one now and waits."""

    store: ResponseCache | None = None
    budget: Budget = field(default_factory=lambda: Budget(None, "--arena-max-cost"))
    workspace_root: Path | None = None  # agents' workspaces; made on first need by:
    make_workspace_root: Callable[[], Path] = field(default=lambda: new_run_folder())
    # a folder of ledgers shared with the run's other processes, and of models' places
    ledgers: Path | None = None
    processes: int = 1  # the run's processes (xdist workers); each takes a share of limits
    # what an agent raises that ends the run (pytest.exit()'s, given by the plugin): its call
    # is not tried again, and its result carries it to be raised on pytest's thread
    ends_run: tuple[type[BaseException], ...] = ()
    _loop: asyncio.AbstractEventLoop | None = None
    _thread: threading.Thread | None = None
    _lanes: dict[Hashable, Lane] = field(default_factory=dict)  # by provider
    _connectors: dict[int, Connector] = field(default_factory=dict)
    _tasks: set[asyncio.Future[Any]] = field(default_factory=set)
    # the cache's reads and writes, each on a thread of its own: off the loop, so a file
    # locked by another process holds up the calls that wait for it and no others
    _cache_reads: concurrent.futures.ThreadPoolExecutor | None = None
    _cache_writes: concurrent.futures.ThreadPoolExecutor | None = None
    _workspaces: int = 0
    _warmed: set[int] = field(default_factory=set)  # connectors warmed up, by id
    # calls made now that the cache keys, by their key: a call with the same key waits
    _in_flight: dict[str, asyncio.Future[CallResult]] = field(default_factory=dict)
    _ledgers: list[Ledger] = field(default_factory=list)
    _batch: list[_Started] | None = None  # calls not yet handed over, in `batch`
    _handed_over: bool = False  # a call went to the loop: till then a batch sends its first at once
    _beat: float = 0.0  # when the loop last beat (time.monotonic())
    _blocked: float = 0.0  # seconds calls' stretches of BLOCKING or more held the loop, in all
    closed: bool = False
    # tries that `close` cut off in flight: asked of their model, not answered, and perhaps
    # billed all the same (a provider may charge for what it had generated)
    cut_off: int = 0

    # -- the main thread's side -------------------------------------------------------------

    def new_budget(self, max_cost: float | None, source: str) -> Budget:
        """A budget named `source`; a capped one shares its ledger with the run's other
        processes when they have one."""
        ledger = None
        if max_cost is not None and self.ledgers is not None:
            ledger = Ledger.in_folder(self.ledgers, source)
            if ledger is not None:
                self._ledgers.append(ledger)
        return Budget(max_cost, source, ledger)

    def submit(
        self,
        connector: Connector,
        request: Request,
        limits: Limits,
        budgets: tuple[Budget, ...] = (),
        tools: ToolSet | None = None,
        fresh: bool = False,
    ) -> Call:
        """Start a call ahead; the future resolves to a CallResult and never raises. With
        `tools` (and a connector that takes them), a tool loop of calls. `fresh`: the model
        is asked again whatever the cache holds, and its answer replaces the cached one (a
        rerun of a failed case; under --arena-cache replay the cache still answers)."""
        looping = tools is not None and bool(tools.tools) and connector.takes_tools
        if (connector.wants_workspace or looping) and self.workspace_root is None:
            try:
                self.workspace_root = self.make_workspace_root()  # on this thread, not the loop's
            except OSError as error:  # an unwritable --basetemp: each such call fails, saying so
                said = (
                    f"no folder for the agents' workspaces could be made ({error}): give"
                    " --basetemp a folder this user may write"
                )
                return Call(self._run(_settled(CallResult(error=said))), budgets, limits.timeout)
        every, start = (self.budget, *budgets), Start()
        if looping:
            assert tools is not None
            work = functools.partial(
                self._turns, connector, request, limits, every, tools, fresh, start
            )
        else:
            work = functools.partial(
                self._attempts, connector, request, limits, every, fresh, start
            )
        future = self._run(self._guarded(work))
        return Call(future, budgets, limits.timeout, start)

    def call_off(self, call: Call) -> bool:
        """Call off `call` if it has not begun (it waits for its place among the model's
        calls in flight, or for the loop's thread): it then asks nothing, and ends skipped
        once its turn comes; whether it is off. One that has begun runs on."""
        return call.start is not None and call.start.call_off()

    def call(
        self,
        connector: Connector,
        request: Request,
        limits: Limits,
        budgets: tuple[Budget, ...] = (),
        tools: ToolSet | None = None,
        fresh: bool = False,
    ) -> CallResult:
        """Make a call now and wait for it; cheap inline calls stay on this thread (unless
        the model is cached: the cache is read and written on the engine's side). `fresh`:
        as for `submit`."""
        all_budgets = (self.budget, *budgets)
        cached = self.store is not None and limits.cache
        if (
            connector.is_inline()
            and not cached
            and not (tools and tools.tools and connector.takes_tools)
        ):
            return self._inline(connector, request, all_budgets)
        return self.wait(self.submit(connector, request, limits, budgets, tools, fresh))

    def warm_up(self, connector: Connector) -> None:
        """Start the loop's thread now and let `connector` load what its calls need there,
        so that the first call, once items are selected, does not wait for it. Once per
        connector; nothing for inline ones."""
        if self.closed or connector.is_inline() or id(connector) in self._warmed:
            return
        self._warmed.add(id(connector))
        self._start().call_soon_threadsafe(_quietly, connector.warm_up)

    def wait(self, call: Call) -> CallResult:
        """The call's result; an error instead if the loop is stuck (`stalled`)."""
        while True:
            stalled = self.stalled(call)
            if stalled is not None and not call.future.done():
                return CallResult(error=stalled)
            with contextlib.suppress(concurrent.futures.TimeoutError):
                return call.future.result(timeout=BEAT)

    def stalled(self, call: Call | None = None) -> str | None:
        """Why calls on the loop cannot end, once it has not beaten for STALL_LIMIT s, or
        for `call`'s timeout and QUIET more if that is sooner (the timeout needs the loop)."""
        limit = STALL_LIMIT
        if call is not None and call.timeout is not None:
            limit = min(limit, call.timeout + QUIET)
        if self._loop is None or time.monotonic() - self._beat < limit:
            return None
        where = self._blocking_code()
        return STALLED.format(limit) + (f" (it is running {where} now)" if where else "")

    def _blocking_code(self) -> str:
        """Where the loop's thread is now, in the user's own code (not Python's, nor an
        installed package's, nor ours): the function the loop runs that blocks it, and the
        one inside it where it is, if they are the user's."""
        thread = self._thread
        frames = getattr(sys, "_current_frames", None)  # CPython's, documented
        frame = frames().get(thread.ident) if frames and thread and thread.ident else None
        found = []  # the user's frames, the innermost first
        while frame is not None:
            file = frame.f_code.co_filename
            if not file.startswith(not_user_code()):
                found.append(f"{frame.f_code.co_name}() at {file}:{frame.f_lineno}")
            frame = frame.f_back
        if len(found) > 1:  # the async def the loop runs, and where it is inside it
            return f"{found[-1]}, in {found[0]}"
        return found[0] if found else ""

    @contextlib.contextmanager
    def batch(self) -> Iterator[None]:
        """Hand the calls submitted inside over to the loop's thread BATCH at a time (the
        run's first call at once): one wake-up of that thread for each BATCH calls, not one
        each."""
        if self._batch is not None:  # already in one
            yield
            return
        self._batch = []
        try:
            yield
        finally:
            self._flush()
            self._batch = None

    def _flush(self) -> None:
        batch, self._batch = self._batch or [], []
        if not batch:
            return
        self._handed_over = True
        if self.closed:
            for coroutine, future in batch:
                coroutine.close()
                future.set_result(CallResult(skipped="the run is stopping; call not started"))
            return
        self._start().call_soon_threadsafe(self._begin, batch)

    def close(self) -> None:
        """Cancel every pending call, release the connectors, stop the loop's thread, close
        the cache and the ledgers."""
        self.closed = True
        for ledger in self._ledgers:
            ledger.close()
        loop, thread = self._loop, self._thread
        if loop is None or thread is None:
            if self.store is not None:
                self.store.close()
            return
        done = asyncio.run_coroutine_threadsafe(self._shutdown(), loop)
        self._while_beating(lambda s: not concurrent.futures.wait([done], s).not_done, 30)
        loop.call_soon_threadsafe(loop.stop)
        self._while_beating(functools.partial(_joined, thread), 30)
        if not thread.is_alive():  # else stuck in code that never returns: left to the exit
            loop.close()
            for lane in self._lanes.values():
                lane.close()
        self._loop = self._thread = None
        for pool in (self._cache_reads, self._cache_writes):
            if pool is not None:  # a write under way finishes: its answer was paid for
                pool.shutdown(wait=True, cancel_futures=True)
        if self.store is not None:
            self.store.close()

    def _inline(
        self, connector: Connector, request: Request, budgets: tuple[Budget, ...]
    ) -> CallResult:
        blind = _uncounted(connector, budgets)
        if blind is not None:
            return CallResult(error=blind)
        refusal = refusal_of(budgets)
        if refusal is not None:
            return CallResult(skipped=refusal)
        started = time.perf_counter()
        try:
            response = connector.complete(request)
        except Exception as exc:
            return CallResult(error=raised(exc), latency_ms=_ms_since(started))
        return self._account(connector, response, _ms_since(started), 0, budgets)

    def _run(
        self, coroutine: Coroutine[Any, Any, CallResult]
    ) -> concurrent.futures.Future[CallResult]:
        future: concurrent.futures.Future[CallResult]
        if self.closed:
            coroutine.close()
            future = concurrent.futures.Future()
            future.set_result(CallResult(skipped="the run is stopping; call not started"))
            return future
        if self._batch is not None:
            future = concurrent.futures.Future()
            self._batch.append((coroutine, future))
            if len(self._batch) >= BATCH or not self._handed_over:  # the first call: at once
                self._flush()
            return future
        loop = self._start()
        self._handed_over = True
        return asyncio.run_coroutine_threadsafe(self._tracked(coroutine), loop)

    def _while_beating(self, wait: Callable[[float], bool], seconds: float) -> None:
        """`wait(t)` (which waits up to t seconds and says whether what it waits for is
        done) again and again, at most `seconds`, and no longer than the loop beats."""
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline and time.monotonic() - self._beat <= QUIET:
            if wait(BEAT):
                return

    def _start(self) -> asyncio.AbstractEventLoop:
        if self._loop is None:
            loop = new_loop()
            ready = threading.Event()

            def run() -> None:
                asyncio.set_event_loop(loop)
                loop.call_soon(ready.set)
                loop.call_soon(self._heartbeat)
                while True:
                    try:
                        loop.run_forever()
                        return  # stopped: the run is over
                    except (SystemExit, KeyboardInterrupt):
                        # a task of the user's code raised it (Ctrl-C reaches pytest's thread
                        # only), and holds it for what awaits it: the loop goes on
                        continue

            self._beat = time.monotonic()
            self._thread = threading.Thread(target=run, name=THREAD_NAME, daemon=True)
            self._thread.start()
            ready.wait()
            self._loop = loop
        return self._loop

    # -- the loop's side --------------------------------------------------------------------

    def _heartbeat(self) -> None:
        self._beat = time.monotonic()
        asyncio.get_running_loop().call_later(BEAT, self._heartbeat)

    def _begin(self, batch: list[_Started]) -> None:
        """Start a batch's calls; each task settles its future when it ends."""
        loop = asyncio.get_running_loop()
        for coroutine, future in batch:
            task = loop.create_task(self._tracked(coroutine))
            task.add_done_callback(functools.partial(_settle, future))

    async def _tracked(self, coroutine: Coroutine[Any, Any, T]) -> T:
        task = asyncio.current_task()
        assert task is not None
        self._tasks.add(task)
        try:
            return await coroutine
        finally:
            self._tasks.discard(task)

    async def _shutdown(self) -> None:
        current = asyncio.current_task()
        pending = [t for t in self._tasks if t is not current and not t.done()]
        for task in pending:
            task.cancel()
        if pending:
            await asyncio.wait(pending, timeout=20)
        for connector in self._connectors.values():
            with contextlib.suppress(Exception, asyncio.CancelledError):
                await asyncio.wait_for(connector.aclose(), timeout=5)

    def _lane(self, connector: Connector, limits: Limits) -> Lane:
        """The lane of the connector's provider, shared by every project's model keys that
        reach it, under the lowest limits any of them gives."""
        provider = connector.provider()
        lane = self._lanes.get(provider)
        if lane is None:
            folder = self.ledgers
            slots = None if folder is None else functools.partial(Slots.in_folder, folder, provider)
            lane = self._lanes[provider] = Lane.of(limits, self.processes, slots)
            lane.breaker.reason = connector.preflight()  # before its first call
        else:
            lane.tighten(limits, self.processes)
        self._connectors.setdefault(id(connector), connector)
        return lane

    async def _guarded(self, attempts: Callable[[], Awaitable[CallResult]]) -> CallResult:
        """`attempts()`, its end whatever happens: a CallResult, never an exception."""
        try:
            return await attempts()
        except asyncio.CancelledError:
            return CallResult(skipped="the run stopped before this call finished")
        except Exception as exc:  # a bug here must end as a failed case, not a hang
            return CallResult(error=f"internal error in the arena engine: {raised(exc)}")

    async def _turns(
        self,
        connector: Connector,
        request: Request,
        limits: Limits,
        budgets: tuple[Budget, ...],
        tools: ToolSet,
        fresh: bool = False,
        start: Start | None = None,
    ) -> CallResult:
        """The tool loop: each turn a call as `_attempts` makes it; the tools offered in the
        request run in the case's workspace. `start`: the first turn's."""
        if request.workspace is None:
            request.workspace = self._workspace(request)

        ends_run: list[BaseException] = []
        first = [start]  # a later turn is never called off: the loop has begun

        async def ask(turn_request: Request) -> Turn:
            own = first.pop() if first else None
            r = await self._attempts(connector, turn_request, limits, budgets, fresh, own)
            if r.ends_run is not None:
                ends_run.append(r.ends_run)
            return Turn(r.response, r.error, r.skipped, r.retries, r.cached, r.latency_ms, r.cost)

        done = await run_loop(ask, request, tools)
        last = done.last
        error, skipped, stopped = last.error, last.skipped, False
        if last.skipped is not None and done.trajectory:  # a budget refused a later turn:
            # the case started (not "not started"), and what its turns did and cost is its own
            error, skipped = cut_short(last.skipped, len(done.trajectory)), None
            stopped = True
        result = CallResult(
            error=error,
            skipped=skipped,
            retries=done.retries,
            cached=done.cached,
            latency_ms=done.latency_ms,
            cost=done.cost,
            cached_cost=done.cached_cost,
            trajectory=done.trajectory,
            failure=done.failure,
            cut_short=stopped,
            ends_run=ends_run[0] if ends_run else None,
        )
        if last.response is not None:
            result.response = replace(
                last.response, tokens_in=done.tokens_in, tokens_out=done.tokens_out
            )
            result.response.meta = {**last.response.meta, "workspace": str(request.workspace)}
        return result

    async def _attempts(
        self,
        connector: Connector,
        request: Request,
        limits: Limits,
        budgets: tuple[Budget, ...],
        fresh: bool = False,
        start: Start | None = None,
    ) -> CallResult:
        """One call, tried again as the model's limits allow; `start`, if given, is begun
        once the call has its place (unless it was called off: then it asks nothing)."""
        if not limits.cache and connector.cacheable and self._replaying():
            # strict and offline: a model cached by default but kept out of the cache would
            # be called (and paid) live, its answers unlike those of the run replayed
            return CallResult(error=REPLAY_UNCACHED)
        store = self.store if limits.cache else None
        parts = key_parts(connector, request) if store is not None else {}
        fresh = fresh and store is not None and store.mode is CacheMode.USE
        if store is not None and not fresh:
            try:
                hit = await self._on_cache_thread(False, store.get, parts)
            except ReplayMiss as miss:
                return CallResult(error=str(miss))
            except (CacheError, UncacheableKey) as exc:
                return CallResult(error=str(exc))
            if hit is not None:
                return CallResult(
                    hit,
                    cached=True,
                    retries=hit.retries,
                    latency_ms=hit.latency_ms or 0.0,
                    cost=connector.cost_of(hit),
                )
            # the same call in flight for another case (the same messages, params and
            # sample): its answer is this one's, as the cache would give it once stored; if
            # that call fails, this one is made on its own
            token = canonical_json(parts)
            leader = self._in_flight.get(token)
            if leader is not None:
                shared = await asyncio.shield(leader)
                if shared.response is not None:
                    return CallResult(
                        copy.deepcopy(shared.response),
                        cached=True,
                        latency_ms=0.0,
                        cost=connector.cost_of(shared.response),
                    )
            else:  # the first: the others with its key wait for it
                mine: asyncio.Future[CallResult] = asyncio.get_running_loop().create_future()
                self._in_flight[token] = mine
                result = CallResult(error="not made")
                try:
                    result = await self._made(
                        connector, request, limits, budgets, fresh, start, store, parts
                    )
                    return result
                finally:
                    del self._in_flight[token]
                    mine.set_result(result)
        return await self._made(connector, request, limits, budgets, fresh, start, store, parts)

    async def _made(
        self,
        connector: Connector,
        request: Request,
        limits: Limits,
        budgets: tuple[Budget, ...],
        fresh: bool,
        start: Start | None,
        store: ResponseCache | None,
        parts: dict[str, Any],
    ) -> CallResult:
        """The call made (not answered by the cache): tried again as the model's limits
        allow, its answer stored in `store` under `parts`."""
        lane = self._lane(connector, limits)
        breaker = lane.breaker
        retries = 0  # tries repeated so far: a retry counts once it is made
        again = False  # the next try repeats a failed one
        made = False  # request.workspace is one this call made (not a hook's)
        tried = False  # a try was made

        def failed(error: str, ends_run: BaseException | None = None) -> CallResult:
            """The call failed: what its tries cost a model without a price is unknown."""
            cost = None if tried and connector.price is None else 0.0
            return CallResult(error=error, retries=retries, cost=cost, ends_run=ends_run)

        while True:
            if breaker.reason is not None:
                return failed(breaker.reason)
            async with self._place(lane, limits) as left:
                if breaker.reason is not None:  # opened while this call waited its turn
                    return failed(breaker.reason)
                if start is not None and not start.begin():  # its case went elsewhere
                    return CallResult(skipped=CALLED_OFF)
                blind = _uncounted(connector, budgets)
                if blind is not None:
                    return failed(blind)
                refusal = refusal_of(budgets)
                if refusal is not None:
                    return CallResult(skipped=refusal, retries=retries)
                if lane.rpm is not None:
                    await lane.rpm.take(1)
                estimate = lane.expected_tokens(request) if lane.tpm is not None else 0.0
                if lane.tpm is not None:
                    await lane.tpm.take(estimate)
                if lane.rpm is not None or lane.tpm is not None:
                    # the calls answered while this one waited its slot may have spent the
                    # budget: looked at again, or every paced call would be sent regardless
                    refusal = refusal_of(budgets)
                    if refusal is not None:
                        return CallResult(skipped=refusal, retries=retries)
                if connector.wants_workspace and (request.workspace is None or (again and made)):
                    # a fresh one per try: a try that timed out may still write in its own
                    request.workspace, made = self._workspace(request), True
                if again:
                    retries += 1
                started = time.perf_counter()
                blocked_before = self._blocked
                own = _OnLoop()
                answered: CallResult | None = None
                unreachable = False
                tried = True
                timeout = limits.timeout
                with left_running() as handed:
                    try:
                        timed = _timed(connector.acomplete(request), own, self._count_blocked)
                        response = await _within(timed, timeout)
                    except asyncio.CancelledError:
                        if self.closed:  # the run stopped (-x, Ctrl-C) with this try asked
                            self.cut_off += 1
                        raise
                    except ConnectorError as exc:
                        if isinstance(exc.__cause__, self.ends_run):
                            return failed(str(exc), exc.__cause__)
                        failure, retryable, wait = str(exc), exc.retryable, exc.retry_after
                        unreachable = exc.unreachable
                        if not unreachable:
                            breaker.replied()
                    except asyncio.TimeoutError:
                        left.extend(work for work in handed if work.running)
                        failure = _no_answer(timeout, connector, left)
                        # one still running is not run beside itself: not tried again
                        retryable, wait = not left, None
                    except Exception as exc:
                        failure, retryable, wait = raised(exc), False, None
                    else:
                        breaker.replied()
                        # the time the call took: less what other calls blocked the loop for
                        others = max(0.0, self._blocked - blocked_before - own.blocked)
                        took = time.perf_counter() - started - others
                        if timeout is not None and own.blocked > timeout:
                            # its own code held the loop past its timeout, which could not
                            # fire: a timeout all the same, though it answered
                            failure = BLOCKED.format(own.blocked, timeout)
                            retryable, wait = True, None
                        elif timeout is not None and took > timeout + BLOCKING:
                            # answered past its timeout, which a loop held by other code
                            # could not keep
                            failure = _no_answer(timeout, connector, [])
                            retryable, wait = True, None
                        else:
                            if lane.tpm is not None:
                                lane.tokens_out += response.tokens_out
                                lane.answers += 1
                                lane.tpm.owe(response.tokens_in + response.tokens_out - estimate)
                            answered = self._account(
                                connector, response, took * 1000, retries, budgets
                            )
            if answered is not None:  # stored with the model's place in flight given back
                if store is not None:
                    try:
                        await self._on_cache_thread(
                            True, store.put, parts, answered.response, fresh
                        )
                    except (CacheError, ValueError) as exc:  # not stored; the answer is kept
                        answered.warning = str(exc)
                return answered
            last_try = not retryable or retries >= limits.max_retries
            said, fix = _fix_apart(failure)
            if unreachable:
                broken = breaker.reason is None
                breaker.cannot_connect(said, retries, last_try)
                if breaker.reason is not None:
                    if broken:  # opened now: the fix goes after the breaker's words
                        breaker.reason += fix
                    return failed(breaker.reason)
            if last_try:
                tries = f" after {retries + 1} tries" if retries else ""
                return failed(f"{said}{tries}{fix}")
            if wait is not None and wait > MAX_RETRY_AFTER:  # an hour, say: the run would hang
                return failed(
                    f"{failure}; the server asks for {wait:.0f} s before another try,"
                    f" more than the {MAX_RETRY_AFTER:g} s arena waits"
                )
            delay = wait if wait is not None else _backoff(limits.backoff, retries)
            again = True
            await asyncio.sleep(delay)

    def _replaying(self) -> bool:
        return self.store is not None and self.store.mode is CacheMode.REPLAY

    async def _on_cache_thread(self, writes: bool, work: Callable[..., T], *args: Any) -> T:
        """`work(*args)` on the cache's thread for reads or for writes."""
        pool = self._cache_writes if writes else self._cache_reads
        if pool is None:
            name = "arena-cache-writes" if writes else "arena-cache-reads"
            pool = concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix=name)
            if writes:
                self._cache_writes = pool
            else:
                self._cache_reads = pool
        return await asyncio.get_running_loop().run_in_executor(pool, work, *args)

    @contextlib.asynccontextmanager
    async def _place(self, lane: Lane, limits: Limits) -> AsyncIterator[list[Work]]:
        """A place among the lane's calls in flight (`async with lane.gate`), given back at
        the end; but a call that leaves work running (a plain function that timed out: the
        list it fills) keeps it until that work ends, a timeout more at most."""
        left: list[Work] = []
        await lane.gate.__aenter__()
        try:
            yield left
        finally:
            if left and limits.timeout is not None:
                kept = self._kept(lane, left, limits.timeout, limits.concurrency == 1)
                self._tasks.add(asyncio.get_running_loop().create_task(self._tracked(kept)))
            else:
                await lane.gate.__aexit__(None, None, None)

    async def _kept(self, lane: Lane, left: list[Work], timeout: float, alone: bool) -> None:
        """Give the place back once `left` has ended; if it runs on `timeout` s later and
        the model is called `alone` (`concurrency: 1`), its calls are no longer made: they
        would run beside it."""
        try:
            await asyncio.wait([work.ended for work in left], timeout=timeout)
            running = [work for work in left if work.running]
            if running and alone and lane.breaker.reason is None:
                where = next((at for work in running if (at := work.where())), "")
                lane.breaker.reason = (
                    f"not called: a call of this model that timed out is still running"
                    f" {timeout:g} s later{f', at {where}' if where else ''}; with concurrency:"
                    " 1 it is not called again beside it; fix: see what it waits for there (a"
                    " lock, a queue, a server that does not answer), or raise timeout: in"
                    " models.define if it is that slow"
                )
        finally:
            await lane.gate.__aexit__(None, None, None)

    def _count_blocked(self, seconds: float) -> None:
        self._blocked += seconds

    def _account(
        self,
        connector: Connector,
        response: Response,
        measured: float,
        retries: int,
        budgets: tuple[Budget, ...],
    ) -> CallResult:
        """The result of an answered call; `measured`: the milliseconds it took."""
        if response.latency_ms is None:
            response.latency_ms = measured
        response.retries = retries
        cost = connector.cost_of(response)
        for budget in budgets:
            budget.charge(cost or 0.0)  # an unknown price cannot count against a budget
        return CallResult(response, retries=retries, latency_ms=response.latency_ms, cost=cost)

    def _workspace(self, request: Request) -> Path:
        if self.workspace_root is None:
            self.workspace_root = self.make_workspace_root()
        self._workspaces += 1
        name = SAFE.sub("_", f"{request.case.project}-{request.case.id}-{request.model}")
        name = name[:WORKSPACE_NAME_MOST]  # a folder's name has at most 255 bytes (ASCII here)
        path = self.workspace_root / f"{self._workspaces:05d}-{name}-{request.sample}"
        path.mkdir(parents=True)
        return path


def _uncounted(connector: Connector, budgets: tuple[Budget, ...]) -> str | None:
    """Why this call is not made: a capped budget could not count what it costs."""
    if connector.price is not None:
        return None
    return uncounted(budgets, connector.key, connector.billed_by_tokens)


# characters of project, case and model in a workspace's name (its number keeps it unique)
WORKSPACE_NAME_MOST = 200


def _joined(thread: threading.Thread, seconds: float) -> bool:
    thread.join(seconds)
    return not thread.is_alive()


async def _within(call: Awaitable[Response], seconds: float | None) -> Response:
    """`await call`, cancelled after `seconds` (asyncio.TimeoutError). On Python 3.11 and
    later without a task of its own, which wait_for makes for every call."""
    if sys.version_info >= (3, 11):
        async with asyncio.timeout(seconds):
            return await call
    return await asyncio.wait_for(_awaited(call), seconds)


async def _awaited(call: Awaitable[T]) -> T:
    return await call


@dataclass
class _OnLoop:
    """The seconds a call's code held the engine's loop in stretches of BLOCKING or more."""

    blocked: float = 0.0


@types.coroutine
def _timed(
    call: Coroutine[Any, Any, T], own: _OnLoop, blocked: Callable[[float], None]
) -> Generator[Any, Any, T]:
    """`await call`, timing each stretch it runs on the loop (from one await that waits to
    the next): one of BLOCKING or more blocked every other call, and is counted in `own`
    and told to `blocked`."""
    sent: Any = None
    thrown: BaseException | None = None
    while True:
        began = time.perf_counter()
        try:
            waits_for = call.send(sent) if thrown is None else call.throw(thrown)
        except StopIteration as done:  # its end
            _stretch(time.perf_counter() - began, own, blocked)
            return done.value  # type: ignore[no-any-return]
        except BaseException:
            _stretch(time.perf_counter() - began, own, blocked)
            raise
        _stretch(time.perf_counter() - began, own, blocked)
        try:
            sent, thrown = (yield waits_for), None
        except GeneratorExit:
            call.close()
            raise
        except BaseException as exc:  # a cancellation: the call's to handle
            sent, thrown = None, exc


def _stretch(seconds: float, own: _OnLoop, blocked: Callable[[float], None]) -> None:
    if seconds >= BLOCKING:
        own.blocked += seconds
        blocked(seconds)


def _no_answer(timeout: float | None, connector: Connector, left: list[Work]) -> str:
    """Why a call that timed out failed; `left`: its work still running (a plain function
    on its thread), whose place in its code is said."""
    said = f"no answer within {timeout:g} s (the model's timeout){_from(connector)}"
    if not left:
        return f"{said}; fix: raise timeout: in models.define if the model is that slow"
    where = next((at for work in left if (at := work.where())), "")
    return (
        f"{said}; its function is still running{f', at {where}' if where else ''} (Python"
        " cannot stop a thread), so it is not tried again; fix: see what it waits for there"
        " (a lock, a queue, a server that does not answer), or raise timeout: in"
        " models.define if it is that slow"
    )


def new_loop() -> asyncio.AbstractEventLoop:
    """The engine's event loop: uvloop's where it is installed (`pip install
    'pytest-arena[uvloop]'`, not on Windows), asyncio's own otherwise. uvloop reads and
    writes the sockets in C, so the engine's thread lets go of the interpreter's lock, and
    takes it back from pytest's thread, fewer times a call."""
    if sys.platform != "win32":
        try:
            import uvloop
        except Exception:  # not installed, or broken: asyncio's loop does the same work
            pass
        else:
            loop: asyncio.AbstractEventLoop = uvloop.new_event_loop()
            return loop
    return asyncio.new_event_loop()


def _settle(future: concurrent.futures.Future[CallResult], task: asyncio.Task[CallResult]) -> None:
    """Give `future` the outcome of the task that ran its call (on the loop's thread)."""
    if task.cancelled():
        future.cancel()
        return
    future.set_running_or_notify_cancel()
    error = task.exception()
    if error is not None:
        future.set_exception(error)
    else:
        future.set_result(task.result())


def _quietly(warm_up: Callable[[], None]) -> None:
    """A warm-up's failure is the first call's to say, with its case."""
    with contextlib.suppress(Exception):
        warm_up()


def _from(connector: Connector) -> str:
    """ " from HOST:PORT" for a connector that posts to a URL, else nothing."""
    url = getattr(connector, "url", None)
    if not isinstance(url, str):
        return ""
    from pytest_arena.connectors.http_api import _host

    return f" from {_host(url)}"


def _fix_apart(failure: str) -> tuple[str, str]:
    """`failure` apart from the "; fix: ..." it ends with, if any (kept last when words
    such as "after 3 tries" are added)."""
    said, sep, fix = failure.partition("; fix: ")
    return said, sep + fix


def _backoff(base: float, retries: int) -> float:
    """Exponential backoff with full jitter around it: base·2^n · [0.5, 1.5), capped."""
    return float(min(MAX_BACKOFF, base * 2**retries) * random.uniform(0.5, 1.5))


async def _settled(result: CallResult) -> CallResult:
    return result


def _ms_since(started: float) -> float:
    return (time.perf_counter() - started) * 1000


def direct(
    connector_for: Callable[[str], Connector], engine: Engine | None = None
) -> Callable[[str, Request], CallResult]:
    """A `(model key, request) -> CallResult` caller outside a run, with default limits.

    Without `engine`, each call gets an engine of its own, closed when the call is done.
    """

    def call(key: str, request: Request) -> CallResult:
        connector = connector_for(key)
        used = engine or Engine()
        try:
            return used.call(connector, request, Limits.of(None, connector))
        finally:
            if engine is None:
                used.close()

    return call
