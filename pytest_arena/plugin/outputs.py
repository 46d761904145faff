"""The end of a run: gates decide the exit status, the JSON report and the CI summary are
written, and failures carry their reason for JUnit XML. Runs on the controller only.

The reports are imported when a run has records to report (or a baseline to read), so
that a pytest run without arena projects does not load them."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from pytest_arena import __version__
from pytest_arena.plugin import options
from pytest_arena.plugin.state import COLLECT, ArenaState
from pytest_arena.record import XFAILED, XPASSED, XPASSED_STRICT

RERUN = "rerun"  # the outcome pytest-rerunfailures gives the reports of a try it runs again
RERUN_PASSED = 7  # its --fail-on-flaky exit status: a test passed on a rerun

if TYPE_CHECKING:
    from pytest_arena.plugin.xdist_controller import ArenaXdist
    from pytest_arena.record import Record
    from pytest_arena.reports import baseline, gates

OUTPUTS = "arena-outputs"
# a record's statuses that no scorer failed: a failed report of one was failed by pytest or
# a plugin (a strict xfail that passed), and says its own reason
NOT_FAILED = ("passed", "unscored")


def failed_by_pytest(report: Any, record: Any) -> bool:
    """Whether a failed report of an arena case was failed by pytest or a plugin rather
    than by its scorer: a case that passed or was unscored, or a strict xfail that passed
    (a flaky case that `flaky: pass` lets pass, too)."""
    return strict_xpass(report) or record.get("status") in NOT_FAILED


def strict_xpass(report: Any) -> bool:
    """Whether pytest failed the report as a strict xfail that passed."""
    return isinstance(report.longrepr, str) and report.longrepr.startswith("[XPASS(strict)]")


def xfail_outcome(report: Any) -> str | None:
    """What pytest made of an xfail mark on the report's case, if it had one: XFAILED,
    XPASSED or XPASSED_STRICT."""
    if strict_xpass(report):
        return XPASSED_STRICT
    if not hasattr(report, "wasxfail"):
        return None
    return XFAILED if report.skipped else XPASSED


XDIST = "arena-xdist"
JUNIT = "arena-junit"
# given by `arena evaluate` (cli.py's FROM_CLI): the hints then name that command's options
FROM_CLI = "--arena-from-cli"


def add_options(group: pytest.OptionGroup) -> None:
    group.addoption(
        "--arena-json",
        action="store",
        default=None,
        metavar="PATH",
        help="write every record, the leaderboards and the gates to PATH as JSON",
    )
    group.addoption(
        "--arena-html",
        action="store",
        default=None,
        metavar="PATH",
        help="write a self-contained HTML report to PATH: leaderboards, plots, and every case"
        " with its drill-down, filters and side-by-side comparison",
    )
    group.addoption(
        "--arena-save-baseline",
        action="store",
        default=None,
        metavar="PATH",
        help="write each case's result to PATH, sorted, one case a line and no timestamp:"
        " a baseline to commit and compare later runs with (--arena-baseline); a run that"
        " stops early (-x, Ctrl-C, a crashed xdist worker) or runs under --lf or --sw leaves"
        " it as it was",
    )
    group.addoption(
        "--arena-baseline",
        action="store",
        default=None,
        metavar="PATH",
        help="compare the run with a baseline saved by --arena-save-baseline: cases regressed"
        " and fixed (with both reasons), new and gone, and each model's change in accuracy"
        " with its paired interval and p-value; a gate's 'regression:' rules use it",
    )
    group.addoption(
        "--arena-gate",
        action="store_true",
        dest="arena_gate",
        default=True,
        help="let a project's 'gate:' decide the exit status (the default)",
    )
    group.addoption(
        "--no-arena-gate",
        action="store_false",
        dest="arena_gate",
        help="check gates and print them, but let failed cases fail the run as usual",
    )
    group.addoption(FROM_CLI, action="store_true", default=False, help=argparse.SUPPRESS)


def where_whole(config: pytest.Config) -> str:
    """Where the whole of a text cut for the terminal is: the `--arena-json` report."""
    raw = config.getoption("arena_json", None)
    return f"whole in {raw} (--arena-json)" if raw else "--arena-json PATH keeps the whole text"


def shown_path(config: pytest.Config, path: Path) -> str:
    """`path` from where pytest was run, as the file:line of messages says it."""
    try:
        return Path(os.path.relpath(path, config.invocation_params.dir)).as_posix()
    except ValueError:  # on another drive
        return str(path)


def shown_nodeid(config: pytest.Config, nodeid: str) -> str:
    """`nodeid` from where pytest was run, as its own summary lines say it (so the line can
    be pasted back as an argument), not from the rootdir."""
    if config.invocation_params.dir == config.rootpath:
        return nodeid
    path, sep, rest = nodeid.partition("::")
    return shown_path(config, config.rootpath / path) + sep + rest


def register(config: pytest.Config, state: ArenaState, record_attr: str) -> None:
    """Register the end-of-run plugins; nothing on an xdist worker."""
    if hasattr(config, "workerinput"):
        return
    xdist = None
    # by its hooks, not its name: `-p xdist.plugin` (with plugin autoload off) names it so;
    # and only when it distributes, as xdist itself decides (a `--dist` mode and workers)
    distributing = config.getoption("dist", "no") != "no" and bool(config.getoption("tx", None))
    if hasattr(config.hook, "pytest_handlecrashitem") and distributing:
        from pytest_arena.plugin.xdist_controller import ArenaXdist  # only under xdist

        xdist = ArenaXdist(config, record_attr)
        config.pluginmanager.register(xdist, XDIST)
    config.pluginmanager.register(ArenaOutputs(config, state, record_attr, xdist), OUTPUTS)
    if config.getoption("xmlpath", None):  # None also with -p no:junitxml
        from pytest_arena.plugin.junit_xml import JUnitRecords

        config.pluginmanager.register(JUnitRecords(config, record_attr), JUNIT)


def unregister(config: pytest.Config) -> None:
    for name in (OUTPUTS, XDIST, JUNIT):
        plugin = config.pluginmanager.get_plugin(name)
        if plugin is not None:
            config.pluginmanager.unregister(plugin)
        if name == XDIST and plugin is not None:
            plugin.close()


class ArenaOutputs:
    """Counts failures, then at session finish checks gates, sets the exit status and writes
    the JSON report and the job summary; prints the gates after the leaderboards."""

    def __init__(
        self, config: pytest.Config, state: ArenaState, record_attr: str, xdist: ArenaXdist | None
    ) -> None:
        self.config = config
        self.state = state
        self.record_attr = record_attr
        self.xdist = xdist
        self.failures_outside_gates = 0
        self.gated_failures = 0  # failed cases that a gate covers
        self.gated_by_project: dict[str, int] = {}  # those of each project
        self.rerun: set[str] = set()  # node ids pytest-rerunfailures ran again
        self.passed_on_rerun = 0
        self.results: list[gates.GateResult] = []
        self.changed: tuple[int, int] | None = None  # exit status before and after the gates
        self.final = 0  # the exit status once every output is written
        self.lost: list[Record] = []
        self.unwritten: list[str] = []  # outputs that could not be written, and why
        self.lost_cases = ""  # a baseline file written with fewer cases than it held
        self.unloaded: list[str] = []  # under --collect-only: what could not be loaded
        self.html: Path | None = None  # the HTML report, once written
        self.no_case: list[str] | None = None  # the run collected projects, but not one case
        self.no_project = ""  # why arena's options, given, found no arena.yaml to act on
        self.no_arena = False  # the run collected no arena.yaml: its reports are left as they are
        self.mistakes: list[str] = []  # leaderboard settings that name what no record has
        self.baseline: list[Record] | None = None
        self.baseline_path = options.report_path(config, "arena_baseline")
        self.compared: list[baseline.BaselineComparison] = []
        self.uncompared: list[str] = []  # the baseline's "project model"s this run did not grade
        if self.baseline_path is not None:
            from pytest_arena.reports import baseline

            try:
                text = self.baseline_path.read_text("utf-8")
            except OSError as error:
                raise pytest.UsageError(
                    f"--arena-baseline {self.baseline_path}: cannot be read ({error.strerror});"
                    " save one first with --arena-save-baseline PATH"
                ) from None
            except UnicodeDecodeError as error:  # UTF-16, as PowerShell's `>` writes
                raise pytest.UsageError(
                    f"--arena-baseline {self.baseline_path}: not UTF-8 text (byte"
                    f" {error.start}: {error.reason}); save it with --arena-save-baseline PATH"
                ) from None
            try:
                self.baseline = baseline.read_baseline(text, str(self.baseline_path))
            except ValueError as error:
                raise pytest.UsageError(f"--arena-baseline: {error}") from None

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if report.outcome == RERUN:
            self.rerun.add(report.nodeid)
        elif report.passed and report.when == "call" and report.nodeid in self.rerun:
            self.passed_on_rerun += 1
        if not report.failed:
            return
        record: dict[str, Any] | None = getattr(report, self.record_attr, None)
        if record and failed_by_pytest(report, record):  # not by the scorer: a failure
            record = None  # like any other, with its own reason
        gated = False
        if record and (gate := (record.get("board") or {}).get("gate")):
            from pytest_arena.reports.gates import decides_for

            gated = decides_for(gate, str(record.get("model")), str(record.get("status")))
        if not gated or report.when != "call":  # setup: the case itself is broken
            self.failures_outside_gates += 1
        elif not hasattr(report, "wasxfail"):  # as pytest counts it in testsfailed
            self.gated_failures += 1
            project = str(record.get("project")) if record else ""
            self.gated_by_project[project] = self.gated_by_project.get(project, 0) + 1
        if record:
            from pytest_arena.reports.junit import with_reason

            path, line = report.location[0], report.location[1]
            # --tb=line: pytest prints a failure's line itself, and an error's text alone
            as_line = self.config.getoption("tbstyle", "auto") == "line"
            report.longrepr = with_reason(
                report.longrepr,
                record["reason"],
                path,
                line,
                line_only=as_line and report.when == "call",
                as_line=as_line and report.when != "call",
            )

    def pytest_collectreport(self, report: pytest.CollectReport) -> None:
        if report.failed:  # (under pytest-xdist, each worker's error once)
            self.state.collection_errors += 1

    def pytest_keyboard_interrupt(self, excinfo: pytest.ExceptionInfo[BaseException]) -> None:
        # Ctrl-C or pytest.exit; pytest's and pytest-xdist's stops raise subclasses of theirs
        real = excinfo.type is KeyboardInterrupt or isinstance(excinfo.value, pytest.exit.Exception)
        self.state.interrupted = self.state.interrupted or real
        said = str(excinfo.value)  # "1 error during collection", ...
        # pytest.exit's reason, as pytest-xdist's controller says it
        exit_ = isinstance(excinfo.value, pytest.exit.Exception)
        self.state.stop_said = f"Exit: {said}" if exit_ and said else said

    @pytest.hookimpl(trylast=True)
    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        self._finish(session)
        self.final = int(session.exitstatus)

    def _finish(self, session: pytest.Session) -> None:
        records = self.state.records
        if self.xdist is not None:
            self.state.keep_first()  # --dist each: every worker's record of each case
            self.lost = self.xdist.lost  # reported, so among the records already
            self.state.lost = len(self.lost)  # a partial run: it stopped early
            self.xdist.spent_unsaid()
        self._no_case(session)
        self._no_project()
        self._unloaded(session)
        path = options.report_path(self.config)
        html_path = options.report_path(self.config, "arena_html")
        save_path = options.report_path(self.config, "arena_save_baseline")
        if not options.runs_cases(self.config):  # a run that grades nothing by design
            path = html_path = None  # leaves the last run's reports as they are
        if self.no_arena:  # nothing to act on (`addopts` gave the options to a Python run)
            path = html_path = save_path = None
        if not records and not path and not html_path:
            self._ungraded_summary(session)
            return
        from pytest_arena.reports import baseline, gates, github_summary, json_report

        _fill_crashed(records)
        boards = self.state.boards()
        found_gates = gates.gates_of(records)
        self.results = gates.check_gates(boards, found_gates)
        if self.baseline is not None:
            defined = self.state.defined_cases()
            if self.xdist is not None:  # the workers loaded the projects
                defined = self.xdist.collected.get("cases") or {}
                if not self.xdist.collected:  # they never said (Ctrl-C): nothing is known gone
                    defined = _baseline_cases(self.baseline)
            self.compared = baseline.compare_with(
                json_report.unique(records), self.baseline, defined, _whole_suite(self.config)
            )
            self.uncompared = baseline.uncompared(records, self.baseline)
        self.results = gates.check_baseline(self.results, self.compared, found_gates)
        # failures pytest counted that no report of a case was: a collection error, or a
        # plugin's own (pytest-cov's --cov-fail-under); no gate covers them
        unseen = session.testsfailed - self.gated_failures - self.failures_outside_gates
        self.failures_outside_gates += max(0, unseen)
        # a gate that checked nothing decides nothing: its project's failed cases fail the
        # run as without a gate (and a gate that checked something vouches for its own only)
        decided = {r.project for r in self.results if r.counted}
        for project in [p for p in self.gated_by_project if p not in decided]:
            moved = self.gated_by_project.pop(project)
            self.gated_failures -= moved
            self.failures_outside_gates += moved
        before = int(session.exitstatus)
        enabled = bool(self.config.getoption("arena_gate"))
        stopped_by = self.state.stopped_by(session)
        # pytest-rerunfailures' --fail-on-flaky status (7) is for a run that is green but
        # for the tests that passed only on a rerun: the gates decide as for a green run
        flaky = self.passed_on_rerun and self.config.getoption("fail_on_flaky", False)
        green = before == RERUN_PASSED and flaky
        after = gates.exit_status(
            pytest.ExitCode.OK if green else before,
            self.results,
            self.failures_outside_gates,
            enabled=enabled,
            stopped_early=stopped_by is not None,
            failed_projects=set(self.gated_by_project),
        )
        if after == pytest.ExitCode.OK != before and flaky:
            after = RERUN_PASSED
        if after != before:
            session.exitstatus = after
            self.changed = (before, after)
        self.mistakes = [m for board in boards for m in board.mistakes]
        if self.mistakes and session.exitstatus == pytest.ExitCode.OK:
            session.exitstatus = pytest.ExitCode.TESTS_FAILED  # a board that is not what it says
        if save_path is not None:
            self._save_baseline(session, save_path, records)
        if path or html_path:
            report = json_report.build_report(
                records,
                boards,
                self.results,
                exit_status=int(session.exitstatus),  # after the gates and the boards' mistakes
                gates_decide=enabled and bool(self.results),
                stopped_by=stopped_by,
                generator=f"pytest-arena {__version__}",
                baseline=baseline.as_data(self.compared) if self.baseline is not None else None,
                spill=self.state.spill,
                problems=self.state.problems,
                spend=self._spend(records),
            )
            self._write_reports(session, path, html_path, report)
        if not records:  # no board, or none with a row: a spent budget kept every case
            self._ungraded_summary(session)
        elif os.environ.get(github_summary.STEP_SUMMARY):
            self._append_summary(
                github_summary.markdown(
                    boards,
                    self.results,
                    self.compared,
                    _flaky(records),
                    partial=self.state.partial(session, "the errors in the job's log"),
                    decided=self._not_the_gates(),
                )
            )

    def _ungraded_summary(self, session: pytest.Session) -> None:
        """The job summary of a run of projects that graded no case, which has no board to
        show: it says why, when the run stopped early, had input that could not be loaded,
        projects without a case, or a spent budget kept every case from running (each
        project's board's note says whose). A run without projects, or that chose to run no
        case (-k, --collect-only), writes none."""
        collected = self._collected()
        projects = collected is not None and any(collected)  # items or files without cases
        if not os.environ.get("GITHUB_STEP_SUMMARY") or not options.runs_cases(self.config):
            return  # (github_summary.STEP_SUMMARY: not imported for a run that says nothing)
        if not projects and not self.state.problems:
            return
        said = []
        stopped = self.state.stop_reason(session)
        if stopped:
            said.append(f"the run stopped early ({stopped}), before it graded a case")
        lost = len(self.state.problems)
        if lost:
            said.append(
                f"{lost} input{'' if lost == 1 else 's'} could not be loaded (the errors in the"
                " job's log say why)"
            )
        if self.no_case is not None:
            said.append("no case ran: the projects of this run hold no cases")
        if self.state.budget_not_run:  # (boards with no row: their notes alone)
            said += [f"{b.project}: {note}" for b in self.state.boards() for note in b.notes]
        if said:
            from pytest_arena.reports.github_summary import ungraded

            self._append_summary(ungraded(said))

    def _append_summary(self, text: str) -> None:
        """Append `text` to the job summary (`GITHUB_STEP_SUMMARY`); a summary that cannot
        be written is said under the boards."""
        from pytest_arena.reports.github_summary import STEP_SUMMARY, append_step_summary

        try:
            append_step_summary(Path(os.environ[STEP_SUMMARY]), text)
        except OSError as error:
            self.unwritten.append(f"the GitHub job summary was not written: {error}")

    def _save_baseline(self, session: pytest.Session, path: Path, records: list[Record]) -> None:
        """Write the baseline file, unless the run ran part of what it selected (-x,
        --maxfail, Ctrl-C) or what the last run left (--lf, --sw): the file would lose the
        cases it did not run, which the next --arena-baseline takes for new ones. Say so, and
        how many cases a file written from a narrower selection (-k, -m, paths) lost."""
        from pytest_arena.reports import baseline, json_report, report_files

        left = "so the baseline file was left as it was"
        if not records:  # --collect-only, or -k that matched none
            if not self.config.getoption("collectonly", False):
                self.unwritten.append(f"--arena-save-baseline: no case ran, {left}")
            return
        why = _partial_run(self.config, session, self.state)
        if why:
            self.unwritten.append(
                f"--arena-save-baseline: {why}, {left} (it would have lost the cases not run);"
                " save a baseline from a run of every case you select"
            )
            return
        had = _baseline_keys(path)
        kept = [r for r in json_report.unique(records) if r.status in baseline.LISTED]
        try:
            with report_files.written_whole(path) as out:  # or the last one is kept
                out.write(baseline.baseline_text(kept))
        except OSError as error:
            self.unwritten.append(f"the --arena-save-baseline file was not written: {error}")
            if session.exitstatus == pytest.ExitCode.OK:
                session.exitstatus = pytest.ExitCode.TESTS_FAILED  # asked for, not delivered
            return
        lost = had - {(r.project, r.model, r.case_id) for r in kept}
        if lost:
            self.lost_cases = (
                f"--arena-save-baseline {shown_path(self.config, path)} holds {len(kept)}"
                f" case{'' if len(kept) == 1 else 's'} now; it held {len(had)}, and {len(lost)}"
                f" of {'it' if len(lost) == 1 else 'them'} did not run (-k, -m, --deselect"
                " or the paths given left them out, or they are gone): a run of every case"
                " saves them all"
            )

    def _write_reports(
        self,
        session: pytest.Session,
        path: Path | None,
        html_path: Path | None,
        report: dict[str, Any],
    ) -> None:
        """Write the HTML report, then the JSON one: each holds the exit status the run
        ends with, which a report not written makes 1 (the page is written again then)."""
        from pytest_arena.reports.json_report import write_report

        if html_path is None:
            self._write(session, "--arena-json", path, write_report, report)
            return
        from pytest_arena.reports.html import write_html  # jinja2 only when asked

        if self._write(session, "--arena-html", html_path, write_html, report):
            self.html = html_path
        report["exit_status"] = int(session.exitstatus)
        if path is None or self._write(session, "--arena-json", path, write_report, report):
            return
        if self.html is not None and report["exit_status"] != int(session.exitstatus):
            report["exit_status"] = int(session.exitstatus)
            self._write(session, "--arena-html", self.html, write_html, report)

    def _write(
        self,
        session: pytest.Session,
        option: str,
        path: Path | None,
        writer: Callable[[Path, dict[str, Any]], None],
        report: dict[str, Any],
    ) -> bool:
        if path is None:
            return False
        try:
            writer(path, report)
        except OSError as error:  # checked before the run: the disk, or the folder, changed
            self.unwritten.append(f"the {option} report was not written: {error}")
            if session.exitstatus == pytest.ExitCode.OK:
                session.exitstatus = pytest.ExitCode.TESTS_FAILED  # asked for, not delivered
            return False
        return True

    def _no_case(self, session: pytest.Session) -> None:
        """A run that collected projects and not one case of them fails as pytest's "no
        tests ran" does (exit status 5), rather than passing on the strength of other tests.
        Cases that -k or -m deselect were collected: the user chose."""
        collected = self._collected()
        if collected is None:
            return
        items, empty = collected
        if items or not empty or self.config.getoption("collectonly", False):
            return  # (no items and nothing empty: a collection error, which pytest reports)
        self.no_case = list(empty)
        if session.exitstatus in (pytest.ExitCode.OK, pytest.ExitCode.NO_TESTS_COLLECTED):
            session.exitstatus = pytest.ExitCode.NO_TESTS_COLLECTED

    def _collected(self) -> tuple[Any, Any] | None:
        """The arena items collected and the projects that held no case (the workers' own,
        under pytest-xdist); None if no worker said (the run was interrupted, or every
        worker crashed): what they collected is not known."""
        if self.xdist is None:
            return self.state.items, self.state.empty
        if self.xdist.collected:
            return self.xdist.collected["items"], self.xdist.collected["empty"]
        return None

    def _no_project(self) -> None:
        """Not one arena.yaml collected: the reports are left as they are, and when arena's
        options were given on the command line (or `arena evaluate` run), the run says why
        (most often `testpaths`, set for the repository's own tests)."""
        collected = self._collected()
        if collected is None or self.state.records or self.state.problems:
            return
        items, empty = collected
        if not items and not empty:
            self.no_arena = True
            self.no_project = _no_project(self.config)

    def _unloaded(self, session: pytest.Session) -> None:
        """--collect-only of a project that cannot be loaded fails, as of a Python file that
        cannot be imported (exit status 2), and says why: it runs nothing to say it."""
        if not self.config.getoption("collectonly", False):
            return
        collect = sys.modules.get(COLLECT)
        if collect is None:
            return
        found = [i for i in session.items if isinstance(i, collect.ProblemItem)]
        self.unloaded = [f"{i.nodeid}: {i.message.splitlines()[0]}" for i in found]
        if found and session.exitstatus == pytest.ExitCode.OK:
            session.exitstatus = pytest.ExitCode.INTERRUPTED

    @pytest.hookimpl(trylast=True)
    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        for problem in self.unwritten:
            terminalreporter.write_line(f"arena: {problem}", red=True)
        if self.lost_cases:
            terminalreporter.write_line(f"arena: {self.lost_cases}", yellow=True)
        if self.unloaded:
            terminalreporter.write_line(
                f"arena: {len(self.unloaded)} input(s) could not be loaded (exit status 2, as a"
                " Python file that cannot be imported):",
                red=True,
            )
            for line in self.unloaded:
                terminalreporter.write_line(f"  {line}")
        if self.no_project:
            terminalreporter.write_line(f"arena: {self.no_project}", yellow=True)
        if self.html is not None:
            terminalreporter.write_line(f"arena: HTML report: {self.html}")
        if self.no_case is not None:
            terminalreporter.write_line(
                "arena: no case ran: the projects of this run hold no cases"
                " (exit status 5, as when no tests ran)",
                red=True,
            )
            for where in self.no_case:
                terminalreporter.write_line(f"  {where}")
        if self.mistakes:
            terminalreporter.write_line(
                "arena: the run fails: a leaderboard's settings name what no record has",
                red=True,
            )
            for mistake in self.mistakes:
                terminalreporter.write_line(f"  {mistake}")
        if self.lost:
            terminalreporter.write_sep("-", "arena cases lost with crashed workers")
            terminalreporter.write_line(  # each listed above, as an error of pytest's
                f"{len(self.lost)} case(s) never ran and count as errors: {self.lost[0].reason}"
            )
        if self.baseline is not None:
            terminalreporter.write_sep("-", f"arena baseline: {self.baseline_path}")
            for compared in self.compared:
                for line in compared.lines():
                    terminalreporter.write_line(line)
            if self.uncompared:
                terminalreporter.write_line(
                    "not compared, as no case of theirs ran in this run (a project that"
                    f" did not load, a model not asked for): {', '.join(self.uncompared)}"
                )
        for result in self.results:
            terminalreporter.write_sep("-", f"arena gate: {result.project}")
            for line in result.lines():
                terminalreporter.write_line(line)
        if not self.results:
            return
        decided = self._not_the_gates()
        if decided:
            terminalreporter.write_line(decided)
        elif self.changed is not None:
            before, after = self.changed
            if self.final != after:  # a report asked for and not written fails the run
                terminalreporter.write_line(
                    f"exit status {self.final}: the gates held, but a report was not written"
                )
                return
            if after == RERUN_PASSED:
                terminalreporter.write_line(
                    f"exit status {after} (not {before}): the gates held, and"
                    f" {self.passed_on_rerun} test(s) passed only on a rerun (--fail-on-flaky)"
                )
                return
            terminalreporter.write_line(
                f"exit status {after} (not {before}): the gates decide for their projects;"
                " --no-arena-gate lets failed cases decide"
            )

    def _not_the_gates(self) -> str:
        """Why the gates checked did not decide the exit status, or "": the terminal says
        it under the gates, the job summary above its boards (a gate there may say it held
        on a red job)."""
        if not self.results:
            return ""
        if not self.config.getoption("arena_gate"):
            return (
                "gates did not decide the exit status (--no-arena-gate): failed cases fail the run"
            )
        if self.failures_outside_gates and all(r.held for r in self.results):
            return (
                f"the gates held, but {self.failures_outside_gates} failure(s) outside any gate"
                " (Python tests, projects without a gate or whose gate checked nothing, strict"
                " xfails that passed, broken input, crashed workers, errors no check of the"
                " gate counts: name errors, accuracy,"
                " pass_rate or composite in it)"
                " fail the run"
            )
        return ""

    def _spend(self, records: list[Record]) -> dict[str, Any]:
        """The run's spend line as data: dollars and counts (`Spent`)."""
        from pytest_arena.plugin.progress_line import unpriced_answers
        from pytest_arena.reports.tables import spent

        money = spent(records, self.state.spent_on_calls(), unpriced_answers(self.config))
        return {
            "total": money.total,
            "on_graded": money.graded,
            "on_ungraded": money.ungraded,
            "unpriced_answers": money.unpriced_answers,
            "unpriced_verdicts": money.unpriced_verdicts,
            "unpriced_ungraded_answers": money.unpriced_ungraded,
            "saved_by_cache": money.saved,
            "budget_skips": self.state.budget_skips,
            "unknown_workers": self.state.workers_unknown,
            "calls_cut_off": self.state.cut_off(),
        }


def _partial_run(config: pytest.Config, session: pytest.Session, state: ArenaState) -> str:
    """Why the run did not run every case it selected, or "": it stopped early (crashed
    xdist workers took cases down with them, too), or --lf or --sw chose what ran by the
    last run."""
    stopped = state.stop_reason(session)
    if stopped:
        return f"the run stopped early ({stopped})"
    for name, option in (("lf", "--lf"), ("stepwise", "--sw"), ("stepwise_skip", "--sw-skip")):
        if config.getoption(name, False):
            return f"{option} ran what the last run left, not every case"
    return ""


def _baseline_keys(path: Path) -> set[tuple[str, str, str]]:
    """The (project, model, case) of each case the baseline file at `path` lists; none if
    there is no such file (or it is not a baseline)."""
    from pytest_arena.reports.baseline import read_baseline

    if not path.is_file():  # (a device, such as /dev/null, is read as no baseline)
        return set()
    try:
        found = read_baseline(path.read_text("utf-8"), str(path))
    except (OSError, UnicodeDecodeError, ValueError):
        return set()
    return {(r.project, r.model, r.case_id) for r in found}


def _baseline_cases(baseline: list[Record]) -> dict[str, list[str]]:
    """The case ids of each project of `baseline`: what a run that cannot tell which cases
    its projects hold takes them to hold, so that a case it did not run is not run, not gone."""
    cases: dict[str, list[str]] = {}
    for record in baseline:
        cases.setdefault(record.project, []).append(record.case_id)
    return cases


def _whole_suite(config: pytest.Config) -> bool:
    """Whether the run collected every project it could: no paths given, not started in a
    folder below the rootdir, none left uncollected by --ignore or --lf (which skips the
    files that did not fail)."""
    source = config.args_source
    if source == pytest.Config.ArgsSource.ARGS:
        return False
    below = source == pytest.Config.ArgsSource.INVOCATION_DIR
    if below and config.invocation_params.dir != config.rootpath:
        return False
    narrowed = ("lf", "ignore", "ignore_glob")
    return not any(config.getoption(name, None) for name in narrowed)


def _fill_crashed(records: list[Record]) -> None:
    """Give the error records of crashed items the weight, tags, group and board of their
    case, from a record of the same case (or project) when the controller could not read
    them from the project's arena.yaml."""
    if not any("crash" in r.detail for r in records):
        return  # the usual run: no index of every record to build (and collect)
    known = {(r.project, r.case_id): r for r in records if "crash" not in r.detail}
    boards = {r.project: r.board for r in records if r.board}
    for record in records:
        if "crash" in record.detail:
            sibling = known.get((record.project, record.case_id))
            if sibling is not None:
                record.weight, record.tags = sibling.weight, list(sibling.tags)
                record.group = sibling.group
            record.board = record.board or boards.get(record.project, {})


def _flaky(records: Sequence[Record]) -> dict[str, list[tuple[str, str]]]:
    """Per project, its FLAKY cases as `case[model]` and what their samples did."""
    from pytest_arena.evaluation.samples import flaky_tally
    from pytest_arena.record import FLAKY

    found: dict[str, list[tuple[str, str]]] = {}
    for r in records:
        if r.status == FLAKY and not r.xfail:  # pytest counts an xfail-marked one its way
            found.setdefault(r.project, []).append((f"{r.case_id}[{r.model}]", flaky_tally(r)))
    return found


def _no_project(config: pytest.Config) -> str:
    """What to say when the command line gave arena's options (or `arena evaluate` ran
    pytest) and pytest collected no arena.yaml: most often `testpaths` (set for the
    repository's own tests) left the projects out. Empty when no arena option was given
    to pytest itself."""
    testpaths = config.args_source == pytest.Config.ArgsSource.TESTPATHS
    paths = " ".join(config.getini("testpaths"))
    if config.getoption("arena_from_cli", False):  # said with the command's own options
        said = "no arena.yaml was collected, so there was nothing to evaluate"
        if testpaths:
            return (
                f"{said}: pytest collected from testpaths ({paths}); give the projects' folder,"
                " `arena evaluate --project PATH`, or add it to testpaths"
            )
        return (
            f"{said}: give a project, `arena evaluate --project PATH` (its folder or its"
            " arena.yaml), or write one with `arena init projects/NAME`"
        )
    given = sorted(
        {a.split("=")[0] for a in config.invocation_params.args if a.startswith("--arena-")}
    )
    if not given:
        return ""
    said = f"no arena.yaml was collected, so {', '.join(given)} had nothing to act on"
    if testpaths:
        return (
            f"{said}: pytest collected from testpaths ({paths}); run `pytest projects`,"
            " or add the projects' folder to testpaths"
        )
    return f"{said}: give the projects' folder (`pytest projects`)"
