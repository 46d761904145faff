"""Loading arena.yaml and datasets: cases, lines, and errors with file and line."""

from __future__ import annotations

import re
import textwrap
from pathlib import Path

import pytest

from pytest_arena.spec import SpecError, load_project
from pytest_arena.spec.template import render_messages


def write(folder: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        path = folder / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip("\n"))
    return folder / "arena.yaml"


def test_inline_cases_keep_their_fields_and_lines(tmp_path: Path) -> None:
    project = load_project(
        write(
            tmp_path,
            {
                "arena.yaml": """
                name: quiz
                tests:
                  - id: capital
                    input: "Capital of France?"
                    reference: Paris
                    tags: [geo, easy]
                    weight: 2
                    eval_type: exact_match
                    options: {ignore_case: true}
                  - id: chat
                    input:
                      - {role: system, content: "Be brief."}
                      - {role: user, content: "Hi"}
                """
            },
        )
    )
    capital, chat = project.cases
    assert project.name == "quiz"
    assert (capital.id, capital.reference, capital.tags, capital.weight) == (
        "capital",
        "Paris",
        ("geo", "easy"),
        2.0,
    )
    assert capital.options == {"ignore_case": True}
    assert (capital.line, capital.line_of("eval_type"), chat.line) == (3, 8, 10)
    assert chat.input == [
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": "Hi"},
    ]
    assert project.problems == []


def test_the_project_name_defaults_to_its_folder(tmp_path: Path) -> None:
    folder = tmp_path / "support_replies"
    folder.mkdir()
    assert load_project(write(folder, {"arena.yaml": "tests: []\n"})).name == "support_replies"


def test_an_empty_file_is_a_project_without_cases(tmp_path: Path) -> None:
    project = load_project(write(tmp_path, {"arena.yaml": ""}))
    assert project.cases == [] and project.problems == []


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("- a\n- b\n", "arena.yaml:1: arena.yaml must be a mapping of keys"),
        ("tests: []\ntests: []\n", "arena.yaml:2: duplicate key 'tests' (first at line 1)"),
        ("models:\n\t- sim_small\n", "arena.yaml:2: YAML syntax error"),
        ("prompt:\n  templte: x\n", "arena.yaml:2: prompt.templte: unknown key 'templte'"),
        (
            "models:\n  define:\n    m: {price: {input: 1}}\n",
            "arena.yaml:3: models.define.m.price.input: unknown key",
        ),
        (
            "metrics:\n  weights: {cost: -1}\n",
            "arena.yaml:2: metrics.weights: weight of 'cost' is -1.0",
        ),
        # a model key that would break node ids or tables
        (
            'models:\n  define:\n    "m|1": {}\n',
            "arena.yaml:2: models.define: model key 'm|1' may hold only letters, digits and"
            " _ . - / : @ + (no spaces, brackets, '|' or '::'), as it is part of each case's"
            " node id",
        ),
        (
            'models:\n  define:\n    "bot\\v2": {}\n',
            "arena.yaml:2: models.define: model key 'bot\\x0b2'",
        ),
        ("models: [sim_small, 'gpt 4']\n", "arena.yaml:1: models.default: model key 'gpt 4'"),
        ("models:\n  default: ['a::b']\n", "arena.yaml:2: models.default: model key 'a::b'"),
        ("models:\n  default: ['m[1]']\n", "arena.yaml:2: models.default: model key 'm[1]'"),
        # a setting that would hold or score nothing
        (  # NaN compares false with everything: the gate would always hold
            "gate:\n  all: {accuracy: {min: .nan}}\n",
            "arena.yaml:2: gate.all.accuracy.min: Input should be a finite number",
        ),
        ("gate:\n  all: {accuracy: {max: .nan}}\n", "arena.yaml:2: gate.all.accuracy.max:"),
        (
            "models:\n  define:\n    m: {price: {input_per_mtok: .nan}}\n",
            "arena.yaml:3: models.define.m.price.input_per_mtok: Input should be a finite number",
        ),
        ("budget: {max_cost: .nan}\n", "arena.yaml:1: budget.max_cost: Input should be a finite"),
        ("models:\n  define:\n    m: {timeout: .inf}\n", "arena.yaml:3: models.define.m.timeout:"),
        (
            "metrics: {weights: {accuracy: 0, cost: 0}}\n",
            "arena.yaml:1: metrics.weights: every weight is 0, so every composite would be 0",
        ),
        (
            "scoring: []\n",
            "arena.yaml:1: scoring: scoring: [] lists no scorer; list at least one, or leave"
            " 'scoring' out to use the default scorer",
        ),
    ],
)
def test_project_wide_problems_raise_with_file_and_line(
    tmp_path: Path, text: str, expected: str
) -> None:
    with pytest.raises(SpecError) as caught:
        load_project(write(tmp_path, {"arena.yaml": text}))
    assert caught.value.format(tmp_path).startswith(expected)


