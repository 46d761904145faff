"""pytest-xdist: the controller builds the same leaderboard from reports alone, and a
crashed worker leaves error rows rather than a gap."""

from __future__ import annotations

import contextlib
import json
import re
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from xml.etree import ElementTree

import jsonschema
import pytest

from pytest_arena.plugin.xdist_controller import ItemKey, key_of, without_group
from pytest_arena.reports.json_report import schema
from tests.conftest import XDIST, MakeProject
from tests.projects import TABLE_PROJECT, TABLE_SCORER
from tests.reports import assert_valid, record_of

MANY = """
models: [sim_small, sim_large, sim_echo]
metrics:
  weights: {accuracy: 0.5, cost: 0.3, tokens: 0.2}
tests:
"""
MANY += "".join(
    f'  - {{id: q{i}, input: "What is {i} + {i}?", reference: "{2 * i}", tags: [t{i % 3}],'
    f" weight: {1 + i % 4}}}\n"
    for i in range(24)
)

BOOM = """
import os

from pytest_arena.scorers import Scorer, ScoreResult


class Boom(Scorer):
    '''Kills the worker on one case and model, like a segfault in a native library.'''

    name = "boom"

    def score(self, output, reference, context):
        if (context.test_case.id, context.model_key) == ("q3", "sim_large"):
            os._exit(3)
        return ScoreResult(1.0, True, "fine")
"""


def cells(line: str) -> list[str]:
    """A board row's cells, each value without its interval ('0.702 ± 0.1' is '0.702')."""
    return re.sub(r" ± \S+", "", line).split()


def board(lines: list[str]) -> list[str]:
    start = next(i for i, line in enumerate(lines) if "arena leaderboard" in line)
    end = next(i for i, line in enumerate(lines[start:], start) if line.startswith("composite"))
    return lines[start : end + 1]


@pytest.mark.parametrize("dist", ["load", "loadgroup"])
def test_two_workers_print_the_same_leaderboard_as_one_process(
    pytester: pytest.Pytester, make_project: MakeProject, dist: str
) -> None:
    make_project("many", MANY)
    make_project("table", TABLE_PROJECT, files={"scorers/table.py": TABLE_SCORER})
    if dist == "loadgroup":  # one group per model: xdist's scheduler sees 'ID@sim_small' ids
        pytester.makeconftest(
            """
            import pytest

            def pytest_collection_modifyitems(items):
                for item in items:
                    item.add_marker(pytest.mark.xdist_group(item.name.split("[")[1][:-1]))
            """
        )
    alone = pytester.runpytest(*XDIST, "-n", "0")
    spread = pytester.runpytest(*XDIST, "-n", "2", "--dist", dist)
    spread.stdout.fnmatch_lines(["2 workers [[]*]"])
    assert (
        spread.parseoutcomes()
        == alone.parseoutcomes()
        == {
            "passed": 34,
            "failed": 42,
            "unscored": 2,
        }
    )
    for _ in range(2):  # both projects' boards
        expected = board(alone.stdout.lines)
        assert board(spread.stdout.lines) == expected
        assert len(expected) > 4
        alone.stdout.lines = alone.stdout.lines[alone.stdout.lines.index(expected[-1]) + 1 :]
        spread.stdout.lines = spread.stdout.lines[spread.stdout.lines.index(expected[-1]) + 1 :]


