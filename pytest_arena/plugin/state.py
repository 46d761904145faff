"""The plugin's per-run state, kept in `config.stash`.

Light to create: the engine and the cache are made when a project is first collected, so
a pytest run without `arena.yaml` files pays nothing for them.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, cast

import pluggy
import pytest

from pytest_arena.spec.files import PROJECT_FILE

if TYPE_CHECKING:
    from pytest_arena.connectors import Connector
    from pytest_arena.engine.calls import Engine
    from pytest_arena.engine.ledger import OwnLedger
    from pytest_arena.plugin.collect import RunProject
    from pytest_arena.record import Record
    from pytest_arena.reports.json_report import Spill, StopCause
    from pytest_arena.reports.leaderboard import Board
    from pytest_arena.scorers.base import Scorer

_KEY = pytest.StashKey["ArenaState"]()
# pytest-xdist's channels (plugin/xdist_controller.py), named here so a run without xdist
# does not load that module
# the workers' input naming the folder of the run's budget ledgers, where each worker also
# keeps its own (named by its xdist id), read by the controller if its output never comes
LEDGERS = "arena_ledgers"
COLLECTED = "arena_collected"  # a worker's output: its arena items, and files without cases
SPENT = "arena_spent"  # a worker's output: what its engine paid for answers
CUT_OFF = "arena_cut_off"  # a worker's output: the calls its engine's close cut off in flight
NEAR_MISSES = "arena_near_misses"  # a worker's output: its cache's near misses
EXIT_CODE = "arena_exit_code"  # a worker's output: the returncode of a pytest.exit() it ran
COLLECT = "pytest_arena.plugin.collect"  # imported once an arena.yaml is collected in a process


@dataclass
class ArenaState:
    models: list[str] = field(default_factory=list)  # from --arena-models; empty: project defaults
    records: list[Record] = field(default_factory=list)
    # input that could not be loaded, as the run's problem items said it: {item, message}
    problems: list[dict[str, str]] = field(default_factory=list)
    repeat: tuple[int, int] | None = None  # from --arena-repeat; None: each case's own
    make_engine: Callable[[], Engine] | None = None
    _engine: Engine | None = None
    projects: dict[Path, RunProject] = field(
        default_factory=dict
    )  # by arena.yaml, its folder resolved
    _errors: dict[str, str] = field(default_factory=dict)  # an error's reason -> its first item
    _project_files: dict[Path, Path | None] = field(default_factory=dict)
    # what this process collected (an xdist worker sends it to the controller at its end):
    items: int = 0  # arena items (cases and problems), before -k, -m and --deselect
    empty: list[str] = field(default_factory=list)  # "file:line: ..." where no case is
    _boards: tuple[int, list[Board]] | None = None  # built from so many records
    spill: Spill | None = None  # whole records for --arena-json, when records are kept lean
    workers_spent: float | None = None  # on the xdist controller: what its workers paid
    workers_unknown: int = 0  # and how many of them spent what it cannot know
    workers_cut_off: int = 0  # and the calls their engines cut off in flight as they closed
    own_ledger: OwnLedger | None = None  # in an xdist worker: what its engine paid, as it pays
    workers_near_misses: dict[str, int] = field(default_factory=dict)  # and their caches'
    finished: set[str] = field(default_factory=set)  # items whose run ended (as xdist tells)
    budget_skips: int = 0  # cases a budget kept from running (or cut short)
    budget_not_run: Counter[tuple[str, str]] = field(default_factory=Counter)  # by model
    # Ctrl-C (or pytest.exit) ended the run: not pytest-xdist's stop after -x or --maxfail,
    # nor pytest's after collection errors, which raise their own KeyboardInterrupt
    interrupted: bool = False
    collection_errors: int = 0  # files (or other collectors) that could not be collected
    stop_said: str = ""  # the message of the KeyboardInterrupt that ended the run, if one did
    worker_exit: bool = False  # on the xdist controller: a worker's pytest.exit() ended the run
    lost: int = 0  # on the xdist controller, at the end: cases crashed workers took down unrun

    def defined_cases(self) -> dict[str, list[str]]:
        """The case ids each project collected in this process defines, by project name: what
        the benchmark holds, whether or not -k, --lf or -x let a case run. A project that
        could not be loaded is there with no case, by each name it may have: its folder's,
        and a `name:` line its file holds."""
        defined: dict[str, list[str]] = {}
        for run in self.projects.values():
            if run.project is not None:
                defined[run.project.name] = sorted({case.id for case in run.project.file.cases})
                continue
            for name in (run.arena.parent.name, *_written_names(run.arena)):
                defined.setdefault(name, [])
        return defined

    def stopped_early(self, session: pytest.Session) -> bool:
        """Whether -x, --maxfail, --sw or Ctrl-C ended the run before every selected item
        ran (one that stops at the last item's failure ran them all, under pytest-xdist too,
        where -x ends the run as interrupted); Ctrl-C always does, and so do crashed xdist
        workers that took cases down with them (`lost`)."""
        if self.interrupted or self.worker_exit or self.lost:
            return True
        if not (session.shouldfail or session.shouldstop or _interrupted(session)):
            return False
        return not session.testscollected or len(self.finished) < session.testscollected

    def stopped_by(self, session: pytest.Session) -> StopCause | None:
        """Why the run stopped early (see `stopped_early`); None if it did not. Collection
        errors stop pytest before it runs a test (unless --continue-on-collection-errors,
        where they may count towards -x), whatever else was given with them."""
        if not self.stopped_early(session):
            return None
        config = session.config
        if (
            self.interrupted
            or self.worker_exit
            or self.stop_said.endswith("received keyboard-interrupt")  # an xdist worker's Ctrl-C
        ):
            return "interrupt"
        if self.collection_errors and (
            not config.getoption("continue_on_collection_errors", False) or not self.finished
        ):
            return "collection_errors"
        if self.lost:  # (xdist stops the run once a worker may not be restarted)
            return "worker_crash"
        maxfail = config.getoption("maxfail", 0)
        if session.shouldfail or (maxfail and session.testsfailed >= maxfail):
            return "maxfail"  # (under pytest-xdist the controller's session is not told)
        if config.getoption("stepwise", False) or config.getoption("stepwise_skip", False):
            return "stepwise"
        return "other"

    def stop_reason(self, session: pytest.Session) -> str:
        """What stopped the run early, in pytest's words: "stopping after 1 failures",
        "1 error during collection", "interrupted"; "" if it did not stop early."""
        cause = self.stopped_by(session)
        if cause is None:
            return ""
        if cause == "collection_errors":
            errors = self.collection_errors
            return f"{errors} error{'' if errors == 1 else 's'} during collection"
        if cause == "worker_crash":
            lost = self.lost
            return f"{lost} case{'' if lost == 1 else 's'} lost with crashed workers"
        # under pytest-xdist, the controller's session is not told of -x: its stop says it
        said = (
            cause != "interrupt" or self.worker_exit or self.stop_said.startswith("Exit: ")
        ) and self.stop_said  # "Exit: why", pytest.exit's
        return str(session.shouldfail or session.shouldstop or said or "interrupted")

    def partial(self, session: pytest.Session, errors: str = "the errors above") -> list[str]:
        """Why the boards are not the whole benchmark, said under them wherever they are
        shown: the run stopped early, or input could not be loaded (`errors` say why)."""
        said = []
        stopped = self.stop_reason(session)
        if stopped:
            got = len(self.records) - self.lost  # the lost are on the boards, as errors
            said.append(
                f"the run stopped early ({stopped}): the boards hold only the"
                f" {got} result{'' if got == 1 else 's'} it got"
                f"{', and the cases lost as errors' if self.lost else ''}, not the whole"
                " benchmark"
            )
        lost = len(self.problems)
        if lost:  # their cases are on no board: its accuracy is of the cases that loaded
            said.append(
                f"{lost} input{'' if lost == 1 else 's'} could not be loaded, so"
                f" {'its' if lost == 1 else 'their'} cases are on no leaderboard ({errors}"
                " say why)"
            )
        return said

    def keep_first(self) -> None:
        """Keep the first record of each (project, case, model, sample), as the reports do:
        `--dist each` runs every item on every worker, and the leaderboards and the spend
        line count each case once (what its runs on other workers cost is spent on answers
        no case was graded by). Once, at the end of the run, on the xdist controller."""
        first: dict[tuple[str, str, str, int], Record] = {}
        for record in self.records:
            first.setdefault(record.key, record)
        if len(first) < len(self.records):
            self.records[:] = first.values()
            self._boards = None

    def boards(self) -> list[Board]:
        """The leaderboards of `records`, built once for the reports and the terminal (again
        if records were added since). Build them once `records` is final."""
        if self._boards is None or self._boards[0] != len(self.records):
            from pytest_arena.reports.leaderboard import build_boards

            boards = build_boards(self.records, self.budget_not_run)
            self._boards = (len(self.records), boards)
        return self._boards[1]

    @property
    def engine(self) -> Engine:
        """The run's engine, made on first use."""
        if self._engine is None:
            if self.make_engine is None:
                from pytest_arena.engine.calls import Engine

                self._engine = Engine()
            else:
                self._engine = self.make_engine()
            if self.own_ledger is not None:  # every answer the engine pays for, written down
                budget = self._engine.budget  # (charged for every call)
                budget.ledger = self.own_ledger.standing_in_for(budget.ledger)
        return self._engine

    def first_with(self, reason: str, nodeid: str) -> str:
        """The node id of the first item whose error had this `reason` (this one if none):
        an error shared by many cases (a model that cannot be reached) is said in full once."""
        return self._errors.setdefault(reason, nodeid)

    def spent_on_calls(self) -> float | None:
        """What this process's engine paid for answers, recorded or not (on the xdist
        controller, what its workers' engines paid); None without one."""
        if self._engine is None:
            return self.workers_spent
        return self._engine.budget.charged

    def cut_off(self) -> int:
        """The calls the run's stop cut off in flight (`Engine.cut_off`): this process's
        engine's, and on the xdist controller those its workers said."""
        own = self._engine.cut_off if self._engine is not None else 0
        return own + self.workers_cut_off

    def near_misses(self) -> dict[str, int]:
        """Answers bought though the cache held the same messages for their model, by how
        the nearest cached call differed (on the xdist controller, its workers')."""
        found = dict(self.workers_near_misses)
        store = self._engine.store if self._engine is not None else None
        for said, count in (store.near_misses if store is not None else {}).items():
            found[said] = found.get(said, 0) + count
        return found

    def close(self) -> None:
        """Stop the engine, if one was made: pending calls are cancelled, its files closed
        (and an xdist worker's own ledger). A second call does nothing."""
        if self._engine is not None and not self._engine.closed:
            self._engine.close()
        if self.own_ledger is not None:
            self.own_ledger.close()

    def extensions(
        self, hook: pluggy.HookRelay
    ) -> tuple[list[tuple[str, type[Scorer]]], Mapping[str, type[Connector]]]:
        """Scorers and connectors that plugins offer through `hook`: the hook relay of a
        project's path, so a `conftest.py` offers its own to the projects below it alone,
        whichever project is collected first."""
        from pytest_arena.connectors import CONNECTORS

        scorers: list[tuple[str, type[Scorer]]] = []
        for impl in hook.pytest_arena_scorers.get_hookimpls():
            offered = cast("list[type[Scorer]]", impl.function() or [])
            scorers += [(impl.plugin_name, cls) for cls in offered]
        connectors = [cls for found in hook.pytest_arena_connectors() for cls in found or ()]
        return scorers, CONNECTORS.plus(connectors)

    def project_file(self, folder: Path) -> Path | None:
        """The `arena.yaml` of the nearest folder, from `folder` up, that holds one."""
        if folder not in self._project_files:
            own = folder / PROJECT_FILE
            if own.is_file():
                self._project_files[folder] = own
            else:
                above = folder.parent
                self._project_files[folder] = None if above == folder else self.project_file(above)
        return self._project_files[folder]

    @classmethod
    def of(cls, config: pytest.Config) -> ArenaState:
        return config.stash[_KEY]

    @classmethod
    def install(
        cls, config: pytest.Config, models: list[str], make_engine: Callable[[], Engine]
    ) -> ArenaState:
        state = cls(models=models, make_engine=make_engine)
        worker = getattr(config, "workerinput", {})  # from the xdist controller
        if LEDGERS in worker:
            from pytest_arena.engine.ledger import OwnLedger

            ledgers = Path(worker[LEDGERS])
            state.own_ledger = OwnLedger.of_process(ledgers, str(worker.get("workerid")))
        config.stash[_KEY] = state
        return state


_NAME_LINE = re.compile(r"""^name:[ \t]*["']?([^"'#\r\n]*?)["']?[ \t]*(?:#.*)?$""", re.M)


def _written_names(arena: Path) -> list[str]:
    """The `name:` lines of an arena.yaml that cannot be loaded, read as text."""
    try:
        text = arena.read_text("utf-8", errors="replace")
    except OSError:
        return []
    return [name for name in _NAME_LINE.findall(text) if name]


def _interrupted(session: pytest.Session) -> bool:
    """Whether Ctrl-C, pytest.exit, collection errors or pytest-xdist's -x ended the run:
    pytest sets the session's status before the reports are written."""
    return getattr(session, "exitstatus", None) == pytest.ExitCode.INTERRUPTED
