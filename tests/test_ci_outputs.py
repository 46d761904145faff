"""The files a CI run keeps: a run without arena projects leaves the reports as they are,
and `--junitxml` is refused a project's file as the arena reports are."""

from __future__ import annotations

import json

import pytest

from tests.conftest import XDIST, MakeProject

QUIZ = """
models: [sim_perfect]
tests:
  - {id: capital, input: "Capital of France?", reference: Paris}
"""
REPORTS = ("--arena-json=keep.json", "--arena-html=keep.html", "--arena-save-baseline=base.json")


def earlier_reports(pytester: pytest.Pytester) -> dict[str, str]:
    """An earlier run's reports, as their files hold them."""
    files = {"keep.json": '{"earlier": true}\n', "keep.html": "<p>earlier</p>\n"}
    files["base.json"] = '{"format": 1, "cases": []}\n'
    for name, text in files.items():
        (pytester.path / name).write_text(text)
    return files


@pytest.mark.parametrize("workers", ["0", "2"])
def test_a_run_that_collected_no_arena_yaml_leaves_the_reports_as_they_are(
    pytester: pytest.Pytester, make_project: MakeProject, workers: str
) -> None:
    """It said the options "had nothing to act on", then replaced the JSON report with one
    of no records and the page with an empty one."""
    make_project("quiz", QUIZ)
    pytester.makepyfile(test_unit="def test_unit():\n    pass\n")
    files = earlier_reports(pytester)
    result = pytester.runpytest(
        *XDIST, "-n", workers, "-p", "no:cacheprovider", "test_unit.py", *REPORTS
    )
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(
        [
            "arena: no arena.yaml was collected, so --arena-html, --arena-json,"
            " --arena-save-baseline had nothing to act on: *"
        ]
    )
    result.stdout.no_fnmatch_line("*HTML report*")
    result.stdout.no_fnmatch_line("*no case ran*")  # said once, above
    assert {name: (pytester.path / name).read_text() for name in files} == files
    pytester.makeini(f"[pytest]\naddopts = {' '.join(REPORTS)}\n")  # a Python run: no word
    quiet = pytester.runpytest(*XDIST, "-n", workers, "-p", "no:cacheprovider", "test_unit.py")
    quiet.assert_outcomes(passed=1)
    quiet.stdout.no_fnmatch_line("arena:*")
    assert {name: (pytester.path / name).read_text() for name in files} == files


def test_a_run_whose_selection_left_no_case_writes_its_reports(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    """Projects were collected and `-k` deselected every case: the reports say so (no
    records, exit status 5); the baseline is left as it was, as it would lose its cases."""
    make_project("quiz", QUIZ)
    files = earlier_reports(pytester)
    result = pytester.runpytest("-p", "no:cacheprovider", "-k", "nothing", *REPORTS)
    assert result.ret == pytest.ExitCode.NO_TESTS_COLLECTED
    report = json.loads((pytester.path / "keep.json").read_text())
    assert (report["records"], report["exit_status"]) == ([], 5)
    assert (pytester.path / "keep.html").read_text() != files["keep.html"]
    assert (pytester.path / "base.json").read_text() == files["base.json"]
    result.stdout.fnmatch_lines(["*--arena-save-baseline: no case ran, so the baseline*"])


@pytest.mark.parametrize("target", ["projects/quiz/arena.yaml", "projects/quiz/data/more.jsonl"])
def test_junitxml_is_refused_a_projects_file_as_the_arena_reports_are(
    pytester: pytest.Pytester, make_project: MakeProject, target: str
) -> None:
    """`--junitxml projects/quiz/arena.yaml` overwrote the project with XML and exited 0,
    where `--arena-json` on the same path is a usage error."""
    folder = make_project("quiz", QUIZ, files={"data/more.jsonl": '{"id": "a", "input": "x"}\n'})
    kept = {p: p.read_text() for p in folder.rglob("*") if p.is_file()}
    result = pytester.runpytest("-p", "no:cacheprovider", "projects/quiz", f"--junitxml={target}")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    kind = "arena.yaml" if target.endswith("arena.yaml") else "file"
    result.stderr.fnmatch_lines(
        [
            f"ERROR: --junitxml {target}: the report would overwrite a project's {kind}"
            " (cases, a dataset or code); give it a file of its own, such as --junitxml"
            " report.xml"
        ]
    )
    assert {p: p.read_text() for p in folder.rglob("*") if p.is_file()} == kept
    elsewhere = pytester.runpytest("-p", "no:cacheprovider", "projects", "--junitxml=out.xml")
    elsewhere.assert_outcomes(passed=1)
    plain = pytester.runpytest("-p", "no:cacheprovider", "-p", "no:junitxml", "projects")
    plain.assert_outcomes(passed=1)  # no xmlpath option at all
