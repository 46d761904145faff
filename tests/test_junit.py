"""JUnit XML: each case carries its record where its family allows, and its reason as the
message; pytest's default family validates against pytest's own schema."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest

from pytest_arena.record import Record
from pytest_arena.reports.junit import OUTPUT_HEADER, output_text, properties, set_properties
from tests.conftest import XDIST, MakeProject
from tests.projects import BUDGET_PROJECT, TABLE_PROJECT, TABLE_SCORER
from tests.reports import assert_valid, cases, output, props, record_of


@pytest.mark.parametrize("family", ["xunit1", "xunit2"])
@pytest.mark.parametrize("workers", ["0", "2"])
def test_each_case_carries_its_record_and_the_reason_is_the_message(
    pytester: pytest.Pytester, make_project: MakeProject, workers: str, family: str
) -> None:
    make_project("table", TABLE_PROJECT, files={"scorers/table.py": TABLE_SCORER})
    result = pytester.runpytest(
        *XDIST, "-n", workers, "--junitxml=out.xml", "-o", f"junit_family={family}"
    )
    result.assert_outcomes(passed=2, failed=2)
    found = cases(pytester.path / "out.xml")
    assert set(found) == {f"c{i}[{m}]" for i in (1, 2, 3) for m in ("sim_perfect", "pricey")}
    # c1 on pricey: 5 input tokens at $1 and 2 output tokens at $2 (see test_leaderboard_run)
    assert record_of(found["c1[pricey]"], family) == {
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
    assert record_of(found["c3[sim_perfect]"], family)["passed"] == "null"  # unscored
    assert record_of(found["c1[sim_perfect]"], family)["status"] == "passed"
    failure = found["c1[pricey]"].find("failure")
    assert failure is not None
    assert failure.attrib["message"] == "from the table"
    assert "scorer:    table (score 0.50)" in (failure.text or "")
    assert found["c1[sim_perfect]"].find("failure") is None
    if family == "xunit2":
        assert_valid(pytester.path / "out.xml")


@pytest.mark.parametrize("reason", ["", "   "])
def test_a_failure_without_a_reason_says_so_in_one_line(
    pytester: pytest.Pytester, make_project: MakeProject, reason: str
) -> None:
    """A blank reason is none: JUnit's message, --tb=line and the short summary had the
    whole failure block, or the blank itself."""
    make_project(
        "nr",
        """
        models: [sim_perfect]
        scorers: {default: strict}
        tests:
          - {id: one, input: "hi", reference: "hi"}
        """,
        files={
            "scorers/strict.py": "from pytest_arena.scorers import Scorer, ScoreResult\n"
            "class Strict(Scorer):\n"
            "    name = 'strict'\n"
            "    def score(self, output, reference, context):\n"
            f"        return ScoreResult(score=0.0, passed=False, reason={reason!r})\n"
        },
    )
    result = pytester.runpytest("projects", "--junitxml=out.xml", "--tb=line", "-rf")
    result.assert_outcomes(failed=1)
    said = "scorer 'strict' failed the output without a reason"
    failure = cases(pytester.path / "out.xml")["one[sim_perfect]"].find("failure")
    assert failure is not None
    assert failure.attrib["message"] == said
    assert "scorer:    strict (score 0.00)" in (failure.text or "")
    lines = result.stdout.lines
    assert f"projects/nr/arena.yaml:4: {said}" in lines
    assert not any(line.startswith("  scorer:") for line in lines)  # the line alone
    (summary,) = [line for line in lines if line.startswith("FAILED ")]  # cut to the width
    assert summary.startswith("FAILED projects/nr/arena.yaml::one[sim_perfect] - scorer 'str")


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


@pytest.mark.parametrize("family", ["xunit1", "xunit2"])
@pytest.mark.parametrize("workers", ["0", "2"])
def test_a_case_marked_xfail_says_what_pytest_made_of_it(
    pytester: pytest.Pytester, make_project: MakeProject, workers: str, family: str
) -> None:
    make_project(
        "sums",
        """
        models: [sim_echo]
        tests:
          - {id: wrong, input: "3", reference: "4"}
          - {id: right, input: "4", reference: "4"}
          - {id: plain, input: "6", reference: "6"}
        """,
    )
    pytester.makeconftest(
        "import pytest\n"
        "def pytest_collection_modifyitems(items):\n"
        "    for item in items:\n"
        "        if 'plain' not in item.name:\n"
        "            item.add_marker(pytest.mark.xfail(reason='known'))\n"
    )
    result = pytester.runpytest(
        *XDIST, "-n", workers, "--junitxml=out.xml", "-o", f"junit_family={family}"
    )
    result.assert_outcomes(xfailed=1, xpassed=1, passed=1)
    found = cases(pytester.path / "out.xml")
    wrong = record_of(found["wrong[sim_echo]"], family)
    assert (wrong["status"], wrong["xfail"]) == ("failed", "xfailed")  # the scorer's, pytest's
    assert record_of(found["right[sim_echo]"], family)["xfail"] == "xpassed"
    assert "xfail" not in record_of(found["plain[sim_echo]"], family)
    if family == "xunit2":
        assert_valid(pytester.path / "out.xml")


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


def mixed_run(make_project: MakeProject) -> None:
    """Passes, failures, unscored cases, an error, budget skips and a dataset case."""
    make_project("table", TABLE_PROJECT, files={"scorers/table.py": TABLE_SCORER})
    make_project(
        "odd",
        """
        models: [sim_perfect]
        tests:
          - id: broken
            input: "hi"
            eval_type: no_such_scorer
        datasets:
          - path: data/more.jsonl
        """,
        files={"data/more.jsonl": '{"id": "row", "input": "2+2", "reference": "4"}\n'},
    )
    make_project("thrifty", BUDGET_PROJECT + "budget: {max_cost: 0.0005}\n")


@pytest.mark.parametrize("workers", ["0", "2"])
def test_the_default_report_is_valid_against_pytests_schema(
    pytester: pytest.Pytester, make_project: MakeProject, workers: str
) -> None:
    mixed_run(make_project)
    result = pytester.runpytest(
        *XDIST, "-n", workers, "--junitxml=out.xml", "-W", "error::pytest.PytestWarning"
    )
    outcomes = result.parseoutcomes()
    assert (outcomes["errors"], outcomes["unscored"]) == (1, 2)
    assert outcomes["failed"] >= 2 and outcomes["skipped"] >= 1  # sim_large fails some
    assert "xunit2" not in result.stdout.str()  # no warning about record_property
    assert "warnings summary" not in result.stdout.str()
    assert_valid(pytester.path / "out.xml")
    # the boards' values and 95% bounds are the testsuite's properties, as with -n 0
    suite = ET.parse(pytester.path / "out.xml").getroot().find("testsuite")
    assert suite is not None
    board = {p.get("name"): p.get("value") for p in suite.findall("properties/property")}
    low, value, high = (
        board[f"arena.table.sim_perfect.accuracy{end}"] for end in (".low", "", ".high")
    )
    assert 0 <= float(low) <= float(value) <= float(high) <= 1
    assert board["arena.table.sim_perfect.rank"] in ("1", "=1", "2", "=2")
    found = cases(pytester.path / "out.xml")
    assert output(found["broken[sim_perfect]"])["status"] == "error"
    assert output(found["row[sim_perfect]"])["case"] == "row"  # the dataset's case
    skipped = [c for c in found.values() if c.find("skipped") is not None]
    assert skipped and all(c.find("system-out") is None for c in skipped)  # never called


def test_the_record_shares_system_out_with_captured_output(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    make_project("table", TABLE_PROJECT, files={"scorers/table.py": TABLE_SCORER})
    pytester.runpytest("--junitxml=out.xml", "-o", "junit_logging=all")
    assert_valid(pytester.path / "out.xml")
    (case,) = [c for name, c in cases(pytester.path / "out.xml").items() if name == "c1[pricey]"]
    text = case.findtext("system-out") or ""
    assert text.index(OUTPUT_HEADER) < text.index(" Captured Out ")  # one element, ours first
    assert output(case)["score"] == "0.5"


BREAK_NODE_REPORTER = """
import sys

