"""JUnit XML: each case carries its record as properties, and its reason as the message."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest

from pytest_arena.record import Record
from pytest_arena.reports.junit import properties, set_properties
from tests.conftest import MakeProject
from tests.test_leaderboard_run import BY_MODEL_SCORER, PROJECT


def cases(path: str) -> dict[str, ET.Element]:
    return {tc.attrib["name"]: tc for tc in ET.parse(path).getroot().iter("testcase")}


def props(case: ET.Element) -> dict[str, str]:
    return {p.attrib["name"]: p.attrib["value"] for p in case.iter("property")}


@pytest.mark.parametrize("workers", ["0", "2"])
def test_each_case_carries_its_record_and_the_reason_is_the_message(
    pytester: pytest.Pytester, make_project: MakeProject, workers: str
) -> None:
    make_project("table", PROJECT, files={"scorers/table.py": BY_MODEL_SCORER})
    result = pytester.runpytest("-n", workers, "--junitxml=out.xml")
    result.assert_outcomes(passed=2, failed=2)
    found = cases(str(pytester.path / "out.xml"))
    assert set(found) == {f"c{i}[{m}]" for i in (1, 2, 3) for m in ("sim_perfect", "pricey")}
    # c1 on pricey: 5 input tokens at $1 and 2 output tokens at $2 (see test_leaderboard_run)
    assert props(found["c1[pricey]"]) == {
        "project": "table",
        "case": "c1",
        "model": "pricey",
        "status": "failed",
        "score": "0.5",
        "passed": "false",
        "cost": "9.0",
        "tokens": "7",
        "latency": "20.0",
        "metric.citation_rate": "0.5",
    }
    assert props(found["c3[sim_perfect]"])["passed"] == "null"  # unscored
    failure = found["c1[pricey]"].find("failure")
    assert failure is not None
    assert failure.attrib["message"] == "from the table"
    assert "scorer:    table (score 0.50)" in (failure.text or "")
    assert found["c1[sim_perfect]"].find("failure") is None


def test_xunit1_points_file_and_line_at_the_case_in_yaml(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    make_project(
        "sums",
        """
        models: [sim_perfect]
        tests:
          - id: inline
            input: "1+1"
            reference: "2"
        datasets:
          - path: data/more.jsonl
        """,
        files={"data/more.jsonl": '{"id": "a", "input": "2+2", "reference": "4"}\n'},
    )
    result = pytester.runpytest("--junitxml=out.xml", "-o", "junit_family=xunit1")
    result.assert_outcomes(passed=2)
    found = cases(str(pytester.path / "out.xml"))
    # pytest writes a test's 0-based line, as for Python tests: "- id: inline" is line 3
    assert found["inline[sim_perfect]"].attrib["file"] == "projects/sums/arena.yaml"
    assert found["inline[sim_perfect]"].attrib["line"] == "2"
    assert found["a[sim_perfect]"].attrib["file"] == "projects/sums/data/more.jsonl"
    assert found["a[sim_perfect]"].attrib["line"] == "0"
    pytester.runpytest("--junitxml=out2.xml")  # xunit2, the default, has no file or line
    assert "file" not in cases(str(pytester.path / "out2.xml"))["inline[sim_perfect]"].attrib


def test_a_broken_case_is_an_error_with_its_problem_as_the_message(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    make_project(
        "quiz",
        """
        models: [sim_perfect]
        tests:
          - id: odd
            input: "hi"
            eval_type: no_such_scorer
        """,
    )
    result = pytester.runpytest("--junitxml=out.xml")
    result.assert_outcomes(errors=1)
    error = cases(str(pytester.path / "out.xml"))["odd[sim_perfect]"].find("error")
    assert error is not None
    assert error.attrib["message"].startswith('failed on setup with "projects/quiz/arena.yaml:5:')
    assert "no_such_scorer" in error.attrib["message"]


def test_properties_replace_those_of_an_earlier_phase() -> None:
    first = Record("p", "c", "m", "failed", score=0.0, metrics={"recall": 0.1})
    again = Record("p", "c", "m", "passed", score=1.0, passed=True, metrics={"f1": 0.9})
    kept = [("mine", "x")]
    set_properties(kept, first)
    set_properties(kept, again)
    assert kept == [("mine", "x"), *properties(again)]
    assert ("metric.recall", "0.1") not in kept


@pytest.mark.parametrize("workers", ["0", "2"])
def test_without_pytests_junitxml_plugin_the_run_goes_on(
    pytester: pytest.Pytester, make_project: MakeProject, workers: str
) -> None:
    make_project("table", PROJECT, files={"scorers/table.py": BY_MODEL_SCORER})
    result = pytester.runpytest("-p", "no:junitxml", "-n", workers)
    result.assert_outcomes(passed=2, failed=2)
    assert "INTERNALERROR" not in result.stdout.str()
    result.stdout.fnmatch_lines(["*= arena leaderboard: table =*"])
