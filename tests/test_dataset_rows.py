"""Dataset rows say all a case says: a row's case keys are honoured in every format, its
slips are errors before the dataset fills anything in, and its file is read as written
(CRLF in CSV cells, UTF-16, an empty YAML file); a bad `datasets:` entry is that dataset's
problem alone; rows without ids are named apart, file by file."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest

from pytest_arena.spec import load_project
from tests.conftest import MakeProject


def write(folder: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        path = folder / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip("\n"))
    return folder / "arena.yaml"


NEGATED = (
    '{"id": "neg", "input": "say forbidden", "reference": "forbidden", "eval_type": "contains",'
    ' "options": {"negate": true}}\n'
)


def test_a_jsonl_row_s_options_grade_its_case(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    """`options` of a JSONL row went into its metadata: `negate` was dropped, and sim_echo,
    which says 'forbidden', passed a case that forbids it."""
    make_project(
        "rows", "models: [sim_echo]\ndatasets: [data/r.jsonl]\n", {"data/r.jsonl": NEGATED}
    )
    result = pytester.runpytest("-p", "no:cacheprovider", "-q")
    result.assert_outcomes(failed=1)


def test_a_row_of_any_format_takes_the_keys_a_case_takes(tmp_path: Path) -> None:
    """`repeat`, `scoring`, `group`, `min_pass_rate` of JSONL and CSV rows were metadata, and a
    JSONL row's `metadata` object was nested as metadata.metadata."""
    project = load_project(
        write(
            tmp_path,
            {
                "arena.yaml": "datasets: [r.jsonl, c.csv]\n",
                "r.jsonl": json.dumps(
                    {
                        "id": "j",
                        "input": "x",
                        "reference": "x",
                        "repeat": 3,
                        "min_pass_rate": 0.5,
                        "group": "doc1",
                        "threshold": 0.7,
                        "scoring": [{"scorer": "contains", "weight": 2}],
                        "metadata": {"source": "atlas"},
                        "page": 12,
                    }
                )
                + "\n",
                "c.csv": "id,input,options,repeat,metadata,level\n"
                'c,x,"{""negate"": true}","{""min"": 2, ""max"": 4}","{""source"": ""s""}",3\n',
            },
        )
    )
    assert project.problems == []
    j, c = project.cases
    assert (j.repeat, j.min_pass_rate, j.group, j.threshold) == ((3, 3), 0.5, "doc1", 0.7)
    assert [(part.scorer, part.weight) for part in j.scoring or ()] == [("contains", 2.0)]
    assert j.metadata == {"page": 12, "source": "atlas"}  # merged, as a YAML row's is
    assert (c.options, c.repeat, c.metadata) == (
        {"negate": True},
        (2, 4),
        {"level": "3", "source": "s"},
    )


def test_a_csv_cell_of_a_case_key_that_is_not_json_is_said_at_its_row(tmp_path: Path) -> None:
    project = load_project(
        write(
            tmp_path,
            {"arena.yaml": "datasets: [c.csv]\n", "c.csv": "id,input,options\nc,x,negate\n"},
        )
    )
    (problem,) = project.problems
    assert problem.problem.format(tmp_path).startswith(
        "c.csv:2: options: not JSON: Expecting value"
    )
    assert '"{""negate"": true}"' in problem.problem.hint


@pytest.mark.parametrize(
    ("row", "key", "meant"),
    [
        ('"eval_typ": "contains"', "eval_typ", "eval_type"),  # the dataset has one: not missed
        ('"tgas": ["hard"]', "tgas", "tags"),  # the dataset has tags: not missed
        ('"model": "sim_small"', "model", "models"),
        ('"option": {"negate": true}', "option", "options"),
        ('"scorng": [{"scorer": "contains"}]', "scorng", "scoring"),
        ('"repeats": 3', "repeats", "repeat"),
        ('"wieght": 3', "wieght", "weight"),
    ],
)
def test_a_row_key_spelt_like_a_case_key_is_an_error_even_where_the_dataset_sets_it(
    tmp_path: Path, row: str, key: str, meant: str
) -> None:
    """`eval_typ` and `tgas` were missed where the dataset set eval_type and tags (filled in
    before the check), `model` was never checked, and `option` or `scorng` were metadata."""
    project = load_project(
        write(
            tmp_path,
            {
                "arena.yaml": """
                datasets:
                  - {path: r.jsonl, eval_type: exact_match, tags: [all]}
                """,
                "r.jsonl": f'{{"id": "a", "input": "x", "reference": "x", {row}}}\n',
            },
        )
    )
    assert project.cases == []
    (problem,) = project.problems
    assert (problem.problem.line, problem.problem.key) == (1, key)
    assert problem.problem.message.startswith(f"unknown key '{key}' (did you mean '{meant}'?)")