def test_models_may_be_a_plain_list(tmp_path: Path) -> None:
    project = load_project(write(tmp_path, {"arena.yaml": "models: [sim_small, sim_large]\n"}))
    assert project.spec.models.default == ["sim_small", "sim_large"]


def test_a_jsonl_dataset_maps_its_fields_and_keeps_the_rest_as_metadata(tmp_path: Path) -> None:
    project = load_project(
        write(
            tmp_path,
            {
                "arena.yaml": """
                datasets:
                  - path: data/problems.jsonl
                    fields: {id: qid, input: question, reference: answer, tags: topic}
                    tags: [arith]
                    eval_type: exact_match
                """,
                "data/problems.jsonl": (
                    '{"qid": 7, "question": "2+2", "answer": 4, "topic": "add", "level": 1}\n'
                    "\n"
                    '{"qid": "x8", "question": "3*3", "answer": 9, "topic": "mul"}\n'
                ),
            },
        )
    )
    first, second = project.cases
    assert (first.id, first.input, first.reference, first.tags) == ("7", "2+2", 4, ("arith", "add"))
    assert first.metadata == {"level": 1}
    assert first.eval_type == "exact_match"
    assert (first.dataset, first.source.name, first.line, second.line) == (
        "data/problems.jsonl",
        "problems.jsonl",
        1,
        3,
    )


def test_a_yaml_dataset_row_says_all_a_case_says(tmp_path: Path) -> None:
    """A YAML dataset is a list of cases: `options`, `group`, `metadata`, `threshold`... of a
    row were put in its metadata, and the case graded without them."""
    project = load_project(
        write(
            tmp_path,
            {
                "arena.yaml": """
                datasets:
                  - {path: data/more.yaml, threshold: 0.9, eval_type: contains}
                """,
                "data/more.yaml": """
                - id: capital
                  input: Capital of France?
                  reference: paris
                  eval_type: exact_match
                  options: {ignore_case: true}
                  group: europe
                  threshold: 0.5
                  metadata: {source: atlas v2}
                  page: 12
                - {id: plain, input: x, reference: x}
                """,
            },
        )
    )
    capital, plain = project.cases
    assert (capital.eval_type, capital.options, capital.group) == (
        "exact_match",
        {"ignore_case": True},
        "europe",
    )
    assert capital.threshold == 0.5  # the row's own, over its dataset's
    assert capital.metadata == {"page": 12, "source": "atlas v2"}
    assert (plain.eval_type, plain.threshold, plain.options, plain.metadata) == (
        "contains",
        0.9,
        {},
        {},
    )


