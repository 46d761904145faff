"""pytest collection: a project's `arena.yaml` and dataset files become items, one per
case and model, each in the node ids of the file that holds its case."""

from __future__ import annotations

import concurrent.futures
import functools
import os
import re
import time
import warnings
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from pytest_arena.engine.calls import Call, CallResult
from pytest_arena.evaluation import samples
from pytest_arena.evaluation.case_run import Outcome, Prepared, finish, for_the_run, prepare
from pytest_arena.evaluation.judge import JudgeRefused
from pytest_arena.evaluation.project import Plan, PlanError, Project, load
from pytest_arena.plugin import progress_line
from pytest_arena.plugin.outputs import shown_nodeid, shown_path, where_whole
from pytest_arena.plugin.state import ArenaState
from pytest_arena.record import ERROR, FAILED, FLAKY, Record
from pytest_arena.reports import failures
from pytest_arena.reports.failures import error_text, failure_text
from pytest_arena.spec import Case, SpecError
from pytest_arena.spec.errors import Problem, location
from pytest_arena.spec.files import DATASET_FORMATS, PROJECT_FILE, resolved
from pytest_arena.spec.loader import CaseProblem, written_key, written_loc
from pytest_arena.spec.schema import CASE_ID

# Seconds pytest's thread waits, before the first item, for the calls started ahead (less
# once they are all answered). Calls answered at once (a local server, cache hits) cost the
# engine's thread CPU time, and while pytest's thread runs items the two take turns at the
# interpreter's lock, each slowing the other; waiting, pytest's thread lets them run alone.
# Calls that take their time are answered while items run, as before. None under -x,
# --maxfail or --sw, which mean to stop at the first failures.
HEAD_START = 2.0

# pytest.skip() or pytest.fail() in a scorer or hook skips or fails its case, and
# pytest.exit() (or `q` at its breakpoint()) ends the run, as in a test
for_the_run(pytest.skip.Exception, pytest.fail.Exception, pytest.exit.Exception)


class ArenaWarning(pytest.PytestWarning):
    """Input that runs, but perhaps not as meant: a project or dataset file without cases."""


class CaseFailed(Exception):
    """The scorer said the output is wrong."""


class CaseError(Exception):
    """The case could not be run or scored."""


class SetupError(pytest.fail.Exception):  # type: ignore[misc,name-defined]  # pytest's Failed
    """Input found wrong before its case runs (a bad row, a case that cannot be planned): a
    failed setup, an ERROR, said by the item's `repr_failure`. Raised as
    `pytest.fail(..., pytrace=False)` is, so pytest makes no traceback of it: one parsed from
    the source of each frame took a tenth of a second, minutes over a dataset of bad rows."""

    def __init__(self, message: str) -> None:
        super().__init__(message, pytrace=False)


