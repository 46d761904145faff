"""Input that cannot be loaded, as collection shows it: error items said as they always were
and made fast, shown wherever their dataset file is collected, and named so that every node
id is its own and can be run again."""

from __future__ import annotations

import os
import re

import pytest

from tests.conftest import XDIST, MakeProject

# counts the sources pytest parses while it makes the items' reports: a traceback it would
# build of each error, one parse per frame, a tenth of a second an error
PARSES = """
import ast

import pytest

parsed = []
_parse = ast.parse


def _counted(*args, **kwargs):
    parsed.append(1)
    return _parse(*args, **kwargs)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item, call):
    ast.parse = _counted
    try:
        return (yield)
    finally:
        ast.parse = _parse


def pytest_terminal_summary(terminalreporter):
    terminalreporter.write_line(f"sources parsed for reports: {len(parsed)}")
"""

SHOW_ITEMS = """
def pytest_collection_modifyitems(items):
    for item in items:
        path = item.path.relative_to(item.config.rootpath).as_posix()
        print(f"ITEM {item.nodeid} | {path} | {item.location[0]}:{item.location[1]}")
"""


def items(result: pytest.RunResult) -> dict[str, tuple[str, str]]:
    """Each item's node id: its path, and its location (file:line, 0-based)."""
    found = [
        line.split("ITEM ", 1)[1].split(" | ") for line in result.stdout.lines if "ITEM " in line
    ]
    return {nodeid: (path, where) for nodeid, path, where in found}


