"""What a large run keeps per case in pytest's process: each record once, what many cases
share once. (Peak memory itself is measured by benchmarks/speed.py, as whole runs.)"""

from __future__ import annotations

import json
import re
import textwrap
import threading
from pathlib import Path

import pytest

from pytest_arena.connectors import Request, build_connector
from pytest_arena.engine.calls import THREAD_NAME, Engine
from pytest_arena.engine.limits import Limits
from pytest_arena.evaluation.project import load
from pytest_arena.spec import Case
from pytest_arena.spec.schema import ModelDef
from pytest_arena.spec.yamlfile import LineMap
from tests.conftest import XDIST, MakeProject

PROJECT = """
models: [sim_small, sim_perfect]
gate:
  all: {accuracy: {min: 0.1}}
tests:
  - {id: a, input: "What is 2 + 2?", reference: "4"}
  - {id: b, input: "What is 3 + 3?", reference: "6"}
  - {id: c, input: "What is 4 + 4?", reference: "8", options: {ignore_case: true}}
"""

# Looks at the run's records and reports once it ends (after the outputs were written).
CONFTEST = """
import json

import pytest
from pytest_arena.plugin.state import ArenaState

REPORTS = {}


def pytest_runtest_logreport(report):
    data = getattr(report, "arena_record", None)
    if data and report.when == "call":
        REPORTS[report.nodeid] = report


@pytest.hookimpl(trylast=True)
def pytest_sessionfinish(session):
    records = ArenaState.of(session.config).records
    own = {(r.case_id, r.model): r for r in records}
    held = [i for i in session.items if getattr(i, "record", None) is not None]
    same = all(
        report.arena_record is own[(report.arena_record["case_id"], report.arena_record["model"])]
        for report in REPORTS.values()
    )
    print()
    print(f"RECORDS {len(records)} REPORTS {len(REPORTS)}")
    print(f"ITEMS HOLDING A RECORD {len(held)}")
    print(f"REPORT DATA IS THE RECORD {same}")
    print(f"BOARDS {len({id(r.board) for r in records})}")
    print(f"PROMPTS KEPT {sum(bool(r.messages) for r in records)}")
    late = [json.loads(json.dumps(r.arena_record.to_dict())) for r in REPORTS.values()]
    print(f"READ LATE AS DICTS {sorted(d['case_id'] for d in late)}")
"""


@pytest.mark.parametrize("workers", [0, 2], ids=["in-process", "xdist"])
def test_each_record_is_kept_once_and_lean_unless_a_report_shows_it_whole(
    pytester: pytest.Pytester, make_project: MakeProject, workers: int
) -> None:
    make_project("scale", PROJECT)
    pytester.makeconftest(CONFTEST)
    xdist = [*XDIST, "-n", str(workers)] if workers else []
    # with both reports, whole records wait in a file for them, lean ones in memory
    whole = pytester.runpytest_subprocess(
        *xdist, "-s", "--arena-json=arena.json", "--arena-html=arena.html"
    )
    whole.stdout.fnmatch_lines(
        [
            "RECORDS 6 REPORTS 6",
            "ITEMS HOLDING A RECORD 0",
            "REPORT DATA IS THE RECORD True",
            "BOARDS 1",
            "PROMPTS KEPT 0",
        ]
    )
    # and both reports still get every record whole
    page = (pytester.path / "arena.html").read_text()
    embedded = re.search(r'id="arena-data">(.*?)</script>', page, re.S)
    assert embedded is not None
    for records in (
        json.loads((pytester.path / "arena.json").read_text())["records"],
        json.loads(embedded[1])["records"],
    ):
        assert len(records) == 6
        assert {r["reference"] for r in records} == {"4", "6", "8"}
        assert all(r["messages"][0]["content"].startswith("What is") for r in records)

    # with the JSON report alone, whole records wait in a file for it, lean ones in memory,
    # and the report is the same
    spilled = pytester.runpytest_subprocess(*xdist, "-s", "--arena-json=spilled.json")
    spilled.stdout.fnmatch_lines(
        [
            "RECORDS 6 REPORTS 6",
            "PROMPTS KEPT 0",
            "READ LATE AS DICTS ['a', 'a', 'b', 'b', 'c', 'c']",
        ]
    )

    def without_time(name: str) -> list[str]:
        lines = (pytester.path / name).read_text().splitlines()
        return [line for line in lines if not line.startswith('  "created": ')]

    assert without_time("spilled.json") == without_time("arena.json")  # byte for byte

    # without a report of whole records: lean records, the same boards
    lean = pytester.runpytest_subprocess(*xdist, "-s", "--junitxml=out.xml")
    lean.stdout.fnmatch_lines(["RECORDS 6 REPORTS 6", "REPORT DATA IS THE RECORD True"])
    lean.stdout.fnmatch_lines(["PROMPTS KEPT 0"])

    def board(output: list[str]) -> list[str]:
        start = next(i for i, line in enumerate(output) if "arena leaderboard" in line)
        end = next(i for i, line in enumerate(output) if line.startswith("arena: "))
        return output[start:end]  # the table, its intervals, comparisons and power

    assert board(lean.outlines) == board(whole.outlines) != []
    xml = (pytester.path / "out.xml").read_text()  # JUnit still gets each case's record
    assert xml.count("\nscore: ") == 6