@dataclass
class RunProject:
    """A project as this run collects it: loaded once, shared by its `arena.yaml` and its
    dataset files, whichever pytest reaches first."""

    arena: Path  # its arena.yaml, as pytest's walk names it
    project: Project | None = None  # None: it could not be loaded
    problems: list[tuple[str, str]] = field(default_factory=list)  # project-wide: name, message
    models: list[str] = field(default_factory=list)  # the models its cases run on
    own: dict[Path, str] = field(default_factory=dict)  # its dataset files, resolved -> as written
    refused: set[str] = field(default_factory=set)  # dataset paths that no node id can hold
    collectors: dict[Path, pytest.Collector] = field(default_factory=dict)  # who collects each
    picked: dict[Path, list[str]] | None = None  # files named by node ids alone: see `picks`
    idle: bool = False  # no models to run: its cases are not collected
    shown: bool = False  # a dataset file carries the problems (arena.yaml is not in the run)
    collected: bool = False  # a file of it is collected: its empty files have been warned of
    _by_file: dict[Path, tuple[list[CaseProblem], list[Case]]] | None = None
    _files: dict[str, Path] = field(default_factory=dict)

    def file_of(self, dataset: str) -> Path:
        """The file of the dataset written `dataset` under `datasets:`, resolved."""
        if dataset not in self._files:
            assert self.project is not None
            self._files[dataset] = resolved(self.project.root / dataset)
        return self._files[dataset]

    def claim(self, source: Path, collector: pytest.Collector) -> bool:
        """Whether `collector` collects the dataset file `source`: the first to ask does.
        Only a collector that collects the whole file asks, as it collects (pytest makes
        collectors it throws away: those of a folder's other files, as it walks to the
        file an argument names; a file's items that a node id does not pick)."""
        return self.collectors.setdefault(source, collector) is collector

    def picks(self, config: pytest.Config) -> dict[Path, list[str]]:
        """The files that this run's arguments name by node ids alone
        (`data/a.jsonl::a1[sim_small]`, with no argument `data/a.jsonl`), each with the
        names after its `::`: of such a file pytest keeps only the items they pick."""
        if self.picked is None:
            whole: set[Path] = set()
            named: dict[Path, list[str]] = {}
            for arg in config.args:  # parsed as pytest parses them
                base, bracket, rest = str(arg).partition("[")
                written, *parts = base.split("::")
                path = Path(os.path.abspath(config.invocation_params.dir / written))
                if parts:
                    named.setdefault(path, []).append("::".join(parts) + bracket + rest)
                else:
                    whole.add(path)
            self.picked = {path: names for path, names in named.items() if path not in whole}
        return self.picked

    def of_file(self, source: Path) -> tuple[list[CaseProblem], list[Case]]:
        """The problems and the cases of the dataset file `source`: its rows', and those of
        its entry under `datasets:`, said at their line in arena.yaml (indexed once: a
        project of 2,000 files would go over all its cases for each)."""
        if self._by_file is None:
            self._by_file = {}
            assert self.project is not None
            for problem in self.project.file.problems:
                if problem.dataset is not None and problem.dataset not in self.refused:
                    file = self.file_of(problem.dataset)
                    self._by_file.setdefault(file, ([], []))[0].append(problem)
            for case in self.project.file.cases:
                if case.dataset is not None and case.dataset not in self.refused:
                    self._by_file.setdefault(case.source, ([], []))[1].append(case)
        return self._by_file.get(source, ([], []))


def run_project(session: pytest.Session, arena: Path) -> RunProject:
    """The project whose `arena.yaml` is `arena`, loaded on first use in this run."""
    config = session.config
    state = ArenaState.of(config)
    key = Path(os.path.realpath(arena.parent), arena.name)  # as the project's root is
    if key in state.projects:
        return state.projects[key]
    scorers, connectors = state.extensions(session.gethookproxy(arena))
    run = state.projects[key] = RunProject(arena)
    try:
        project = load(arena, scorers, connectors)
    except SpecError as exc:
        run.problems.append(("config", exc.format()))
        return run
    namesake = next(
        (o for o in state.projects.values() if o.project and o.project.name == project.name),
        None,
    )
    if namesake is not None:  # records are keyed by project name: the two would merge
        where = location(arena, project.file.lines.line(("name",)) or 1)
        other = shown_path(config, namesake.arena)
        message = (
            f"{where}: the project name '{project.name}' is also {other}'s; two projects of"
            " one name would mix their records, leaderboards and gates: set 'name:' in one"
            " arena.yaml to tell them apart"
        )
        run.problems.append(("name", message))
        run.idle = True
        return run
    project.engine = state.engine
    project.repeat = state.repeat
    run.project = project
    for index, dataset in enumerate(project.file.spec.datasets):
        unfit = _node_id_unfit(project, index)
        if unfit is not None:
            run.refused.add(dataset.path)
            entry = written_loc(project.file.lines, ("datasets", index))[1]  # as written
            run.problems.append((f"datasets.{entry}", unfit))
    written = [d.path for d in project.file.spec.datasets]  # and those of its problems
    for path in dict.fromkeys([*written, *(p.dataset for p in project.file.problems)]):
        if path is not None and path not in run.refused:
            source = run.file_of(path)
            if _own_file(project.root, path, source):
                run.own.setdefault(source, path)
    models = state.models or project.default_models()
    if not models:
        message = (
            f"{location(arena, project.file.lines.line(('models',)) or 1)}: no models to run:"
            " pass --arena-models sim_small"
            " (any model keys, comma separated) or set 'models: default: [sim_small]'"
            " in arena.yaml"
        )
        run.problems.append(("models", message))
        run.idle = True
        return run
    for model in models:
        try:
            connector = project.connector(model, "--arena-models" if state.models else "")
        except SpecError as exc:
            run.problems.append((f"model-{model}", exc.format()))
        else:
            run.models.append(model)
            if not config.getoption("collectonly", False):
                state.engine.warm_up(connector)  # an HTTP client loads while pytest collects
    run.problems += [(f"scorers/{p.path.name}", p.format()) for p in project.scorers.problems]
    return run


