"""`--arena-json PATH`: every record and the leaderboards, valid against the shipped schema."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from pytest_arena.record import FAILED, PASSED, Record, encodable
from pytest_arena.reports import html
from pytest_arena.reports.json_report import (
    VERSION,
    Spill,
    Spilled,
    build_report,
    schema,
    unique,
    write_report,
)
from pytest_arena.reports.leaderboard import build_boards
from tests.conftest import XDIST, MakeProject
from tests.projects import TABLE_PROJECT, TABLE_SCORER

GATED = TABLE_PROJECT.replace("tests:", "gate: {models: {pricey: {cost: {max: 10}}}}\ntests:", 1)


def run_report(pytester: pytest.Pytester, *args: str) -> dict[str, Any]:
    pytester.runpytest("--arena-json", "out/report.json", *args)
    report: dict[str, Any] = json.loads((pytester.path / "out" / "report.json").read_text())
    return report


def test_the_report_holds_every_record_and_the_board_and_follows_the_schema(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    make_project("table", GATED, files={"scorers/table.py": TABLE_SCORER})
    report = run_report(pytester)
    jsonschema.validate(report, schema())
    assert report["version"] == VERSION == 2
    assert report["exit_status"] == 1  # pricey costs $27, over the gate's $10
    assert report["gates_decide"] is True
    assert len(report["records"]) == 6
    c1 = next(r for r in report["records"] if (r["case"], r["model"]) == ("c1", "pricey"))
    assert c1 == {
        "project": "table",
        "case": "c1",
        "model": "pricey",
        "sample": 0,
        "status": "failed",
        "score": 0.5,
        "passed": False,
        "reason": "from the table",
        "scorer": "table",
        "output": "abcdefgh",
        "raw_output": None,
        "reference": "abcdefgh",
        "messages": [{"role": "user", "content": "abcd"}],
        "detail": {},
        "group": None,
        "xfail": None,
        "response": {
            "message": {"role": "assistant", "content": "abcdefgh", "tool_calls": []},
            "finish_reason": None,
            "usage": {"tokens_in": 5, "tokens_out": 2, "cost": 9.0},
            "duration_ms": 20.0,
            "meta": {"verdict": "right"},  # the sim's own: how it chose its answer
            "trajectory": [],
        },
        "metrics": {"citation_rate": 0.5},
        "tokens": {"input": 5, "output": 2},
        "cost": 9.0,
        "latency_ms": 20.0,
        "retries": 0,
        "cached": False,
        "judge": {"tokens": 0, "cost": 0.0, "cached_cost": 0.0},
        "weight": 1.0,
        "tags": [],
        "error": None,
        "samples": [],  # drawn once: no samples of its own, and no sampling
        "sampling": None,
    }
    (board,) = report["leaderboards"]
    assert [(r["rank"], r["model"], r["composite"]) for r in board["rows"]] == [
        (1, "pricey", pytest.approx(0.7)),
        (2, "sim_perfect", pytest.approx(0.55)),
    ]
    assert board["rows"][0]["metrics"] == {"citation_rate": pytest.approx(0.875)}
    (gate,) = report["gates"]
    assert gate["held"] is False
    assert gate["checks"][0]["value"] == 27.0
    assert gate["checks"][0]["margin"] == -17.0


def test_the_report_is_the_same_under_xdist(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    make_project("table", TABLE_PROJECT, files={"scorers/table.py": TABLE_SCORER})
    alone, spread = run_report(pytester, *XDIST, "-n", "0"), run_report(pytester, *XDIST, "-n", "2")
    for part in ("records", "leaderboards", "gates", "exit_status", "spend"):
        assert spread[part] == alone[part], part
    # pricey's three answers: $9 for c1 (see the record above), the spend its records hold
    costs = sum(r["cost"] for r in alone["records"] if r["cost"] is not None)
    assert alone["spend"]["total"] == alone["spend"]["on_graded"] == pytest.approx(costs)
    assert alone["spend"]["on_ungraded"] == 0 and costs > 9


def test_a_run_without_arena_items_writes_no_report(pytester: pytest.Pytester) -> None:
    """It wrote one of no records (and replaced the last benchmark's) while saying that
    --arena-json had nothing to act on: a Python run given the option by addopts."""
    pytester.makepyfile(test_plain="def test_plain():\n    assert True\n")
    result = pytester.runpytest("--arena-json", "out/report.json")
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(["arena: no arena.yaml was collected, so --arena-json had*"])
    assert not (pytester.path / "out" / "report.json").exists()


def test_the_schema_refuses_a_report_missing_a_field() -> None:
    record = Record("quiz", "c1", "sim_small", PASSED, score=1.0, passed=True)
    report = build_report([record], build_boards([record]))
    jsonschema.validate(report, schema())
    del report["records"][0]["reason"]
    with pytest.raises(jsonschema.ValidationError, match="'reason' is a required property"):
        jsonschema.validate(report, schema())


def test_unique_keeps_the_first_result_of_each_key_in_key_order() -> None:
    """`--dist each` runs every item on every worker: one record each is kept."""
    first = Record("quiz", "b", "m", PASSED, reason="first")
    again = Record("quiz", "b", "m", PASSED, reason="again")
    other = Record("quiz", "a", "m", PASSED)
    assert unique([first, other, again]) == [other, first]


def test_values_that_are_not_json_become_json(tmp_path: Path) -> None:
    record = Record(
        "quiz", "c1", "m", PASSED, reference={"where": tmp_path}, detail={"tags": {"b", "a"}}
    )
    when = datetime(2026, 1, 2, 3, 4, 5, tzinfo=timezone.utc)
    report = build_report([record], build_boards([record]), created=when)
    text = json.loads(json.dumps(report))
    assert text["records"][0]["reference"] == {"where": str(tmp_path)}
    assert text["records"][0]["detail"] == {"tags": ["a", "b"]}
    assert text["created"] == "2026-01-02T03:04:05+00:00"
    jsonschema.validate(text, schema())


def test_a_kept_records_json_data_is_shared_by_its_report_not_copied() -> None:
    """At 50,000 cases a copy of every prompt, response and detail is tens of megabytes."""
    kept = Record.from_dict(
        Record(
            "quiz",
            "c1",
            "m",
            PASSED,
            messages=[{"role": "user", "content": "2 + 2?"}],
            detail={"steps": [1, 2.5, None, True]},
            response={"message": {"content": "4"}, "trajectory": []},
            metrics={"f1": 1.0},
        ).to_dict()
    )
    (data,) = build_report([kept], build_boards([kept]))["records"]
    assert data["messages"] is kept.messages and data["response"] is kept.response
    assert data["detail"] is kept.detail and data["metrics"] is kept.metrics
    odd = Record("quiz", "c2", "m", PASSED, detail={"x": [float("nan"), (1, 2)]}, metrics={})
    (data,) = build_report([odd], build_boards([odd]))["records"]
    assert data["detail"] == {"x": [None, [1, 2]]} and data["detail"] is not odd.detail


def test_the_schema_is_a_valid_json_schema() -> None:
    jsonschema.Draft202012Validator.check_schema(schema())


@pytest.mark.parametrize("count", [0, 1, 3])
def test_the_file_is_written_a_record_at_a_time_as_json_dumps_writes_the_whole(
    tmp_path: Path, count: int
) -> None:
    records = [
        Record(
            project="p",
            case_id=f"c{i}",
            model="m",
            status=PASSED,
            output='naïve "quoted"\nline',
            detail={"nested": {"list": [1, {"deep": []}], "empty": {}}},
        )
        for i in range(count)
    ]
    report = build_report(records, build_boards(records), created=datetime(2026, 1, 2))
    path = tmp_path / "out" / "arena.json"
    write_report(path, report)
    assert path.read_text("utf-8") == json.dumps(report, indent=2, ensure_ascii=False) + "\n"
    assert json.loads(path.read_text("utf-8")) == report
    assert not list(path.parent.glob("*.tmp"))
    write_report(path, {})
    assert path.read_text("utf-8") == "{}\n"


def test_records_spilled_to_a_file_are_written_as_the_whole_records_would_be(
    tmp_path: Path,
) -> None:
    def record(case: str, reason: str, **more: Any) -> Record:
        return Record("p", case, "m", PASSED, reason=reason, output=f"out {case}", **more)

    first, again = record("b", "first"), record("b", "again")  # `--dist each`: b twice
    crashed = record("c", "crash", detail={"crash": "gw0"})  # completed at the run's end
    other = record("a", "naïve\n")
    arrived = [first, crashed, other, again]
    spill = Spill()
    for r in arrived:
        spill.add(r, whole=r is not crashed)
    crashed.weight = 4.0  # as the run's end completes it, after it was spilled
    boards, when = build_boards(arrived), datetime(2026, 1, 2)
    write_report(tmp_path / "whole.json", build_report(arrived, boards, created=when))
    write_report(
        tmp_path / "spilled.json", build_report(arrived, boards, created=when, spill=spill)
    )
    spill.close()
    text = (tmp_path / "spilled.json").read_text("utf-8")
    assert text == (tmp_path / "whole.json").read_text("utf-8")
    records = json.loads(text)["records"]
    assert [(r["case"], r["reason"]) for r in records] == [
        ("a", "naïve\n"),
        ("b", "first"),
        ("c", "crash"),
    ]
    assert records[2]["weight"] == 4.0


def test_a_record_that_cannot_be_spilled_is_written_from_memory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def no_folder() -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr("tempfile.TemporaryFile", no_folder)
    records = [Record("p", "a", "m", PASSED, output="kept whole")]
    spill = Spill()
    assert spill.add(records[0]) is False  # so the run keeps the record whole
    boards, when = build_boards(records), datetime(2026, 1, 2)
    write_report(tmp_path / "whole.json", build_report(records, boards, created=when))
    write_report(
        tmp_path / "spilled.json", build_report(records, boards, created=when, spill=spill)
    )
    spill.close()
    assert (tmp_path / "spilled.json").read_text() == (tmp_path / "whole.json").read_text()


@pytest.mark.parametrize("writer", [write_report, html.write_html], ids=["json", "html"])
def test_a_report_that_fails_midway_leaves_the_old_file_and_no_temporary_one(
    tmp_path: Path, writer: Callable[[Path, dict[str, Any]], None]
) -> None:
    class FullDisk(Spill):
        def text(self, key: Any) -> str:
            raise OSError(28, "No space left on device")

    records = [Record("p", "a", "m", PASSED, score=1.0), Record("p", "b", "m", FAILED, score=0.0)]
    report = build_report(records, build_boards(records))
    report["records"] = [report["records"][0], Spilled(FullDisk(), records[1])]
    path = tmp_path / "out" / "report"
    path.parent.mkdir()
    path.write_text("the last run's report")
    with pytest.raises(OSError, match="No space left"):
        writer(path, report)
    assert path.read_text() == "the last run's report"
    assert sorted(p.name for p in path.parent.iterdir()) == ["report"]


@pytest.mark.parametrize("workers", [0, 2], ids=["in-process", "xdist"])
def test_half_a_surrogate_pair_in_an_answer_is_reported_not_an_internal_error(
    pytester: pytest.Pytester, make_project: MakeProject, workers: int
) -> None:
    """A model's JSON may hold "\\ud800" alone (a reply cut inside an emoji): Python reads
    it as a string UTF-8 cannot encode, which the reports' files and xdist's channel refuse."""
    make_project(
        "cut",
        """
        models:
          default: [agent]
          define:
            agent: {connector: python, callable: "agent:run"}
        tests:
          - {id: emoji, input: hi, reference: "a smile"}
        """,
        {"agent.py": 'def run(prompt):\n    return "a smile \\ud83d"\n'},
    )
    xdist = [*XDIST, "-n", str(workers)] if workers else []
    result = pytester.runpytest(*xdist, "--arena-json=out.json", "--arena-html=out.html")
    result.assert_outcomes(failed=1)
    assert "INTERNALERROR" not in result.stdout.str()
    output = json.loads((pytester.path / "out.json").read_text("utf-8"))["records"][0]["output"]
    # in one process the file reads back as the same string; from a worker, as its escape
    assert output == ("a smile \ud83d" if not workers else "a smile \\ud83d")
    page = (pytester.path / "out.html").read_text("utf-8")
    embedded = re.search(r'id="arena-data">(.*?)</script>', page, re.S)
    assert embedded is not None
    assert json.loads(embedded[1])["records"][0]["output"] == output


def test_encodable_escapes_lone_surrogates_and_keeps_the_data_s_shape() -> None:
    sent = encodable({"location": ("a.yaml", 3, "x\ud800"), "lines": ["\udfff", "é", 1], "k": None})
    assert sent == {"location": ("a.yaml", 3, "x\\ud800"), "lines": ["\\udfff", "é", 1], "k": None}
    assert type(sent["location"]) is tuple  # pytest rebuilds a report's location as it was
    json.dumps(sent).encode("utf-8")  # and the whole is encodable


def test_the_reports_exit_status_is_the_runs_when_a_boards_mistake_fails_it(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    make_project(
        "p",
        "models: [sim_perfect]\nmetrics: {weights: {acuracy: 1}}\n"
        "tests:\n  - {id: a, input: x, reference: x}\n  - {id: b, input: y, reference: y}\n",
    )
    result = pytester.runpytest("-p", "no:cacheprovider", "--arena-json", "out.json")
    assert result.ret == 1  # every case passed, but the board names what no record has
    assert json.loads((pytester.path / "out.json").read_text())["exit_status"] == 1  # was 0


def test_a_report_is_written_where_its_path_leads_keeping_a_link_and_the_file_s_mode(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    """The report replaced whatever was at its path: a symlink to the kept report became a
    file of its own (the target left stale), a private file became world-readable, and a
    named pipe that a reader waited on was swapped for a file."""
    import os
    import stat
    import threading

    make_project("mine", "models: [sim_perfect]\ntests:\n  - {id: a, input: x, reference: x}\n")
    store = pytester.path / "store"
    store.mkdir()
    (store / "real.json").write_text("{}")
    (pytester.path / "latest.json").symlink_to(store / "real.json")
    private = pytester.path / "private.json"
    private.write_text("")
    private.chmod(0o600)
    pipe = pytester.path / "pipe"
    os.mkfifo(pipe)
    heard: list[str] = []
    reader = threading.Thread(target=lambda: heard.append(pipe.read_text()), daemon=True)
    reader.start()
    for target in ("latest.json", "private.json", "pipe"):
        assert pytester.runpytest("--arena-json", target).ret == 0
    reader.join(10)
    assert (pytester.path / "latest.json").is_symlink()
    assert json.loads((store / "real.json").read_text())["records"][0]["case"] == "a"
    assert stat.S_IMODE(private.stat().st_mode) == 0o600
    assert json.loads(private.read_text())["records"][0]["case"] == "a"
    assert stat.S_ISFIFO(pipe.stat().st_mode)
    assert json.loads(heard[0])["records"][0]["case"] == "a"


@pytest.mark.parametrize(
    ("first", "second"),
    [
        (("--arena-json", "r.json"), ("--arena-html", "r.json")),
        (("--arena-save-baseline", "out/b.json"), ("--junitxml", "out/../out/b.json")),
        (("--arena-html", "r.html"), ("--html", "r.html")),  # pytest-html's
    ],
)
def test_two_reports_given_one_file_is_a_usage_error(
    pytester: pytest.Pytester,
    make_project: MakeProject,
    first: tuple[str, str],
    second: tuple[str, str],
) -> None:
    """`--arena-json r.json --arena-html r.json` left the page in r.json: the JSON report
    was lost without a word."""
    make_project("mine", "models: [sim_perfect]\ntests:\n  - {id: a, input: x, reference: x}\n")
    html = ["-p", "pytest_html.plugin"] if second[0] == "--html" else []
    result = pytester.runpytest(*html, *first, *second)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        [f"*{first[0]} and {second[0]} both name {second[1]}: one report would overwrite*"]
    )


@pytest.mark.parametrize("option", ["--collect-only", "--setup-plan", "--setup-only"])
def test_a_run_that_grades_nothing_by_design_leaves_the_last_reports_as_they_are(
    pytester: pytest.Pytester, make_project: MakeProject, option: str
) -> None:
    """`pytest --co -q`, which the docs suggest for a check, with --arena-json and
    --arena-html in addopts, replaced the last run's reports with empty ones, and said
    "HTML report:" of the empty one."""
    make_project("quiz", "models: [sim_perfect]\ntests:\n  - {id: a, input: x, reference: x}\n")
    outputs = ("--arena-json", "run.json", "--arena-html", "run.html")
    pytester.runpytest(*outputs).assert_outcomes(passed=1)
    before = {name: (pytester.path / name).read_bytes() for name in ("run.json", "run.html")}
    result = pytester.runpytest(option, *outputs)
    assert result.ret == pytest.ExitCode.OK
    assert "HTML report" not in result.stdout.str()
    assert {name: (pytester.path / name).read_bytes() for name in before} == before


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="/dev/full is Linux's")
def test_each_report_holds_the_exit_status_a_report_not_written_gives_the_run(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    """--arena-json out.json --arena-html /dev/full exited 1, and out.json said 0."""
    make_project("p", "models: [sim_perfect]\ntests:\n  - {id: a, input: x, reference: x}\n")
    result = pytester.runpytest("--arena-json", "out.json", "--arena-html", "/dev/full")
    assert result.ret == 1
    result.stdout.fnmatch_lines(["arena: the --arena-html report was not written: *"])
    assert json.loads((pytester.path / "out.json").read_text())["exit_status"] == 1
    result = pytester.runpytest("--arena-json", "/dev/full", "--arena-html", "out.html")
    assert result.ret == 1
    assert "· exit status 1" in (pytester.path / "out.html").read_text()


def test_a_run_xdist_stops_after_its_last_case_did_not_stop_early(
    pytester: pytest.Pytester, make_project: MakeProject, tmp_path: Path
) -> None:
    """Under -n 2 -x, pytest-xdist ends a run whose last case failed as interrupted (exit
    status 2): the JSON report said it stopped early, though every case had run."""
    make_project("p", "models: [sim_echo]\ntests:\n  - {id: a, input: x, reference: y}\n")
    summary = tmp_path / "summary.md"
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("GITHUB_STEP_SUMMARY", str(summary))
        result = pytester.runpytest(*XDIST, "-n", "2", "-x", "--arena-json", "out.json")
    assert result.ret == pytest.ExitCode.INTERRUPTED  # xdist's, as for any test
    result.stdout.fnmatch_lines(["*1 failed*"])
    assert "stopped early" not in result.stdout.str() + summary.read_text()
    report = json.loads((pytester.path / "out.json").read_text())
    assert (report["stopped_early"], len(report["records"])) == (False, 1)


def weighted(weights: list[float]) -> list[Record]:
    """Cases c0, c1... of these weights: `a` passes every one, `b` every other one."""
    return [
        Record("p", f"c{i}", model, PASSED if ok else FAILED, float(ok), ok, weight=w)
        for i, w in enumerate(weights)
        for model, ok in (("a", True), ("b", i % 2 == 1))
    ]


def test_the_power_says_what_weighted_cases_count_as() -> None:
    """The power line's cases counted as Kish's effective number of them, (Σw)² / Σw²:
    the report gave their count alone."""
    recs = weighted([1000.0] + [1.0] * 39)
    report = build_report(recs, build_boards(recs))
    jsonschema.validate(report, schema())
    power = report["leaderboards"][0]["power"]
    assert power["cases"] == 40
    assert power["effective_cases"] == pytest.approx(1039**2 / (1000**2 + 39))
    plain = weighted([1.0] * 40)
    equal = build_report(plain, build_boards(plain))["leaderboards"][0]["power"]
    assert equal["effective_cases"] == equal["cases"] == 40
    power["effective_cases"] = "1.1"
    with pytest.raises(jsonschema.ValidationError, match=r"'1\.1' is not of type 'number'"):
        jsonschema.validate(report, schema())
    del power["effective_cases"]  # a report written before it: still valid
    jsonschema.validate(report, schema())
