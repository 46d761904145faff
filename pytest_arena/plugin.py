"""pytest hooks: wires collection, records and the leaderboard together."""

from __future__ import annotations

from collections.abc import Callable, Generator
from pathlib import Path

import pytest

from pytest_arena.cache import DEFAULT_CACHE_PATH, CacheMode, ResponseCache, default_cache_path
from pytest_arena.collect import MARKER, ArenaFile, ArenaItem, CaseError, start_ahead
from pytest_arena.engine import Budget, Engine
from pytest_arena.lookahead import WorkerLookahead
from pytest_arena.reports import session as reports
from pytest_arena.reports.junit import set_properties
from pytest_arena.reports.terminal import RECORD_ATTR, ArenaReporter
from pytest_arena.scorers.base import ScoringContext
from pytest_arena.spec import PROJECT_FILE
from pytest_arena.state import ArenaState
from pytest_arena.testing import scoring_context

REPORTER = "arena-reporter"
WORKER_LOOKAHEAD = "arena-worker-lookahead"


def pytest_addhooks(pluginmanager: pytest.PytestPluginManager) -> None:
    from pytest_arena import hookspecs

    pluginmanager.add_hookspecs(hookspecs)


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("arena", "pytest-arena: LLM and agent benchmarks")
    group.addoption(
        "--arena-models",
        action="store",
        default="",
        metavar="KEYS",
        help="comma-separated model keys to run every project on (default: each project's models)",
    )
    group.addoption(
        "--arena-max-cost",
        action="store",
        type=float,
        default=None,
        metavar="DOLLARS",
        help="stop starting model calls once the run has spent this much; the rest are skipped",
    )
    group.addoption(
        "--arena-cache",
        action="store",
        choices=[m.value for m in CacheMode],
        default=CacheMode.USE.value,
        help="the response cache: use (default), off, refresh (call again and store),"
        " replay (offline: a call not in the cache fails its case)",
    )
    group.addoption(
        "--arena-cache-path",
        action="store",
        default=None,
        metavar="PATH",
        help=f"the response cache's file (default: {DEFAULT_CACHE_PATH} under the rootdir)",
    )
    reports.add_options(group)


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        f"{MARKER}(project, model, tag): an arena case; select with"
        f" -m \"{MARKER}(model='sim_small')\" or -m \"{MARKER}(tag='math')\"",
    )
    raw: str = config.getoption("arena_models") or ""
    mode = CacheMode(config.getoption("arena_cache"))
    path = config.getoption("arena_cache_path") or default_cache_path(config.rootpath)
    engine = Engine(
        store=None if mode is CacheMode.OFF else ResponseCache(path, mode),
        budget=Budget(config.getoption("arena_max_cost"), "--arena-max-cost"),
    )
    state = ArenaState.install(config, [m.strip() for m in raw.split(",") if m.strip()], engine)
    config.pluginmanager.register(ArenaReporter(state), REPORTER)
    if hasattr(config, "workerinput"):
        config.pluginmanager.register(WorkerLookahead(config), WORKER_LOOKAHEAD)
    reports.register(config, state, RECORD_ATTR)


@pytest.fixture
def arena_context() -> Callable[..., ScoringContext]:
    """`arena_context(reference, options=..., ...)` builds a ScoringContext for a scorer test."""
    return scoring_context


def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> pytest.Collector | None:
    if file_path.name == PROJECT_FILE:
        return ArenaFile.from_parent(parent, path=file_path)
    return None


@pytest.hookimpl(wrapper=True)
def pytest_runtestloop(session: pytest.Session) -> Generator[None, object, object]:
    config = session.config
    stopping = session.testsfailed and not config.option.continue_on_collection_errors
    if not (config.option.collectonly or stopping or hasattr(config, "workerinput")):
        start_ahead(session.items)
    try:
        return (yield)
    finally:
        ArenaState.of(config).engine.close()


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    if isinstance(item, ArenaItem) and item.record is not None and call.when != "teardown":
        set_properties(item.user_properties, item.record)  # before the report copies them
    report = yield
    if (
        call.excinfo is not None
        and isinstance(call.excinfo.value, CaseError)
        and call.when == "setup"
    ):
        report.longrepr = item.repr_failure(call.excinfo)  # pytest shows setup tracebacks otherwise
    if report.skipped and isinstance(item, ArenaItem) and isinstance(report.longrepr, tuple):
        path, line, _ = item.reportinfo()
        report.longrepr = (str(path), (line or 0) + 1, report.longrepr[2])  # the case, not our code
    phase_done = call.when == "call" or (call.when == "setup" and report.failed)
    if isinstance(item, ArenaItem) and item.record is not None and phase_done:
        setattr(report, RECORD_ATTR, item.record.to_dict())
    return report


def pytest_unconfigure(config: pytest.Config) -> None:
    reports.unregister(config)
    for name in (REPORTER, WORKER_LOOKAHEAD):
        plugin = config.pluginmanager.get_plugin(name)
        if plugin is not None:
            config.pluginmanager.unregister(plugin)