def _node_id_unfit(project: Project, index: int) -> str | None:
    """The problem of the dataset at `datasets[index]` if its path holds `::` or `[`, which
    no node id can hold; None if it holds neither."""
    path = project.file.spec.datasets[index].path
    if "::" in path:
        unfit, said = (
            "'::'",
            (
                "which ends the file's part of a pytest node id: its cases could not be run by"
                " node id, nor rerun by --lf"
            ),
        )
    elif "[" in path:
        unfit, said = (
            "'['",
            (
                "which pytest reads as the start of a test's parameters and refuses in a path"
                ' ("path cannot contain [] parametrization"): neither the file nor its cases'
                " could be run by path or node id, as IDEs run them"
            ),
        )
    else:
        return None
    fit = path.replace("::", "_").replace("[", "-").replace("]", "")
    lines = project.file.lines
    problem = Problem(
        project.file.path,
        lines.line(("datasets", index, "path")) or lines.line(("datasets", index)),
        f"dataset path '{path}' holds {unfit}, {said}",
        key=written_key(lines, ("datasets", index, "path")),
        hint=f"rename the file without {unfit} (such as {fit}), and its entry under 'datasets:'",
    )
    return problem.format()


def mark_collected(config: pytest.Config, run: RunProject) -> None:
    """The first time a file of `run` is collected, warn of its files that hold no case
    (with their file and line, in pytest's warnings summary). Under xdist every worker
    collects; the first alone has its warning shown, so the summary says it once. A filter
    that makes it an error (-W error) fails the file's collection on every worker alike,
    with one text, which xdist says once."""
    if run.collected:
        return
    run.collected = True
    state = ArenaState.of(config)
    worker = str(getattr(config, "workerinput", {}).get("workerid", "gw0"))
    warns = worker == "gw0" or not worker.startswith("gw")  # (`--tx id=`: no first is known)
    for path, line, message in _without_cases(run):
        where = f"{shown_path(config, path)}:{line}"
        try:
            with warnings.catch_warnings(record=not warns):  # (recorded: dropped, not shown)
                warnings.warn_explicit(ArenaWarning(message), ArenaWarning, str(path), line)
        except ArenaWarning:  # as the warnings summary says it
            raise pytest.Collector.CollectError(f"{where}: ArenaWarning: {message}") from None
        state.empty.append(f"{where}: {message}")  # (not once an error: no case ran for it)


def _without_cases(run: RunProject) -> list[tuple[Path, int, str]]:
    """The project's files that hold no case (and no broken one): (file, line, what to do)."""
    if run.project is None:
        return []
    loaded = run.project.file
    found: list[tuple[Path, int, str]] = []
    used = {c.dataset for c in loaded.cases} | {p.dataset for p in loaded.problems}
    for i, dataset in enumerate(loaded.spec.datasets):
        if dataset.path not in used:
            named = loaded.lines.line(("datasets", i)) or 1
            message = (
                f"dataset file {dataset.path} holds no cases (arena.yaml line {named} names it):"
                " add rows to it, or take it out of 'datasets:'"
            )
            found.append(((loaded.root / dataset.path), 1, message))
    if not loaded.cases and not loaded.problems:
        message = (
            f"project '{loaded.name}' has no cases, so nothing of it runs: write cases under"
            " 'tests:', or rows in a dataset file named under 'datasets:'"
        )
        found.append((loaded.path, loaded.lines.line(("tests",)) or 1, message))
    return found


def _own_file(root: Path, written: str, source: Path) -> bool:
    """A dataset file is collected as a file of its own if pytest can tell it is one: as
    `datasets:` names it (`written`, perhaps a symlink to the file `source` elsewhere), it
    has a dataset suffix and lies in the project's folder, not in a nested project's; never
    an `arena.yaml` (pytest collects it as a project: the loader says it is no dataset)."""
    path = Path(os.path.normpath(root / written))
    if PROJECT_FILE in (path.name, source.name):
        return False
    try:  # a folder that cannot be entered raises before Python 3.14 (the loader says so)
        if path.suffix.lower() not in DATASET_FORMATS or not source.is_file():
            return False
    except OSError:
        return False
    if not path.is_relative_to(root):
        return False
    folder = path.parent
    while folder != root:
        if (folder / PROJECT_FILE).exists():
            return False
        folder = folder.parent
    return True


