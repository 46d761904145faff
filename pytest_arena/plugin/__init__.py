"""The pytest plugin (the `pytest11` entry point): options and the hooks that wire collection,
the engine, records and the reports together. Everything that imports pytest is in this
package.

Everything heavy is imported when a project is first collected, so that having the plugin
installed costs a pytest run without `arena.yaml` files next to nothing.

PYTEST_DONT_REWRITE: pytest leaves this package's asserts as written (see `_not_rewritten`
in pytest_arena/__init__.py), and the word keeps it from warning that it could not rewrite
this module when `-p pytest_arena.plugin` names it once it is loaded.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Generator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from pytest_arena.cache.location import DEFAULT_CACHE_PATH, default_cache_path
from pytest_arena.cache.modes import CacheMode
from pytest_arena.plugin import failure_style, options, outputs, progress_line
from pytest_arena.plugin.state import (
    COLLECT,
    COLLECTED,
    CUT_OFF,
    LEDGERS,
    NEAR_MISSES,
    SPENT,
    ArenaState,
)
from pytest_arena.plugin.terminal import MODEL_ATTR, PROBLEM_ATTR, RECORD_ATTR, ArenaReporter
from pytest_arena.spec.files import DATASET_FORMATS, MISNAMED_FILE, PROJECT_FILE

if TYPE_CHECKING:
    from pytest_arena.engine.calls import Engine
    from pytest_arena.record import Record

MARKER = "arena"
REPORTER = "arena-reporter"
FAILURE_STYLE = "arena-failure-style"
AHEAD_PLUGIN = "arena-ahead"  # collect.Ahead: the calls started ahead, without xdist
WORKER_LOOKAHEAD = "arena-worker-lookahead"
WORKER_REPORTS = "arena-worker-reports"


def pytest_addhooks(pluginmanager: pytest.PytestPluginManager) -> None:
    from pytest_arena import hookspecs

    pluginmanager.add_hookspecs(hookspecs)


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("arena", "pytest-arena: LLM and agent benchmarks")
    group.addoption(
        "--arena-models",
        action="store",
        default=None,
        metavar="KEYS",
        help="comma-separated model keys to run every project on (default: each project's models)",
    )
    group.addoption(
        "--arena-repeat",
        action="store",
        default=None,
        metavar="N",
        help="samples of every case on every model, overriding arena.yaml's 'repeat:'; N, or"
        " MIN:MAX for sequential sampling (stop once the verdict is clear, FLAKY if not by MAX)",
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
    outputs.add_options(group)
    failure_style.add_options(group, parser)
    progress_line.add_options(group)


_SHOW_ONLY = ("help", "markers", "showfixtures", "show_fixtures_per_test")  # pytest's dests


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        f"{MARKER}(project, model, tag): an arena case; select with"
        f" -m \"{MARKER}(model='sim_small')\", -m \"{MARKER}(tag='math')\" or both in one,"
        f" -m \"{MARKER}(model='sim_small', tag='math')\"",
    )
    state = ArenaState.install(config, options.model_keys(config), lambda: _engine(config))
    if any(config.getoption(name, False) for name in _SHOW_ONLY):
        return  # pytest shows what it knows and runs nothing: a bad value is said when it runs
    options.check(config)  # before any plugin of ours is registered: a usage error stops here
    state.repeat = options.repeat(config)
    if hasattr(config, "workerinput"):  # an xdist worker: its reports go to the controller
        from pytest_arena.plugin.xdist_worker import SendableReports, WorkerLookahead

        if options.runs_cases(config):
            config.pluginmanager.register(WorkerLookahead(config), WORKER_LOOKAHEAD)
        config.pluginmanager.register(SendableReports(RECORD_ATTR), WORKER_REPORTS)
    else:
        style = failure_style.FailureStyle(config, RECORD_ATTR)
        config.pluginmanager.register(style, FAILURE_STYLE)
        reports = options.report_path(config) or options.report_path(config, "arena_html")
        reporter = ArenaReporter(state, style, lean=not reports, spills=bool(reports))
        config.pluginmanager.register(reporter, REPORTER)
    progress_line.register(config)
    outputs.register(config, state, RECORD_ATTR)


def _engine(config: pytest.Config) -> Engine:
    from pytest_arena.cache.store import ResponseCache
    from pytest_arena.engine.calls import Engine

    mode = CacheMode(config.getoption("arena_cache"))
    path = options.report_path(config, "arena_cache_path") or default_cache_path(config.rootpath)
    worker = getattr(config, "workerinput", {})  # from the xdist controller
    engine = Engine(
        store=None if mode is CacheMode.OFF else ResponseCache(path, mode),
        ledgers=Path(worker[LEDGERS]) if LEDGERS in worker else None,
        processes=int(worker.get("workercount", 1)),
        ends_run=(pytest.exit.Exception,),  # an agent's pytest.exit(), or `q` in its debugger
    )
    engine.budget = engine.new_budget(config.getoption("arena_max_cost"), "--arena-max-cost")
    tmp_path_factory = getattr(config, "_tmp_path_factory", None)  # gone with -p no:tmpdir
    if isinstance(tmp_path_factory, pytest.TempPathFactory):
        # under pytest's basetemp, like tmp_path: --basetemp moves them, and pytest keeps
        # the latest runs' folders and removes older ones
        engine.make_workspace_root = lambda: tmp_path_factory.mktemp(
            "arena-workspaces", numbered=False
        )
    return engine


@pytest.fixture
def arena_context() -> Callable[..., Any]:
    """`arena_context(reference, options=..., ...)` builds a ScoringContext for a scorer test."""
    from pytest_arena.testing import scoring_context

    return scoring_context


def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> pytest.Collector | None:
    if file_path.name == PROJECT_FILE:
        from pytest_arena.plugin.collect import ArenaFile

        return ArenaFile.from_parent(parent, path=file_path)
    if file_path.name == MISNAMED_FILE and not (file_path.parent / PROJECT_FILE).exists():
        from pytest_arena.plugin.collect import MisnamedFile

        return MisnamedFile.from_parent(parent, path=file_path)
    if file_path.suffix.lower() in DATASET_FORMATS:
        arena = ArenaState.of(parent.config).project_file(file_path.parent)
        if arena is not None:  # in a project's folder: perhaps one of its dataset files
            from pytest_arena.plugin.collect import dataset_file

            return dataset_file(parent, file_path, arena)
    return None


@pytest.hookimpl(wrapper=True)
def pytest_make_collect_report(
    collector: pytest.Collector,
) -> Generator[None, pytest.CollectReport, pytest.CollectReport]:
    """Under --lf, pytest skips a file without a failure of its own; but `arena.yaml` also
    collects the dataset files pytest's walk does not reach (in `build/`, a hidden folder):
    with a failure in one of those, it is collected after all (pytest's --lf then keeps
    the failures alone)."""
    report = yield
    collect = sys.modules.get(COLLECT)
    if (
        collect is None
        or not isinstance(collector, collect.ArenaFile)
        or report.result
        or not report.passed
        or not collector.config.getoption("lf", False)
        or not collect.failed_below(collector)
    ):
        return report
    call = pytest.CallInfo.from_call(lambda: list(collector.collect()), "collect")
    if call.excinfo is not None:
        longrepr = collector.repr_failure(call.excinfo)
        return pytest.CollectReport(collector.nodeid, "failed", longrepr, [])
    return pytest.CollectReport(collector.nodeid, "passed", None, call.result)


def pytest_itemcollected(item: pytest.Item) -> None:
    collect = sys.modules.get(COLLECT)
    if collect is not None and isinstance(item, (collect.ArenaItem, collect.ProblemItem)):
        ArenaState.of(item.config).items += 1  # before -k and -m deselect any


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_collection_modifyitems(
    config: pytest.Config, items: list[pytest.Item]
) -> Generator[None, object, object]:
    """Input that could not be loaded stays an error under `-k` and `-m`, as a Python file
    that cannot be imported does: it has no case or model to match, so the expression
    would deselect it and the run pass without it. `--deselect` names what it leaves out:
    that is pytest's to do, whatever else selects."""
    collect = sys.modules.get(COLLECT)
    selecting = config.getoption("keyword", "") or config.getoption("markexpr", "")
    if collect is None or not selecting:
        return (yield)
    named = tuple(config.getoption("deselect", None) or ())
    problems = [
        item
        for item in items
        if isinstance(item, collect.ProblemItem) and not item.nodeid.startswith(named)
    ]
    if problems:
        kept = set(problems)
        items[:] = [item for item in items if item not in kept]
    try:
        return (yield)
    finally:
        items[:0] = problems


