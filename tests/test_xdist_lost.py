"""What a pytest-xdist run reports when it lost cases to a crashed worker, collected unlike
on its workers, or ran every case on every worker (`--dist each`)."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET

import jsonschema
import pytest

from pytest_arena.reports import comparison
from pytest_arena.reports.json_report import schema
from tests.conftest import XDIST, MakeProject

# a python agent that kills its worker on the case "crash", like a segfault in a native
# library; CRASH_AGENT unset, it answers every case right
AGENT = """
import os


def agent(prompt):
    if prompt == "crash" and os.environ.get("CRASH_AGENT"):
        os._exit(3)
    return {"text": "yes"}
"""
CRASHING = """
models:
  default: [mine]
  define:
    mine: {connector: python, callable: "agent:agent"}
tests:
  - {id: c0, input: crash, reference: "yes"}
  - {id: c1, input: one, reference: "yes"}
  - {id: c2, input: two, reference: "yes"}
"""
# collected after `a`: under -n 1 with no restart, none of its cases runs
NAMED = """
name: bee
models:
  default: [mine]
  define:
    mine: {connector: python, callable: "agent:agent"}
tests:
  - {id: b0, input: zero, reference: "yes"}
  - {id: b1, input: one, reference: "yes"}
"""


def test_cases_lost_to_a_crash_keep_the_baseline_and_are_not_run_in_comparisons(
    pytester: pytest.Pytester, make_project: MakeProject, monkeypatch: pytest.MonkeyPatch
) -> None:
    make_project("a", CRASHING, files={"agent.py": AGENT})
    make_project("b", NAMED, files={"agent.py": AGENT})
    healthy = pytester.runpytest(
        "-p", "no:xdist", "--arena-save-baseline", "base.json", "--arena-json", "good.json"
    )
    healthy.assert_outcomes(passed=5)
    saved = (pytester.path / "base.json").read_text()
    monkeypatch.setenv("CRASH_AGENT", "1")
    crashed = pytester.runpytest(
        *XDIST,
        "-n",
        "1",
        "--max-worker-restart",
        "0",
        "--arena-baseline",
        "base.json",
        "--arena-save-baseline",
        "base.json",
        "--arena-json",
        "crashed.json",
    )
    assert crashed.ret == 1
    crashed.stdout.fnmatch_lines(
        [
            "*arena: the run stopped early (4 cases lost with crashed workers): the boards hold"
            " only the 1 result it got, and the cases lost as errors, not the whole benchmark",
            "arena: --arena-save-baseline: the run stopped early (4 cases lost with crashed"
            " workers), so the baseline file was left as it was*",
        ],
        consecutive=False,
    )
    assert (pytester.path / "base.json").read_text() == saved
    # the crashed case itself regressed; those never run are neither regressed nor fixed
    crashed.stdout.fnmatch_lines(
        [
            "a mine: *; 1 regressed, 0 fixed, 0 new, 0 gone, 2 not run*",
            "  regressed c0: was 'exact match', now 'worker 'gw0' crashed while running*",
            "not compared, as no case of theirs ran in this run (*): bee mine",
        ]
    )
    # the lost cases of `b` are its own, on the board of its name
    crashed.stdout.fnmatch_lines(["*= arena leaderboard: bee =*"])
    crashed.stdout.no_fnmatch_line("*arena leaderboard: b =*")
    report = json.loads((pytester.path / "crashed.json").read_text())
    jsonschema.validate(report, schema())
    assert (report["stopped_early"], report["stopped_by"]) == (True, "worker_crash")
    assert [b["project"] for b in report["leaderboards"]] == ["a", "bee"]
    lost = [(r["project"], r["case"]) for r in report["records"] if r["detail"].get("lost")]
    assert lost == [("a", "c1"), ("a", "c2"), ("bee", "b0"), ("bee", "b1")]

    good = json.loads((pytester.path / "good.json").read_text())
    for before, after in ((good, report), (report, good)):
        compared = {item.project: item for item in comparison.compare(before, after)}
        assert {p: (i.regressions, i.fixes) for p, i in compared.items()} == (
            {"a": (1, 0), "bee": (0, 0)} if before is good else {"a": (0, 1), "bee": (0, 0)}
        )
        lost_side = compared["bee"].only_before if before is good else compared["bee"].only_after
        assert lost_side == 2
    (note,) = comparison.run_notes(good, report)
    assert note.startswith("run B stopped early (pytest-xdist workers crashed, and the cases")


@pytest.mark.parametrize("workers", ["0", "2"])
def test_an_empty_dataset_warning_made_an_error_fails_collection_once(
    pytester: pytest.Pytester, make_project: MakeProject, workers: str
) -> None:
    make_project(
        "e",
        "models: [sim_small]\ndatasets: [data/empty.jsonl]\n"
        'tests:\n  - {id: one, input: "What is 1 + 1?", reference: "2"}\n',
        files={"data/empty.jsonl": ""},
    )
    result = pytester.runpytest(
        *XDIST, "-n", workers, "-W", "error::pytest_arena.plugin.collect.ArenaWarning"
    )
    result.stdout.no_fnmatch_line("*Different tests were collected*")
    result.stdout.no_fnmatch_line("*no case ran*")  # it holds one: the error is why none ran
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(
        [
            "projects/e/data/empty.jsonl:1: ArenaWarning: dataset file data/empty.jsonl holds"
            " no cases (arena.yaml line 2 names it): *",
        ]
    )
    if workers == "2":  # a warning that is no error is said once, not by each worker
        warned = pytester.runpytest(*XDIST, "-n", workers)
        warned.assert_outcomes(failed=1, warnings=1)


def test_dist_each_counts_the_spend_of_each_case_once(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    make_project(
        "sums",
        "models: [sim_small]\ntests:\n"
        + "".join(
            f'  - {{id: q{i}, input: "What is {i} + {i}?", reference: "{2 * i}"}}\n'
            for i in range(3)
        ),
    )
    pytester.runpytest("-p", "no:xdist", "--arena-json", "alone.json")
    each = pytester.runpytest(*XDIST, "-n", "2", "--dist", "each", "--arena-json", "each.json")
    outcomes = each.parseoutcomes()
    assert outcomes.get("failed", 0) + outcomes.get("passed", 0) == 6  # each case twice
    spend = json.loads((pytester.path / "each.json").read_text())["spend"]
    once = json.loads((pytester.path / "alone.json").read_text())["spend"]
    assert spend["on_graded"] == pytest.approx(once["on_graded"])  # the records' answers
    assert spend["on_ungraded"] == pytest.approx(once["on_graded"])  # the second worker's
    each.stdout.fnmatch_lines(["arena: 3 answers graded; * on answers no case was graded by*"])


def test_dist_each_lists_each_broken_input_once(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    """Every worker collects and reports a dataset's bad row under `--dist each`: the run
    said "2 inputs could not be loaded" and the JSON listed the row twice, for one bad row."""
    make_project(
        "dup",
        "models: [sim_perfect]\ntests:\n  - {id: ok, input: x, reference: x}\n"
        "datasets:\n  - data/rows.jsonl\n",
        {
            "data/rows.jsonl": '{"id": "r1", "input": "y", "reference": "y"}\n'
            '{"id": "r2", "input": "z", "refrence": "z"}\n'
        },
    )
    each = pytester.runpytest(*XDIST, "-n", "2", "--dist", "each", "--arena-json", "each.json")
    each.stdout.fnmatch_lines(["arena: 1 input could not be loaded*"])
    problems = json.loads((pytester.path / "each.json").read_text())["problems"]
    assert [p["item"] for p in problems] == ["projects/dup/data/rows.jsonl::r2"]


# a gated project whose weighted case (in a group, with tags) kills its worker; NO_CRASH set,
# the agent fails it with a plain error instead
WEIGHTED_AGENT = """
import os


