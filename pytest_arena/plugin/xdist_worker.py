"""Inside a pytest-xdist worker: model calls started ahead for the items queued for it, and
reports made fit to send to the controller.

xdist has no public API for a worker's queue; this reads its `WorkerInteractor.torun`
under the queue's own lock, and degrades to no look-ahead (the current and next item only)
should that ever change.

A `python` agent's calls are not started ahead: its code runs in the worker, and should it
crash the worker, xdist blames the item running then (and a new worker, given the same
queue, would crash on another). Under `--dist worksteal`, where another worker takes up to
half of the queue from its end, a worker starts ahead only the items at its start, no more
of a model's than its share of the model's `concurrency`, and calls off the calls not yet
begun of the items taken.
"""

from __future__ import annotations

import math
from collections.abc import Generator
from typing import Any

import pytest

from pytest_arena.plugin.state import EXIT_CODE
from pytest_arena.record import encodable

LOOKAHEAD = 256  # queued items looked at per test; enough for any sane concurrency
# xdist's worksteal takes up to half of a worker's items, counted with the current and next
# ones (this many), from the end of its queue
STOLEN_WITH = 2


def xdist_queue(config: pytest.Config) -> list[int]:
    """Indices into `session.items` that this worker will run next, in order."""
    interactor = _interactor(config)
    torun = getattr(interactor, "torun", None)
    lock = getattr(torun, "lock", None)
    if lock is None:
        return []
    try:
        with lock() as queue:
            head = [queue[i] for i in range(min(LOOKAHEAD, len(queue)))]
    except Exception:
        return []
    return [i for i in head if isinstance(i, int)]


def _interactor(config: pytest.Config) -> Any:
    for plugin in config.pluginmanager.get_plugins():
        if type(plugin).__name__ == "WorkerInteractor":
            return plugin
    return None


class WorkerLookahead:
    """In a pytest-xdist worker, starts the calls of the items queued for this worker."""

    def __init__(self, config: pytest.Config) -> None:
        self.config = config
        self.workers = int(getattr(config, "workerinput", {}).get("workercount", 1))
        # (the worker's own `dist` is "no": the run's is in the arguments as first read)
        dist = getattr(getattr(config, "known_args_namespace", None), "dist", None)
        self.stealing = dist == "worksteal"
        self.ahead: dict[int, pytest.Item] = {}  # queued items started ahead, by index

    @pytest.hookimpl(wrapper=True, tryfirst=True)
    def pytest_runtest_protocol(
        self, item: pytest.Item, nextitem: pytest.Item | None
    ) -> Generator[None, object, object]:
        """Start the calls ahead, then run the item. pytest.exit() in an arena item (its
        agent, scorer or hook) stops the run, as -x does under xdist: this worker after the
        item, the others after the items queued for them. Let through, it ended the worker,
        which xdist took for a crash of the item, and the run went on."""
        from pytest_arena.plugin.collect import ArenaItem

        self._start_ahead(item, nextitem)
        try:
            return (yield)
        except pytest.exit.Exception as stop:
            if not isinstance(item, ArenaItem):
                raise
            item.session.shouldstop = f"Exit: {stop.msg}"  # the controller stops with it
            output = getattr(self.config, "workeroutput", None)
            if output is not None:  # and exits with its returncode
                output[EXIT_CODE] = stop.returncode
            return True

    def _start_ahead(self, item: pytest.Item, nextitem: pytest.Item | None) -> None:
        from pytest_arena.plugin.collect import call_off, in_process, start_ahead

        items = item.session.items
        queue = [i for i in xdist_queue(self.config) if i < len(items)]
        call_off(self._taken(queue, item, nextitem))
        if self.stealing:  # its start alone: another worker takes items from its end
            queue = queue[: max(0, len(queue) - (len(queue) + STOLEN_WITH) // 2)]
        # the next item left the queue before this one ran: no other worker can take it
        head = [(-1, nextitem)] if nextitem is not None else []
        head += [(i, items[i]) for i in queue]
        ahead = [(i, queued) for i, queued in head if not in_process(queued)]
        if self.stealing:
            ahead = self._shares(ahead)
        self.ahead.update((i, queued) for i, queued in ahead if i >= 0)
        start_ahead([item, *(queued for _, queued in ahead)])

    def _taken(
        self, queue: list[int], item: pytest.Item, nextitem: pytest.Item | None
    ) -> list[pytest.Item]:
        """The items started ahead that left the queue without running here (another
        worker took them); forgets those that ran."""
        waiting = set(queue)
        taken = []
        for index, started in list(self.ahead.items()):
            if index in waiting or started is nextitem:
                continue
            del self.ahead[index]
            if started is not item:
                taken.append(started)
        return taken

    def _shares(self, head: list[tuple[int, pytest.Item]]) -> list[tuple[int, pytest.Item]]:
        """Of `head`, as many items of each model as its share of `concurrency` calls."""
        from pytest_arena.plugin.collect import ArenaItem

        kept = []
        counts: dict[tuple[str, str], int] = {}
        for index, queued in head:
            if isinstance(queued, ArenaItem) and not isinstance(queued.plan, str):
                key = (queued.project.name, queued.model)
                share = math.ceil(queued.project.limits(queued.model).concurrency / self.workers)
                counts[key] = counts.get(key, 0) + 1
                if counts[key] > share:
                    continue
            kept.append((index, queued))
        return kept


class SendableReports:
    """In a pytest-xdist worker, makes an arena item's report sendable: execnet refuses a
    string UTF-8 cannot encode, and a model's JSON can hold half of a surrogate pair."""

    def __init__(self, record_attr: str) -> None:
        self.record_attr = record_attr

    @pytest.hookimpl(wrapper=True)
    def pytest_report_to_serializable(self, report: Any) -> Any:
        data = yield
        if isinstance(data, dict) and getattr(report, self.record_attr, None) is not None:
            return encodable(data)
        return data
