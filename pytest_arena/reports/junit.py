"""What JUnit XML (and any report reader) learns about a record.

Where a record goes depends on `junit_family`. Under `xunit1` (and `legacy`) it is the
testcase's `<properties>`: with `--junitxml`, properties go on `item.user_properties` before
the report is made, so they travel with the report to the pytest-xdist controller and
reach the XML like `record_property` values. Under `xunit2`, pytest's default, a testcase
may not hold properties (pytest's own `junit-10.xsd`), so the record is written as
`name: value` lines in the testcase's `<system-out>`, which Jenkins and GitHub test
reporters show next to the case. (Every reader of reports has the whole record anyway, as
the report's `arena_record`.)

Neither a crashed worker's case (no teardown report) nor `<system-out>` can be reached
through a public API: `JUnitRecords` uses pytest's `LogXML.node_reporter`, and when that
fails the XML is written without those records (still valid) and the run says so.
"""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from collections.abc import Generator
from dataclasses import dataclass
from typing import Any

import pytest

from pytest_arena.record import Record

METRIC_PREFIX = "metric."
PER_CASE_FAMILIES = ("xunit1", "legacy")  # the junit_family values whose testcases hold properties
OUTPUT_HEADER = " arena record ".center(80, "-")  # like pytest's " Captured Out " header
_NOT_XML = re.compile(r"[^\x09\x0A\x0D\x20-\uD7FF\uE000-\uFFFD\U00010000-\U0010FFFF]")


def properties(record: Record) -> list[tuple[str, str]]:
    """`(name, value)` pairs: project, case, model, status, score, passed, cost, tokens,
    latency (ms), and each custom metric as `metric.NAME`."""
    pairs: list[tuple[str, Any]] = [
        ("project", record.project),
        ("case", record.case_id),
        ("model", record.model),
        ("status", record.status),
        ("score", record.score),
        ("passed", record.passed),
        ("cost", record.cost),
        ("tokens", record.tokens_in + record.tokens_out),
        ("latency", record.latency_ms),
    ]
    pairs += [(METRIC_PREFIX + name, value) for name, value in sorted(record.metrics.items())]
    return [(name, _text(value)) for name, value in pairs]


def _text(value: Any) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, float):
        return repr(round(value, 9))
    return json.dumps(value)  # true, false, null, integers


@dataclass(frozen=True)
class ReasonLocation:
    """Stands in for pytest's crash location: JUnit's `message` and `--tb=line` read it."""

    path: str
    lineno: int
    message: str

    def __str__(self) -> str:
        return f"{self.path}:{self.lineno}: {self.message}"


class ReasonRepr:
    """A failure's full text, with the scorer's reason as its one-line message.

    JUnit XML takes a failure's `message` attribute from `longrepr.reprcrash.message`, and
    the short test summary its one line; a plain string longrepr would give them all of it.
    """

    def __init__(self, text: str, reason: str, path: str, lineno: int) -> None:
        self.text = text
        self.reprcrash = ReasonLocation(path, lineno, reason)

    def toterminal(self, tw: Any) -> None:
        for line in self.text.split("\n"):
            tw.line(line)

    def __str__(self) -> str:
        return self.text


def with_reason(longrepr: Any, reason: str, path: str, lineno: int | None) -> Any:
    """`longrepr` carrying `reason` as its message, when it is text and there is a reason."""
    if not isinstance(longrepr, str) or not reason.strip():
        return longrepr
    return ReasonRepr(longrepr, reason.strip(), path, (lineno or 0) + 1)


def set_properties(user_properties: list[tuple[str, object]], record: Record) -> None:
    """Put `record`'s properties on an item, replacing those of an earlier phase."""
    fresh = properties(record)
    names = {name for name, _ in fresh}
    user_properties[:] = [
        (n, v) for n, v in user_properties if n not in names and not n.startswith(METRIC_PREFIX)
    ]
    user_properties.extend(fresh)


def junit_family(config: pytest.Config) -> str:
    """The run's `junit_family` ini value (`xunit2` when pytest's junitxml plugin is off)."""
    try:
        return str(config.getini("junit_family"))
    except ValueError:  # no such ini value: -p no:junitxml
        return "xunit2"


def properties_per_case(config: pytest.Config) -> bool:
    """Whether `--junitxml` is on and its family lets each testcase hold `<properties>`."""
    return bool(config.getoption("xmlpath", None)) and junit_family(config) in PER_CASE_FAMILIES


def output_text(record: Record) -> str:
    """`record`'s properties as `name: value` lines under a header, for `<system-out>`."""
    lines = [OUTPUT_HEADER, *(f"{name}: {value}" for name, value in properties(record))]
    return _NOT_XML.sub(lambda m: f"#x{ord(m[0]):02X}", "\n".join(lines) + "\n")


def add_output(testcase: ET.Element | list[ET.Element], text: str) -> None:
    """Put `text` first in the testcase's `<system-out>`, making one if there is none.

    `testcase` is the element or the list of its children. One `<system-out>` a testcase:
    GitLab's parser fails on a failed case with two.
    """
    out = next((node for node in testcase if node.tag == "system-out"), None)
    if out is None:
        out = ET.Element("system-out")
        testcase.append(out)
    out.text = text + (out.text or "")


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

    @pytest.hookimpl(trylast=True)
    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        if self.broken is not None:
            where = "crashed cases' properties" if self.per_case else "records (system-out)"
            terminalreporter.write_line(
                f"arena: the JUnit XML leaves out {where}: pytest's JUnit internals"
                f" changed ({self.broken}); --arena-json has every record"
            )