def test_cases_without_scoring_of_their_own_share_one_plan(tmp_path: Path) -> None:
    (tmp_path / "arena.yaml").write_text(textwrap.dedent(PROJECT).lstrip())
    project = load(tmp_path / "arena.yaml")
    a, b, c = project.file.cases
    assert project.plan(a) is project.plan(b)
    assert project.plan(c) is not project.plan(a)  # its own options
    assert project.plan(c).components[0].options == {"ignore_case": True}
    assert project.board() is project.board()


def test_the_tests_entries_and_their_lines_are_let_go_once_read_into_cases(
    tmp_path: Path,
) -> None:
    (tmp_path / "arena.yaml").write_text(textwrap.dedent(PROJECT).lstrip())
    project = load(tmp_path / "arena.yaml")
    assert project.file.spec.tests == []
    assert [c.line for c in project.file.cases] == [5, 6, 7]
    assert project.file.cases[2].line_of("options") == 7
    lines = project.file.lines
    assert lines.line(("tests", 1, "input")) == lines.line(("tests",)) == 4
    assert lines.line(("gate", "all", "accuracy")) == 3  # the rest stays


def test_forget_below_keeps_the_location_itself_and_its_neighbours() -> None:
    lines = LineMap(Path("arena.yaml"))
    for loc, line in [(("tests",), 4), (("tests", 0), 5), (("tests", 0, "id"), 5)]:
        lines.set(loc, line)
    lines.set(("testsuite",), 9)
    lines.forget_below(("tests",))
    assert lines.line(("tests", 0, "id")) == 4
    assert lines.line(("testsuite",)) == 9


def test_a_connectors_warm_up_runs_once_on_the_engines_thread() -> None:
    defined = {
        "m": ModelDef.model_validate({"connector": "openai", "base_url": "http://127.0.0.1:9"})
    }
    connector = build_connector("m", defined, Path("arena.yaml"))
    threads: list[str] = []
    done = threading.Event()

    def warm_up() -> None:
        threads.append(threading.current_thread().name)
        done.set()
        raise RuntimeError("said by the first call instead")

    connector.warm_up = warm_up  # type: ignore[method-assign]
    engine = Engine()
    try:
        engine.warm_up(connector)
        engine.warm_up(connector)
        assert done.wait(10)
        result = engine.wait(engine.submit(connector, _request(), Limits(max_retries=0)))
        assert result.error is not None and "cannot connect" in result.error  # the loop lives on
    finally:
        engine.close()
    assert threads == [THREAD_NAME]


def _request() -> Request:
    return Request("m", [{"role": "user", "content": "hi"}], Case(id="c", input="hi"))