def test_null_in_a_row_is_a_field_not_given(tmp_path: Path) -> None:
    """Exports (HuggingFace's among them) write null for an empty field: it replaced the
    dataset's eval_type and models, and lost the row for a null weight."""
    project = load_project(
        write(
            tmp_path,
            {
                "arena.yaml": """
                datasets:
                  - {path: data/hf.jsonl, eval_type: exact_match, models: [sim_perfect], tags: [hf]}
                """,
                "data/hf.jsonl": (
                    '{"id": "a", "input": "2+2?", "reference": "4", "eval_type": null,'
                    ' "models": null, "weight": null, "tags": null}\n'
                ),
            },
        )
    )
    (case,) = project.cases
    assert project.problems == []
    assert (case.eval_type, case.models, case.weight, case.tags) == (
        "exact_match",
        ("sim_perfect",),
        1.0,
        ("hf",),
    )


def test_a_csv_dataset_without_ids_numbers_its_rows_and_splits_tags(tmp_path: Path) -> None:
    project = load_project(
        write(
            tmp_path,
            {
                "arena.yaml": "datasets: [data/q.csv]\n",
                "data/q.csv": 'input,reference,tags\n"Hello, you",hi,"a,b"\nBye,bye,\n',
            },
        )
    )
    first, second = project.cases
    assert (first.id, first.input, first.tags, first.line) == ("q-1", "Hello, you", ("a", "b"), 2)
    assert (second.id, second.tags, second.line) == ("q-2", (), 3)


def test_a_spreadsheets_csv_export_is_read_as_written(tmp_path: Path) -> None:
    """Blank lines shifted every later row's line (an IDE opened the wrong row), empty
    trailing header columns refused the file, one stray quote lost every row after it, an
    empty cell of a template variable lost its row, and an `ID` column was metadata."""
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "cols.csv").write_text(
        "id,question,context,reference,,\nr1,a,c1,a,,\n\nr2,b,,b,,\n\n\nr3,c,c3,c,,\n"
    )
    (tmp_path / "data" / "quote.csv").write_text(
        'id,input,reference\nq1,a,a\nq2,"12" screen,b\nq3,c,c\n'
    )
    (tmp_path / "data" / "upper.csv").write_text("ID,input,reference\nQ-17,a,a\n")
    mapped = load_project(
        write(
            tmp_path / "mapped",
            {
                "arena.yaml": """
                prompt: {template: "{question} / {context}"}
                datasets:
                  - {path: ../data/cols.csv, fields: {input: [question, context]}}
                """
            },
        )
    )
    found = {case.id: (case.line, case.input) for case in mapped.cases}
    assert found == {
        "r1": (2, {"question": "a", "context": "c1"}),
        "r2": (4, {"question": "b", "context": ""}),
        "r3": (7, {"question": "c", "context": "c3"}),
    }
    assert mapped.problems == []
    project = load_project(
        write(tmp_path, {"arena.yaml": "datasets: [data/quote.csv, data/upper.csv]\n"})
    )
    assert [(case.id, case.line) for case in project.cases] == [("q1", 2), ("q3", 4)]
    said = sorted(
        (p.problem.path.name, p.problem.line, p.problem.message) for p in project.problems
    )
    assert said == [
        (
            "quote.csv",
            3,
            "this row cannot be read as CSV: ',' expected after '\"' (a quote inside a cell"
            " that is not quoted)",
        ),
        (
            "upper.csv",
            2,
            "unknown key 'ID' (did you mean 'id'?); the case would have no id",
        ),
    ]


def test_rows_without_ids_are_named_after_their_file_as_an_id_may_be(tmp_path: Path) -> None:
    """`qa v2.jsonl` or `données.jsonl` lost every row (an id may not hold a space or an
    accent), and two files named `test.jsonl` in two folders clashed on `test-1`."""
    row = '{"input": "x", "reference": "x"}\n'
    files = {"data/gsm/test.jsonl": row, "data/mmlu/test.jsonl": row}
    files |= {"data/qa v2.jsonl": row, "data/données.jsonl": row, "data/plain.jsonl": row}
    datasets = "".join(f"  - '{path}'\n" for path in files)
    project = load_project(write(tmp_path, {"arena.yaml": "datasets:\n" + datasets, **files}))
    assert project.problems == []
    assert [case.id for case in project.cases] == [
        "data.gsm.test-1",
        "data.mmlu.test-1",
        "qa_v2-1",
        "donnees-1",
        "plain-1",
    ]