def reached(
    session: pytest.Session, path: Path, picks: dict[Path, list[str]] | None = None
) -> bool:
    """Whether pytest's own walk of this run's arguments collects the file `path`: an
    argument names it or a folder above it, and nothing in between is ignored (the rules
    of `pytest.Dir.collect`). Given the run's `picks`, whether it collects all of the
    file: a node id that names it picks some of its items alone."""
    below: list[Path] = []
    for at in (path, *path.parents):
        if session.isinitpath(at) and not (picks and at == path and at in picks):
            return not any(_ignored(session, p, p != path) for p in below)
        below.append(at)
    return False


def _ignored(session: pytest.Session, path: Path, folder: bool) -> bool:
    if session.isinitpath(path, with_parents=folder):
        return False
    hook = session.gethookproxy(path.parent)
    return bool(hook.pytest_ignore_collect(collection_path=path, config=session.config))


def dataset_file(parent: pytest.Collector, path: Path, arena: Path) -> DatasetFile | None:
    """The collector of `path` if it is a dataset file of the project at `arena` that no
    other collector of this run has taken."""
    run = run_project(parent.session, arena)
    if run.project is None:
        if reached(parent.session, run.arena):
            return None  # its arena.yaml reports the problem
        return DatasetFile.from_parent(parent, path=path, run=run)  # fails, with the problem
    source = resolved(path)
    if source not in run.own:
        refused = source in {run.file_of(written) for written in run.refused}
        if refused and not reached(parent.session, run.arena):  # it says why it is not run
            return DatasetFile.from_parent(parent, path=path, run=run)
        return None
    written = Path(os.path.normpath(arena.parent / run.own[source]))
    if Path(os.path.normpath(path)) != written and reached(parent.session, written):
        return None  # another name of it (a symlink): collected under the name written
    return DatasetFile.from_parent(parent, path=path, run=run)  # (it claims as it collects)


class ArenaFile(pytest.File):
    """One project's `arena.yaml`: its own cases, and the dataset files the run's walk
    does not reach (so `pytest projects/x/arena.yaml` runs the whole project)."""

    def collect(self) -> Iterator[pytest.Item | pytest.Collector]:
        run = run_project(self.session, self.path)
        mark_collected(self.config, run)
        names = Names()
        for name, message in run.problems:
            yield ProblemItem.from_parent(self, name=names.add(name), message=message)
        project = run.project
        if project is None or run.idle:
            return
        datasets: dict[str, DatasetNode] = {}
        for case_problem in project.file.problems:
            if case_problem.dataset is None:  # at its case's line, as the case's items are
                yield problem_item(self, case_problem, names, where=case_problem.problem.path)
            elif case_problem.dataset in run.refused:
                continue  # the project's problems say why
            elif run.file_of(case_problem.dataset) not in run.own:
                node = datasets.setdefault(
                    case_problem.dataset, DatasetNode.from_parent(self, name=case_problem.dataset)
                )
                node.own.append(case_problem)
        for case in project.file.cases:
            if case.dataset is None:
                yield from case_items(self, project, case, run.models)
            elif case.dataset in run.refused:
                continue
            elif case.source not in run.own:
                node = datasets.setdefault(
                    case.dataset, DatasetNode.from_parent(self, name=case.dataset)
                )
                node.cases.append(case)
        picks = run.picks(self.config)
        picked: dict[Path, list[str]] = {}  # by the file each names, as `run.own` is keyed
        for named, parts in picks.items():
            picked.setdefault(resolved(named), []).extend(parts)
        for source, written in run.own.items():
            path = Path(os.path.normpath(self.path.parent / written))  # as `datasets:` names it
            if reached(self.session, path, picks) or source in run.collectors:
                continue  # collected by the run's walk, or (another name of it) already
            # all its items but those a node id picks, which come with the file it names
            yield DatasetFile.from_parent(
                self, path=path, name=written, run=run, left=picked.get(source, [])
            )
        for node in datasets.values():
            node.project, node.models = project, run.models
            yield node