def test_data_columns_that_look_a_little_like_case_keys_stay_metadata(tmp_path: Path) -> None:
    """A multiple-choice file's `option_a`, a `mode` or `topic` column is data, not a slip."""
    project = load_project(
        write(
            tmp_path,
            {
                "arena.yaml": "datasets: [q.csv]\n",
                "q.csv": "id,input,reference,option_a,option_b,mode,topic,answers\n"
                "a,x,x,red,blue,chat,art,x\n",
            },
        )
    )
    assert project.problems == []
    (case,) = project.cases
    assert set(case.metadata) == {"option_a", "option_b", "mode", "topic", "answers"}


def test_a_yaml_row_s_slip_is_an_error_and_its_other_keys_are_metadata(tmp_path: Path) -> None:
    """`option: {negate: true}` in a YAML dataset's row was ignored, where arena.yaml says
    "unknown key 'option' (did you mean 'options'?)"."""
    project = load_project(
        write(
            tmp_path,
            {
                "arena.yaml": "datasets: [d.yaml]\n",
                "d.yaml": """
                - id: neg
                  input: say forbidden
                  reference: forbidden
                  eval_type: contains
                  option: {negate: true}
                - {id: kept, input: x, reference: x, choices: [a, b]}
                """,
            },
        )
    )
    (kept,) = project.cases
    assert kept.metadata == {"choices": ["a", "b"]}
    (problem,) = project.problems
    assert problem.problem.format(tmp_path) == (
        "d.yaml:5: option: unknown key 'option' (did you mean 'options'?); the case would have"
        " no options\n  fix: rename it to 'options'; a row's other keys are kept as the case's"
        " metadata"
    )


def test_settings_beside_tests_in_a_yaml_dataset_are_an_error_of_the_file(tmp_path: Path) -> None:
    """`eval_type:` and `options:` beside `tests:` were ignored without a word: the cases were
    graded by exact_match, not negated."""
    project = load_project(
        write(
            tmp_path,
            {
                "arena.yaml": "datasets: [d.yaml]\n",
                "d.yaml": """
                eval_type: contains
                options: {negate: true}
                tests:
                  - {id: b1, input: say forbidden, reference: forbidden}
                """,
            },
        )
    )
    assert project.cases == []
    (problem,) = project.problems
    said = [p.format(tmp_path) for p in problem.problems]
    assert said == [
        "d.yaml:1: eval_type: unknown key 'eval_type' beside 'tests:' (its cases are not loaded)\n"
        "  fix: a dataset file holds cases alone: set 'eval_type' on this dataset in arena.yaml"
        " (datasets: [{path: ..., eval_type: ...}]) or on each case",
        "d.yaml:2: options: unknown key 'options' beside 'tests:' (its cases are not loaded)\n"
        "  fix: a dataset file holds cases alone: give each case its 'options'",
    ]


def test_a_capitalised_or_empty_input_is_said_as_it_is(tmp_path: Path) -> None:
    """An `Input` header said "row has no 'input' field ... add 'input' to the row", with no
    "did you mean"; an empty `question` cell said to add the column that is there."""
    project = load_project(
        write(
            tmp_path,
            {
                "arena.yaml": """
                datasets:
                  - a.csv
                  - {path: b.csv, fields: {input: question}}
                """,
                "a.csv": "id,Input,reference\na,x,x\n",
                "b.csv": "id,question,reference\nb,,x\nc,y,y\n",
            },
        )
    )
    assert [case.id for case in project.cases] == ["c"]
    said = {p.name: p.problem.format(tmp_path) for p in project.problems}
    assert said == {
        "a": "a.csv:2: Input: unknown key 'Input' (did you mean 'input'?); the case would have"
        " no input\n  fix: rename it to 'input'; a row's other keys are kept as the case's"
        " metadata",
        "b": "b.csv:2: the 'question' cell is empty, so the case would have no input\n"
        "  fix: write the case's input into it, or take the row out",
    }


