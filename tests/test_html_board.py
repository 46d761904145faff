"""The HTML report's leaderboard shows the intervals the terminal and the JSON report give."""

from __future__ import annotations

import json
import re
from html import unescape
from html.parser import HTMLParser
from typing import Any

import pytest

from pytest_arena.record import FAILED, PASSED, Record
from pytest_arena.reports import html
from pytest_arena.reports.json_report import build_report
from pytest_arena.reports.leaderboard import build_boards
from pytest_arena.reports.tables import render_board
from tests.browser import Browser
from tests.conftest import MakeProject
from tests.projects import PRICED_PROJECT

SHOWN = {"composite": "composite", "accuracy": "accuracy", "pass_rate": "pass rate"}


class Cell:
    def __init__(self) -> None:
        self.text = ""  # the whole cell's text, its interval's too
        self.interval: str | None = None
        self.title: str | None = None


class Boards(HTMLParser):
    """Each project's board on the page: its column titles and, by model, its cells."""

    def __init__(self) -> None:
        super().__init__()
        self.boards: dict[str, dict[str, dict[str, Cell]]] = {}
        self.project = ""
        self.headers: list[str] = []
        self.row: list[Cell] | None = None
        self.header: str | None = None
        self.cell: Cell | None = None
        self.in_interval = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = dict(attrs)
        if tag == "section" and found.get("class") == "project":
            self.project = found.get("data-project") or ""
            self.boards[self.project] = {}
            self.headers = []
        elif tag == "th" and self.project:
            self.header = ""
        elif tag == "tr" and self.project:
            self.row = []
        elif tag == "td" and self.row is not None:
            self.cell = Cell()
            self.row.append(self.cell)
        elif tag == "span" and self.cell is not None and found.get("class") == "interval":
            self.in_interval, self.cell.interval = True, ""
            self.cell.title = found.get("title")

    def handle_endtag(self, tag: str) -> None:
        if tag == "th" and self.header is not None:
            self.headers.append(self.header)
            self.header = None
        elif tag == "span":
            self.in_interval = False
        elif tag == "td":
            self.cell = None
        elif tag == "tr" and self.row:
            cells = dict(zip(self.headers, self.row, strict=True))
            self.boards[self.project][cells["model"].text] = cells
            self.row = None
        elif tag == "table":
            self.project = ""

    def handle_data(self, data: str) -> None:
        if self.header is not None:
            self.header += data
        if self.cell is not None:
            self.cell.text += data
            if self.in_interval:
                self.cell.interval = (self.cell.interval or "") + data


def boards_of(page: str) -> dict[str, dict[str, dict[str, Cell]]]:
    parser = Boards()
    parser.feed(page)
    return parser.boards


def terminal_board(lines: list[str], project: str) -> dict[str, dict[str, str]]:
    """A project's board as the terminal printed it: by model, each column's cell."""
    start = next(i for i, line in enumerate(lines) if f"arena leaderboard: {project} " in line)
    headers = re.split(r"\s{2,}", lines[start + 1].strip())
    rows = {}
    for line in lines[start + 3 :]:
        if line.startswith("composite = "):
            break
        cells = dict(zip(headers, re.split(r"\s{2,}", line.strip()), strict=True))
        rows[cells["model"]] = cells
    return rows


def bounds_said(name: str, low: float, high: float) -> str:
    if name == "pass_rate":
        return f"[{low * 100:.1f}%, {high * 100:.1f}%]"
    return f"[{low:.3f}, {high:.3f}]"