def test_dist_each_counts_every_case_once(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    make_project("table", TABLE_PROJECT, files={"scorers/table.py": TABLE_SCORER})
    alone = pytester.runpytest(*XDIST, "-n", "0")
    each = pytester.runpytest(*XDIST, "-n", "2", "--dist", "each")
    each.assert_outcomes(passed=4, failed=4)  # every item ran on both workers
    assert board(each.stdout.lines) == board(alone.stdout.lines)  # 3 cases a model, not 6


@pytest.mark.parametrize("family", ["xunit1", "xunit2"])
def test_a_crashed_worker_leaves_an_error_row_naming_the_crash(
    pytester: pytest.Pytester, make_project: MakeProject, family: str
) -> None:
    make_project(
        "many",
        MANY.replace("tests:", "scorers: {default: boom}\ntests:"),
        files={"scorers/boom.py": BOOM},
    )
    result = pytester.runpytest(
        *XDIST,
        "-n",
        "2",
        "--arena-json",
        "report.json",
        "--junitxml",
        "out.xml",
        "-o",
        f"junit_family={family}",
    )
    result.assert_outcomes(passed=71, failed=1)
    assert result.ret == 1
    assert "INTERNALERROR" not in result.stdout.str()
    result.stdout.fnmatch_lines(
        ["FAILED projects/many/arena.yaml::q3[[]sim_large] - worker 'gw*' crashed while r*"]
    )
    rows = {cells(line)[1]: cells(line) for line in board(result.stdout.lines)[3:-1]}
    assert rows["sim_large"][5:8] == ["24", "0", "1"]  # cases, failed, errors
    assert rows["sim_small"][5:8] == ["24", "0", "0"]
    report = json.loads((pytester.path / "report.json").read_text())
    (crashed,) = [r for r in report["records"] if r["status"] == "error"]
    assert (crashed["case"], crashed["model"], crashed["weight"]) == ("q3", "sim_large", 4.0)
    assert crashed["reason"].startswith("worker 'gw")
    assert "crashed while running 'projects/many/arena.yaml::q3[sim_large]'" in crashed["reason"]
    junit = ElementTree.parse(pytester.path / "out.xml").getroot()
    (case,) = [c for c in junit.iter("testcase") if c.get("name") == "q3[sim_large]"]
    found = record_of(case, family)  # the testcase never had a teardown report to close it
    assert (found["case"], found["model"], found["status"]) == ("q3", "sim_large", "error")
    if family == "xunit2":
        assert_valid(pytester.path / "out.xml")


@pytest.mark.parametrize("family", ["xunit2", "xunit1"])
def test_cases_lost_when_workers_may_not_restart_are_error_rows(
    pytester: pytest.Pytester, make_project: MakeProject, family: str
) -> None:
    make_project(
        "many",
        MANY.replace("tests:", "scorers: {default: boom}\ntests:"),
        files={"scorers/boom.py": BOOM},
    )
    result = pytester.runpytest(
        *XDIST,
        "-n",
        "2",
        "--max-worker-restart",
        "0",
        "--junitxml",
        "out.xml",
        "--arena-json",
        "r.json",
        "-o",
        f"junit_family={family}",
    )
    assert result.ret == 1
    outcomes = result.parseoutcomes()
    ran = outcomes.get("passed", 0) + outcomes.get("failed", 0)
    assert ran < 72  # xdist stopped after the crash
    lost = 72 - ran
    assert outcomes["errors"] == lost  # pytest's count holds every case, as the boards do
    result.stdout.fnmatch_lines(["ERROR projects/many/arena.yaml::q*[[]sim_*] - *"])
    result.stdout.fnmatch_lines(
        [
            "*arena cases lost with crashed workers*",
            f"{lost} case(s) never ran and count as errors: not run: worker gw* crashed*",
        ]
    )
    rows = [cells(line) for line in board(result.stdout.lines)[3:-1]]
    assert sum(int(row[5]) for row in rows) == 72  # every case has its row
    assert sum(int(row[7]) for row in rows) == lost + 1  # the crash and the lost
    records = json.loads((pytester.path / "r.json").read_text())["records"]
    assert len(records) == 72 and sum(bool(r["detail"].get("lost")) for r in records) == lost
    suite = ElementTree.parse(pytester.path / "out.xml").getroot().find("testsuite")
    assert suite is not None  # a JUnit reader counts the lost cases too
    assert (suite.get("tests"), suite.get("errors")) == ("72", str(lost + 1))
    first = next(r for r in records if r["detail"].get("lost"))
    name = f"{first['case']}[{first['model']}]"
    (case,) = [c for c in suite.iter("testcase") if c.get("name") == name]
    found = record_of(case, family)  # its record, as any case's
    assert (found["case"], found["model"], found["status"]) == (
        first["case"],
        first["model"],
        "error",
    )
    if family == "xunit2":
        assert_valid(pytester.path / "out.xml")


def test_dataset_cases_lost_with_a_worker_are_error_rows_of_their_project(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    rows = "".join(
        json.dumps({"id": f"q{i}", "input": f"What is {i} + {i}?", "reference": str(2 * i)}) + "\n"
        for i in range(24)
    )
    make_project(
        "many",
        "name: Many Sums\nmodels: [sim_small, sim_large, sim_echo]\n"
        "scorers: {default: boom}\ndatasets: [data/sums.jsonl]\n",
        files={"scorers/boom.py": BOOM, "data/sums.jsonl": rows},
    )
    result = pytester.runpytest(*XDIST, "-n", "2", "--max-worker-restart", "0")
    assert result.ret == 1
    result.stdout.fnmatch_lines(["*arena cases lost with crashed workers*"])
    result.stdout.no_fnmatch_line("*arena leaderboard: many*")
    table = [cells(line) for line in board(result.stdout.lines)[3:-1]]
    assert sum(int(row[5]) for row in table) == 72  # every case has its row, under "Many Sums"


def test_no_xdist_keeps_working_with_xdist_installed(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    make_project("table", TABLE_PROJECT, files={"scorers/table.py": TABLE_SCORER})
    result = pytester.runpytest("-p", "no:xdist", "--junitxml=out.xml", "--arena-json=out.json")
    result.assert_outcomes(passed=2, failed=2)
    result.stdout.fnmatch_lines(["*= arena leaderboard: table =*"])
    assert "INTERNALERROR" not in result.stdout.str()


@pytest.mark.parametrize(
    ("nodeid", "domain", "expected"),
    [
        ("projects/quiz/arena.yaml::capital[sim_small]", None, ("quiz", "capital", "sim_small")),
        ("arena.yaml::c.1-x[m]", None, ("", "c.1-x", "m")),
        ("p/quiz/arena.yaml::data/a.jsonl::r7[sim_large]@g1", None, ("quiz", "r7", "sim_large")),
        ("projects/quiz/arena.yaml::capital[sim_small]", "Quiz Two::capital[sim_small]", None),
        ("projects/quiz/arena.yaml::config", None, "none"),
        ("tests/test_x.py::test_y[sim_small]", None, "none"),
    ],
)
def test_a_node_id_names_its_project_case_and_model(
    nodeid: str, domain: str | None, expected: tuple[str, str, str] | str | None
) -> None:
    found = key_of(nodeid, domain)
    if expected == "none":
        assert found is None
    elif expected is None:
        assert found == ItemKey("Quiz Two", "capital", "sim_small")  # the project's own name
    else:
        assert found == ItemKey(*expected)


def test_a_node_id_in_a_dataset_file_names_the_project_whose_folder_holds_it(
    tmp_path: Path,
) -> None:
    (tmp_path / "projects" / "quiz" / "data").mkdir(parents=True)
    (tmp_path / "projects" / "quiz" / "arena.yaml").write_text("models: [sim_small]\n")
    nodeid = "projects/quiz/data/a.jsonl::r7[sim_large]@g1"
    assert key_of(nodeid, None, tmp_path) == ItemKey("quiz", "r7", "sim_large")
    assert key_of(nodeid) is None  # without the rootdir to look in
    assert key_of("tests/data/a.jsonl::r7[sim_large]", None, tmp_path) is None  # no project
    assert key_of("projects/quiz/test_a.py::t[sim_large]", None, tmp_path) is None


def test_the_loadgroup_suffix_is_dropped_from_the_last_part_only() -> None:
    assert without_group("p@x/arena.yaml::c1[m]@g") == "p@x/arena.yaml::c1[m]"
    assert without_group("p@x/arena.yaml::c1[m]") == "p@x/arena.yaml::c1[m]"
    # a model key may hold '@': xdist reads a group only after the last ']', and so do we
    assert without_group("p/arena.yaml::c1[echo@v2]") == "p/arena.yaml::c1[echo@v2]"
    assert without_group("p/arena.yaml::c1[echo@v2]@g") == "p/arena.yaml::c1[echo@v2]"


def test_a_crashed_case_of_a_model_key_with_an_at_sign_is_an_error_row(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    make_project(
        "at",
        "models:\n  default: [echo@v2]\n  define:\n    echo@v2: {profile: sim_perfect}\n"
        "scorers: {default: boom}\ntests:\n"
        + "".join(f"  - {{id: q{i}, input: x{i}, reference: x{i}}}\n" for i in range(6)),
        files={"scorers/boom.py": BOOM.replace('"sim_large"', '"echo@v2"')},
    )
    result = pytester.runpytest(*XDIST, "-n", "2", "--arena-json", "report.json")
    result.assert_outcomes(passed=5, failed=1)
    records = json.loads((pytester.path / "report.json").read_text())["records"]
    assert {(r["case"], r["model"]): r["status"] for r in records}[("q3", "echo@v2")] == "error"
    assert len(records) == 6


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def test_workers_on_another_host_through_tx_socket_give_the_same_board(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    """The scale-out path: execnet's socket server stands in for a second machine."""
    make_project("table", TABLE_PROJECT, files={"scorers/table.py": TABLE_SCORER})
    port = free_port()
    server = subprocess.Popen(
        [sys.executable, "-m", "execnet.script.socketserver", f"127.0.0.1:{port}"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 20
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                assert time.monotonic() < deadline, "the socket server did not start"
                time.sleep(0.1)
        remote = f"socket=127.0.0.1:{port}//chdir={pytester.path}"
        spread = pytester.runpytest_subprocess(
            *XDIST, "-d", "--tx", remote, "--tx", "popen", timeout=120
        )
    finally:
        server.terminate()
        server.wait(timeout=10)
    spread.stdout.fnmatch_lines(["2 workers [[]6 items]"])
    alone = pytester.runpytest(*XDIST, "-n", "0")
    assert board(spread.stdout.lines) == board(alone.stdout.lines)


class WorkerInteractor:
    """Stands for xdist's worker plugin, whose queue (`torun`) is not public API."""

    def __init__(self, torun: object) -> None:
        self.torun = torun


class _Plugins:
    def __init__(self, *plugins: object) -> None:
        self.plugins = plugins

    def get_plugins(self) -> set[object]:
        return set(self.plugins)


class _Config:
    def __init__(self, *plugins: object) -> None:
        self.pluginmanager = _Plugins(*plugins)


class _Queue:
    def __init__(self, items: list[int], fail: bool = False) -> None:
        self.items, self.fail = items, fail

    @contextlib.contextmanager
    def lock(self) -> Iterator[list[int]]:
        if self.fail:
            raise RuntimeError("changed inside xdist")
        yield self.items


@pytest.mark.parametrize(
    ("plugins", "expected"),
    [
        ((WorkerInteractor(_Queue([4, 5, 6])),), [4, 5, 6]),
        ((), []),  # not a worker, or xdist renamed its plugin
        ((WorkerInteractor(object()),), []),  # a queue without the lock (xdist before 3.7)
        ((WorkerInteractor(_Queue([4], fail=True)),), []),
    ],
)
def test_a_worker_reads_its_queue_or_looks_ahead_at_the_next_item_only(
    plugins: tuple[object, ...], expected: list[int]
) -> None:
    """Without xdist's queue a worker still runs, starting only the current and next call."""
    from pytest_arena.plugin.xdist_worker import xdist_queue

    assert xdist_queue(_Config(*plugins)) == expected  # type: ignore[arg-type]


# Ctrl-C under xdist: the controller stops, and its workers' output never arrives

PAID = """
import asyncio, json, os, signal, time

import jsonschema
import pytest
from pydantic import BaseModel

from pytest_arena.connectors.base import Connector, Response
from pytest_arena.plugin.state import LEDGERS

LOG = {log!r}
QUICK = {quick}  # calls answered at once: all of them, before the run is stopped
run = {{"controller": False, "holding": 0}}


def pytest_configure(config):
    run["controller"] = not hasattr(config, "workerinput")
    if not run["controller"]:  # Ctrl-C stops a worker too, whatever started this run
        signal.signal(signal.SIGINT, signal.default_int_handler)


class Settings(BaseModel):
    pass


def logged():
    with open(LOG) as f:
        return [json.loads(line) for line in f]


class Paid(Connector):
    '''$20 an answer (10 + 10 tokens); a case whose input is 'hold' waits for Ctrl-C.'''

    name = "paid"
    settings_model = Settings
    cacheable = False

    async def acomplete(self, request):
        await asyncio.sleep(30 if request.prompt == "hold" else 0)
        with open(LOG, "a") as f:
            f.write(json.dumps({{"case": request.case.id, "pid": os.getpid()}}) + "\\n")
        return Response(request.case.reference, tokens_in=10, tokens_out=10)


def pytest_arena_connectors():
    return [Paid]


def pytest_runtest_logstart(nodeid):
    '''Ctrl-C, as both workers hold: every other answer bought, some not graded yet.'''
    if not run["controller"] or not nodeid.endswith("hold[m]"):
        return
    run["holding"] += 1
    if run["holding"] < 2:
        return
    deadline = time.monotonic() + 30
    while len(logged()) < QUICK and time.monotonic() < deadline:
        time.sleep(0.05)
    time.sleep(0.2)  # the last answer paid for
    for pid in {{line["pid"] for line in logged()}}:
        os.kill(pid, signal.SIGINT)
    raise KeyboardInterrupt


@pytest.hookimpl(trylast=True)
def pytest_configure_node(node):
    if {elsewhere}:  # as workers on another machine, which cannot see the controller's files
        node.workerinput[LEDGERS] = node.workerinput[LEDGERS] + "-elsewhere"
"""

PAID_PROJECT = """
models:
  default: [m]
  define:
    m: {connector: paid, concurrency: 8, price: {input_per_mtok: 1000000, output_per_mtok: 1000000}}
tests:
  - {id: q0, input: quick, reference: ok}
  - {id: q1, input: quick, reference: ok}
  - {id: hold, input: hold, reference: ok}
  - {id: q3, input: quick, reference: ok}
  - {id: q4, input: quick, reference: ok}
"""


def interrupted_run(
    pytester: pytest.Pytester, make_project: MakeProject, elsewhere: bool = False, *more: str
) -> pytest.RunResult:
    """Ctrl-C while each of two workers waits for a case's answer: it has graded two cases
    before it and bought the answers of the two after it ($20 each)."""
    pytester.makeconftest(
        PAID.format(log=str(pytester.path / "calls.log"), quick=8, elsewhere=elsewhere)
    )
    make_project("a", PAID_PROJECT)
    make_project("b", PAID_PROJECT)
    args = ("-n", "2", "--dist", "loadfile", "-p", "no:cacheprovider", "--arena-json", "run.json")
    result = pytester.runpytest(*XDIST, *args, *more, no_reraise_ctrlc=True)
    assert result.ret == pytest.ExitCode.INTERRUPTED, result.stdout.str()
    result.stdout.fnmatch_lines(
        [
            "arena: the run stopped early (interrupted): the boards hold only the 4 results it"
            " got, not the whole benchmark",
        ]
    )
    return result


def test_ctrl_c_under_xdist_counts_what_the_workers_paid_for(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    """Their output never arrives once the controller is interrupted: the spend line said
    nothing of the answers no case graded, and the JSON report $0 of them."""
    result = interrupted_run(pytester, make_project)
    result.stdout.fnmatch_lines(
        [
            "arena: 4 answers graded; $80.00 spent on models and judges, and $80.00 on answers"
            " no case was graded by (of cases the run stopped, skipped, cut short, ran again"
            " or gave to another xdist worker)"
        ]
    )
    spend = json.loads((pytester.path / "run.json").read_text())["spend"]
    assert (spend["total"], spend["on_graded"], spend["on_ungraded"]) == (160.0, 80.0, 80.0)


def test_ctrl_c_under_xdist_does_not_say_no_project_was_collected(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    """The workers' account of what they collected is lost with their output: the run said
    `--arena-json had nothing to act on`, and wrote the report all the same."""
    result = interrupted_run(pytester, make_project)
    result.stdout.no_fnmatch_line("*no arena.yaml was collected*")
    assert len(json.loads((pytester.path / "run.json").read_text())["records"]) == 4


def test_ctrl_c_under_xdist_calls_the_baselines_cases_it_did_not_run_not_run_not_gone(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    """Which cases each project holds is lost with the workers' output: every case of the
    baseline the run had not reached was said gone, as if taken out of arena.yaml."""
    rows = [
        json.dumps(
            {"project": p, "model": "m", "case": c, "status": "passed", "score": 1.0}
            | {"reason": "", "tags": [], "weight": 1.0}
        )
        for p in ("a", "b")
        for c in ("q0", "q1", "hold", "q3", "q4")
    ]
    (pytester.path / "base.json").write_text(f'{{"format": 1, "cases": [{", ".join(rows)}]}}')
    result = interrupted_run(pytester, make_project, False, "--arena-baseline", "base.json")
    result.stdout.fnmatch_lines(["a m: *; 0 regressed, 0 fixed, 0 new, 0 gone, 3 not run*"])
    result.stdout.no_fnmatch_line("*  gone: *")


def test_ctrl_c_under_xdist_says_what_workers_spent_is_unknown_where_it_cannot_be_read(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    """Workers that cannot keep a ledger where the controller reads it (on another machine,
    or on Windows) spent what the controller cannot know: not $0."""
    result = interrupted_run(pytester, make_project, elsewhere=True)
    result.stdout.fnmatch_lines(
        [
            "arena: 4 answers graded; $80.00 spent on models and judges, and an unknown amount"
            " on answers no case was graded by (2 xdist workers stopped before saying what they"
            " spent)"
        ]
    )
    report = json.loads((pytester.path / "run.json").read_text())
    jsonschema.validate(report, schema())
    assert report["spend"]["unknown_workers"] == 2  # its total holds only what is known
