"""What `arena report` and `arena compare` are given: the page they write never overwrites a
project, a report edited by hand or of an older version is refused with what is wrong (never
a traceback), and a comparison of runs that graded nothing in common fails."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from typing import Any

import pytest

from tests.conftest import ARENA, MakeProject

QUIZ = """
models: [sim_small, sim_large]
tests:
  - {id: a, input: "Capital of France?", reference: Paris}
  - {id: b, input: "2+2?", reference: "4"}
"""


def run_json(pytester: pytest.Pytester, name: str, *args: str) -> dict[str, Any]:
    pytester.runpytest_subprocess("projects", "-q", "--tb=no", "--arena-json", name, *args)
    data: dict[str, Any] = json.loads((pytester.path / name).read_text())
    return data


def test_the_page_never_overwrites_a_projects_file(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    """`arena report run.json --html projects/quiz/arena.yaml` wrote the page over the
    project's cases (and `arena compare --html` over its code), said "wrote" and exited 0;
    `--arena-html` refused the same path."""
    make_project("quiz", QUIZ, {"agent.py": "ANSWER = 42\n"})
    run_json(pytester, "run.json")
    cases = (pytester.path / "projects/quiz/arena.yaml").read_text()
    report = pytester.run(*ARENA, "report", "run.json", "--html", "projects/quiz/arena.yaml")
    assert report.ret == 4  # a usage error, as a page that cannot be written
    report.stderr.fnmatch_lines(
        [
            "arena report: --html projects/quiz/arena.yaml: the report would overwrite a"
            " project's arena.yaml (cases, a dataset or code); give it a file of its own,"
            " such as --html report.html"
        ]
    )
    compare = pytester.run(
        *ARENA, "compare", "run.json", "run.json", "--html", "projects/quiz/agent.py"
    )
    assert compare.ret == 4
    compare.stderr.fnmatch_lines(
        [
            "arena compare: --html projects/quiz/agent.py: the report would overwrite a"
            " project's file (cases, a dataset or code); give it a file of its own,"
            " such as --html compare.html"
        ]
    )
    assert "wrote" not in report.stdout.str() + compare.stdout.str()
    assert (pytester.path / "projects/quiz/arena.yaml").read_text() == cases
    assert (pytester.path / "projects/quiz/agent.py").read_text() == "ANSWER = 42\n"
    # pytest's own option says the same of the same path
    direct = pytester.runpytest_subprocess("projects", "--arena-html", "projects/quiz/arena.yaml")
    direct.stderr.fnmatch_lines(["*--arena-html projects/quiz/arena.yaml: the report would*"])
    assert pytester.run(*ARENA, "report", "run.json", "--html", "page.html").ret == 0


def test_compare_fails_when_a_run_graded_nothing(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    """A second run that graded no case (-k matching none) exited 0, as if it were no
    worse; two such runs printed only the header and exited 0."""
    make_project("quiz", QUIZ)
    run_json(pytester, "run.json")
    assert run_json(pytester, "E.json", "-k", "nomatch")["records"] == []
    emptied = pytester.run(*ARENA, "compare", "run.json", "E.json")
    assert emptied.ret == 1
    emptied.stdout.fnmatch_lines(
        ["nothing compared: no case was graded in both runs (run B graded none of run A's*"]
    )
    neither = pytester.run(*ARENA, "compare", "E.json", "E.json")
    assert neither.ret == 1
    neither.stdout.fnmatch_lines(
        ["nothing compared: no case was graded in both runs (neither run graded a case*"]
    )
    # every case of the second run new, none could have regressed: not a failure
    new = pytester.run(*ARENA, "compare", "E.json", "run.json")
    assert new.ret == 0
    assert "nothing compared" not in new.stdout.str()
    assert pytester.run(*ARENA, "compare", "run.json", "run.json").ret == 0


def _set(key: str, value: Any) -> Callable[[dict[str, Any]], None]:
    return lambda report: report.__setitem__(key, value)


def _board(key: str, value: Any) -> Callable[[dict[str, Any]], None]:
    return lambda report: report["leaderboards"][0].__setitem__(key, value)


EDITS: dict[str, tuple[Callable[[dict[str, Any]], None], str]] = {
    "problems": (_set("problems", "none"), "problems: 'none' is not of type 'array'"),
    "rows": (_board("rows", [5]), "leaderboards[0].rows[0]: 5 is not of type 'object'"),
    "checks": (_set("gates", [{"checks": "x"}]), "gates[0].checks: 'x' is not of type 'array'"),
    "project": (
        _board("project", ["quiz"]),
        "leaderboards[0].project: ['quiz'] is not of type 'string'",
    ),
    "metric_names": (
        _board("metric_names", 5),
        "leaderboards[0].metric_names: 5 is not of type 'array'",
    ),
    "warnings": (_board("warnings", 5), "leaderboards[0].warnings: 5 is not of type 'array'"),
    "weights": (_board("weights", [1]), "leaderboards[0].weights: [1] is not of type 'object'"),
    "metrics": (
        lambda report: report["leaderboards"][0]["rows"][0].__setitem__("metrics", "x"),
        "leaderboards[0].rows[0].metrics: 'x' is not of type 'object'",
    ),
}


def test_a_report_edited_by_hand_or_of_version_1_is_refused_saying_what_is_wrong(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    """Without its `generator`, or with `version: 1`, a report was not checked against its
    schema: a field of the wrong type made `arena report` stop with a Python traceback
    (UndefinedError in the template, AttributeError in html.py)."""
    make_project("quiz", QUIZ)
    run = run_json(pytester, "run.json")
    for older in ("no generator", "version 1"):
        for name, (edit, said) in EDITS.items():
            report = copy.deepcopy(run)
            if older == "no generator":
                del report["generator"]
            else:
                report["version"] = 1
            edit(report)
            (pytester.path / "g.json").write_text(json.dumps(report))
            result = pytester.run(*ARENA, "report", "g.json", "--html", "g.html")
            assert "Traceback" not in result.stderr.str(), (older, name)
            assert result.ret == 4, (older, name)
            fix = "write one with `pytest --arena-json RUN.json`"
            assert result.stderr.lines == [f"arena report: g.json: {said}; {fix}"]
            assert not (pytester.path / "g.html").exists()
    # a report of either kind that has only fields of their type still renders
    del run["generator"], run["problems"]
    run["version"] = 1
    (pytester.path / "old.json").write_text(json.dumps(run))
    assert pytester.run(*ARENA, "report", "old.json", "--html", "old.html").ret == 0