class DatasetFile(pytest.File):
    """A dataset file of a project: its cases, and the problems of its rows and its entry."""

    def __init__(self, *, run: RunProject, left: list[str] | None = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.run = run
        self.left = left or []  # the names of items left out: node ids pick them elsewhere

    def collect(self) -> Iterator[pytest.Item]:
        for item in self._items():
            if not any(_picks(name, item.name) for name in self.left):
                yield item

    def _items(self) -> Iterator[pytest.Item]:
        run, project = self.run, self.run.project
        mark_collected(self.config, run)
        folder = run.arena.parent.name
        if project is None:  # arena.yaml is not in the run: this file says why
            if self.session.isinitpath(self.path):  # named: a dataset file, for the user
                raise self.CollectError(run.problems[0][1])
            # reached by a folder's walk, it may be no dataset at all (tests/data/table.csv):
            # an error item, once, not a collection error that stops the run's other tests
            if not run.shown:
                run.shown = True
                for name, message in run.problems:
                    yield ProblemItem.from_parent(self, name=name, message=message, folder=folder)
            return
        source = resolved(self.path)
        # a collector of the whole file (not of items a node id picks) claims it: under
        # another name (a symlink), or brought by arena.yaml, it may be collected already
        named = run.arena if isinstance(self.parent, ArenaFile) else self.path
        whole = reached(self.session, named, run.picks(self.config))
        if source in run.own and whole and not run.claim(source, self):
            return
        names = Names()
        if not run.shown and not reached(self.session, run.arena):
            run.shown = True  # the run does not collect arena.yaml: its problems show here
            for name, message in run.problems:
                yield ProblemItem.from_parent(
                    self, name=names.add(name), message=message, folder=folder
                )
        if run.idle:
            return
        problems, cases = run.of_file(source)
        seen: set[tuple[str, str]] = set()  # a file named twice has its bad rows read twice
        for case_problem in problems:
            said = (case_problem.name, _message(case_problem))
            if said in seen:
                continue
            seen.add(said)
            # a row's at its line here (the file as named); its entry's, in arena.yaml
            where = None if case_problem.problem.path == source else case_problem.problem.path
            yield problem_item(self, case_problem, names, where=where, folder=folder)
        for case in cases:
            yield from case_items(self, project, case, run.models)


def _picks(name: str, item: str) -> bool:
    """Whether a node id whose last part is `name` picks the item named `item`, as pytest
    matches them: `a1[sim_small]` that item alone, `a1` the case on every model."""
    return item == name or ("[" not in name and item.split("[")[0] == name)


class DatasetNode(pytest.Collector):
    """The cases of a dataset file that is not collected as a file of its own (it lies
    outside the project's folder): in `arena.yaml`'s node ids, as `arena.yaml::<its path>`."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.cases: list[Case] = []
        self.own: list[CaseProblem] = []
        self.project: Project | None = None
        self.models: list[str] = []

    def collect(self) -> Iterator[pytest.Item]:
        names = Names()
        for case_problem in self.own:
            yield problem_item(self, case_problem, names, where=case_problem.problem.path)
        assert self.project is not None
        for case in self.cases:
            yield from case_items(self, self.project, case, self.models)


def start_ahead(items: list[pytest.Item]) -> list[Call]:
    """Start the model calls of `items`, in their order, before the first one runs; the
    calls of those items, started now or before. An item marked to be skipped (`skip`,
    `skipif`, `xfail(run=False)`) is not started: it may never run, and its call would be
    paid for all the same (a `skipif` that turns out false starts its call when it runs)."""
    return _start([arena for arena in map(_to_start, items) if arena is not None])


def _to_start(item: pytest.Item) -> ArenaItem | None:
    """`item`, if its calls are started ahead (see start_ahead); else None."""
    return item if isinstance(item, ArenaItem) and not _may_skip(item) else None


def _start(arena: list[ArenaItem]) -> list[Call]:
    if not arena:
        return []
    with arena[0].project.engine.batch():  # every project's engine is the run's
        for item in arena:
            item.start()
    return [call for item in arena for _, call in item.pending or () if call is not None]


# Items whose calls a run without pytest-xdist keeps started ahead of the item running, in
# the run's order: enough to keep every model's calls in flight while pytest's thread works,
# and to let a fast model answer many while an item's scorer takes its time; few enough
# that a benchmark of any size holds only so many requests and answers at once. TOP_UP: how
# many more are started at once as items run (one hand-over to the loop's thread each).
AHEAD = 10_000
TOP_UP = 64


class Ahead:
    """The calls started ahead of the items of a run without pytest-xdist: AHEAD items' at
    a time during the head start, then TOP_UP more each time that many items have run. The
    progress line counts the cases not started yet in its total."""

    def __init__(self, config: pytest.Config, items: list[pytest.Item]) -> None:
        self.to_start = [_to_start(item) for item in items]  # (each item looked at once)
        self.line = progress_line.of(config)
        self.started = 0  # items[:started] were started (those that start ahead)
        self.ran = 0  # items whose run began
        self._unstarted(sum(item is not None for item in self.to_start))

    def more(self) -> list[Call]:
        """Start the calls of the next AHEAD items (the head start's); those calls."""
        return self._upto(self.started + AHEAD)

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_protocol(self, item: pytest.Item) -> None:
        self.ran += 1
        if self.started < len(self.to_start) and self.started - self.ran <= AHEAD - TOP_UP:
            self._upto(self.ran + AHEAD)

    def _upto(self, end: int) -> list[Call]:
        begin, end = self.started, min(len(self.to_start), end)
        self.started = max(begin, end)
        arena = [item for item in self.to_start[begin:end] if item is not None]
        self._unstarted(-len(arena))
        return _start(arena)

    def _unstarted(self, change: int) -> None:
        if self.line is not None:
            self.line.counts.unstarted += change


def call_off(items: list[pytest.Item]) -> None:
    """Call off the calls started ahead for `items` that have not begun (the items went to
    another pytest-xdist worker); an item with a call called off starts afresh should it
    run here after all."""
    for item in items:
        if isinstance(item, ArenaItem) and item.pending:
            engine = item.project.engine
            off = [engine.call_off(call) for _, call in item.pending if call is not None]
            if any(off):
                item.pending = None


def in_process(item: pytest.Item) -> bool:
    """Whether `item`'s model is a `python` agent, whose code runs in this process: should
    it crash the process (os._exit, a segfault), the item running then takes the blame."""
    if not isinstance(item, ArenaItem) or isinstance(item.plan, str):
        return False
    try:
        return item.project.connector(item.model).name == "python"
    except SpecError:  # a model arena cannot reach: its item says so when it runs
        return False


def _may_skip(item: pytest.Item) -> bool:
    for mark in item.iter_markers():  # one pass over the item's and its parents' marks
        if mark.name in _SKIPPING or (mark.name == "xfail" and mark.kwargs.get("run") is False):
            return True
    return False


_SKIPPING = frozenset({"skip", "skipif"})


def head_start(config: pytest.Config, ahead: Ahead) -> None:
    """Before the run's first item, start the calls of the first items and wait for them
    until they are answered, then for the next ones', HEAD_START seconds in all at most (not
    at all under -x, --maxfail or --sw)."""
    calls = ahead.more()
    if not calls or stops_at_a_failure(config):  # stop soon, and pay for no more
        return
    line = progress_line.of(config)
    deadline = time.monotonic() + HEAD_START
    while calls and (left := deadline - time.monotonic()) > 0:
        if line is not None:
            line.wait_all(calls, left)
        else:
            concurrent.futures.wait([call.future for call in calls], timeout=left)
        if not all(call.future.done() for call in calls):
            return
        calls = ahead.more()


def failed_below(file: ArenaFile) -> bool:
    """Whether the last run's failures (pytest's cache, as --lf reads it) hold one in a
    file of the project beside or below `arena.yaml` (but not arena.yaml's own)."""
    cache = getattr(file.config, "cache", None)  # None under -p no:cacheprovider
    if cache is None:
        return False
    own = file.nodeid.split("::")[0]
    folder = own.rpartition("/")[0]
    below = f"{folder}/" if folder else ""  # "": the project is the rootdir
    failed = cache.get("cache/lastfailed", {})
    return any(str(key).startswith(below) and str(key).split("::")[0] != own for key in failed)


def stops_at_a_failure(config: pytest.Config) -> bool:
    """-x, --maxfail or --sw (pytest's stepwise plugin): the run ends at a failure."""
    return bool(config.getoption("maxfail", 0) or config.getoption("stepwise", False))


def case_items(
    parent: pytest.Collector, project: Project, case: Case, models: list[str]
) -> Iterator[ArenaItem]:
    try:
        plan: Plan | str = project.plan(case)
    except PlanError as exc:
        plan = str(exc)
    source = case.source if isinstance(parent, DatasetNode) else parent.path
    for model in models:
        if not project.runs_on(case, model):
            continue  # `models:` keeps the case off this model: not collected, not skipped
        name = f"{case.id}[{model}]"
        yield ArenaItem.from_parent(
            parent,
            name=name,
            nodeid=_nodeid(parent, name),
            project=project,
            case=case,
            model=model,
            plan=plan,
            source=source,
        )


def _nodeid(parent: pytest.Collector, name: str) -> str:
    # given, not derived: pytest 9.2 would keep a name's "[...]" in the id's names, where the
    # ids --lf reads back from its cache have it as parameters, and the two would differ
    return f"{parent.nodeid}::{name}"


@functools.cache
def _model_mark(project: str, model: str) -> pytest.MarkDecorator:
    return pytest.mark.arena(project=project, model=model)  # one for all the model's items


@functools.cache
def _tag_mark(project: str, model: str, tag: str) -> pytest.MarkDecorator:
    # all three in one mark: -m "arena(model='m', tag='t')" matches a mark that has both
    return pytest.mark.arena(project=project, model=model, tag=tag)


class ArenaItem(pytest.Item):
    """One case run on one model."""

    def __init__(
        self,
        *,
        project: Project,
        case: Case,
        model: str,
        plan: Plan | str,
        source: Path,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self.source = source  # the file holding the case, as pytest names it
        self.project = project
        self.case = case
        self.model = model
        self.plan = plan
        self.record: Record | None = None
        self.user_traceback: str | None = None
        self.sampling = samples.ONCE
        self.pending: list[tuple[Prepared, Call | None]] | None = None  # started, not graded
        self.tried = False  # runtest ran before: this is a rerun (pytest-rerunfailures)
        self.again = False  # a rerun's calls ask the model again, not the response cache
        if case.tags:
            for tag in case.tags:
                self.add_marker(_tag_mark(project.name, model, tag))
        else:
            self.add_marker(_model_mark(project.name, model))
        self.extra_keyword_matches.update({project.name, model, *case.tags})

    def setup(self) -> None:
        if isinstance(self.plan, str):
            self.record = self.error_record(self.plan)
            raise SetupError(self.plan)

    def error_record(self, reason: str) -> Record:
        """The record of this case ending in error, for `reason`."""
        return Record(
            project=self.project.name,
            case_id=self.case.id,
            model=self.model,
            status=ERROR,
            reason=reason,
            error=reason,
            weight=self.case.weight,
            tags=list(self.case.tags),
            group=self.case.group,
            board=self.project.board(),
        )

    def start(self) -> None:
        """Prepare the first samples' requests and, unless the calls are cheap inline work,
        start them ahead (the engine runs them concurrently, like any other calls)."""
        if isinstance(self.plan, str) or self.pending is not None:
            return
        self.sampling = self.project.sampling(self.case)
        self.pending = [self._launch(index) for index in range(self.sampling.min)]

    def _launch(self, index: int) -> tuple[Prepared, Call | None]:
        assert not isinstance(self.plan, str)
        prepared = prepare(self.project, self.case, self.model, self.plan, index)
        request, call = prepared.request, None
        if request is not None and not self.project.connector(self.model).is_inline():
            call = self.project.submit(self.model, request, fresh=self.again)
        line = progress_line.of(self.config)
        if line is not None:
            line.launched(call)
        return prepared, call

    def runtest(self) -> None:
        assert not isinstance(self.plan, str)
        if self.tried:  # a new try counts alone: not the last one's samples or traceback
            self.pending, self.user_traceback = None, None
            self.again = True
        self.tried = True
        self.start()
        assert self.pending is not None
        sampling = self.sampling
        line = progress_line.of(self.config)
        drawn: list[Record] = []
        status: str | None = None
        while status is None:
            if not self.pending:  # sequential sampling: undecided, so one more
                self.pending.append(self._launch(len(drawn)))
            prepared, call = self.pending.pop(0)
            if prepared.request is None:
                result = CallResult()
            elif call is None:
                result = self.project.call(
                    self.model, prepared.request, tools=True, fresh=self.again
                )
            elif line is not None:
                result = line.wait(self.project.engine, call)
            else:
                result = self.project.engine.wait(call)
            if line is not None and call is None:
                line.count(result)
            if result.ends_run is not None:  # the agent's pytest.exit(): from pytest's thread
                self.pending = []
                raise result.ends_run
            if result.skipped is not None:
                self.pending = []
                said = result.skipped
                if drawn:  # a repeated case cut short: its samples so far decide nothing
                    said += f" (after {len(drawn)} of its samples: too few for a verdict)"
                pytest.skip(said)
            try:
                outcome: Outcome = finish(prepared, self.plan, result)
            except JudgeRefused as refused:
                self.pending = []
                pytest.skip(str(refused))
            drawn.append(outcome.record)
            self.user_traceback = self.user_traceback or outcome.traceback
            status = samples.settle(drawn, sampling)
        self.pending = []  # done with them: keep memory flat on long runs
        record = self.record = samples.combine(drawn, status, sampling)
        if record.status == FAILED or (record.status == FLAKY and sampling.flaky == "fail"):
            raise CaseFailed(record.reason)
        if record.status == ERROR:
            raise CaseError(record.reason)

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> Any:
        record = self.record
        if isinstance(excinfo.value, CaseFailed) and record is not None:
            return failure_text(record, where_whole(self.config))
        if isinstance(excinfo.value, CaseError | SetupError) and record is not None:
            first = ArenaState.of(self.config).first_with(record.reason, self.nodeid)
            if first != self.nodeid and not self.user_traceback:  # a model down, a key unset
                shown = shown_nodeid(self.config, first)
                return f"{failures.message(record.reason)} (as for {shown}, said there in full)"
            return error_text(record, self.user_traceback, where_whole(self.config))
        return super().repr_failure(excinfo)

    def reportinfo(self) -> tuple[Path, int, str]:
        return (
            self.source,
            self.case.line - 1,
            f"{self.project.name}::{self.case.id}[{self.model}]",
        )


class MisnamedFile(pytest.File):
    """An `arena.yml` beside no `arena.yaml`: one error item that says to rename it, rather
    than a project that runs nothing and says nothing."""

    def collect(self) -> Iterator[pytest.Item]:
        yield ProblemItem.from_parent(
            self,
            name="config",
            message=f"{self.path.name}: pytest-arena reads a project from {PROJECT_FILE},"
            f" and this file is not read\n  fix: rename it to {PROJECT_FILE}",
        )


def _message(case_problem: CaseProblem) -> str:
    return "\n".join(p.format() for p in case_problem.problems)


def problem_item(
    parent: pytest.Collector,
    case_problem: CaseProblem,
    names: Names,
    *,
    where: Path | None,
    folder: str | None = None,
) -> ProblemItem:
    """The error item of a case or row that could not be loaded, at its line in the file
    that holds it: `where`, or (None) the parent's file as pytest names it."""
    problem = case_problem.problem
    return ProblemItem.from_parent(
        parent,
        name=names.add(case_problem.name, problem.line or 1, case_problem.dataset),
        message=_message(case_problem),
        where=where,
        line=(problem.line or 1) - 1,
        folder=folder,
    )


_AT_LINE = re.compile(r"[A-Za-z0-9_.-]+@line[0-9]+\Z")  # the loader's name of a duplicate id


class Names:
    """The names of one collector's error items, each its own and fit for a node id:
    `file::` (an empty id), two items of one id, or `r1[sim_small]` (a case's item's) were
    not. A dataset row whose id is no case id (`a b`, `x[y]`) is named by its line, `line4`;
    an inline case's is kept (`bad id`) unless it is one of those."""

    def __init__(self) -> None:
        self.taken: set[str] = set()

    def add(self, name: str, line: int | None = None, dataset: str | None = None) -> str:
        """`name`, or if it is unfit or taken, one made of its `line` (a project's problems
        are named by what they are, `config`, `model-<key>`: they are only kept apart)."""
        if line is not None and not _fits(name, dataset):
            name = f"line{line}"
        unique, more = name, 1
        while unique in self.taken:
            more += 1
            unique = f"{name}@line{line}" if more == 2 and line else f"{name}-{more}"
        self.taken.add(unique)
        return unique


def _fits(name: str, dataset: str | None) -> bool:
    """Whether a case problem's `name` (from its id as written) names its item."""
    if CASE_ID.match(name) or _AT_LINE.match(name) or (dataset and name == dataset):
        return True  # (a dataset's own problem is named by its path, as written)
    if dataset is not None:  # a row
        return False
    return bool(name.strip()) and not any(c in name for c in ("::", "[", "]"))


class ProblemItem(pytest.Item):
    """Stands for input that could not be loaded, so the rest of the run goes on."""

    def __init__(
        self,
        *,
        message: str,
        line: int = 0,
        folder: str | None = None,
        where: Path | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(nodeid=_nodeid(kwargs["parent"], kwargs["name"]), **kwargs)
        self.message = message
        self.line = line  # 0-based, in `where`
        self.where = where or self.path  # the file the problem is in, as an IDE opens it
        self.folder = folder or self.path.parent.name  # the project's

    def setup(self) -> None:
        raise SetupError(self.message)

    def runtest(self) -> None:
        """Never reached: setup always raises."""

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> Any:
        if isinstance(excinfo.value, SetupError):
            return self.message
        return super().repr_failure(excinfo)

    def reportinfo(self) -> tuple[Path, int, str]:
        # like a case's "project::case[model]"; a domain that ends the node id would have
        # its dots shown as "::" by pytest's verbose lines
        return self.where, self.line, f"{self.folder}::{self.name}"
