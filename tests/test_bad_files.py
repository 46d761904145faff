"""Files that are not what they claim (not UTF-8, binary, huge CSV cells, alias bombs, slips
in templates and hook names) are one clear error each, and the good project still runs."""

from __future__ import annotations

import csv
import json
import sys
import time
from pathlib import Path

import pytest

from tests.conftest import MakeProject, denied_writes

GOOD = """
models: [sim_perfect]
tests:
  - {id: one, input: "1", reference: "1"}
  - {id: two, input: "2", reference: "2"}
"""


def run(pytester: pytest.Pytester) -> pytest.RunResult:
    result = pytester.runpytest("-q")
    assert "INTERNALERROR" not in result.stdout.str()
    assert "Traceback" not in result.stdout.str()
    return result


def run_locked(pytester: pytest.Pytester, folder: Path, mode: int, *files: str) -> pytest.RunResult:
    """pytest on `files` (default: projects/p/arena.yaml) while `folder` has `mode`, as a
    user whom the modes bind (root is run without the capabilities that pass them)."""
    folder.chmod(mode)
    try:
        pytest_cmd = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-rA"]
        return pytester.run(*denied_writes(), *pytest_cmd, *(files or ["projects/p/arena.yaml"]))
    finally:
        folder.chmod(0o755)


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        (
            "models: [sim_perfect]\ntests:\n  - {id: a, input: 'caf\xe9', reference: x}\n".encode(
                "latin-1"
            ),
            "projects/broken/arena.yaml:3: not UTF-8 text: byte 0xe9 at column 24",
        ),
        (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", "projects/broken/arena.yaml:3: a binary file*"),
    ],
    ids=["latin-1", "binary"],
)
def test_an_arena_yaml_that_is_not_text_is_one_error_naming_its_line(
    pytester: pytest.Pytester, make_project: MakeProject, content: bytes, expected: str
) -> None:
    make_project("good", GOOD)
    broken = make_project("broken", "tests: []\n")
    (broken / "arena.yaml").write_bytes(content)
    result = run(pytester)
    result.assert_outcomes(passed=2, errors=1)
    result.stdout.fnmatch_lines([expected, "*fix: save the file as UTF-8*"])
    result.stdout.fnmatch_lines(["*arena leaderboard: good*"])