@pytest.hookimpl(wrapper=True)
def pytest_runtestloop(session: pytest.Session) -> Generator[None, object, object]:
    config = session.config
    collect = sys.modules.get(COLLECT)
    stopping = session.testsfailed and not config.getoption("continue_on_collection_errors", False)
    worker = hasattr(config, "workerinput")
    try:  # Ctrl-C in the head start, too, closes the engine before the summary counts
        if collect is not None and options.runs_cases(config) and not (stopping or worker):
            ahead = collect.Ahead(config, session.items)
            config.pluginmanager.register(ahead, AHEAD_PLUGIN)
            collect.head_start(config, ahead)
        return (yield)
    finally:
        ArenaState.of(config).close()


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    collect = sys.modules.get(COLLECT)
    if collect is None or not isinstance(item, (collect.ArenaItem, collect.ProblemItem)):
        return (yield)
    record = getattr(item, "record", None)
    if record is not None and call.when != "teardown":
        _junit_properties(item, record)  # before the report copies them
    report = yield
    stopped = call.when == "call" and report.failed and call.excinfo is not None
    if record is None and stopped and isinstance(item, collect.ArenaItem):
        # stopped by another plugin (pytest-timeout) before it was graded: an error, on the
        # board too
        assert call.excinfo is not None
        said = f"{call.excinfo.typename}: {call.excinfo.value}".strip().rstrip(":")
        record = item.error_record(said)
        _junit_properties(item, record)  # JUnit writes them from the teardown's report
    if (
        call.excinfo is not None
        and isinstance(call.excinfo.value, collect.SetupError)
        and call.when == "setup"
    ):
        report.longrepr = item.repr_failure(call.excinfo)  # pytest shows its own text otherwise
    if report.skipped and isinstance(report.longrepr, tuple):
        path, line, _ = item.reportinfo()
        report.longrepr = (str(path), (line or 0) + 1, report.longrepr[2])  # the case, not our code
    phase_done = call.when == "call" or (call.when == "setup" and report.failed)
    if report.skipped and isinstance(item, collect.ArenaItem):  # a spent budget's, perhaps
        setattr(report, MODEL_ATTR, [item.project.name, item.model])
    if isinstance(item, collect.ProblemItem) and phase_done and report.failed:
        setattr(report, PROBLEM_ATTR, item.message)  # for the JSON report, also from workers
    if record is not None and phase_done:
        record.xfail = outputs.xfail_outcome(report)
        if record.xfail:  # known only now: the teardown's report carries it to JUnit
            _junit_properties(item, record)
        setattr(report, RECORD_ATTR, record.to_dict())
        if isinstance(item, collect.ArenaItem):
            item.record = None  # the report carries it from here: kept once, not twice
    return report