def test_a_dataset_row_may_fill_template_variables(tmp_path: Path) -> None:
    project = load_project(
        write(
            tmp_path,
            {
                "arena.yaml": """
                prompt:
                  template: "Translate into {language}: {text}"
                  system: "You translate."
                datasets:
                  - path: data/t.yaml
                    fields: {input: [language, text]}
                """,
                "data/t.yaml": "- {id: one, language: French, text: cat, reference: chat}\n",
            },
        )
    )
    (case,) = project.cases
    assert case.input == {"language": "French", "text": "cat"}
    spec = project.spec.prompt
    assert render_messages(case, spec.template, spec.system) == [
        {"role": "system", "content": "You translate."},
        {"role": "user", "content": "Translate into French: cat"},
    ]


def test_templates_escape_braces_and_render_non_text_as_json() -> None:
    from pytest_arena.spec import Case

    case = Case(id="a", input={"doc": {"total": 3}})
    assert render_messages(case, 'Data {doc}; reply as {{"total": n}}', None) == [
        {"role": "user", "content": 'Data {"total": 3}; reply as {"total": n}'}
    ]


def test_a_chat_input_gets_the_system_prompt_unless_it_has_one() -> None:
    from pytest_arena.spec import Case

    plain = Case(id="a", input=[{"role": "user", "content": "hi"}])
    own = Case(
        id="b", input=[{"role": "system", "content": "mine"}, {"role": "user", "content": "hi"}]
    )
    assert render_messages(plain, None, "sys")[0] == {"role": "system", "content": "sys"}
    assert render_messages(own, None, "sys")[0] == {"role": "system", "content": "mine"}


def test_problems_in_cases_and_rows_are_collected_apart_from_good_cases(tmp_path: Path) -> None:
    project = load_project(
        write(
            tmp_path,
            {
                "arena.yaml": """
                tests:
                  - {id: good, input: x}
                  - {id: bad, input: x, weight: -1}
                  - just text
                datasets: [data/d.jsonl, data/none.jsonl, data/d.txt]
                """,
                "data/d.jsonl": '{"id": "good", "input": "y"}\n[1]\n{"id": "r2", "input": "z"}\n',
                "data/d.txt": "",
            },
        )
    )
    assert [c.id for c in project.cases] == ["good", "r2"]
    problems = {p.name: p.problem.format(tmp_path) for p in project.problems}
    assert problems == {
        "bad": "arena.yaml:3: tests[1].weight: Input should be greater than or equal to 0\n"
        "  fix: use a value of 0 or more",
        "tests.2": "arena.yaml:4: a case must be a mapping with 'id' and 'input'",
        "good@line1": "data/d.jsonl:1: duplicate case id 'good' (first at arena.yaml:2)\n"
        "  fix: give every case in a project its own id",
        "line2": "data/d.jsonl:2: a JSONL row must be a JSON object {...}",
        "data/none.jsonl": f"arena.yaml:5: datasets[1].path: dataset file 'data/none.jsonl' does not exist (looked in {tmp_path})\n"
        "  fix: paths are relative to the folder holding arena.yaml",
        "data/d.txt": "arena.yaml:5: datasets[2].path: cannot tell the format of 'd.txt' from its suffix\n"
        "  fix: name it .yaml, .jsonl, .csv or .tsv, or set 'format:' on the dataset",
    }