def test_line_breaks_in_a_quoted_csv_cell_read_as_in_the_other_formats(tmp_path: Path) -> None:
    """A cell written with Windows line breaks kept its \\r\\n: "expected 'first line\\r\\nsecond
    line', got 'first line\\nsecond line'"."""
    (tmp_path / "q.csv").write_bytes(
        b'id,input,reference\r\na,x,"first line\r\nsecond line"\r\nb,y,"old\rmac"\r\n'
    )
    project = load_project(write(tmp_path, {"arena.yaml": "datasets: [q.csv]\n"}))
    assert [case.reference for case in project.cases] == ["first line\nsecond line", "old\nmac"]


def test_blank_lines_before_a_csv_header_are_skipped_and_each_row_keeps_its_line(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    """A blank line (or one of spaces) before the header was read as the header: every line
    after it, the header too, was "this row has more cells than the header has columns",
    and no row ran."""
    root = make_project("q", "models: [sim_echo]\ndatasets: [d.csv]\n")
    (root / "d.csv").write_text("\n   \nid,input,reference\nr1,a,a\n\nr2,b,b\nr3,c,c,extra\n")
    result = pytester.runpytest("-p", "no:cacheprovider", "-v")
    result.assert_outcomes(passed=2, errors=1)
    result.stdout.fnmatch_lines(
        [
            "projects/q/d.csv::line7 ERROR*",
            "projects/q/d.csv::r1?sim_echo? PASSED*",
            "projects/q/d.csv::r2?sim_echo? PASSED*",
            "projects/q/d.csv:7: this row has more cells than the header has columns",
        ]
    )
    assert "d.csv:3" not in result.stdout.str()  # the header is no row


def test_lines_of_spaces_or_tabs_between_csv_rows_are_skipped_as_blank_lines_are(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    """A line of spaces (or tabs) between rows was "this row has 1 cells and the header 3
    columns", where an empty line is skipped."""
    root = make_project("q", "models: [sim_echo]\ndatasets: [d.csv, t.tsv]\n")
    (root / "d.csv").write_text("id,input,reference\nr1,a,a\n   \n\t\nr2,b,b\n  \n")
    (root / "t.tsv").write_text("id\tinput\treference\nt1\tc\tc\n \t \t\nt2\td\td\n")
    result = pytester.runpytest("-p", "no:cacheprovider", "-v")
    result.assert_outcomes(passed=4)
    result.stdout.fnmatch_lines(["projects/q/d.csv::r2?sim_echo? PASSED*"])
    assert "cells" not in result.stdout.str()


def test_a_line_of_spaces_in_a_one_column_csv_is_blank_and_a_quoted_one_a_value(
    tmp_path: Path,
) -> None:
    """As before the header, a line of spaces is a blank line (it was a case whose input is
    spaces, counted among the rows); a cell of spaces is written quoted."""
    (tmp_path / "one.csv").write_text('input\nhello\n   \n"  "\n\t\nbye\n')
    project = load_project(write(tmp_path, {"arena.yaml": "datasets: [one.csv]\n"}))
    assert project.problems == []
    assert [(case.id, case.input) for case in project.cases] == [
        ("one-1", "hello"),
        ("one-2", "  "),
        ("one-3", "bye"),
    ]


def test_rows_without_ids_in_files_of_one_name_get_names_of_their_own(tmp_path: Path) -> None:
    """`数学.jsonl` and `历史.jsonl` both named their rows `row-1` (every row of the second a
    duplicate); `q.jsonl` and `q.csv` both `data.q-1`."""
    row = '{"input": "x", "reference": "x"}\n'
    files = {"data/数学.jsonl": row, "data/历史.jsonl": row, "data/q.jsonl": row}
    files |= {"data/q.csv": "input,reference\nx,x\n", "data/solo.jsonl": row}
    datasets = "".join(f"  - '{path}'\n" for path in files)
    project = load_project(write(tmp_path, {"arena.yaml": "datasets:\n" + datasets, **files}))
    assert project.problems == []
    assert [case.id for case in project.cases] == [
        "xn--48s96u-1",
        "xn--jmrsj-1",
        "data.q.jsonl-1",
        "data.q.csv-1",
        "solo-1",
    ]


@pytest.mark.parametrize(
    ("encoding", "name"),
    [("utf-16", "UTF-16"), ("utf-16-le", "UTF-16"), ("utf-16-be", "UTF-16"), ("utf-32", "UTF-32")],
)
def test_a_utf16_dataset_is_one_error_of_the_file_and_the_rest_runs(
    pytester: pytest.Pytester, make_project: MakeProject, encoding: str, name: str
) -> None:
    """A UTF-16 JSONL file of 50 rows was 51 errors, each 'a binary file, not text'."""
    root = make_project(
        "wide",
        "models: [sim_perfect]\ndatasets: [data/r.jsonl]\ntests:\n  - {id: a, input: x, reference: x}\n",
    )
    rows = "".join(f'{{"id": "r{i}", "input": "x", "reference": "x"}}\n' for i in range(50))
    (root / "data").mkdir()
    (root / "data" / "r.jsonl").write_bytes(rows.encode(encoding))
    result = pytester.runpytest("-p", "no:cacheprovider")
    result.assert_outcomes(passed=1, errors=1)
    result.stdout.fnmatch_lines(
        [f"projects/wide/data/r.jsonl:1: {name} text: save it as UTF-8", "*fix: *iconv -f UTF-*"]
    )
    assert "binary" not in result.stdout.str()


def test_a_csv_row_with_bytes_not_utf8_is_an_error_of_its_own_and_the_others_run(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    """One byte that is not UTF-8 made the whole CSV file one error and no row ran, where
    in JSONL only its line is lost. Here it is in a quoted cell that spans two lines."""
    root = make_project("q", "models: [sim_echo]\ndatasets: [d.csv]\n")
    (root / "d.csv").write_bytes(b'id,input,reference\nr1,a,a\nr2,"b\nb\xff",b\nr3,c,c\n')
    result = pytester.runpytest("-p", "no:cacheprovider", "-v")
    result.assert_outcomes(passed=2, errors=1)
    result.stdout.fnmatch_lines(
        [
            "projects/q/d.csv::line4 ERROR*",
            "projects/q/d.csv::r1?sim_echo? PASSED*",
            "projects/q/d.csv::r3?sim_echo? PASSED*",
            "projects/q/d.csv:4: not UTF-8 text: byte 0xff at column 2",
            "  fix: save the file as UTF-8*",
        ]
    )


def test_text_in_other_encodings_is_not_taken_for_utf16() -> None:
    from pytest_arena.spec.text_files import wide_encoding

    assert wide_encoding("plain ASCII, and accents: é".encode()) is None
    assert wide_encoding(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR") is None
    assert wide_encoding("日本語のテキスト".encode("utf-16-le")) is None  # no NUL pattern: binary
    assert wide_encoding("日本語のテキスト".encode("utf-16")) == "UTF-16"  # by its mark


def test_an_empty_yaml_dataset_is_a_warning_as_an_empty_jsonl_file_is(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    make_project(
        "empty",
        "models: [sim_perfect]\ndatasets: [data/e.yaml, data/e.jsonl]\n"
        "tests:\n  - {id: a, input: x, reference: x}\n",
        {"data/e.yaml": "# to be filled\n", "data/e.jsonl": ""},
    )
    result = pytester.runpytest("-p", "no:cacheprovider")
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(
        ["*ArenaWarning: dataset file data/e.yaml holds no cases*"], consecutive=False
    )
    result.stdout.fnmatch_lines(["*ArenaWarning: dataset file data/e.jsonl holds no cases*"])


def test_a_bad_datasets_entry_is_that_dataset_s_error_and_the_rest_runs(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    """`fields` written the wrong way round, or `format: json`, stopped the whole project:
    arena.yaml::config was one error and the good inline case did not run."""
    make_project(
        "p",
        """
        models: [sim_perfect]
        tests:
          - {id: a, input: x, reference: x}
        datasets:
          - path: data/q.jsonl
            fields: {question: input}
          - {path: data/c.json, format: json}
          - data/good.jsonl
        """,
        {
            "data/q.jsonl": '{"question": "x", "reference": "x"}\n',
            "data/c.json": '[{"id": "j", "input": "x", "reference": "x"}]\n',
            "data/good.jsonl": '{"id": "g", "input": "x", "reference": "x"}\n',
        },
    )
    result = pytester.runpytest("-p", "no:cacheprovider", "-rE")
    result.assert_outcomes(passed=2, errors=2)
    result.stdout.fnmatch_lines(
        [
            "projects/p/arena.yaml:6: datasets[[]0[]].fields.question: unknown key 'question'",
            "  fix: fields maps each part of a case to the file's column that holds it"
            " (case field: column): write 'input: question'",
        ]
    )
    result.stdout.fnmatch_lines(
        [
            "projects/p/arena.yaml:7: datasets[[]1[]].format: Input should be 'yaml', 'jsonl',"
            " 'csv' or 'tsv'*",
            "  fix: the formats are yaml, jsonl, csv and tsv; a JSON array of cases reads with"
            " 'format: yaml' (JSON is YAML)",
        ]
    )
    assert "arena.yaml::config" not in result.stdout.str()


def test_a_json_array_of_cases_reads_with_format_yaml_as_the_hint_says(tmp_path: Path) -> None:
    project = load_project(
        write(
            tmp_path,
            {
                "arena.yaml": "datasets: [{path: c.json, format: yaml}, c2.json]\n",
                "c.json": '[{"id": "j1", "input": "x", "reference": "x"},\n'
                ' {"id": "j2", "input": "y", "reference": "y"}]\n',
                "c2.json": "[]\n",
            },
        )
    )
    assert [case.id for case in project.cases] == ["j1", "j2"]
    (problem,) = project.problems
    assert problem.problem.hint.endswith(
        "a JSON array of cases reads with 'format: yaml' (JSON is YAML)"
    )


def test_a_null_column_of_an_input_list_is_said_as_it_is_and_the_other_rows_run(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    """A row holding its question but a null topic, under `fields: {input: [question,
    topic]}`, was "'topic' is null, so the case would have no input": it has one, but for
    its topic (a null field is one not given, so the template's {topic} would be lacking)."""
    make_project(
        "rows",
        """
        models: [sim_perfect]
        prompt: {template: "{question} ({topic})"}
        datasets:
          - {path: q.jsonl, fields: {input: [question, topic]}}
        """,
        {
            "q.jsonl": '{"id": "a", "question": "2+2?", "topic": "sums", "reference": "4"}\n'
            '{"id": "b", "question": "3+3?", "topic": null, "reference": "6"}\n'
            '{"id": "c", "question": "4+4?", "topic": "", "reference": "8"}\n'
        },
    )
    result = pytester.runpytest("-p", "no:cacheprovider")
    result.assert_outcomes(passed=2, errors=1)
    result.stdout.fnmatch_lines(
        [
            "projects/rows/q.jsonl:2: 'topic' is null in this row; fields.input builds the"
            " case's input from question, topic",
            "  fix: give the row its topic (a text, '' for an empty one), or take topic out of"
            " fields.input (and {topic} out of the prompt)",
        ]
    )
    assert "would have no input" not in result.stdout.str()


def test_a_row_without_its_input_field_says_the_fields_it_has(tmp_path: Path) -> None:
    """It said only "row has no 'input' field": a row exported with `prompt` or `question`
    left the user to open the file to see why."""
    wide = {"id": "w", **{f"col{i}": "v" for i in range(10)}}
    project = load_project(
        write(
            tmp_path,
            {
                "arena.yaml": "datasets: [r.jsonl]\n",
                "r.jsonl": '{"id": "p", "prompt": "x", "reference": "x"}\n'
                + json.dumps(wide)
                + "\n",
            },
        )
    )
    said = [p.problem.format(tmp_path).split("\n")[0] for p in project.problems]
    assert said == [
        "r.jsonl:1: row has no 'input' field for the case input (it has id, prompt, reference)",
        "r.jsonl:2: row has no 'input' field for the case input (it has id, col0, col1, col2,"
        " col3, col4, col5, col6 and 3 more)",
    ]
