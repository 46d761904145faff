"""Dataset files are collected as files of their own: every item's node id begins with its
path, so tools that rebuild an id from the path (VS Code's test explorer) select it."""

from __future__ import annotations

import shutil

import pytest

from tests.conftest import ROOT, XDIST, MakeProject

QUIZ = """
models: [sim_perfect, sim_echo]
tests:
  - id: capital
    input: "Capital of France?"
    reference: Paris
datasets:
  - path: data/more.jsonl
"""
MORE = '{"id": "r1", "input": "3+3", "reference": "6"}\n{"id": "r2", "input": "1+2", "reference": "3"}\n'
# sim_echo repeats the prompt, so it fails every case; sim_perfect passes every case

# what an IDE reads of each item: VS Code's id is str(item.path) + the node id's parts after
# the first "::" (vscode_pytest's get_absolute_test_id)
SHOW_ITEMS = """
def pytest_collection_modifyitems(items):
    for item in items:
        rel = item.path.relative_to(item.config.rootpath).as_posix()
        absolute = "::".join([str(item.path), *item.nodeid.split("::")[1:]])
        print(f"ITEM {item.nodeid} | {rel} | {item.location[0]} | {item.location[1]} | {absolute}")
"""


def shown(result: pytest.RunResult) -> list[list[str]]:
    """nodeid, path, location file, location line and VS Code's id of each item."""
    lines = result.stdout.lines  # a line may begin with "collecting ... "
    return [line.split("ITEM ", 1)[1].split(" | ") for line in lines if "ITEM " in line]


def ran(result: pytest.RunResult) -> list[str]:
    """The node ids of `-v` lines, in the order they ran."""
    words = [line.split() for line in result.stdout.lines]
    return [w[0] for w in words if len(w) > 1 and "::" in w[0] and w[1] in ("PASSED", "FAILED")]


def test_every_example_item_begins_its_node_id_with_its_path_and_runs_by_vscode_id(
    pytester: pytest.Pytester,
) -> None:
    shutil.copytree(
        ROOT / "projects",
        pytester.path / "projects",
        ignore=shutil.ignore_patterns("__pycache__", "tests"),  # Python tests are pytest's
    )
    pytester.makeconftest(SHOW_ITEMS)
    items = shown(pytester.runpytest("projects", "--collect-only", "-q", "-s"))
    datasets = [i for i in items if i[1].endswith((".jsonl", ".csv", ".yaml")) and "/data/" in i[1]]
    assert len(datasets) > 50  # every example's dataset rows, on each default model
    for nodeid, path, _, _, _ in items:
        assert nodeid.split("::")[0] == path, nodeid
    # VS Code's "Run All" sends every id back: each selects its item, and nothing else
    again = pytester.runpytest("--collect-only", "-q", "-s", *[i[4] for i in items])
    assert sorted(i[0] for i in shown(again)) == sorted(i[0] for i in items)


