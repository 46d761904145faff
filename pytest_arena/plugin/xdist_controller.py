"""pytest-xdist glue, registered on the controller only when xdist is installed and active.

Records reach the controller on test reports; this class accounts for the items a crashed
worker took down with it, so that they show as error rows rather than a silent gap, and
for what workers spent whose own account of it never arrived (Ctrl-C, a crash).
"""

from __future__ import annotations

import re
import shutil
import tempfile
from collections.abc import Generator
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, Any

import pytest

from pytest_arena.engine.ledger import own_path, read_own
from pytest_arena.plugin import progress_line
from pytest_arena.plugin.state import (
    COLLECTED,
    CUT_OFF,
    EXIT_CODE,
    LEDGERS,
    NEAR_MISSES,
    SPENT,
    ArenaState,
)
from pytest_arena.record import ERROR, Record
from pytest_arena.spec.files import DATASET_FORMATS, PROJECT_FILE

if TYPE_CHECKING:
    from pytest_arena.spec.case import Case

_NODE_ID = re.compile(
    r"^(?P<file>[^:]+)(?:::.+)?::(?P<case>[A-Za-z0-9_.-]+)\[(?P<model>[^\]]+)\](?:@.*)?$"
)
_DOMAIN = re.compile(r"^(?P<project>.+)::(?P<case>[A-Za-z0-9_.-]+)\[(?P<model>[^\]]+)\]$")


@dataclass(frozen=True)
class ItemKey:
    project: str
    case_id: str
    model: str


def key_of(nodeid: str, domain: str | None = None, root: Path | None = None) -> ItemKey | None:
    """Which (project, case, model) a node id stands for; None for any other item.

    `domain` is the third part of the item's location, `project::case[model]`, which the
    controller learns when the item starts; without it the project is the folder's name.
    A node id in a dataset file is an arena item if a project's folder under `root` (the
    rootdir) holds the file.
    """
    found = _NODE_ID.match(nodeid)
    if found is None:
        return None
    project_file = _project_file(found["file"], root)
    if project_file is None:
        return None
    if domain is not None and (named := _DOMAIN.match(domain)) is not None:
        return ItemKey(named["project"], named["case"], named["model"])
    folder = project_file.rsplit("/", 2)
    project = folder[-2] if len(folder) >= 2 else ""
    return ItemKey(project, found["case"], found["model"])


def _project_file(file: str, root: Path | None) -> str | None:
    """The `arena.yaml` (relative to `root`) of the project that a node id's file is part of."""
    if file.rsplit("/", 1)[-1] == PROJECT_FILE:
        return file
    if root is None or PurePosixPath(file).suffix.lower() not in DATASET_FORMATS:
        return None
    for folder in (root / file).parents:
        if (folder / PROJECT_FILE).is_file():
            return (folder / PROJECT_FILE).relative_to(root).as_posix()
        if folder == root:
            break
    return None


def without_group(nodeid: str) -> str:
    """The node id without the `@group` that `--dist loadgroup` appends in its scheduler:
    an `@` after the last `]`, as xdist reads it (`case[key@v2]` keeps the model key's)."""
    at = nodeid.rfind("@")
    return nodeid[:at] if at > nodeid.rfind("]") and at > nodeid.rfind("::") else nodeid


def error_record(key: ItemKey, message: str, lost: bool = False) -> Record:
    """The error record of an item a worker crashed on, or of one it took down unrun
    (`lost`: its detail says so, and comparisons count it as not run)."""
    from pytest_arena.reports.baseline import LOST

    return Record(
        project=key.project,
        case_id=key.case_id,
        model=key.model,
        status=ERROR,
        reason=message,
        error=message,
        detail={"crash": message, LOST: True} if lost else {"crash": message},
    )


def project_name(arena: Path) -> str | None:
    """The name the project of `arena` (its arena.yaml) is loaded under, if its `name:`
    gives one: read by the controller for a project none of whose items it saw start.
    None without one, or if the file cannot be read (its folder's name is the project's)."""
    from pytest_arena.scorers.text import printable
    from pytest_arena.spec.errors import SpecError
    from pytest_arena.spec.schema import plain_name
    from pytest_arena.spec.yamlfile import load_yaml

    try:
        data, _ = load_yaml(arena)
        name = data.get("name") if isinstance(data, dict) else None
        return printable(plain_name(name, "project name")) if isinstance(name, str) else None
    except (OSError, ValueError, SpecError):
        return None


def case_settings(arena: Path) -> tuple[dict[str, Case], dict[str, Any]] | None:
    """The cases (by id) and the leaderboard settings of the project of `arena` (its
    arena.yaml, with its datasets), as its workers load them: what the error record of a
    case a worker crashed on, or took down unrun, must hold (weight, tags, group, board).
    None if the project cannot be loaded (its records are then filled from others')."""
    from pytest_arena.evaluation.project import Project
    from pytest_arena.evaluation.project_hooks import ProjectHooks
    from pytest_arena.scorers.discovery import ScorerSet
    from pytest_arena.spec.loader import load_project

    try:
        file = load_project(arena, keep_raw=False)
        board = Project(file, ScorerSet(), ProjectHooks()).board()  # only the file is read
    except Exception:  # a project the workers could not load either: nothing to add
        return None
    return {case.id: case for case in file.cases}, board