def test_the_board_shows_the_composites_and_pass_rates_intervals_as_the_accuracys(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    """The page gave an interval on the accuracy alone, where the terminal and the JSON
    report give the composite and the pass rate theirs too; where the terminal shows none
    (an accuracy of one case, a composite that is that accuracy), neither does the page."""
    make_project(
        "quiz",
        """
        models: [sim_small, sim_large]
        metrics:
          weights: {accuracy: 0.5, cost: 0.3}
        tests:
          - {id: a, input: "Capital of France?", reference: Paris}
          - {id: b, input: "2+2?", reference: "4"}
          - {id: c, input: "Capital of Italy?", reference: Rome}
          - {id: d, input: "Largest planet?", reference: Jupiter}
        """,
    )
    make_project(
        "one",
        """
        models: [sim_small]
        tests:
          - {id: a, input: "Capital of France?", reference: Paris}
        """,
    )
    result = pytester.runpytest(
        "-p", "no:cacheprovider", "--arena-html", "r.html", "--arena-json", "r.json"
    )
    report = json.loads((pytester.path / "r.json").read_text())
    page = boards_of((pytester.path / "r.html").read_text())
    shown = 0
    for board in report["leaderboards"]:
        printed = terminal_board(result.outlines, board["project"])
        for row in board["rows"]:
            cells, terminal = page[board["project"]][row["model"]], printed[row["model"]]
            for name, column in SHOWN.items():
                cell, interval = cells[column], row["intervals"].get(name)
                if interval is None or interval["low"] is None:
                    assert cell.interval is None and cell.title is None, (row["model"], name)
                    assert "±" not in terminal[column]
                    continue
                assert cell.interval == bounds_said(name, interval["low"], interval["high"])
                assert cell.title == f"95% interval: {terminal[column]}"
                shown += 1
    assert shown == 2 * 3 + 1  # quiz: all three of both models; one: the pass rate's alone
    one = page["one"]["sim_small"]
    assert one["composite"].text == one["accuracy"].text == "0.000"  # no interval: none shown


def test_a_report_from_before_the_board_had_intervals_shows_none() -> None:
    recs = [
        Record("p", f"c{i}", "m", PASSED if i % 2 else FAILED, float(i % 2), bool(i % 2))
        for i in range(4)
    ]
    data: dict[str, Any] = build_report(recs, build_boards(recs))
    for row in data["leaderboards"][0]["rows"]:
        del row["intervals"], row["interval"]
    cells = boards_of(html.render(data))["p"]["m"]
    assert [cells[c].text for c in SHOWN.values()] == ["0.500", "0.500", "50.0%"]
    assert all(cells[c].interval is None for c in SHOWN.values())


def test_the_power_line_says_what_weighted_cases_count_as_as_the_terminal_does() -> None:
    """One case of weight 1,000 among 39 of weight 1: the page says they count as 1.1, as
    the terminal does; a report from before it said so reads as it did."""
    recs = [
        Record("p", f"c{i:02}", model, PASSED if ok else FAILED, float(ok), ok, weight=w)
        for i, w in enumerate([1000.0] + [1.0] * 39)
        for model, ok in (("a", True), ("b", i % 4 != 0))
    ]
    boards = build_boards(recs)
    (said,) = [x for x in render_board(boards[0]).splitlines() if x.startswith("power:")]
    assert "with 40 paired cases, counting as 1.1 with their weights (" in said
    data = build_report(recs, boards)
    lines = re.findall(r'<p class="verdict">([^<]*)</p>', html.render(data))
    assert said in [unescape(x) for x in lines]
    del data["leaderboards"][0]["power"]["effective_cases"]
    lines = re.findall(r'<p class="verdict">([^<]*)</p>', html.render(data))
    (older,) = [unescape(x) for x in lines if x.startswith("power:")]
    assert older.startswith("power: with 40 paired cases (sd of the differences")
    assert "weight" not in older


def test_a_project_the_budget_kept_from_every_case_shows_its_note_alone(
    pytester: pytest.Pytester, make_project: MakeProject, browser: Browser
) -> None:
    """Its board has no row: the page drew an empty table, `composite = 0`, empty plots and
    an empty table in the case matrix for it, where the terminal prints its note alone."""
    make_project("p", PRICED_PROJECT)
    make_project("q", "models: [sim_perfect]\ntests:\n  - {id: a, input: x, reference: x}\n")
    browser.before_load(
        "window.errors = []; addEventListener('error', e => errors.push(e.message))"
    )

    def shown(project: str) -> list[Any]:
        """The project's title, its notes, and how many tables, plots and formulas it has."""
        section = f"document.querySelector('section[data-project={project}]')"
        return [
            browser.js(f"{section}.querySelector('h2').textContent"),
            browser.js(f"[...{section}.querySelectorAll('p.note')].map(p => p.textContent)"),
            browser.js(f"{section}.querySelectorAll('table, svg, .formula').length"),
        ]

    def run(*args: str) -> list[str]:
        """Run with `args`; the page's case matrix's tables, after it opened without error."""
        pytester.runpytest("-p", "no:cacheprovider", *args, "--arena-html", "r.html")
        browser.open((pytester.path / "r.html").as_uri())
        assert browser.js("document.documentElement.dataset.ready") == "1"
        assert browser.js("errors") == []
        tables: list[str] = browser.js(
            "[...document.querySelectorAll('table.matrix')].map(t => t.caption.textContent)"
        )
        return tables

    p_said = "note: no answer was graded: cheap's 1 case and dear's 2 cases not run: budget spent"
    assert run("--arena-max-cost", "0") == []  # no record: no case matrix
    assert shown("p") == ["p", [p_said], 0]
    assert shown("q") == [
        "q",
        ["note: no answer was graded: sim_perfect's 1 case not run: budget spent"],
        0,
    ]
    with (pytester.path / "projects" / "p" / "arena.yaml").open("a") as yaml:
        yaml.write("budget: {max_cost: 0}\n")  # p's own: q beside it runs
    assert run() == ["q"]
    assert shown("p") == ["p", [p_said], 0]
    assert browser.js("document.querySelectorAll('[data-project=q] table.board tr').length") == 2
    assert browser.js("document.querySelectorAll('[data-project=q] .plots svg').length") == 3
