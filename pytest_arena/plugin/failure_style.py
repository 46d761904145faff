"""How the terminal shows failed arena cases: in full (pytest's FAILURES blocks and short
summary, as for any test) or compact (one line per case, node id and reason, above the
leaderboards).

`--arena-failures=auto` (the default, or the `arena_failures` ini value) is compact when more
than AUTO_LIMIT arena cases failed. Compact also keeps a large run's end linear in its items:
pytest's failure blocks scan every report of the run once per failure. Only arena cases are
held back; the user's own Python tests and load errors keep pytest's normal output, and the
final counts ("N failed") are pytest's own.
"""

from __future__ import annotations

from collections.abc import Generator
from typing import Any

import pytest

from pytest_arena.plugin.outputs import failed_by_pytest, shown_nodeid
from pytest_arena.reports.failures import message, no_reason

OPTION = "arena_failures"
STYLES = ("auto", "compact", "full")
AUTO_LIMIT = 20  # more arena failures than this, and auto is compact
_HELD = ("failed", "error")  # pytest's stats keys whose reports get a failure block
_WORD = {"failed": "FAILED", "error": "ERROR"}


def add_options(group: pytest.OptionGroup, parser: pytest.Parser) -> None:
    group.addoption(
        "--arena-failures",
        action="store",
        choices=STYLES,
        default=None,
        dest=OPTION,
        help="failed arena cases in the terminal: compact (one line each), full (pytest's"
        f" failure blocks) or auto (compact above {AUTO_LIMIT} failures; the default)",
    )
    parser.addini(
        OPTION,
        f"failed arena cases: auto (compact above {AUTO_LIMIT}), compact or full",
        default="auto",
    )


def chosen(config: pytest.Config) -> str:
    """The style asked for: the command line's, else the ini value's."""
    return str(config.getoption(OPTION, None) or config.getini(OPTION)).strip()


def check(config: pytest.Config) -> str:
    """Why the `arena_failures` ini value cannot work, or ""."""
    if config.getoption(OPTION, None) is not None:
        return ""  # the command line wins, and argparse checked it
    value = str(config.getini(OPTION)).strip()
    if value in STYLES:
        return ""
    overridden = any(
        str(o).partition("=")[0].strip() == OPTION for o in config.getoption("override_ini") or ()
    )
    where = "-o" if overridden else config.inipath or "the ini file"
    return f"{where}: arena_failures = {value!r}: give one of {', '.join(STYLES)}"


class FailureStyle:
    """Holds failed arena cases' reports out of pytest's failure sections when compact."""

    def __init__(self, config: pytest.Config, record_attr: str) -> None:
        self.config = config
        self.style = chosen(config)
        self.record_attr = record_attr
        self.held: list[tuple[str, Any]] = []  # (stats key, report), in the run's order
        self.auto = self.style == "auto"

    def compact(self, failures: int) -> bool:
        return self.style == "compact" or (self.auto and failures > AUTO_LIMIT)

    def _arena_failures(self, stats: dict[str, list[Any]]) -> list[tuple[str, Any]]:
        return [
            (key, report)
            for key in _HELD
            for report in stats.get(key, ())
            if (record := getattr(report, self.record_attr, None)) is not None
            and not failed_by_pytest(report, record)  # a strict xfail's XPASS says itself
        ]

    @pytest.hookimpl(wrapper=True, tryfirst=True)
    def pytest_terminal_summary(self, terminalreporter: Any) -> Generator[None, None, None]:
        stats: dict[str, list[Any]] = terminalreporter.stats
        held = self._arena_failures(stats)
        if not held or not self.compact(len(held)):
            return (yield)
        self.held = held
        ids = {id(report) for _, report in held}
        kept = {key: stats.get(key, []) for key in _HELD}
        for key in _HELD:
            if key in stats:
                stats[key] = [r for r in stats[key] if id(r) not in ids]
        try:
            return (yield)
        finally:
            for key, reports in kept.items():  # pytest's final counts: every failure
                if reports:
                    stats[key] = reports
            self.held = []

    def section(self) -> tuple[str, list[str]]:
        """The compact section's title and lines ("" and none when not compact). A reason
        is cut as pytest's one-line messages are (reports.failures.message), not to the
        terminal's width: in a CI log it is the line's point."""
        if not self.held:
            return "", []
        count = len(self.held)
        title = f"arena failures: {count} case{'s' if count != 1 else ''}, one line each"
        lines = []
        first: dict[str, str] = {}  # a reason many cases share (a model down): said once
        for key, report in self.held:
            record = getattr(report, self.record_attr)
            reason = one_line(str(record.get("reason") or "")).strip()
            reason = message(reason or no_reason(str(record.get("scorer") or "")))
            said = reason
            if reason in first and len(f"the same reason as {first[reason]}") < len(reason):
                said = f"the same reason as {first[reason]}"
            shown = shown_nodeid(self.config, report.nodeid)
            first.setdefault(reason, shown)
            lines.append(f"{_WORD[key]} {shown} - {said}")
        why = f"more than {AUTO_LIMIT} failed, so compact: " if self.auto else ""
        lines.append(f"({why}--arena-failures=full prints each case in full;")
        page = self.config.getoption("arena_html", None)
        if page:  # the user asked for the page already: where to read it
            lines.append(f" every case is in the page --arena-html writes, {page})")
        else:
            lines.append(" --arena-html PATH writes a page to read every case in)")
        return title, lines


def one_line(reason: str) -> str:
    """A reason of several lines (a contract's, one line per component) as one: each line's
    spaces closed up, the lines joined by "; " (by a space after one ending in ':', ';' or
    ',')."""
    out = ""
    for line in reason.splitlines():
        words = " ".join(line.split())
        if words:
            out += ("" if not out else " " if out.endswith((":", ";", ",")) else "; ") + words
    return out