Location = tuple[str, int | None, str]  # a report's: file, 0-based line, domain


class ArenaXdist:
    """Keeps, on the xdist controller, what is needed to account for lost items."""

    def __init__(self, config: pytest.Config, record_attr: str) -> None:
        self.config = config
        self.record_attr = record_attr
        self.expected: dict[str, None] = {}  # node ids the workers collected, in order
        self.domains: dict[str, str] = {}  # node id -> project::case[model]
        self.locations: dict[str, Location] = {}  # node id -> its report's, once it started
        self.projects: dict[str, str] = {}  # arena.yaml path -> project name
        self.project_files: dict[str, str | None] = {}  # a node id's file -> its arena.yaml
        # arena.yaml path -> its cases and board, loaded for a crashed or lost item's record
        self.settings: dict[str, tuple[dict[str, Case], dict[str, Any]] | None] = {}
        self.reported: set[str] = set()
        self.crashes: list[str] = []
        self.ledgers: Path | None = None
        self.collected: dict[str, Any] = {}  # what a worker collected (each collects it all)
        self.unsaid: list[str] = []  # workers, by id, that have not said what they spent
        self.lost: list[Record] = []  # items crashed workers took down unrun, reported at the end
        self.exited = False  # a worker ran pytest.exit()
        self.exit_code: int | None = None  # its returncode

    @pytest.hookimpl
    def pytest_configure_node(self, node: Any) -> None:
        """Give every worker the same folder of ledgers, so budgets cap the whole run, and
        where it keeps its own (`spent_unsaid` reads it)."""
        if self.ledgers is None:
            self.ledgers = Path(tempfile.mkdtemp(prefix="arena-ledgers-"))
        node.workerinput[LEDGERS] = str(self.ledgers)
        self.unsaid.append(node.gateway.id)

    def close(self) -> None:
        """Remove the ledgers' folder."""
        if self.ledgers is not None:
            shutil.rmtree(self.ledgers, ignore_errors=True)

    @pytest.hookimpl
    def pytest_xdist_node_collection_finished(self, node: Any, ids: list[str]) -> None:
        self.expected.update(dict.fromkeys(without_group(i) for i in ids))

    @pytest.hookimpl
    def pytest_runtest_logstart(self, nodeid: str, location: tuple[str, int | None, str]) -> None:
        nodeid = without_group(nodeid)
        self.domains[nodeid] = location[2]
        self.locations[nodeid] = location
        project_file, named = self._project_file(nodeid), _DOMAIN.match(location[2])
        if project_file is not None and named is not None:
            self.projects[project_file] = named["project"]  # as it was loaded

    @pytest.hookimpl
    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        self.reported.add(without_group(report.nodeid))

    @pytest.hookimpl
    def pytest_handlecrashitem(self, crashitem: str, report: pytest.TestReport) -> None:
        key = self._key(crashitem)
        if key is not None:
            record = self._error_record(crashitem, key, str(report.longrepr))
            setattr(report, self.record_attr, record.to_dict())  # JUnitRecords adds it to the XML
            # xdist's is (file, None, file): the XML's testcase lost its line, --tb=line its place
            report.location = self._location(crashitem, record)

    @pytest.hookimpl
    def pytest_testnodedown(self, node: Any, error: object | None) -> None:
        if error is not None:
            self.crashes.append(f"worker {node.gateway.id} crashed: {error}")
        output = getattr(node, "workeroutput", None) or {}
        collected = output.get(COLLECTED)
        if isinstance(collected, dict) and not self.collected:
            self.collected = collected  # every worker collects the same
        spent = output.get(SPENT)
        state = ArenaState.of(self.config)
        if isinstance(spent, int | float):  # for the spend line: answers no case was graded by
            state.workers_spent = (state.workers_spent or 0.0) + float(spent)
            self._said(node.gateway.id)
        cut_off = output.get(CUT_OFF)
        if isinstance(cut_off, int):
            state.workers_cut_off += cut_off
        unpriced = output.get(progress_line.UNPRICED)
        line = progress_line.of(self.config)
        if isinstance(unpriced, int) and line is not None:  # answers no record may count
            line.add_unpriced(unpriced)
        if EXIT_CODE in output and not self.exited:
            self.exited = True
            code = output[EXIT_CODE]
            self.exit_code = code if isinstance(code, int) else None
        near = output.get(NEAR_MISSES)
        if isinstance(near, dict):
            for said, count in near.items():
                mine = state.workers_near_misses
                mine[str(said)] = mine.get(str(said), 0) + int(count)

    def spent_unsaid(self) -> None:
        """Add what the workers spent that did not say it at their end (their output does not
        arrive once the controller is interrupted, nor from a crashed worker) from their own
        ledgers; count those that have none (on Windows, or on another machine), whose
        spending is unknown. Once, at the end of the run."""
        state = ArenaState.of(self.config)
        for worker in self.unsaid:
            spent = None if self.ledgers is None else read_own(own_path(self.ledgers, worker))
            if spent is None:
                state.workers_unknown += 1
            else:
                state.workers_spent = (state.workers_spent or 0.0) + spent
        self.unsaid.clear()

    def _said(self, worker: str) -> None:
        if worker in self.unsaid:
            self.unsaid.remove(worker)

    @pytest.hookimpl(wrapper=True)
    def pytest_sessionfinish(self, session: pytest.Session) -> Generator[None, object, object]:
        """Before any other plugin ends the session: end a run a worker's pytest.exit()
        interrupted with its returncode (if it gave one), as without xdist; and report each
        arena item a crashed worker took down unrun as an item whose setup failed (its
        error record on the setup report, under `xunit1` its properties on the teardown's),
        so that the terminal's counts, the JUnit file and the JSON report all hold it."""
        from pytest_arena.plugin.junit_xml import properties_per_case
        from pytest_arena.reports.junit import set_properties

        if self.exited:  # as pytest.exit() ends a run without xdist
            ArenaState.of(self.config).worker_exit = True
            if self.exit_code is not None and session.exitstatus == pytest.ExitCode.INTERRUPTED:
                session.exitstatus = self.exit_code
        per_case = properties_per_case(self.config)
        for nodeid, record in self._lost():
            location = self._location(nodeid, record)
            said: list[tuple[str, object]] = []
            if per_case:
                set_properties(said, record)
            setup = pytest.TestReport(nodeid, location, {}, "failed", record.reason, "setup")
            setattr(setup, self.record_attr, record.to_dict())
            teardown = pytest.TestReport(
                nodeid, location, {}, "passed", None, "teardown", user_properties=said
            )
            self.lost.append(record)
            for report in (setup, teardown):
                self.config.hook.pytest_runtest_logreport(report=report)
            self.config.hook.pytest_runtest_logfinish(nodeid=nodeid, location=location)
        return (yield)

    def _lost(self) -> list[tuple[str, Record]]:
        """The arena items that never reported because a worker crashed, each with its error
        record."""
        if not self.crashes:
            return []
        why = f"not run: {'; '.join(self.crashes)}"
        lost = []
        for nodeid in self.expected:
            key = self._key(nodeid)
            if nodeid not in self.reported and key is not None:
                lost.append((nodeid, self._error_record(nodeid, key, why, lost=True)))
        return lost

    def _error_record(self, nodeid: str, key: ItemKey, message: str, lost: bool = False) -> Record:
        """The error record of the item, with what its case and project define (weight,
        tags, group, board), read from its arena.yaml: loaded once per project, and only
        when a worker crashed."""
        record = error_record(key, message, lost)
        found = self._settings(nodeid)
        if found is not None:
            cases, board = found
            case = cases.get(key.case_id)
            if case is not None:
                record.weight, record.tags, record.group = case.weight, list(case.tags), case.group
            record.board = board
        return record

    def _settings(self, nodeid: str) -> tuple[dict[str, Case], dict[str, Any]] | None:
        project_file = self._project_file(without_group(nodeid))
        if project_file is None:
            return None
        if project_file not in self.settings:
            self.settings[project_file] = case_settings(self.config.rootpath / project_file)
        return self.settings[project_file]

    def _location(self, nodeid: str, record: Record) -> Location:
        """The item's location as its own reports give it (the file and line of its testcase
        in the JUnit XML): the one it started with, else its node id's file and its case's
        line, as `ArenaItem.reportinfo` gives it (no line if the case cannot be loaded)."""
        nodeid = without_group(nodeid)
        if nodeid in self.locations:
            return self.locations[nodeid]
        domain = f"{record.project}::{record.case_id}[{record.model}]"
        found = self._settings(nodeid)
        case = None if found is None else found[0].get(record.case_id)
        return nodeid.split("::", 1)[0], None if case is None else case.line - 1, domain

    def _key(self, nodeid: str) -> ItemKey | None:
        """The item's (project, case, model): the project named as its items that started
        name it, or as its arena.yaml does when none did (not its folder's, unless it has
        no `name:`)."""
        nodeid = without_group(nodeid)
        key = key_of(nodeid, self.domains.get(nodeid), self.config.rootpath)
        project_file = self._project_file(nodeid)
        if key is not None and nodeid not in self.domains and project_file is not None:
            if project_file not in self.projects:
                named = project_name(self.config.rootpath / project_file)
                self.projects[project_file] = named or key.project
            return ItemKey(self.projects[project_file], key.case_id, key.model)
        return key

    def _project_file(self, nodeid: str) -> str | None:
        found = _NODE_ID.match(nodeid)
        if found is None:
            return None
        file = found["file"]
        if file not in self.project_files:
            self.project_files[file] = _project_file(file, self.config.rootpath)
        return self.project_files[file]