def test_a_row_key_spelt_like_a_missing_case_field_is_an_error_and_others_are_metadata(
    tmp_path: Path,
) -> None:
    project = load_project(
        write(
            tmp_path,
            {
                "arena.yaml": """
                datasets:
                  - path: q.jsonl
                    fields: {reference: answer}
                """,
                "q.jsonl": (
                    '{"id": "a", "input": "x", "answer": "x", "answers": ["x"], "refs": 2}\n'
                    '{"id": "b", "input": "y", "answr": "y"}\n'
                ),
            },
        )
    )
    (case,) = project.cases
    assert case.metadata == {"answers": ["x"], "refs": 2}  # the row has its answer column
    (problem,) = project.problems
    assert (problem.problem.line, problem.problem.key) == (2, "answr")
    assert "unknown key 'answr' (did you mean 'answer'?)" in problem.problem.message


@pytest.mark.parametrize(
    ("template", "said"),
    [
        ("Q: {input, briefly", "'{input' is never closed"),
        ("Q: {input.", "'{input' is never closed"),
        ("Q: {input} and {extra", "'{extra' is never closed"),
        ("Pick from {red, green}: {input}", None),  # a brace written as it is, closed
        ('Reply as {"answer": ...}: {input}', None),
        ("Reply as {answer: <text>} to {input}", None),
        ("Q: { input }", "'{ input }' is sent as written, braces and all: a variable has no"),
        ("Q: {input }", "'{input' is never closed"),
        ("Q: {input!r}", "a variable is a name alone in braces, without a conversion or format"),
        ("Q: {input:>10}", "'{input:>10}' is sent as written"),
        ("Q: {0}", "a variable is named, not numbered, as in '{input}'"),
        ("Q: {my-var} {input}", "is named with letters, digits and '_', as in '{my_var}'"),
        ("Q: {user.name} {input}", "a variable is one name, with no field looked up in it"),
        ("Q: {rows[0]} {input}", "'{rows[0]}' is sent as written"),
        ("Bonjour {prénom}: {question}", None),  # letters of any script
        ("Answer in one word.", "the template fills in no variable, so every case would send"),
    ],
)
def test_a_slip_in_a_template_that_would_send_it_as_written_is_found(
    template: str, said: str | None
) -> None:
    from pytest_arena.spec.template import Template

    mistake = Template(template).mistake()
    assert (mistake is None) if said is None else (said in (mistake or ""))


def test_weights_must_be_finite_and_a_contract_must_weigh_something(tmp_path: Path) -> None:
    arena = write(
        tmp_path,
        {
            "arena.yaml": """
            metrics:
              weights: {accuracy: .inf}
            tests:
              - {id: a, input: x}
            """
        },
    )
    with pytest.raises(SpecError, match=r"arena.yaml:2: metrics.weights.accuracy: Input should"):
        load_project(arena)
    arena.write_text(
        "scoring:\n  - {scorer: exact_match, weight: 0}\n  - {scorer: contains, weight: 0}\n"
        "tests:\n  - {id: a, input: x}\n"
    )
    with pytest.raises(SpecError, match=r"arena.yaml:1: scoring: every component's weight is 0"):
        load_project(arena)


def test_model_keys_as_providers_name_models_are_accepted(tmp_path: Path) -> None:
    keys = ["openai:gpt-4o", "meta-llama/Llama-3-8B", "qwen2.5:7b", "claude@2024+x", "modèle"]
    text = "models:\n  default: [" + ", ".join(f"'{k}'" for k in keys) + "]\n"
    assert load_project(write(tmp_path, {"arena.yaml": text})).spec.models.default == keys


def test_a_case_id_ending_in_a_newline_is_refused_like_any_other_character(
    tmp_path: Path,
) -> None:
    text = 'tests:\n  - {id: "a\\n", input: x}\n  - {id: a, input: y}\n'
    project = load_project(write(tmp_path, {"arena.yaml": text}))
    assert [c.id for c in project.cases] == ["a"]
    (problem,) = project.problems
    assert problem.problem.format(tmp_path).startswith(
        "arena.yaml:2: tests[0].id: case id 'a\\n' may hold only ASCII letters, digits"
    )