def answer(prompt):
    if prompt == "crash" and not os.environ.get("NO_CRASH"):
        os._exit(1)
    if prompt == "crash":
        raise RuntimeError("agent failed")
    return prompt
"""
WEIGHTED = """
models:
  default: [bot]
  define:
    bot: {connector: python, callable: "agent:answer"}
gate:
  all: {accuracy: {min: 0.8}}
tests:
  - {id: c01, input: "a", reference: "a"}
  - {id: c02, input: "b", reference: "b"}
  - {id: c03, input: "c", reference: "c"}
  - {id: boom, input: "crash", reference: "x", weight: 7, group: doc, tags: [hard]}
  - {id: c05, input: "e", reference: "e", group: doc}
  - {id: c06, input: "f", reference: "f"}
  - {id: c07, input: "g", reference: "g"}
datasets:
  - data/rows.jsonl
"""


def _board_and_gate(lines: list[str]) -> list[str]:
    """The leaderboard's row of `bot` and the gate's lines of a run's terminal."""
    return [
        line
        for line in lines
        if line.lstrip().startswith(("1      bot", "gate ", "failed  bot", "held  bot"))
    ]


def test_a_case_a_worker_crashed_on_counts_with_its_weight_group_and_gate(
    pytester: pytest.Pytester, make_project: MakeProject, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The error record of a crashed or lost case took its weight and tags only from a record
    of the same case on another model, its project's gate only from another record of the
    project, and its group from nowhere: with one model a case of weight 7 counted 1
    (accuracy 0.875, "gate held" where a plain error fails it), and a gated project whose
    every case was lost had no gate at all."""
    rows = '{"id": "c08", "input": "h", "reference": "h", "weight": 2, "tags": ["rows"]}\n'
    make_project("solo", WEIGHTED, {"agent.py": WEIGHTED_AGENT, "data/rows.jsonl": rows})
    crashed = pytester.runpytest(*XDIST, "-n", "2", "--arena-json", "crashed.json")
    crashed.assert_outcomes(passed=7, failed=1)
    crashed.stdout.fnmatch_lines(["*worker 'gw*' crashed while running*boom[[]bot[]]*"])
    monkeypatch.setenv("NO_CRASH", "1")
    plain = pytester.runpytest("-p", "no:xdist", "--arena-json", "plain.json")
    plain.assert_outcomes(passed=7, failed=1)
    shown = _board_and_gate(crashed.outlines)
    assert shown == _board_and_gate(plain.outlines)
    assert any("accuracy 0.5333 outside min 0.8" in line for line in shown), shown  # 8 of 15
    reports = {
        name: json.loads((pytester.path / f"{name}.json").read_text())
        for name in ("crashed", "plain")
    }
    booms = {
        name: [r for r in report["records"] if r["case"] == "boom"]
        for name, report in reports.items()
    }
    assert [(r["weight"], r["tags"], r["group"]) for r in booms["crashed"]] == [
        (7.0, ["hard"], "doc")
    ]
    assert [(r["weight"], r["tags"], r["group"]) for r in booms["plain"]] == [
        (7.0, ["hard"], "doc")
    ]
    rows_of = {name: report["leaderboards"][0]["rows"] for name, report in reports.items()}
    for key in ("accuracy", "errors", "intervals"):  # the group clusters the intervals
        assert [r[key] for r in rows_of["crashed"]] == [r[key] for r in rows_of["plain"]]
    assert [g["held"] for g in reports["crashed"]["gates"]] == [False]

    # every case of the gated project lost with the only worker, the crash in `a` first:
    # its gate is still checked (and fails, its cases all errors), as without the crash
    monkeypatch.delenv("NO_CRASH")
    monkeypatch.setenv("CRASH_AGENT", "1")
    make_project("a", CRASHING, files={"agent.py": AGENT})
    lost = pytester.runpytest(
        *XDIST, "-n", "1", "--max-worker-restart", "0", "--arena-json", "lost.json"
    )
    lost.stdout.fnmatch_lines(["*arena gate: solo*", "gate failed: 1 of 1 checks outside*"])
    report = json.loads((pytester.path / "lost.json").read_text())
    assert [g["project"] for g in report["gates"]] == ["solo"]
    rows_record = [r for r in report["records"] if r["case"] == "c08"]
    assert [(r["weight"], r["tags"], r["detail"].get("lost")) for r in rows_record] == [
        (2.0, ["rows"], True)
    ]


def test_a_case_a_worker_crashed_on_or_lost_with_it_keeps_its_file_and_line_in_junit_xml(
    pytester: pytest.Pytester, make_project: MakeProject, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Under `xunit1` the testcase of a crashed or lost case had no `line` (xdist's crash
    report and the lost cases' reports gave none), where every other testcase has one."""
    rows = '{"id": "r1", "input": "one", "reference": "yes"}\n\n'
    rows += '{"id": "r2", "input": "two", "reference": "yes"}\n'
    make_project("a", CRASHING + "datasets: [data/rows.jsonl]\n", {"agent.py": AGENT})
    (pytester.path / "projects" / "a" / "data").mkdir()
    (pytester.path / "projects" / "a" / "data" / "rows.jsonl").write_text(rows)
    run = (*XDIST, "-n", "1", "--max-worker-restart", "0", "-o", "junit_family=xunit1")
    pytester.runpytest(*run, "--junitxml=plain.xml").assert_outcomes(passed=5)
    monkeypatch.setenv("CRASH_AGENT", "1")
    crashed = pytester.runpytest(*run, "--junitxml=crashed.xml")
    crashed.assert_outcomes(failed=1, errors=4)  # c0 crashed, the rest lost with it

    def places(xml: str) -> dict[str, tuple[str | None, str | None]]:
        testcases = ET.parse(pytester.path / xml).getroot().iter("testcase")
        return {t.get("name", ""): (t.get("file"), t.get("line")) for t in testcases}

    assert (
        places("crashed.xml")
        == places("plain.xml")
        == {
            "c0[mine]": ("projects/a/arena.yaml", "5"),
            "c1[mine]": ("projects/a/arena.yaml", "6"),
            "c2[mine]": ("projects/a/arena.yaml", "7"),
            "r1[mine]": ("projects/a/data/rows.jsonl", "0"),
            "r2[mine]": ("projects/a/data/rows.jsonl", "2"),
        }
    )
