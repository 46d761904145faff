"""Inside a pytest-xdist worker: model calls started ahead for the items queued for it, and
reports made fit to send to the controller.

xdist has no public API for a worker's queue; this reads its `WorkerInteractor.torun`
under the queue's own lock, and degrades to no look-ahead (the current and next item only)
should that ever change.
"""

from __future__ import annotations

from typing import Any

import pytest

from pytest_arena.record import encodable

LOOKAHEAD = 256  # queued items looked at per test; enough for any sane concurrency


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

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_protocol(self, item: pytest.Item, nextitem: pytest.Item | None) -> None:
        from pytest_arena.plugin.collect import start_ahead

        items = item.session.items
        queued = [items[i] for i in xdist_queue(self.config) if i < len(items)]
        start_ahead([item, *queued] if queued else [item, *([nextitem] if nextitem else [])])


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