def test_a_dataset_case_runs_alone_by_its_node_id_or_its_absolute_path(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    make_project("quiz", QUIZ, files={"data/more.jsonl": MORE})
    result = pytester.runpytest("-v", "projects/quiz/data/more.jsonl::r2[sim_echo]")
    result.assert_outcomes(failed=1)
    assert ran(result) == ["projects/quiz/data/more.jsonl::r2[sim_echo]"]
    absolute = f"{pytester.path}/projects/quiz/data/more.jsonl::r2[sim_echo]"
    assert ran(pytester.runpytest("-v", absolute)) == ran(result)
    whole_file = pytester.runpytest("-v", "projects/quiz/data/more.jsonl")
    assert sorted(ran(whole_file)) == [
        f"projects/quiz/data/more.jsonl::{case}[{model}]"
        for case in ("r1", "r2")
        for model in ("sim_echo", "sim_perfect")
    ]


@pytest.mark.parametrize(
    ("args", "count"),
    [
        (["projects/quiz"], 6),
        (["projects/quiz/arena.yaml"], 6),  # arena.yaml brings its dataset files along
        (["projects/quiz/data"], 4),
        (["projects/quiz/arena.yaml", "projects/quiz/data/more.jsonl"], 6),
        (["projects/quiz/data", "projects/quiz/arena.yaml"], 6),
        (["projects/quiz/arena.yaml::capital", "projects/quiz/data/more.jsonl::r1"], 4),
    ],
)
def test_each_item_is_collected_once_whichever_files_are_selected(
    pytester: pytest.Pytester, make_project: MakeProject, args: list[str], count: int
) -> None:
    make_project("quiz", QUIZ, files={"data/more.jsonl": MORE})
    pytester.makeconftest(SHOW_ITEMS)
    items = shown(pytester.runpytest("--collect-only", "-q", "-s", *args))
    nodeids = [i[0] for i in items]
    assert len(nodeids) == len(set(nodeids)) == count
    assert all(i[0].split("::")[0] == i[1] for i in items)


def test_arena_yaml_alone_runs_a_dataset_file_that_lies_beside_it(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    """pytest's walk to `arena.yaml` made a collector of `extra.jsonl` beside it, and threw
    it away: that one had taken the file, so arena.yaml did not bring it and the run was
    green without its failing row."""
    make_project(
        "quiz",
        'models: [sim_echo]\ntests: [{id: inline, input: "a", reference: a}]\n'
        "datasets: [extra.jsonl]\n",
        files={"extra.jsonl": '{"id": "x1", "input": "1+1?", "reference": "2"}\n'},
    )
    result = pytester.runpytest("-v", "-p", "no:cacheprovider", "projects/quiz/arena.yaml")
    result.assert_outcomes(passed=1, failed=1)
    assert ran(result) == [
        "projects/quiz/arena.yaml::inline[sim_echo]",
        "projects/quiz/extra.jsonl::x1[sim_echo]",
    ]


THREE_FILES = """
models: [sim_perfect, sim_echo]
tests:
  - {id: inline, input: "a", reference: a}
datasets: [data/a.jsonl, data/b.jsonl]
"""
ROWS_A = (
    '{"id": "a1", "input": "x", "reference": "x"}\n{"id": "a2", "input": "y", "reference": "y"}\n'
)


@pytest.mark.parametrize(
    "args",
    [
        ["projects/quiz/arena.yaml", "projects/quiz/data/a.jsonl"],
        ["projects/quiz/data/a.jsonl", "projects/quiz/arena.yaml"],
        ["projects/quiz/data/a.jsonl::a1[sim_echo]", "projects/quiz/arena.yaml"],
        ["projects/quiz/arena.yaml", "projects/quiz/data/a.jsonl::a2"],
    ],
)
def test_arena_yaml_runs_every_dataset_case_once_whatever_else_is_named(
    pytester: pytest.Pytester, make_project: MakeProject, args: list[str]
) -> None:
    """With one dataset file named beside arena.yaml, the other's cases were dropped (and
    with a node id of a row, that file's other rows): the walk to the named file took both."""
    make_project(
        "quiz",
        THREE_FILES,
        files={
            "data/a.jsonl": ROWS_A,
            "data/b.jsonl": '{"id": "b1", "input": "z", "reference": "z"}\n',
        },
    )
    result = pytester.runpytest("-v", "-p", "no:cacheprovider", *args)
    result.assert_outcomes(passed=8)
    assert sorted(ran(result)) == [
        f"projects/quiz/{file}::{case}[{model}]"
        for file, case in [
            ("arena.yaml", "inline"),
            ("data/a.jsonl", "a1"),
            ("data/a.jsonl", "a2"),
            ("data/b.jsonl", "b1"),
        ]
        for model in ("sim_echo", "sim_perfect")
    ]


def test_lf_reruns_only_the_failed_dataset_cases(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    # sim_echo answers with the prompt: "Paris" and "7" are right, "3+3" is not
    make_project(
        "quiz",
        QUIZ.replace("sim_perfect, sim_echo", "sim_echo").replace("Capital of France?", "Paris"),
        files={"data/more.jsonl": '{"id": "r0", "input": "7", "reference": "7"}\n' + MORE},
    )
    pytester.runpytest().assert_outcomes(passed=2, failed=2)
    again = pytester.runpytest("--lf", "-v")
    again.assert_outcomes(failed=2)
    again.stdout.fnmatch_lines(["run-last-failure: rerun previous 2 failures*"])
    assert ran(again) == [
        "projects/quiz/data/more.jsonl::r1[sim_echo]",
        "projects/quiz/data/more.jsonl::r2[sim_echo]",
    ]


@pytest.mark.parametrize("workers", [0, 2])
def test_lf_reruns_a_failure_of_a_dataset_that_arena_yaml_collects(
    pytester: pytest.Pytester, make_project: MakeProject, workers: int
) -> None:
    """A failure in a dataset file under build/ (which pytest's walk skips, so arena.yaml
    collects it) never ran again under --lf once another file had a failure: pytest skipped
    arena.yaml, which had none of its own."""
    make_project(
        "quiz",
        "models: [sim_echo]\ntests:\n  - {id: same, input: 'echo me', reference: 'echo me'}\n"
        "datasets: [data/rows.jsonl, build/generated.jsonl]\n",
        files={
            "data/rows.jsonl": '{"id": "d1", "input": "sky?", "reference": "blue"}\n',
            "build/generated.jsonl": '{"id": "g1", "input": "grass?", "reference": "green"}\n',
        },
    )
    spread = [*XDIST, "-n", str(workers)] if workers else []
    pytester.runpytest(*spread).assert_outcomes(passed=1, failed=2)
    again = pytester.runpytest("--lf", "-v", *spread)
    again.assert_outcomes(failed=2)
    said = {
        w
        for line in again.stdout.lines
        for w in line.split()
        if w.startswith("projects/") and "::" in w
    }
    assert said == {
        "projects/quiz/build/generated.jsonl::g1[sim_echo]",
        "projects/quiz/data/rows.jsonl::d1[sim_echo]",
    }


def test_xdist_workers_run_the_dataset_cases(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    make_project("quiz", QUIZ, files={"data/more.jsonl": MORE})
    result = pytester.runpytest(*XDIST, "-n", "2", "-v", "projects/quiz/data")
    result.assert_outcomes(passed=2, failed=2)
    done = {
        line.split()[-1]
        for line in result.stdout.lines
        if line.startswith("[gw") and (" PASSED " in line or " FAILED " in line)
    }
    assert done == {
        f"projects/quiz/data/more.jsonl::{case}[{model}]"
        for case in ("r1", "r2")
        for model in ("sim_echo", "sim_perfect")
    }
    result.stdout.fnmatch_lines(["*arena leaderboard: quiz*"])


def test_calls_start_in_the_order_the_items_run(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    root = make_project(
        "quiz",
        QUIZ.replace("data/more.jsonl", "data/z.jsonl\n  - path: data/a.jsonl"),
        files={
            "data/z.jsonl": '{"id": "z1", "input": "1", "reference": "1"}\n',
            "data/a.jsonl": '{"id": "a1", "input": "1", "reference": "1"}\n',
            "hooks.py": """
            from pathlib import Path

            def pre_request(request, case, context):
                with open(Path(__file__).parent / "calls.log", "a") as log:
                    log.write(case.id + "\\n")
            """,
        },
    )
    for args in (["projects/quiz"], ["projects/quiz/arena.yaml"]):
        (root / "calls.log").unlink(missing_ok=True)
        result = pytester.runpytest("-v", "--arena-models", "sim_perfect", *args)
        order = [nodeid.split("::")[-1].split("[")[0] for nodeid in ran(result)]
        assert sorted(order) == ["a1", "capital", "z1"]
        assert (root / "calls.log").read_text().split() == order


def test_a_dataset_outside_the_project_folder_stays_in_arena_yaml(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    make_project(
        "quiz",
        QUIZ.replace("data/more.jsonl", "../shared/more.jsonl"),
        files={"../shared/more.jsonl": MORE},
    )
    pytester.makeconftest(SHOW_ITEMS)
    items = shown(pytester.runpytest("--collect-only", "-q", "-s", "--arena-models", "sim_echo"))
    assert [i[:4] for i in items] == [
        ["projects/quiz/arena.yaml::capital[sim_echo]", *["projects/quiz/arena.yaml"] * 2, "2"],
        *[
            [
                f"projects/quiz/arena.yaml::../shared/more.jsonl::{case}[sim_echo]",
                "projects/quiz/arena.yaml",
                "projects/shared/more.jsonl",  # the IDE still opens the row
                line,
            ]
            for case, line in (("r1", "0"), ("r2", "1"))
        ],
    ]
    again = pytester.runpytest("-v", "--arena-models", "sim_echo", items[2][4])
    again.assert_outcomes(failed=1)
    assert ran(again) == [items[2][0]]


def test_a_dataset_in_a_nested_project_or_with_another_suffix_stays_in_arena_yaml(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    make_project(
        "quiz",
        QUIZ.replace("sim_perfect, sim_echo", "sim_perfect").replace(
            "data/more.jsonl", "inner/more.jsonl\n  - {path: data/more.txt, format: jsonl}"
        ),
        files={
            "inner/more.jsonl": MORE,
            "inner/arena.yaml": "models: [sim_perfect]\ntests: [{id: own, input: '1', reference: '1'}]\n",
            "data/more.txt": '{"id": "t1", "input": "1", "reference": "1"}\n',
        },
    )
    pytester.makeconftest(SHOW_ITEMS)
    items = shown(pytester.runpytest("--collect-only", "-q", "-s"))
    assert [i[0] for i in items] == [
        "projects/quiz/arena.yaml::capital[sim_perfect]",
        "projects/quiz/arena.yaml::inner/more.jsonl::r1[sim_perfect]",
        "projects/quiz/arena.yaml::inner/more.jsonl::r2[sim_perfect]",
        "projects/quiz/arena.yaml::data/more.txt::t1[sim_perfect]",
        "projects/quiz/inner/arena.yaml::own[sim_perfect]",
    ]
    assert all(i[0].split("::")[0] == i[1] for i in items)


def test_a_tsv_dataset_is_a_file_of_its_own_at_its_rows(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    make_project(
        "quiz",
        QUIZ.replace("sim_perfect, sim_echo", "sim_perfect").replace(
            "data/more.jsonl", "data/more.tsv"
        ),
        files={"data/more.tsv": "id\tinput\treference\nt1\tSay: 1, 2\tSay: 1, 2\n"},
    )
    pytester.makeconftest(SHOW_ITEMS)
    items = shown(pytester.runpytest("--collect-only", "-q", "-s"))
    assert [(i[0], i[3]) for i in items] == [
        ("projects/quiz/arena.yaml::capital[sim_perfect]", "2"),
        ("projects/quiz/data/more.tsv::t1[sim_perfect]", "1"),
    ]
    pytester.runpytest("-p", "no:randomly").assert_outcomes(passed=2)


def test_a_dataset_in_a_folder_pytest_skips_is_collected_by_arena_yaml(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    make_project(
        "quiz",
        QUIZ.replace("data/more.jsonl", "build/more.jsonl\n  - path: .cases/hidden.jsonl"),
        files={
            "build/more.jsonl": MORE,
            ".cases/hidden.jsonl": '{"id": "h1", "input": "1", "reference": "1"}\n',
        },
    )
    pytester.makeconftest(SHOW_ITEMS)
    every = [
        "projects/quiz/arena.yaml::capital[sim_perfect]",
        "projects/quiz/build/more.jsonl::r1[sim_perfect]",
        "projects/quiz/build/more.jsonl::r2[sim_perfect]",
        "projects/quiz/.cases/hidden.jsonl::h1[sim_perfect]",
    ]
    for args in ([], ["projects"], ["projects/quiz/arena.yaml"]):
        result = pytester.runpytest(
            "--collect-only", "-q", "-s", "--arena-models", "sim_perfect", *args
        )
        items = shown(result)
        assert [i[0] for i in items] == every, args
        assert all(i[0].split("::")[0] == i[1] for i in items)
    one = pytester.runpytest("-v", "--arena-models", "sim_perfect", every[2])
    assert ran(one) == [every[2]]


def test_ignore_leaves_dataset_cases_in_and_deselect_takes_them_out(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    make_project("quiz", QUIZ, files={"data/more.jsonl": MORE})
    pytester.makeconftest(SHOW_ITEMS)
    whole = shown(pytester.runpytest("--collect-only", "-q", "-s"))
    ignored = shown(pytester.runpytest("--collect-only", "-q", "-s", "--ignore=projects/quiz/data"))
    assert sorted(ignored) == sorted(whole)
    result = pytester.runpytest("-q", "--deselect", "projects/quiz/data/more.jsonl")
    result.assert_outcomes(passed=1, failed=1, deselected=4)


def test_a_file_named_twice_is_collected_once_and_its_repeats_are_errors_at_their_row(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    make_project(
        "quiz",
        QUIZ.replace("sim_perfect, sim_echo", "sim_perfect")
        + "  - {path: ./data/more.jsonl, tags: [again]}\n",
        files={"data/more.jsonl": MORE},
    )
    pytester.makeconftest(SHOW_ITEMS)
    result = pytester.runpytest("-v", "-s")
    result.assert_outcomes(passed=3, errors=2)
    assert [i[0] for i in shown(result)][1:] == [
        "projects/quiz/data/more.jsonl::r1@line1",
        "projects/quiz/data/more.jsonl::r2@line2",
        "projects/quiz/data/more.jsonl::r1[sim_perfect]",
        "projects/quiz/data/more.jsonl::r2[sim_perfect]",
    ]
    assert [i[3] for i in shown(result)][1:3] == ["0", "1"]
    result.stdout.fnmatch_lines(["projects/quiz/data/more.jsonl:2: duplicate case id 'r2'*"])


def test_a_bad_row_is_an_error_item_of_its_file_at_its_line(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    make_project(
        "quiz",
        QUIZ.replace("sim_perfect, sim_echo", "sim_perfect"),
        files={"data/more.jsonl": '{"id": "r1", "input": "3+3", "reference": "6"}\n{"id": \n'},
    )
    pytester.makeconftest(SHOW_ITEMS)
    result = pytester.runpytest("-v", "-s", "projects/quiz/data")
    result.assert_outcomes(passed=1, errors=1)
    assert shown(result)[0][:4] == [
        "projects/quiz/data/more.jsonl::line2",
        "projects/quiz/data/more.jsonl",
        "projects/quiz/data/more.jsonl",
        "1",
    ]
    result.stdout.fnmatch_lines(
        ["*_ ERROR at setup of quiz::line2 _*", "projects/quiz/data/more.jsonl:2: not valid JSON*"]
    )


@pytest.mark.parametrize("levels", [900, 5000])
def test_a_row_nested_too_deeply_is_an_error_at_its_line_and_the_other_rows_run(
    pytester: pytest.Pytester, make_project: MakeProject, levels: int
) -> None:
    """A row nested 900 levels deep ended the whole project's collection in a RecursionError
    of arena's checks (5000: of JSON's own reader), with no file and no line."""
    deep = "[" * levels + '"x"' + "]" * levels
    rows = (
        '{"id": "r1", "input": "3+3", "reference": "6"}\n'
        f'{{"id": "r2", "input": "x", "reference": "x", "metadata": {{"k": {deep}}}}}\n'
        '{"id": "r3", "input": "2+2", "reference": "4"}\n'
    )
    make_project(
        "quiz", "models: [sim_perfect]\ndatasets: [data/more.jsonl]\n", {"data/more.jsonl": rows}
    )
    result = pytester.runpytest("-p", "no:cacheprovider")
    result.assert_outcomes(passed=2, errors=1)
    result.stdout.fnmatch_lines(["projects/quiz/data/more.jsonl:2: JSON nested more than 200*"])


def test_a_broken_arena_yaml_is_shown_when_only_a_dataset_file_is_selected(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    make_project(
        "quiz", QUIZ.replace("tests:", "scorer: {}\ntests:"), files={"data/more.jsonl": MORE}
    )
    message = "projects/quiz/arena.yaml:2: scorer: unknown key 'scorer'"
    for args in (
        ["projects/quiz/data/more.jsonl"],
        ["projects/quiz/data/more.jsonl::r1[sim_perfect]"],
    ):
        result = pytester.runpytest(*args)
        assert result.ret != pytest.ExitCode.OK, args
        result.stdout.fnmatch_lines(["*ERROR collecting projects/quiz/data/more.jsonl*", message])
    # reached by a folder's walk (a file there may be no dataset: a test's fixture), an
    # error item says it, and the run's other tests run
    pytester.makepyfile(test_unit="def test_fine():\n    pass\n")
    walked = pytester.runpytest("-rE", "projects/quiz/data", "test_unit.py")
    walked.assert_outcomes(passed=1, errors=1)
    walked.stdout.fnmatch_lines([message])
    walked.stdout.no_fnmatch_line("*ERROR collecting*")
    # with arena.yaml in the run, its error item says it, once
    whole = pytester.runpytest("-rE", "projects/quiz")
    whole.assert_outcomes(errors=1)
    whole.stdout.fnmatch_lines([message])
    whole.stdout.no_fnmatch_line("*ERROR collecting*")


def test_project_problems_show_once_when_only_dataset_files_are_selected(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    make_project(
        "quiz",
        QUIZ + "  - path: data/other.csv\n",
        files={"data/more.jsonl": MORE, "data/other.csv": "id,input,reference\no1,1,1\n"},
    )
    for args in (["projects/quiz/data"], ["projects/quiz"]):
        result = pytester.runpytest("-rE", "--arena-models", "sim_perfect,nope", *args)
        result.assert_outcomes(passed=3 if "data" in args[0] else 4, errors=1)
        result.stdout.fnmatch_lines(["*model 'nope' (from --arena-models) is neither defined*"])


@pytest.mark.skipif(not hasattr(__import__("os"), "symlink"), reason="no symlinks here")
def test_a_dataset_named_through_a_symlink_is_collected_once_under_that_name(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    """`current.jsonl -> v2.jsonl` ran each case twice, once under each name (two calls a
    case), and `arena.yaml` alone named them after the target."""
    make_project(
        "quiz",
        "models: [sim_perfect]\ndatasets: [data/current.jsonl]\n",
        files={"data/v2.jsonl": '{"id": "q1", "input": "3+3", "reference": "6"}\n'},
    )
    (pytester.path / "projects" / "quiz" / "data" / "current.jsonl").symlink_to("v2.jsonl")
    whole = pytester.runpytest("-p", "no:cacheprovider", "--collect-only", "-q")
    alone = pytester.runpytest(
        "-p", "no:cacheprovider", "--collect-only", "-q", "projects/quiz/arena.yaml"
    )
    for result in (whole, alone):
        assert collected(result) == ["projects/quiz/data/current.jsonl::q1[sim_perfect]"]


def collected(result: pytest.RunResult) -> list[str]:
    return [line for line in result.stdout.lines if "::" in line]


def test_a_problem_of_an_inline_case_or_an_outside_row_is_located_at_its_line(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    """They were all at line 1 of arena.yaml, whatever their message said: an IDE (and
    JUnit's file and line) pointed at the top of the file."""
    make_project(
        "quiz",
        "models: [sim_perfect]\ntests:\n  - {id: a, input: x, reference: x}\n"
        "  - {id: a, input: y, reference: y}\n  - {id: 'bad id', input: z}\n"
        "datasets: [../shared/q.jsonl]\n",
    )
    shared = pytester.path / "projects" / "shared"
    shared.mkdir()
    (shared / "q.jsonl").write_text('{"id": "s1", "input": "x"}\nnot json\n')
    pytester.makeconftest(SHOW_ITEMS)
    items = shown(pytester.runpytest("--collect-only", "-q", "-s"))
    where = {nodeid.rsplit("::", 1)[1]: (file, line) for nodeid, _, file, line, _ in items}
    assert where["a@line4"] == ("projects/quiz/arena.yaml", "3")  # 0-based, as pytest's
    assert where["bad id"] == ("projects/quiz/arena.yaml", "4")
    assert where["line2"] == ("projects/shared/q.jsonl", "1")
    assert where["s1[sim_perfect]"] == ("projects/shared/q.jsonl", "0")


def test_an_arena_yaml_linked_into_project_folders_is_each_folder_s_own(
    pytester: pytest.Pytester,
) -> None:
    """A symlinked arena.yaml took its folder (its datasets, its name) from the file it links
    to: "dataset file 'data.jsonl' does not exist (looked in …/shared)"."""
    shared = pytester.path / "shared"
    shared.mkdir()
    (shared / "arena.yaml").write_text("models: [sim_perfect]\ndatasets:\n  - path: data.jsonl\n")
    for name in ("one", "two"):
        folder = pytester.path / "projects" / name
        folder.mkdir(parents=True)
        (folder / "data.jsonl").write_text(f'{{"id": "{name}", "input": "a", "reference": "a"}}\n')
        (folder / "arena.yaml").symlink_to(shared / "arena.yaml")
    result = pytester.runpytest("projects", "-p", "no:cacheprovider", "-rA")
    result.assert_outcomes(passed=2)
    result.stdout.fnmatch_lines(["*arena leaderboard: one*", "*arena leaderboard: two*"])


def test_a_project_file_named_as_a_dataset_hides_no_other_error_and_its_cases_run(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    """`datasets: [data/absent.jsonl, arena.yaml]` ran green: the project's own file, taken
    for a dataset of its own folder, swallowed every problem said at its lines."""
    make_project(
        "q",
        """
        models: [sim_perfect]
        tests:
          - {id: t0, input: x, reference: x}
        datasets:
          - data/absent.jsonl
          - arena.yaml
        """,
    )
    result = pytester.runpytest("-p", "no:cacheprovider")
    result.assert_outcomes(passed=1, errors=2)
    result.stdout.fnmatch_lines(
        [
            "*arena.yaml:5: datasets[[]0].path: dataset file 'data/absent.jsonl' does not exist*",
            "*arena.yaml:6: datasets[[]1].path: dataset path 'arena.yaml' names a project file*",
        ]
    )
    assert result.ret == pytest.ExitCode.TESTS_FAILED
