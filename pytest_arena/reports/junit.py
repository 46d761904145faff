"""What JUnit XML (and any report reader) learns about a record, as data.

Where a record goes depends on `junit_family`. Under `xunit1` (and `legacy`) it is the
testcase's `<properties>`. Under `xunit2`, pytest's default, a testcase may not hold
properties (pytest's own `junit-10.xsd`), so the record is written as `name: value` lines
in the testcase's `<system-out>`, which Jenkins and GitHub test reporters show next to the
case. Every reader of reports has the whole record anyway, as the report's `arena_record`.
`plugin/junit_xml.py` puts them into pytest's XML.
"""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from pytest_arena.record import Record
from pytest_arena.reports.failures import REASON_LIMIT, clip, message
from pytest_arena.scorers.text import printable

if TYPE_CHECKING:
    from pytest_arena.reports.leaderboard import Board

METRIC_PREFIX = "metric."
PER_CASE_FAMILIES = ("xunit1", "legacy")  # the junit_family values whose testcases hold properties
OUTPUT_HEADER = " arena record ".center(80, "-")  # like pytest's " Captured Out " header
# a message that starts where it is: "path:line: " (a setup error's reason)
_LOCATED = re.compile(r"[^\s:][^:\n]*:\d+: ")
# what XML 1.0 does not allow (the complement of #x9 | #xA | #xD | [#x20-#xD7FF] |
# [#xE000-#xFFFD] | [#x10000-#x10FFFF]), listed as such: compiling the allowed ranges'
# negation takes milliseconds at every start
_NOT_XML = re.compile(r"[\x00-\x08\x0B\x0C\x0E-\x1F\uD800-\uDFFF\uFFFE\uFFFF]")


def properties(record: Record) -> list[tuple[str, str]]:
    """`(name, value)` pairs: project, case, model, status (`flaky` too), for a case marked
    xfail what pytest made of it (xfail: xfailed, xpassed or xpassed_strict), score, passed,
    cost, tokens, latency (ms); for a repeated case its samples, samples_passed, pass_rate
    and min_pass_rate; and each custom metric as `metric.NAME`."""
    pairs: list[tuple[str, Any]] = [
        ("project", record.project),
        ("case", record.case_id),
        ("model", record.model),
        ("status", record.status),
        *([("xfail", record.xfail)] if record.xfail else []),
        ("score", record.score),
        ("passed", record.passed),
        ("cost", record.cost),
        ("tokens", record.tokens_in + record.tokens_out),
        ("latency", record.latency_ms),
    ]
    if record.sampling:  # a repeated case: its samples' tally
        sampling = record.sampling
        pairs += [
            ("samples", sampling.get("drawn")),
            ("samples_passed", sampling.get("passed")),
            ("pass_rate", sampling.get("pass_rate")),
            ("min_pass_rate", sampling.get("min_pass_rate")),
        ]
    pairs += [(METRIC_PREFIX + name, value) for name, value in sorted(record.metrics.items())]
    return [(printable(name), _text(value)) for name, value in pairs]  # names XML holds


def board_properties(boards: Iterable[Board]) -> list[tuple[str, str]]:
    """Each board's composite, accuracy and pass rate per model, with their 95% bounds, and
    its rank as shown (`=2`: tied), as `arena.PROJECT.MODEL.NAME` pairs."""
    pairs: list[tuple[str, Any]] = []
    for board in boards:
        for row in board.rows:
            head = f"arena.{board.project}.{row.model}"
            pairs.append((f"{head}.rank", row.rank_label or str(row.rank)))
            for name in ("composite", "accuracy", "pass_rate"):
                value = getattr(row, name)
                if value is None:
                    continue
                pairs.append((f"{head}.{name}", value))
                interval = row.intervals.get(name)
                if interval is not None and interval.low is not None:
                    pairs += [(f"{head}.{name}.low", interval.low)]
                    pairs += [(f"{head}.{name}.high", interval.high)]
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

    def __str__(self) -> str:  # --tb=line's line: the message's first line
        first, *more = self.message.split("\n", 1)
        return f"{self.path}:{self.lineno}: {first}{' …' if more else ''}"


class ReasonRepr:
    """A failure's full text, with the scorer's reason as its one-line message.

    JUnit XML takes a failure's `message` attribute from `longrepr.reprcrash.message`, and
    the short test summary its one line; a plain string longrepr would give them all of it.
    """

    def __init__(
        self,
        text: str,
        reason: str,
        path: str,
        lineno: int,
        *,
        line_only: bool = False,
        as_line: str = "",
    ) -> None:
        self.text = text
        self.reprcrash = ReasonLocation(path, lineno, reason)
        self.line_only = line_only  # --tb=line: the terminal shows the message's line alone
        # --tb=line for an error, whose text pytest prints alone: its reason, shown instead
        self.as_line = as_line

    def toterminal(self, tw: Any) -> None:
        if self.line_only:
            return
        if self.as_line:  # the reason (and the fix under it), where the case is
            where, said = self.reprcrash, self.as_line
            if not _LOCATED.match(said):  # a setup error's reason says its file and line
                said = f"{where.path}:{where.lineno}: {said}"
            for line in said.split("\n"):
                tw.line(line)
            return
        for line in self.text.split("\n"):
            tw.line(line)

    def __str__(self) -> str:
        return self.text


def with_reason(
    longrepr: Any,
    reason: str,
    path: str,
    lineno: int | None,
    *,
    line_only: bool = False,
    as_line: bool = False,
) -> Any:
    """`longrepr` carrying `reason` as its message (cut to a line's length: the text has
    more), when it is text. A blank reason is none: the message is then the text's first
    line, which says so ("failed the output without a reason"). Under pytest's `--tb=line`,
    a failure is `line_only` (pytest prints the message's line, the text is not shown as
    well) and an error `as_line` (pytest prints its text alone: the whole reason is shown
    instead, its fix too, after its file and line)."""
    if not isinstance(longrepr, str):
        return longrepr
    if not reason.strip():
        reason = longrepr.split("\n", 1)[0]
    line = (lineno or 0) + 1
    whole = printable(clip(reason.strip(), REASON_LIMIT), lines=True) if as_line else ""
    return ReasonRepr(longrepr, message(reason), path, line, line_only=line_only, as_line=whole)


def set_properties(user_properties: list[tuple[str, object]], record: Record) -> None:
    """Put `record`'s properties on an item, replacing those of an earlier phase."""
    fresh = properties(record)
    names = {name for name, _ in fresh}
    user_properties[:] = [
        (n, v) for n, v in user_properties if n not in names and not n.startswith(METRIC_PREFIX)
    ]
    user_properties.extend(fresh)


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