def test_bad_rows_are_errors_said_as_before_and_without_a_traceback(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    """1,000 rows with a bad eval_type took 130 s: pytest built a traceback of each setup
    error, parsing the source of every frame, then the plugin put the message in its place."""
    make_project(
        "p",
        """
        models: [sim_perfect]
        tests:
          - {id: ok, input: a, reference: a}
          - {id: typo, input: a, reference: a, eval_type: containz}
        datasets: [data/r.jsonl]
        """,
        files={"data/r.jsonl": '{"id": "r0", "input": "x", "eval_type": "containz"}\nnot json\n'},
    )
    pytester.makeconftest(PARSES)
    result = pytester.runpytest("-p", "no:cacheprovider", "-rE", "--junitxml=out.xml")
    result.assert_outcomes(passed=1, errors=3)
    unknown = "eval_type: no scorer is named 'containz' (did you mean 'contains'?); known scorers:"
    result.stdout.fnmatch_lines(
        [
            "*_ ERROR at setup of p::typo[[]sim_perfect] _*",
            f"projects/p/arena.yaml:4: {unknown} *",
            "*_ ERROR at setup of p::line2 _*",
            "projects/p/data/r.jsonl:2: not valid JSON: Expecting value (column 1)",
            "  fix: each line of a .jsonl file holds one JSON object",
            "*_ ERROR at setup of p::r0[[]sim_perfect] _*",
            f"projects/p/data/r.jsonl:1: {unknown} *",
        ]
    )
    result.stdout.fnmatch_lines(
        [
            "ERROR projects/p/arena.yaml::typo[[]sim_perfect] - projects/p/arena.yaml:4: *",
            "ERROR projects/p/data/r.jsonl::line2*",  # (pytest 8 leaves out a message of 2 lines)
            "ERROR projects/p/data/r.jsonl::r0[[]sim_perfect] - projects/p/data/r.jsonl:1: *",
        ]
    )
    for line in result.stdout.lines:  # no frame of pytest's or ours, no exception's name
        assert not re.search(r"\.py:\d+|Traceback|SetupError|CaseError|Failed", line), line
    result.stdout.fnmatch_lines(["sources parsed for reports: 0"])
    junit = (pytester.path / "out.xml").read_text()
    assert (
        '<error message="failed on setup with &quot;projects/p/data/r.jsonl:2: not valid JSON:'
        " Expecting value (column 1)&#10;  fix: each line of a .jsonl file holds one JSON"
        ' object&quot;">projects/p/data/r.jsonl:2: not valid JSON' in junit
    )
    assert "Traceback" not in junit and "SetupError" not in junit


def test_a_problem_of_a_dataset_s_entry_shows_when_its_file_is_run(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    """`pytest projects/p/data/b.csv` said "no tests ran" (exit 5): the problem is at a line
    of arena.yaml, so only arena.yaml showed it."""
    make_project(
        "p",
        """
        models: [sim_perfect]
        datasets:
          - path: data/b.csv
            fields: {reference: answr}
          - path: data/c.jsonl
            delimiter: ";"
        """,
        files={
            "data/b.csv": "id,input,answer\nb1,x,x\n",
            "data/c.jsonl": '{"id": "c1", "input": "x", "reference": "x"}\n',
        },
    )
    column = "projects/p/arena.yaml:4: datasets[[]0].fields.reference: column 'answr' is not in*"
    delimiter = "projects/p/arena.yaml:6: datasets[[]1].delimiter: 'delimiter' is for CSV files*"
    for file, said in (("b.csv", column), ("c.jsonl", delimiter)):
        alone = pytester.runpytest("-p", "no:cacheprovider", "-rE", f"projects/p/data/{file}")
        alone.assert_outcomes(errors=1)
        alone.stdout.fnmatch_lines([said])
        assert alone.ret == pytest.ExitCode.TESTS_FAILED
    pytester.makeconftest(SHOW_ITEMS)
    for args in (["projects/p/data"], ["projects/p"], []):
        result = pytester.runpytest("-p", "no:cacheprovider", "-rE", "-s", *args)
        result.assert_outcomes(errors=2)  # once each, in the file's node ids
        result.stdout.fnmatch_lines([column, delimiter], consecutive=False)
        # at their line in arena.yaml, where an IDE opens them (0-based, as pytest's)
        assert items(result) == {
            "projects/p/data/b.csv::data/b.csv": (
                "projects/p/data/b.csv",
                "projects/p/arena.yaml:3",
            ),
            "projects/p/data/c.jsonl::data/c.jsonl": (
                "projects/p/data/c.jsonl",
                "projects/p/arena.yaml:5",
            ),
        }
    project = pytester.runpytest("-p", "no:cacheprovider", "-s", "projects/p/arena.yaml")
    project.assert_outcomes(errors=2)
    assert set(items(project)) == {
        "projects/p/data/b.csv::data/b.csv",
        "projects/p/data/c.jsonl::data/c.jsonl",
    }


@pytest.mark.skipif(not hasattr(os, "symlink"), reason="no symlinks here")
def test_a_dataset_linked_from_outside_the_project_is_a_file_of_its_own(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    """`data/link.jsonl -> ../../shared/l.jsonl` was in arena.yaml's node ids, named after its
    target: `pytest projects/p/data/link.jsonl` said "not found", and `pytest projects/p/data`
    collected nothing."""
    root = make_project(
        "p",
        "models: [sim_perfect]\ndatasets: [data/link.jsonl]\n",
        files={"data/keep.txt": ""},
    )
    shared = pytester.path / "shared"
    shared.mkdir()
    (shared / "l.jsonl").write_text('{"id": "l1", "input": "x", "reference": "x"}\nnot json\n')
    (root / "data" / "link.jsonl").symlink_to(os.path.join("..", "..", "..", "shared", "l.jsonl"))
    pytester.makeconftest(SHOW_ITEMS)
    expected = {
        # VS Code makes an item's id of its path and the rest of its node id
        "projects/p/data/link.jsonl::l1[sim_perfect]": (
            "projects/p/data/link.jsonl",
            "projects/p/data/link.jsonl:0",
        ),
        "projects/p/data/link.jsonl::line2": (
            "projects/p/data/link.jsonl",
            "projects/p/data/link.jsonl:1",
        ),
    }
    for args in (
        ["projects/p/data/link.jsonl"],
        ["projects/p/data"],
        ["projects/p/arena.yaml"],
        [],
    ):
        result = pytester.runpytest("-p", "no:cacheprovider", "-s", *args)
        result.assert_outcomes(passed=1, errors=1)
        assert items(result) == expected, args
    one = pytester.runpytest(
        "-p", "no:cacheprovider", "projects/p/data/link.jsonl::l1[sim_perfect]"
    )
    one.assert_outcomes(passed=1)


ROWS = (
    '{"id": "good", "input": "x", "reference": "x"}\n'
    '{"id": "a b", "input": "x"}\n'
    '{"id": "a b", "input": "y"}\n'
    '{"id": "", "input": "x"}\n'
    '{"id": "good[sim_perfect]", "input": "x"}\n'
    '{"id": "r1", "input": "x", "weight": "heavy"}\n'
    '{"id": "r1", "input": "y", "weight": "heavy"}\n'
)


def test_a_row_whose_id_cannot_name_its_item_is_named_by_its_line(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    """Two rows of id "a b" were two items of one node id, `"id": ""` was `a.jsonl::`, and a
    bad row of id `good[sim_perfect]` had the node id of the case `good` on sim_perfect."""
    make_project(
        "p",
        """
        models: [sim_perfect]
        tests:
          - {id: "", input: x}
          - {id: "t[sim_perfect]", input: x}
        datasets: [data/a.jsonl]
        """,
        files={"data/a.jsonl": ROWS},
    )
    pytester.makeconftest(SHOW_ITEMS)
    result = pytester.runpytest("--collect-only", "-q", "-s")
    assert list(items(result)) == [
        "projects/p/arena.yaml::line3",
        "projects/p/arena.yaml::line4",
        "projects/p/data/a.jsonl::line2",
        "projects/p/data/a.jsonl::line3",
        "projects/p/data/a.jsonl::line4",
        "projects/p/data/a.jsonl::line5",
        "projects/p/data/a.jsonl::r1",
        "projects/p/data/a.jsonl::r1@line7",
        "projects/p/data/a.jsonl::good[sim_perfect]",
    ]
    assert len(result.stdout.lines) == len(set(result.stdout.lines))  # one id, one item
    # each is run again by its node id, alone, as --lf and IDEs do
    ran = pytester.runpytest("-rE")
    ran.assert_outcomes(passed=1, errors=8)
    ran.stdout.fnmatch_lines(
        [
            "*_ ERROR at setup of p::line5 _*",
            "projects/p/data/a.jsonl:5: id: case id 'good[[]sim_perfect]' may hold only*",
        ]
    )
    again = pytester.runpytest("--lf", "-q")
    again.assert_outcomes(errors=8)
    again.stdout.no_fnmatch_line("*good[[]sim_perfect] PASSED*")
    one = pytester.runpytest("-q", "projects/p/data/a.jsonl::line5")
    one.assert_outcomes(errors=1)


def test_a_dataset_path_that_holds_double_colons_is_refused_with_the_fix(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    """`data/a::b.jsonl` made node ids pytest cannot read back: --lf reran 2 of 3 failures and
    its ids were "file or directory not found"."""
    make_project(
        "p",
        """
        models: [sim_echo]
        tests:
          - {id: t, input: x, reference: y}
        datasets: ["data/a::b.jsonl"]
        """,
        files={"data/a::b.jsonl": '{"id": "f", "input": "x", "reference": "y"}\n'},
    )
    said = [
        "projects/p/arena.yaml:4: datasets[[]0].path: dataset path 'data/a::b.jsonl' holds '::',"
        " which ends the file's part of a pytest node id: its cases could not be run by node"
        " id, nor rerun by --lf",
        "  fix: rename the file without '::' (such as data/a_b.jsonl), and its entry under"
        " 'datasets:'",
    ]
    result = pytester.runpytest("-rE")
    result.assert_outcomes(failed=1, errors=1)
    result.stdout.fnmatch_lines(said)
    result.stdout.no_fnmatch_line("*a::b.jsonl::f*")
    again = pytester.runpytest("--lf", "-rE")
    again.assert_outcomes(failed=1, errors=1)
    folder = pytester.runpytest("-rE", "-p", "no:cacheprovider", "projects/p/data")
    folder.assert_outcomes(errors=1)
    folder.stdout.fnmatch_lines(said)


def test_an_empty_dataset_is_warned_of_once_under_xdist(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    """Each worker collects, and each warned: the summary said it twice."""
    make_project(
        "p",
        """
        models: [sim_perfect]
        tests:
          - {id: t, input: x, reference: x}
        datasets: [data/e.jsonl]
        """,
        files={"data/e.jsonl": ""},
    )
    result = pytester.runpytest(*XDIST, "-n", "2", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=1, warnings=1)
    said = "*ArenaWarning: dataset file data/e.jsonl holds no cases*"
    assert (
        len([line for line in result.stdout.lines if re.fullmatch(said.replace("*", ".*"), line)])
        == 1
    )