def _junit_properties(item: pytest.Item, record: Record) -> None:
    """Put `record` on the item's JUnit properties, with --junitxml under xunit1 (they are
    not valid under xunit2, where `JUnitRecords` writes the record to system-out)."""
    from pytest_arena.plugin.junit_xml import properties_per_case

    if properties_per_case(item.config):
        from pytest_arena.reports.junit import set_properties

        set_properties(item.user_properties, record)


def pytest_sessionfinish(session: pytest.Session) -> None:
    output = getattr(session.config, "workeroutput", None)
    if output is not None:  # an xdist worker: the controller collects nothing of its own
        state = ArenaState.of(session.config)
        output[COLLECTED] = {"items": state.items, "empty": state.empty}
        if session.config.getoption("arena_baseline", None):  # what "gone" is measured by
            output[COLLECTED]["cases"] = state.defined_cases()
        output[SPENT] = state.spent_on_calls() or 0.0
        output[CUT_OFF] = state.cut_off()
        output[NEAR_MISSES] = state.near_misses()


def pytest_unconfigure(config: pytest.Config) -> None:
    state = ArenaState.of(config)
    state.close()  # if the run loop never ran: the engine's files and thread
    if state.spill is not None:  # the --arena-json report is written
        state.spill.close()
    outputs.unregister(config)
    for name in (REPORTER, FAILURE_STYLE, WORKER_LOOKAHEAD, WORKER_REPORTS):
        plugin = config.pluginmanager.get_plugin(name)
        if plugin is not None:
            config.pluginmanager.unregister(plugin)
    if sys.modules.get(COLLECT) is not None:
        from pytest_arena.spec.python_files import forget_projects

        forget_projects()