@pytest.mark.parametrize(
    ("written", "fixed"),
    [("'a::b'", "a-b"), ("'order 1182'", "order-1182"), ("'q[1]'", "q-1"), ("'::'", "case-1")],
)
def test_a_case_id_pytest_cannot_select_by_is_refused_with_one_it_can(
    tmp_path: Path, written: str, fixed: str
) -> None:
    text = f"tests:\n  - {{id: {written}, input: x}}\n"
    (problem,) = load_project(write(tmp_path, {"arena.yaml": text})).problems
    assert problem.problem.format(tmp_path).endswith(f"; write it as '{fixed}'")


def test_a_case_with_no_scorer_listed_is_a_problem_of_that_case(tmp_path: Path) -> None:
    text = "tests:\n  - {id: a, input: x, scoring: []}\n  - {id: b, input: y}\n"
    project = load_project(write(tmp_path, {"arena.yaml": text}))
    assert [c.id for c in project.cases] == ["b"]
    assert "scoring: [] lists no scorer" in project.problems[0].problem.format(tmp_path)


def test_a_model_named_twice_in_the_defaults_runs_once(tmp_path: Path) -> None:
    text = "models: [sim_small, sim_large, sim_small]\n"
    project = load_project(write(tmp_path, {"arena.yaml": text}))
    assert project.spec.models.default == ["sim_small", "sim_large"]


def test_dataset_rows_short_of_cells_or_with_a_key_twice_are_problems_at_their_line(
    tmp_path: Path,
) -> None:
    project = load_project(
        write(
            tmp_path,
            {
                "arena.yaml": "datasets: [d.csv, twice.csv, d.jsonl]\n",
                "d.csv": "id,input,reference\na,x,x\nb,y\nc,z,\n",
                "twice.csv": "id,input,reference,input\nf1,first,x,second\n",
                "d.jsonl": '{"id": "j1", "input": "x", "reference": "x", "reference": "y"}\n'
                '{"id": "j2", "input": "x", "metadata": {"k": 1, "k": 2}}\n'
                '{"id": "j3", "input": "x"}\n',
            },
        )
    )
    assert [c.id for c in project.cases] == ["a", "c", "j3"]
    assert sorted(p.problem.format(tmp_path) for p in project.problems) == [
        "d.csv:3: this row has 2 cells and the header 3 columns\n"
        "  fix: give every column a cell; leave one empty with nothing between commas (a,,c)",
        "d.jsonl:1: key 'reference' is in this row twice\n"
        "  fix: remove one of the two; JSON readers would silently keep only the last",
        "d.jsonl:2: key 'k' is in this row twice\n"
        "  fix: remove one of the two; JSON readers would silently keep only the last",
        "twice.csv:1: column 'input' is in the header twice (columns 2 and 4)\n"
        "  fix: give every column its own name; rows are not read until then",
    ]


def test_a_case_value_that_is_not_json_data_or_an_empty_chat_is_a_problem_of_the_case(
    tmp_path: Path,
) -> None:
    text = (
        "tests:\n"
        "  - {id: binary, input: x, reference: !!binary aGk=}\n"
        "  - {id: silent, input: []}\n"
        "  - {id: fine, input: x, reference: {a: [1, 2.5, null, true]}}\n"
    )
    project = load_project(write(tmp_path, {"arena.yaml": text}))
    assert [c.id for c in project.cases] == ["fine"]
    assert [p.problem.format(tmp_path) for p in project.problems] == [
        "arena.yaml:2: tests[0].reference: a value of type bytes is not JSON data, which cases"
        " hold: write it as text (quoted), a number, true/false, a list or a mapping",
        "arena.yaml:3: tests[1].input: input: [] holds no message; give the chat's messages,"
        " or text",
    ]


