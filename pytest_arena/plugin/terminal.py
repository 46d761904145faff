"""The terminal's part: records gathered from test reports, leaderboards printed at the end."""

from __future__ import annotations

import sys
from collections import Counter
from collections.abc import Generator
from typing import Any

import pytest

from pytest_arena.engine.money import BUDGET_SPENT
from pytest_arena.plugin.failure_style import FailureStyle
from pytest_arena.plugin.outputs import RERUN, strict_xpass, xfail_outcome
from pytest_arena.plugin.state import ArenaState
from pytest_arena.record import FLAKY, UNSCORED, Record
from pytest_arena.reports.failures import message

RECORD_ATTR = "arena_record"  # a record travels on its test report as JSON-safe data
PROBLEM_ATTR = "arena_problem"  # and a problem item's message on its failed report
MODEL_ATTR = "arena_model"  # and a skipped case's [project, model] on its report
_VERDICT = {True: "passed", False: "failed", None: "unscored"}
UNSCORED_REASONS = 5  # the most common reasons of unscored cases said, the rest counted
# the categories of pytest's short test summary (-rf, -rp, -rA) arena's own are listed in:
# a FLAKY case that fails the run among the failed, the others among the passed
_LISTED_AS = {"flaky": ("failed", "passed"), "unscored": ("passed", "passed")}


# the exit statuses pytest prints its terminal summary for: every one of its own but an
# internal error's, not the returncode of a pytest.exit() (`TerminalReporter.pytest_sessionfinish`)
_SUMMARISED = frozenset(pytest.ExitCode) - {pytest.ExitCode.INTERNAL_ERROR}


# the boards' own signs, as ASCII writes them, for a terminal that cannot show them
_ASCII_SIGNS = str.maketrans({"\u00b1": "+-", "\u00b7": "*", "\u2013": "-", "\u2026": "..."})


def shown(text: str) -> str:
    """`text` as the terminal can print it: under an ASCII locale the boards' signs in
    ASCII and anything else escaped (pytest would escape the whole board into one line)."""
    encoding = getattr(sys.__stdout__, "encoding", None) or "utf-8"
    try:
        text.encode(encoding)
    except LookupError:
        return text
    except UnicodeEncodeError:
        plain = text.replace(" \u00b1 ", " +-").translate(_ASCII_SIGNS)  # columns kept
        return plain.encode(encoding, "backslashreplace").decode(encoding, "replace")
    return text


