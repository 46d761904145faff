"""Records into pytest's JUnit XML, where the chosen `junit_family` lets them go.

Under `xunit1` (and `legacy`), with `--junitxml`, properties go on `item.user_properties`
before the report is made, so they travel with the report to the pytest-xdist controller
and reach the XML like `record_property` values. Under `xunit2` they go to `<system-out>`.
Neither a crashed worker's case (no teardown report) nor `<system-out>` can be reached
through a public API: `JUnitRecords` uses pytest's `LogXML.node_reporter`, and when that
fails the XML is written without those records (still valid) and the run says so.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections.abc import Generator
from typing import Any

import pytest

from pytest_arena.record import Record
from pytest_arena.reports.junit import (
    PER_CASE_FAMILIES,
    add_output,
    board_properties,
    output_text,
    properties,
)


def junit_family(config: pytest.Config) -> str:
    """The run's `junit_family` ini value (`xunit2` when pytest's junitxml plugin is off)."""
    try:
        return str(config.getini("junit_family"))
    except ValueError:  # no such ini value: -p no:junitxml
        return "xunit2"


def properties_per_case(config: pytest.Config) -> bool:
    """Whether `--junitxml` is on and its family lets each testcase hold `<properties>`."""
    return bool(config.getoption("xmlpath", None)) and junit_family(config) in PER_CASE_FAMILIES


class JUnitRecords:
    """On the controller with `--junitxml`: puts records where pytest's own path cannot.

    Under `xunit2`, every record goes to its testcase's `<system-out>` once pytest has closed
    the testcase; under `xunit1`, only a crashed item's record needs help (its properties
    would come with a teardown report that never comes).
    """

    def __init__(self, config: pytest.Config, record_attr: str) -> None:
        self.config = config
        self.record_attr = record_attr
        self.per_case = properties_per_case(config)
        self.pending: dict[tuple[str, object], dict[str, Any]] = {}  # (node id, worker) -> record
        self.broken: str | None = None  # why pytest's internals could not be used

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_logreport(self, report: pytest.TestReport) -> Generator[None, None, None]:
        key = (report.nodeid, getattr(report, "node", None))  # how pytest keys its testcases
        record: dict[str, Any] | None = getattr(report, self.record_attr, None)
        if report.when in ("setup", "call"):
            if record and not self.per_case:
                self.pending[key] = record  # until pytest closes the testcase, on teardown
            return (yield)
        record = record or self.pending.pop(key, None)  # teardown, or xdist's crash report
        if not record or self.broken is not None or (self.per_case and report.when == "teardown"):
            return (yield)
        testcase = self._testcase(report)  # before pytest closes it on this report
        result = yield
        if testcase is not None:
            self._write(testcase, Record.from_dict(record))
        return result

    def _testcase(self, report: pytest.TestReport) -> Any:
        try:
            from _pytest.junitxml import xml_key  # no public way to reach a testcase

            xml = self.config.stash.get(xml_key, None)
            return None if xml is None else xml.node_reporter(report)
        except Exception as error:  # an ImportError, or pytest's internals changed
            self._give_up(error)
            return None

    def _write(self, testcase: Any, record: Record) -> None:
        try:
            if self.per_case:
                for name, value in properties(record):
                    testcase.add_property(name, value)
                return
            children = getattr(testcase, "nodes", None)  # still open (a crashed item)
            if isinstance(children, list):
                add_output(children, output_text(record))
                return
            element = testcase.to_xml()  # closed: pytest keeps the element it will write
            if not isinstance(element, ET.Element) or testcase.to_xml() is not element:
                raise TypeError("a closed testcase is no longer one element")
            add_output(element, output_text(record))
        except Exception as error:
            self._give_up(error)

    def _give_up(self, error: Exception) -> None:
        if self.broken is None:
            self.broken = f"{type(error).__name__}: {error}"

    @pytest.hookimpl(tryfirst=True)
    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        """Each board's values and 95% bounds as the testsuite's properties (before pytest
        writes the XML): `arena.PROJECT.MODEL.accuracy`, `....accuracy.low`, `.high`. The
        boards are the run's own (`ArenaState.boards`, built once for every report), unless
        a crashed item's record is still to be completed by the reports: then its own."""
        from pytest_arena.plugin.state import ArenaState

        try:
            from _pytest.junitxml import xml_key

            xml = self.config.stash.get(xml_key, None)
            state = ArenaState.of(self.config)
            records = state.records
            if xml is None or not records:
                return
            if any("crash" in r.detail for r in records):  # not final yet: built apart
                from pytest_arena.reports.leaderboard import build_boards

                boards = build_boards(records, state.budget_not_run)
            else:
                boards = state.boards()
            for name, value in board_properties(boards):
                xml.add_global_property(name, value)
        except Exception as error:  # pytest's internals changed
            self._give_up(error)

    @pytest.hookimpl(trylast=True)
    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        if self.broken is not None:
            where = "crashed cases' properties" if self.per_case else "records (system-out)"
            terminalreporter.write_line(
                f"arena: the JUnit XML leaves out {where}: pytest's JUnit internals"
                f" changed ({self.broken}); --arena-json has every record"
            )