def test_a_jsonl_id_written_as_a_number_is_the_text_written(tmp_path: Path) -> None:
    """`{"id": 1.10}` was the case `1.1`, a duplicate of `{"id": 1.1}`, and `2e3` was
    `2000.0`; other numbers of the row stay numbers."""
    rows = (
        '{"id": 1.10, "input": "a", "reference": "a"}\n'
        '{"id": 1.1, "input": "a", "reference": "a"}\n'
        '{"id": 2e3, "input": "b", "reference": 0.50, "share": 0.25}\n'
        '{"id": 7, "input": "c", "reference": "c"}\n'
    )
    project = load_project(
        write(tmp_path, {"arena.yaml": "datasets: [data/ids.jsonl]\n", "data/ids.jsonl": rows})
    )
    assert project.problems == []
    assert [case.id for case in project.cases] == ["1.10", "1.1", "2e3", "7"]
    third = project.cases[2]
    assert (third.reference, third.metadata) == (0.5, {"share": 0.25})


def test_a_csv_dataset_may_name_its_delimiter_and_a_tsv_file_is_read_by_tabs(
    tmp_path: Path,
) -> None:
    project = load_project(
        write(
            tmp_path,
            {
                "arena.yaml": """
                datasets:
                  - {path: data/semi.csv, delimiter: ";"}
                  - data/tabs.tsv
                """,
                "data/semi.csv": 'id;input;reference\nprice;"Cost: 1,50; or 2,00?";"1,50"\n',
                "data/tabs.tsv": "id\tinput\treference\nt1\tParis, France\tParis\n",
            },
        )
    )
    assert project.problems == []
    assert [(c.id, c.input, c.reference, c.line) for c in project.cases] == [
        ("price", "Cost: 1,50; or 2,00?", "1,50", 2),
        ("t1", "Paris, France", "Paris", 2),
    ]


def test_a_csv_file_separated_otherwise_says_which_delimiter_to_set(tmp_path: Path) -> None:
    """A spreadsheet's `;`-separated export loaded as one column: every row said it had no
    input, and nothing said why."""
    project = load_project(
        write(
            tmp_path,
            {
                "arena.yaml": """
                datasets:
                  - data/semi.csv
                  - {path: data/rows.jsonl, delimiter: ";"}
                """,
                "data/semi.csv": "id;input;reference\na;x;x\nb;y;y\n",
                "data/rows.jsonl": '{"input": "x"}\n',
            },
        )
    )
    assert project.cases == []
    said = [(p.problem.path.name, p.problem.line, p.problem.message) for p in project.problems]
    assert said == [
        (
            "semi.csv",
            1,
            "the header is one column, 'id;input;reference': the file looks separated by ';',"
            " not by commas",
        ),
        ("arena.yaml", 3, "'delimiter' is for CSV files; data/rows.jsonl is read as jsonl"),
    ]
    assert project.problems[0].problem.hint.startswith("set 'delimiter: \";\"' on the dataset")
    two = load_project(
        write(
            tmp_path / "two",
            {"arena.yaml": "datasets:\n  - {path: d.csv, delimiter: ', '}\n", "d.csv": ""},
        )
    )
    (problem,) = two.problems  # that dataset's problem, not the project's
    assert problem.problem.format(tmp_path / "two").startswith(
        "arena.yaml:2: datasets[0].delimiter: delimiter ', '"
    )


def test_a_template_variable_may_be_named_in_any_script_and_a_null_field_is_not_given(
    tmp_path: Path,
) -> None:
    """`{prénom}` was sent as written, with no error; a JSONL field of null filled its
    variable with the text "null" (a null field is one not given, the docs say)."""
    project = load_project(
        write(
            tmp_path,
            {
                "arena.yaml": """
                prompt: {template: "Bonjour {prénom}: {question}"}
                datasets:
                  - {path: rows.jsonl, fields: {input: [prénom, question]}}
                """,
                "rows.jsonl": '{"id": "a", "prénom": "Marie", "question": "ça va ?"}\n'
                '{"id": "b", "prénom": null, "question": "et toi ?"}\n',
            },
        )
    )
    (case,) = project.cases
    prompt = project.spec.prompt
    assert render_messages(case, prompt.template, prompt.system) == [
        {"role": "user", "content": "Bonjour Marie: ça va ?"}
    ]
    (problem,) = project.problems
    assert (problem.problem.line, problem.problem.message) == (
        2,
        "'prénom' is null in this row; fields.input builds the case's input from prénom, question",
    )