class ArenaReporter:
    """Gathers records from test reports (also those sent by xdist workers) and prints boards."""

    def __init__(
        self, state: ArenaState, failure_style: FailureStyle, lean: bool, spills: bool = False
    ) -> None:
        self.state = state
        self.lean = lean  # no report shows whole records: keep what the boards need
        self.spills = spills  # the JSON or HTML report shows them: spill them, keep lean ones
        self.failure_style = failure_style
        self.boards: dict[str, Any] = {}  # each project's leaderboard settings, kept once
        self.session: pytest.Session | None = None
        # FLAKY and UNSCORED reports listed in pytest's short summary: (category, report,
        # whether the category was made for them)
        self.listed: list[tuple[str, Any, bool]] = []
        self.problem_items: set[str] = set()  # the items of `state.problems`, each said once

    def pytest_sessionstart(self, session: pytest.Session) -> None:
        self.session = session

    def pytest_report_teststatus(self, report: pytest.TestReport) -> Any:
        record = getattr(report, RECORD_ATTR, None)
        if not record or report.when != "call":
            return None
        if hasattr(report, "wasxfail") or (report.failed and strict_xpass(report)):
            return None  # pytest's own verdict on an xfail-marked case: xfailed, xpassed
        if record.get("status") == UNSCORED and not report.failed:
            return "unscored", "U", ("UNSCORED", {"yellow": True})
        if record.get("status") == FLAKY:
            return "flaky", "~", ("FLAKY", {"yellow": True})
        sampling = record.get("sampling") or {}
        if report.passed and sampling.get("graded") and sampling["passed"] < sampling["graded"]:
            # the samples disagreed, and the verdict is clear: say by how much (failures
            # say it in their message)
            return (
                "passed",
                ".",
                (f"PASSED ({sampling['passed']}/{sampling['graded']})", {"green": True}),
            )
        return None

    @pytest.hookimpl(specname="pytest_terminal_summary", wrapper=True, trylast=True)
    def pytest_terminal_summary_listed(self, terminalreporter: Any) -> Generator[None, None, None]:
        """Put FLAKY and UNSCORED cases in the categories pytest's short test summary lists
        (-rf, -rp, -rA; it lists no other) as it is printed: after every other summary, when
        this wrapper, the innermost, has returned. Each is listed by its own word."""
        try:
            return (yield)
        finally:
            stats: dict[str, list[Any]] = terminalreporter.stats
            for category, (failed, passed) in _LISTED_AS.items():
                for report in stats.get(category, ()):
                    key = failed if report.failed else passed
                    self.listed.append((key, report, key not in stats))
                    stats.setdefault(key, []).append(report)

    @pytest.hookimpl(specname="pytest_terminal_summary", wrapper=True, tryfirst=True)
    def pytest_terminal_summary_unlisted(
        self, terminalreporter: Any
    ) -> Generator[None, None, None]:
        """Take them out again once the short test summary is printed: pytest's final counts
        ("1 flaky") and other plugins find each in its own category."""
        try:
            return (yield)
        finally:
            stats: dict[str, list[Any]] = terminalreporter.stats
            listed, self.listed = self.listed, []
            for key in {key for key, _, _ in listed}:  # (each list once: a run's end stays
                ours = {id(r) for k, r, _ in listed if k == key}  # linear in its items)
                kept = [r for r in stats.get(key, ()) if id(r) not in ours]
                if kept or not any(added for k, _, added in listed if k == key):
                    stats[key] = kept
                else:
                    stats.pop(key, None)

    @pytest.hookimpl(wrapper=True, trylast=True)
    def pytest_sessionfinish(
        self, session: pytest.Session, exitstatus: int
    ) -> Generator[None, None, None]:
        """pytest prints no terminal summary for a run that pytest.exit() ended with a
        returncode of the user's (`pytest.exit("why", returncode=9)`): arena's part of it
        (the boards of what was graded, said to be partial, the gates, the reports' paths)
        is printed here, as for Ctrl-C. The innermost wrapper: after every report is
        written, before pytest's last line."""
        try:
            return (yield)
        finally:
            config = session.config
            terminal = config.pluginmanager.get_plugin("terminalreporter")
            if (
                self.state.interrupted
                and exitstatus not in _SUMMARISED
                and terminal is not None
                and not config.getoption("no_summary", False)  # (pytest's --no-summary)
            ):
                others = [p for p in config.pluginmanager.get_plugins() if not _arenas(p)]
                summary = config.pluginmanager.subset_hook_caller("pytest_terminal_summary", others)
                terminal.write_line("")  # (its own summary's first line: ends the progress)
                summary(terminalreporter=terminal, exitstatus=exitstatus, config=config)

    def pytest_runtest_logfinish(self, nodeid: str) -> None:
        # once an item (pytest-rerunfailures ends each try); xdist tells the controller too
        self.state.finished.add(nodeid)

    @pytest.hookimpl(trylast=True)  # after every other reader of the report's whole record
    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        record = getattr(report, RECORD_ATTR, None)
        if report.outcome == RERUN:  # pytest-rerunfailures: a try it discards
            return
        problem = getattr(report, PROBLEM_ATTR, None)
        if problem and report.nodeid not in self.problem_items:  # (--dist each: every worker's)
            self.problem_items.add(report.nodeid)
            self.state.problems.append({"item": report.nodeid, "message": str(problem)})
        if record:
            board = record.get("board")
            if board:  # the same for every record of a project: kept once, not per record
                known = self.boards.setdefault(str(record.get("project")), board)
                if known is not board and known == board:
                    record["board"] = known
            kept = Record.from_dict(record)
            kept.xfail = xfail_outcome(report)
            if self.spills:
                if self.state.spill is None:
                    from pytest_arena.reports.json_report import Spill

                    self.state.spill = Spill()
                # a crashed item's record is completed at the end, and written whole then
                if self.state.spill.add(kept, whole="crash" not in kept.detail):
                    kept.lean()
            elif self.lean:
                kept.lean()
            self.state.records.append(kept)
            # the report's data is the kept record from here (a mapping of its fields): held
            # once, as a run keeps every report to its end
            setattr(report, RECORD_ATTR, kept)
        elif (
            report.skipped
            and isinstance(report.longrepr, tuple)
            and report.longrepr[2].removeprefix("Skipped: ").startswith(BUDGET_SPENT)
        ):
            self.state.budget_skips += 1
            named = getattr(report, MODEL_ATTR, None)  # (an arena case's: not a Python test's)
            if named:  # a model it kept from every case: named under its project's board,
                self.state.budget_not_run[named[0], named[1]] += 1  # where it has no row

    def _gates_on(self) -> bool:
        """Whether gates decide the exit status: unless --no-arena-gate."""
        config = self.session.config if self.session is not None else None
        return config is not None and bool(config.getoption("arena_gate", True))

    def _gated(self, records: list[Record]) -> bool:
        """Whether a gate decides the exit status for any of `records` (FLAKY ones that fail
        the run): theirs, unless --no-arena-gate."""
        return self._gates_on() and any(
            r.board.get("gate") and r.sampling.get("flaky") != "pass" for r in records
        )

    def _flaky_said(self, flaky: list[Record]) -> str:
        """Whether the FLAKY cases `flaky` fail the run, as their projects' `flaky:` says:
        those of `flaky: pass` do not (a limit of their gate still can), the others do
        unless a gate decides for them, as for failed cases."""
        failing = [r for r in flaky if r.sampling.get("flaky") != "pass"]
        decides = "a gate, which then decides ('flaky: {max: 0}' in it fails the run on any)"
        if len(failing) == len(flaky):
            gated = f" or has {decides}" if self._gated(failing) else ""
            return f"they fail the run unless arena.yaml says 'flaky: pass'{gated}"
        if failing:
            gated = f", unless it has {decides}" if self._gated(failing) else ""
            return (
                "those marked (flaky: pass) do not fail the run, as their arena.yaml says so;"
                f" the others do, as theirs does not say 'flaky: pass'{gated}"
            )
        limits = (
            " unless a limit of its gate does ('flaky: {max: 0}' fails the run on any)"
            if self._gates_on() and any(r.board.get("gate") for r in flaky)
            else ""
        )
        return f"arena.yaml says 'flaky: pass', so they do not fail the run{limits}"

    def _unpriced_on_calls(self) -> int:
        """The answers of models without a price that the run's calls got, graded or not."""
        if self.session is None:
            return 0
        from pytest_arena.plugin.progress_line import unpriced_answers

        return unpriced_answers(self.session.config)

    def _spend_line(self) -> str:
        """The spend line: what the records and the engine's calls cost, and what of it is
        unknown (the answers of models without a price, graded or not)."""
        from pytest_arena.reports.tables import spending

        state = self.state
        paid, unknown = state.spent_on_calls(), state.workers_unknown
        xdist = state.workers_spent is not None  # the controller: its workers said theirs
        return spending(
            state.records,
            state.budget_skips,
            paid,
            unknown,
            xdist=xdist,
            unpriced_on_calls=self._unpriced_on_calls(),
            cut_off=state.cut_off(),
        )

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        unknown = self.state.workers_unknown
        if not self.state.records and not self.state.budget_not_run:
            spent = self.state.spent_on_calls()
            left = self._unpriced_on_calls()  # (no record: every one is ungraded)
            cut_off = self.state.cut_off()
            if self.state.budget_skips or spent or unknown or left or cut_off:  # none graded
                terminalreporter.write_line(f"arena: {self._spend_line()}")
            return
        # here, not at the top: a run without arena projects does not load them
        from pytest_arena.evaluation.samples import flaky_tally
        from pytest_arena.reports.tables import render_board, ties_legend

        title, lines = self.failure_style.section()
        if title:
            terminalreporter.write_sep("=", title, red=True)
            for line in lines:
                terminalreporter.write_line(line)
        flaky = [r for r in self.state.records if r.status == FLAKY and not r.xfail]
        if flaky:
            terminalreporter.write_sep("-", "arena: flaky cases (no clear verdict)")
            for r in flaky:
                terminalreporter.write_line(
                    f"FLAKY {r.project}::{r.case_id}[{r.model}] - {flaky_tally(r)}"
                )
            terminalreporter.write_line(
                "the 95% interval of their pass rate still holds min_pass_rate after the most"
                f" samples; {self._flaky_said(flaky)}"
            )
        unscored = Counter(
            r.reason for r in self.state.records if r.status == UNSCORED and not r.xfail
        )
        if unscored:  # no verdict, no failure block: their reasons are said here
            terminalreporter.write_sep("-", "arena: unscored cases (no verdict), by reason")
            for reason, count in unscored.most_common(UNSCORED_REASONS):
                terminalreporter.write_line(f"{count} x {message(reason) or '(no reason given)'}")
            if len(unscored) > UNSCORED_REASONS:
                terminalreporter.write_line(f"and {len(unscored) - UNSCORED_REASONS} more reasons")
        changed = [r for r in self.state.records if "override" in r.detail]
        if changed:
            terminalreporter.write_sep("-", "verdicts changed by hooks.py override_verdict")
            for r in changed:
                said = r.detail["override"]
                why = message(str(said.get("because", "")))
                if "samples" in said:  # a repeated case: some of its samples (samples.py)
                    what = (
                        f"{len(said['samples'])} of {said['drawn']} samples"
                        f" {said.get('changes', '')}; the case {r.status}"
                    )
                else:
                    what = f"{_VERDICT[said.get('passed')]} -> {_VERDICT[r.passed]}"
                terminalreporter.write_line(f"{r.project}::{r.case_id}[{r.model}]: {what}: {why}")
        boards = self.state.boards()
        for board in boards:
            terminalreporter.write_sep("=", f"arena leaderboard: {board.project}")
            for line in shown(render_board(board, legend=False)).splitlines():
                terminalreporter.write_line(line)
        legend = ties_legend(boards)
        if legend is not None:
            terminalreporter.write_line(shown(legend))
        if self.session is not None:
            for said in self.state.partial(self.session):
                terminalreporter.write_line(f"arena: {said}", yellow=True)
        terminalreporter.write_line(f"arena: {self._spend_line()}")
        warned = Counter(
            str(r.detail["warning"]) for r in self.state.records if r.detail.get("warning")
        )
        near = self.state.near_misses()
        if near:
            said, total = max(near, key=near.__getitem__), sum(near.values())
            terminalreporter.write_line(
                f"arena: {total} answer{'' if total == 1 else 's'} bought though the cache"
                " holds answers to the same messages for the model; the nearest cached call"
                f" differs in {said}{' (and others)' if len(near) > 1 else ''}: a setting"
                " changed, or an upgrade changed what a call's cache key holds",
                yellow=True,
            )
        for warning, count in warned.items():  # an answer kept, but not cached: said once
            terminalreporter.write_line(
                f"arena: {count} answer{'' if count == 1 else 's'} not cached: {warning}",
                yellow=True,
            )


def _arenas(plugin: object) -> bool:
    """Whether `plugin` is one of the objects this package registers."""
    return type(plugin).__module__.partition(".")[0] == "pytest_arena"