def test_a_jsonl_row_that_is_not_utf8_is_an_error_of_that_row_only(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    root = make_project(
        "rows", "models: [sim_perfect]\ndatasets:\n  - path: data/q.jsonl\n", {"data/q.jsonl": ""}
    )
    (root / "data" / "q.jsonl").write_bytes(
        b'{"id": "a", "input": "1", "reference": "1"}\n'
        b'{"id": "b", "input": "\xff", "reference": "2"}\n'
        b'{"id": "c", "input": "3", "reference": "3"}\n'
    )
    result = run(pytester)
    result.assert_outcomes(passed=2, errors=1)
    result.stdout.fnmatch_lines(["projects/rows/data/q.jsonl:2: not UTF-8 text: byte 0xff*"])


def test_a_csv_cell_larger_than_pythons_default_limit_loads(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    big = "x" * 300_000  # the csv module's default limit is 128 KiB
    make_project(
        "big",
        "models: [sim_perfect]\ndatasets:\n  - path: data/q.csv\n",
        {"data/q.csv": f'id,input,reference\nsmall,1,1\nlarge,"{big}",{big}\n'},
    )
    result = pytester.runpytest("-q", "--arena-json=out.json")
    result.assert_outcomes(passed=2)
    records = json.loads((pytester.path / "out.json").read_text())["records"]
    assert sorted(len(r["reference"]) for r in records) == [1, 300_000]
    assert csv.field_size_limit() == 131072  # put back: the limit is the interpreter's


def test_a_yaml_alias_bomb_is_refused_quickly_naming_the_anchor(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    levels = ["a0: &a0 [x, x, x, x, x, x, x, x, x, x]"]
    for i in range(1, 9):
        refs = ", ".join([f"*a{i - 1}"] * 10)
        levels.append(f"a{i}: &a{i} [{refs}]")
    bomb = "models: [sim_perfect]\nmetadata:\n" + "".join(f"  {line}\n" for line in levels)
    make_project("good", GOOD)
    make_project("bomb", bomb + "tests: []\n")
    started = time.monotonic()
    result = run(pytester)
    assert time.monotonic() - started < 20  # it took 38 s and 2.1 GB before
    result.assert_outcomes(passed=2, errors=1)
    result.stdout.fnmatch_lines(["projects/bomb/arena.yaml:*: YAML aliases expand to more than*"])


@pytest.mark.parametrize(
    ("template", "expected"),
    [
        ("Q: {input", "*prompt.template: '{input' is never closed: write '{input}'*"),
        ("Q: {{ input }}", "*prompt.template: '{{ input }}' is sent as '{ input }'*"),
    ],
)
def test_a_slip_in_the_template_is_a_load_error_at_its_line(
    pytester: pytest.Pytester, make_project: MakeProject, template: str, expected: str
) -> None:
    make_project("good", GOOD)
    make_project(
        "slip",
        f'models: [sim_perfect]\nprompt:\n  template: "{template}"\n'
        'tests:\n  - {id: a, input: "1", reference: "1"}\n',
    )
    result = run(pytester)
    result.assert_outcomes(passed=2, errors=1)
    result.stdout.fnmatch_lines(["projects/slip/arena.yaml:3: " + expected.lstrip("*")])


def test_a_template_with_literal_braces_and_json_still_loads(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    make_project(
        "fine",
        "models: [sim_echo]\nprompt:\n"
        """  template: 'Answer as {{"a": 1}} for {input}; {"b": 2} stays'\n"""
        'tests:\n  - {id: a, input: "x", reference: "x"}\n',
    )
    result = pytester.runpytest("-q", "-rf")
    result.stdout.fnmatch_lines(['*Answer as {"a": 1} for x; {"b": 2} stays*'])


def test_a_misspelt_hook_is_an_error_suggesting_the_hook(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    make_project("good", GOOD)
    make_project(
        "hooked",
        GOOD,
        {
            "hooks.py": """
            def _helper(text):
                return text


            def post_proces(output, case, context):
                return output.upper()
            """
        },
    )
    result = run(pytester)
    result.assert_outcomes(passed=2, errors=1)
    result.stdout.fnmatch_lines(
        ["*projects/hooked/hooks.py:5: 'post_proces' is not a hook*did you mean 'post_process'?*"]
    )


@pytest.mark.parametrize(
    ("scorers", "expected"),
    [
        (
            "scorers:\n  default: llm_judge\n  options:\n    llm_judge: {rubric_file: rubric.md}\n",
            "projects/judged/arena.yaml:5: scorers.options.llm_judge: rubric_file 'rubric.md'"
            " does not exist*",
        ),
        (
            "scorers:\n  default: json_schema\n  options:\n"
            "    json_schema: {schema_file: schemas/x.json}\n",
            "projects/judged/arena.yaml:5: scorers.options.json_schema: schema_file"
            " 'schemas/x.json' does not exist*",
        ),
    ],
    ids=["rubric_file", "schema_file"],
)
def test_a_missing_options_file_is_a_setup_error_naming_the_line_not_a_traceback(
    pytester: pytest.Pytester, make_project: MakeProject, scorers: str, expected: str
) -> None:
    make_project("good", GOOD)
    make_project(
        "judged",
        "models: [sim_perfect]\n" + scorers + 'tests:\n  - {id: a, input: "1", reference: "1"}\n',
    )
    result = run(pytester)
    result.assert_outcomes(passed=2, errors=1)
    result.stdout.fnmatch_lines([expected])


def test_a_named_scorer_class_without_score_is_an_error_naming_its_file_and_line(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    make_project(
        "probe",
        "models: [sim_perfect]\nscorers: {default: probe}\n"
        'tests:\n  - {id: a, input: "1", reference: "1"}\n',
        {
            "scorers/probe.py": """
            from pytest_arena.scorers import Scorer


            class Probe(Scorer):
                name = "probe"

                def scores(self, output, reference, context):
                    return None
            """
        },
    )
    result = run(pytester)
    result.stdout.fnmatch_lines(
        ["projects/probe/scorers/probe.py:4: scorer class Probe (name 'probe') lacks score()*"]
    )


def test_a_project_folder_named_in_bytes_that_are_no_utf8_runs_beside_the_others(
    pytester: pytest.Pytester,
) -> None:
    """A folder named "café" in Latin-1 stopped the whole run: UnicodeEncodeError
    (surrogates not allowed) while naming its package, and the other project ran neither."""
    import os

    project = "models: [sim_perfect]\ntests:\n  - {id: a, input: hi, reference: hi}\n"
    for name in (b"caf\xe9", b"other"):
        folder = os.path.join(os.fsencode(pytester.path), name)
        os.mkdir(folder)
        with open(os.path.join(folder, b"arena.yaml"), "w") as out:
            out.write(project)
        with open(os.path.join(folder, b"hooks.py"), "w") as out:  # a module of its own
            out.write("def post_process(output, case, context):\n    return output\n")
    result = pytester.runpytest("-p", "no:cacheprovider")
    result.assert_outcomes(passed=2)


def test_a_long_case_id_fits_its_agents_workspace_name(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    """A 240-character id made the workspace's folder name too long: "internal error in the
    arena engine: OSError: [Errno 36] File name too long"."""
    long_id = "x" * 240
    make_project(
        "desk",
        f"models: [sim_large]\ntests:\n  - {{id: {long_id}, input: hi, reference: hi}}\n",
        files={
            "tools.py": 'def lookup(order_id: str) -> str:\n    """Look it up."""\n    return "ok"\n'
        },
    )
    result = pytester.runpytest("-p", "no:cacheprovider", "-rA")
    assert "internal error" not in result.stdout.str()
    result.stdout.fnmatch_lines([f"* desk::{long_id}[[]sim_large]*"])


@pytest.mark.parametrize("mode", [0, 0o644])  # neither read nor entered; read, not entered
def test_an_unreadable_scorers_folder_is_its_projects_problem(
    pytester: pytest.Pytester, make_project: MakeProject, mode: int
) -> None:
    """A scorers/ folder that could not be read ended collection with a traceback, and no
    other project ran."""
    make_project("locked", "models: [sim_perfect]\ntests:\n  - {id: a, input: x, reference: x}\n")
    make_project("fine", "models: [sim_perfect]\ntests:\n  - {id: b, input: y, reference: y}\n")
    scorers = pytester.path / "projects" / "locked" / "scorers"
    scorers.mkdir()
    (scorers / "shout.py").write_text("")
    # the arena.yaml files named: pytest's own walk stops at any folder it cannot read
    files = ["projects/locked/arena.yaml", "projects/fine/arena.yaml"]
    result = run_locked(pytester, scorers, mode, *files)
    result.stdout.fnmatch_lines(
        [
            "*projects/locked/scorers: the scorers folder scorers/ cannot be read (Permission"
            " denied)*",
            "PASSED projects/fine/arena.yaml::b[[]sim_perfect]",
        ]
    )
    assert "Traceback" not in result.stdout.str()


@pytest.mark.parametrize(
    ("locked", "mode"),
    [("data", 0), ("data", 0o644), ("data/cases.jsonl", 0)],  # not entered, not read
    ids=["folder-0", "folder-644", "file-0"],
)
def test_a_dataset_that_cannot_be_read_is_said_with_the_fix_and_the_rest_runs(
    pytester: pytest.Pytester, make_project: MakeProject, locked: str, mode: int
) -> None:
    """In a folder that cannot be entered: up to Python 3.13 the whole arena.yaml failed to
    collect with a PermissionError traceback, its inline cases lost; on 3.14 the dataset was
    said not to exist. A file that cannot be read was said without the fix."""
    make_project(
        "p",
        "models: [sim_perfect]\ndatasets: [data/cases.jsonl]\n"
        "tests:\n  - {id: a, input: x, reference: x}\n",
        {"data/cases.jsonl": '{"id": "d1", "input": "y", "reference": "y"}\n'},
    )
    result = run_locked(pytester, pytester.path / "projects" / "p" / locked, mode)
    result.stdout.fnmatch_lines(
        [
            "projects/p/data/cases.jsonl: cannot read the file: Permission denied",
            "  fix: let its folders be entered and the file read (chmod u+rx, u+r)",
            "PASSED projects/p/arena.yaml::a[[]sim_perfect]",
        ]
    )
    assert "Traceback" not in result.stdout.str() and "does not exist" not in result.stdout.str()


PNG = bytes.fromhex(
    "89504e470d0a1a0a0000000d4948445200000001000000010806000000"
    "1f15c4890000000d49444154789c63606060f80f00010401007e7ec5160000000049454e44ae426082"
)


@pytest.mark.parametrize("what", ["image", "rubric_file"])
def test_a_file_in_a_folder_that_cannot_be_entered_is_said_so_not_missing(
    pytester: pytest.Pytester, make_project: MakeProject, what: str
) -> None:
    """As a dataset's: up to Python 3.13 the whole arena.yaml failed to collect with a
    PermissionError traceback; on 3.14 the file was said not to exist."""
    if what == "image":
        spec = (
            "models: [sim_perfect]\ntests:\n  - {id: a, input: x, reference: x}\n"
            "  - id: pic\n    input:\n      - role: user\n        content:\n"
            "          - {image: locked/a.png, alt: a dot}\n    reference: dot\n"
        )
        files = {"locked/a.png": PNG}
        said = "*image file 'locked/a.png': cannot read the file: Permission denied"
    else:
        spec = (
            "models: [sim_perfect]\nscorers:\n  default: llm_judge\n  options:\n"
            "    llm_judge: {rubric_file: locked/r.md}\n"
            "tests:\n  - {id: a, input: x, reference: x}\n"
        )
        files = {"locked/r.md": "Pass it.\n"}
        said = "*/locked/r.md: cannot read the file: Permission denied"
    root = make_project("p", spec)
    for name, content in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            (root / name).write_bytes(content)
        else:
            (root / name).write_text(content)
    result = run_locked(pytester, root / "locked", 0)
    result.stdout.fnmatch_lines(
        [said, "*fix: let its folders be entered and the file read (chmod u+rx, u+r)*"]
    )
    out = result.stdout.str()
    assert "Traceback" not in out and "does not exist" not in out
    if what == "image":
        result.stdout.fnmatch_lines(["PASSED projects/p/arena.yaml::a[[]sim_perfect]"])


def test_a_dataset_that_links_to_itself_is_not_given_a_chmod_fix(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    """It was said as 'cannot read the file: Too many levels of symbolic links' with the fix
    for a folder that cannot be entered, which no chmod gives."""
    root = make_project(
        "p",
        "models: [sim_perfect]\ndatasets: [data/cases.jsonl]\ntests:\n  - {id: a, input: x, reference: x}\n",
    )
    (root / "data").mkdir()
    (root / "data" / "cases.jsonl").symlink_to("cases.jsonl")
    result = pytester.runpytest("-p", "no:cacheprovider", "projects/p/arena.yaml")
    result.stdout.fnmatch_lines(["*dataset file 'data/cases.jsonl' does not exist*"])
    assert "chmod u+rx" not in result.stdout.str()