def test_references_read_as_the_text_written_not_as_yaml_1_1_read_them(tmp_path: Path) -> None:
    """`reference: yes` was true (so "expected 'true'"), and `reference: 02116`, a ZIP code,
    the octal 1102; settings that take a boolean still read yes/no."""
    project = load_project(
        write(
            tmp_path,
            {
                "arena.yaml": """
                models:
                  define:
                    m: {connector: sim, cache: yes}
                tests:
                  - {id: yes_no, input: "Is it?", reference: yes}
                  - {id: zip, input: "ZIP?", reference: 02116}
                  - {id: flag, input: "On?", reference: on, metadata: {n: 010, t: true}}
                """
            },
        )
    )
    assert [case.reference for case in project.cases] == ["yes", "02116", "on"]
    assert project.cases[2].metadata == {"n": "010", "t": True}
    assert project.spec.models.define["m"].cache is True


def test_an_empty_dataset_path_is_refused_at_its_line(tmp_path: Path) -> None:
    """Two datasets written as '' crashed the loader (ValueError: PosixPath('.') has an empty
    name), a case hypothesis found."""
    project = load_project(write(tmp_path, {"arena.yaml": "datasets:\n  - ''\n  - {path: ' '}\n"}))
    said = "\n".join(p.problem.format() for p in project.problems)
    assert [p.name for p in project.problems] == ["datasets.0", "datasets.1"]
    assert "arena.yaml:2: datasets[0].path: a dataset's path is empty" in said
    assert "arena.yaml:3: datasets[1].path: a dataset's path is empty" in said
    assert "such as data/cases.jsonl" in said
    for folder in (".", "./", "/", "data/.."):
        project = load_project(
            write(tmp_path / "f", {"arena.yaml": f"datasets:\n  - '{folder}'\n"})
        )
        (problem,) = project.problems
        assert re.search(
            rf"dataset path '{re.escape(folder)}' names a folder", problem.problem.message
        )


def test_a_column_fields_names_that_no_row_has_is_a_problem_of_the_dataset(
    tmp_path: Path,
) -> None:
    """A mapped column the file lacks left every row without its part (all unscored, with
    `reference`), and the run green; one that some rows lack stays each such row's problem."""
    project = load_project(
        write(
            tmp_path,
            {
                "arena.yaml": """
                datasets:
                  - path: a.yaml
                    fields:
                      id: qid
                      input: [question, contxt]
                  - {path: b.jsonl, fields: {reference: answer}}
                  - {path: c.csv, fields: {reference: expected}}
                """,
                "a.yaml": "- {question: q, context: c}\n",
                "b.jsonl": '{"id": "b1", "input": "x", "answer": "x"}\n{"id": "b2", "input": "y"}\n',
                "c.csv": "id,input,answer\n",  # no row: nothing left unscored
            },
        )
    )
    assert [case.id for case in project.cases] == ["b1", "b2"]
    (problem,) = project.problems
    assert [p.format(tmp_path) for p in problem.problems] == [
        "arena.yaml:4: datasets[0].fields.id: no row of a.yaml has the field 'qid' (its rows'"
        " fields: question, context)\n"
        "  fix: map id to one of its fields, or take id out of fields",
        "arena.yaml:5: datasets[0].fields.input[1]: no row of a.yaml has the field 'contxt'"
        " (its rows' fields: question, context)\n"
        "  fix: did you mean 'context'? map input to one of its fields",
    ]