import _pytest.junitxml as junitxml

_pytests_own = junitxml.LogXML.node_reporter


def node_reporter(self, report):
    if sys._getframe(1).f_globals["__name__"] != "_pytest.junitxml":
        raise AttributeError("'LogXML' object has no attribute 'node_reporter'")
    return _pytests_own(self, report)


junitxml.LogXML.node_reporter = node_reporter
"""


@pytest.mark.parametrize("family", ["xunit1", "xunit2"])
def test_without_pytests_junit_internals_the_report_stays_valid_and_says_so(
    pytester: pytest.Pytester, make_project: MakeProject, family: str
) -> None:
    make_project("table", TABLE_PROJECT, files={"scorers/table.py": TABLE_SCORER})
    pytester.makeconftest(BREAK_NODE_REPORTER)  # as if a pytest release renamed it
    # in a subprocess: the conftest patches pytest's own module
    result = pytester.runpytest_subprocess("--junitxml=out.xml", "-o", f"junit_family={family}")
    result.assert_outcomes(passed=2, failed=2)
    assert "INTERNALERROR" not in result.stdout.str()
    found = cases(pytester.path / "out.xml")
    if family == "xunit2":
        assert_valid(pytester.path / "out.xml")
        assert all(c.find("system-out") is None for c in found.values())
        result.stdout.fnmatch_lines(
            [
                "arena: the JUnit XML leaves out records (system-out): pytest's JUnit internals"
                " changed (AttributeError: *node_reporter*); --arena-json has every record"
            ]
        )
    else:  # properties go the public way, through user_properties: nothing is missing
        assert props(found["c1[pricey]"])["score"] == "0.5"
        assert "arena: the JUnit XML leaves out" not in result.stdout.str()


def test_a_closed_testcase_pytest_rebuilds_is_left_alone(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    make_project("table", TABLE_PROJECT, files={"scorers/table.py": TABLE_SCORER})
    pytester.makeconftest(
        """
        import copy

        import _pytest.junitxml as junitxml


        def finalize(self):
            data = self.to_xml()
            self.__dict__.clear()
            self.to_xml = lambda: copy.deepcopy(data)  # a fresh element each time


        junitxml._NodeReporter.finalize = finalize
        """
    )
    result = pytester.runpytest_subprocess("--junitxml=out.xml")
    result.assert_outcomes(passed=2, failed=2)
    assert_valid(pytester.path / "out.xml")
    result.stdout.fnmatch_lines(["arena: the JUnit XML leaves out records*(TypeError: *)*"])


@pytest.mark.parametrize("workers", ["0", "2"])
def test_without_pytests_junitxml_plugin_the_run_goes_on(
    pytester: pytest.Pytester, make_project: MakeProject, workers: str
) -> None:
    make_project("table", TABLE_PROJECT, files={"scorers/table.py": TABLE_SCORER})
    result = pytester.runpytest(*XDIST, "-p", "no:junitxml", "-n", workers)
    result.assert_outcomes(passed=2, failed=2)
    assert "INTERNALERROR" not in result.stdout.str()
    result.stdout.fnmatch_lines(["*= arena leaderboard: table =*"])


def test_the_output_of_a_record_is_xml_safe() -> None:
    record = Record("p\x1b", "c", "m", "passed", score=1.0, passed=True)
    text = output_text(record)
    assert text.startswith(OUTPUT_HEADER + "\nproject: p#x1B\ncase: c\n")
    ET.fromstring(f"<system-out>{text}</system-out>")


def test_every_character_xml_does_not_allow_is_written_as_its_code_and_no_other() -> None:
    def allowed(n: int) -> bool:  # XML 1.0's Char production
        ranges = [(0x20, 0xD7FF), (0xE000, 0xFFFD), (0x10000, 0x10FFFF)]
        return n in (0x9, 0xA, 0xD) or any(a <= n <= b for a, b in ranges)

    everything = "".join(chr(n) for n in range(0x110000))
    text = output_text(Record(everything, "c", "m", "passed"))
    project = text.split("\nproject: ", 1)[1].split("\ncase: ", 1)[0]
    assert project == "".join(chr(n) if allowed(n) else f"#x{n:02X}" for n in range(0x110000))
