"""Bad input gets an error with file, line and fix, and the rest of the run goes on."""

from __future__ import annotations

import json

import pytest

from tests.conftest import MakeProject

GOOD = """
models: [sim_perfect]
tests:
  - id: one
    input: "1"
    reference: "1"
  - id: two
    input: "2"
    reference: "2"
"""


def test_a_yaml_syntax_error_names_file_and_line_and_the_other_project_runs(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    make_project("good", GOOD)
    make_project(
        "broken",
        """
        models: [sim_perfect]
        tests:
          - id: one
            input: "what: is this": no
        """,
    )
    result = pytester.runpytest("-v")
    result.assert_outcomes(passed=2, errors=1)
    result.stdout.fnmatch_lines(["projects/broken/arena.yaml::config ERROR*"])
    result.stdout.fnmatch_lines(
        [
            "*ERROR at setup of broken::config*",
            "projects/broken/arena.yaml:4: YAML syntax error: mapping values are not allowed*",
            "  fix: quote a value that contains ': '*",
        ]
    )
    result.stdout.fnmatch_lines(["*arena leaderboard: good*"])


def test_a_schema_error_names_file_line_and_key_and_the_other_project_runs(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    make_project("good", GOOD)
    make_project(
        "broken",
        """
        models: [sim_perfect]
        scorers:
          default: exact_match
          option:
            exact_match: {ignore_case: true}
        tests: []
        """,
    )
    result = pytester.runpytest()
    result.assert_outcomes(passed=2, errors=1)
    result.stdout.fnmatch_lines(
        [
            "projects/broken/arena.yaml:4: scorers.option: unknown key 'option'",
            "  fix: did you mean 'options'? known keys here: default, options",
        ]
    )
    result.stdout.fnmatch_lines(["*arena leaderboard: good*"])
    result.stdout.no_fnmatch_line("*arena leaderboard: broken*")


def test_an_unknown_top_level_key_suggests_the_right_one(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    make_project("broken", "model: [sim_perfect]\ntests: []\n")
    result = pytester.runpytest()
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(
        [
            "projects/broken/arena.yaml:1: model: unknown key 'model'",
            "  fix: did you mean 'models'? known keys here: budget, datasets, description, flaky, gate, judge, metrics,*",
        ]
    )


def test_a_wrong_type_says_what_was_found(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    make_project(
        "broken",
        """
        models: [sim_perfect]
        metrics:
          weights:
            accuracy: lots
        """,
    )
    result = pytester.runpytest()
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(
        ["projects/broken/arena.yaml:4: metrics.weights.accuracy: Input should be a valid number*"]
    )


def test_one_broken_case_does_not_hide_the_others(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    make_project(
        "mixed",
        """
        models: [sim_perfect]
        tests:
          - id: fine
            input: "1"
            reference: "1"
          - id: typo
            inptu: "2"
            reference: "2"
          - id: "has space"
            input: "3"
          - id: fine
            input: "4"
            reference: "4"
          - id: last
            input: "5"
            reference: "5"
        """,
    )
    result = pytester.runpytest("-rE")
    result.assert_outcomes(passed=2, errors=3)
    result.stdout.fnmatch_lines(
        [
            "projects/mixed/arena.yaml:7: tests[[]1].inptu: unknown key 'inptu'",
            "  fix: did you mean 'input'?*",
            "projects/mixed/arena.yaml:6: 'input' is required in tests[[]1]",
        ]
    )
    result.stdout.fnmatch_lines(
        [
            "projects/mixed/arena.yaml:9: tests[[]2].id: case id 'has space' may hold only ASCII letters*"
        ]
    )
    result.stdout.fnmatch_lines(
        ["projects/mixed/arena.yaml:11: duplicate case id 'fine' (first at line 3)"]
    )


def test_bad_dataset_rows_are_errors_with_their_line_and_good_rows_run(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    make_project(
        "rows",
        """
        models: [sim_perfect]
        datasets:
          - path: data/cases.jsonl
            fields: {id: qid, input: question, reference: answer}
          - path: data/more.csv
          - path: data/absent.jsonl
        """,
        files={
            "data/cases.jsonl": (
                '{"qid": "a", "question": "1", "answer": "1"}\n'
                '{"qid": "b", "question": "2", "answer": "2"\n'
                '{"qid": "c", "answer": "3"}\n'
                '{"qid": "d", "question": "4", "answer": "4"}\n'
            ),
            "data/more.csv": "id,input,reference,weight\ne,5,5,1\nf,6,6,heavy\n",
        },
    )
    result = pytester.runpytest()
    result.assert_outcomes(passed=3, errors=4)
    result.stdout.fnmatch_lines(["projects/rows/data/cases.jsonl:2: not valid JSON*"])
    result.stdout.fnmatch_lines(
        [  # and it says what the row has: a misspelt field shows
            "projects/rows/data/cases.jsonl:3: row has no 'question' field for the case input"
            " (it has qid, answer)"
        ]
    )
    result.stdout.fnmatch_lines(
        ["projects/rows/data/more.csv:3: weight: Input should be a valid number*"]
    )
    result.stdout.fnmatch_lines(
        [
            "projects/rows/arena.yaml:6: datasets[[]2].path: dataset file 'data/absent.jsonl' does not exist*"
        ]
    )


def test_a_scorer_file_that_fails_to_import_is_named_and_other_scorers_still_work(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    make_project(
        "scored",
        """
        models: [sim_perfect]
        tests:
          - {id: plain, input: "1", reference: "1"}
          - {id: toned, input: "2", reference: "2", eval_type: tone}
        """,
        files={"scorers/tone.py": "import math\n\nvalue = math.nope\n"},
    )
    result = pytester.runpytest()
    result.assert_outcomes(passed=1, errors=2)
    result.stdout.fnmatch_lines(
        [
            "*ERROR at setup of scored::scorers/tone.py*",
            "projects/scored/scorers/tone.py:3: scorer file scorers/tone.py failed to import:"
            " AttributeError: module 'math' has no attribute 'nope'",
        ]
    )
    result.stdout.fnmatch_lines(
        [
            "projects/scored/arena.yaml:4: eval_type: no scorer is named 'tone'; known scorers:"
            " choice, contains, edit_similarity, exact_match, json_match, json_schema, llm_judge,"
            " numeric_match, regex, token_f1, tool_call, trajectory; these scorer files failed to load and may define it: tone.py"
        ]
    )


def test_a_syntax_error_in_a_scorer_file_points_at_its_line(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    make_project(
        "scored",
        GOOD,
        files={"scorers/bad.py": "from pytest_arena import Scorer\n\ndef broken(:\n    pass\n"},
    )
    result = pytester.runpytest()
    result.assert_outcomes(passed=2, errors=1)
    result.stdout.fnmatch_lines(
        [
            "projects/scored/scorers/bad.py:3: scorer file scorers/bad.py failed to import: SyntaxError*"
        ]
    )


def test_two_scorers_with_one_name_is_an_error_naming_both_files(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    scorer = """
    from pytest_arena import Scorer, ScoreResult


    class {cls}(Scorer):
        name = "tone"

        def score(self, output, reference, context):
            return ScoreResult(1.0, True)
    """
    make_project(
        "scored",
        GOOD,
        files={
            "scorers/a_tone.py": scorer.format(cls="ToneScorer"),
            "scorers/b_tone.py": scorer.format(cls="OtherToneScorer"),
        },
    )
    result = pytester.runpytest()
    result.assert_outcomes(passed=2, errors=1)
    result.stdout.fnmatch_lines(
        [
            "projects/scored/scorers/b_tone.py:4: scorer name 'tone' of OtherToneScorer is already"
            " taken by a_tone.py:4",
            "  fix: give each scorer its own `name`",
        ]
    )


def test_an_eval_type_naming_no_scorer_lists_the_known_ones(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    make_project(
        "scored",
        """
        models: [sim_perfect, sim_echo]
        tests:
          - {id: ok, input: "1", reference: "1"}
          - {id: typo, input: "2", reference: "2", eval_type: json_mach}
        """,
    )
    result = pytester.runpytest()
    result.assert_outcomes(passed=2, errors=2)
    result.stdout.fnmatch_lines(
        [
            "projects/scored/arena.yaml:4: eval_type: no scorer is named 'json_mach'"
            " (did you mean 'json_match'?); known scorers: choice, contains, edit_similarity,*"
        ]
    )
    # the broken case still counts on the leaderboard, as an error for each model
    result.stdout.re_match_lines(
        [
            r"\s+=?\d\s+sim_perfect\s+0\.500 ± 0\.500\s+0\.500 ± 0\.500\s+50\.0% ± 40\.5\s+2\s+0\s+1\s"
        ]
    )


def test_a_misspelt_builtin_option_names_the_valid_options(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    make_project(
        "scored",
        """
        models: [sim_perfect]
        scorers:
          options:
            exact_match: {ignorecase: true}
        tests:
          - {id: one, input: "1", reference: "1"}
          - {id: two, input: "2", reference: {a: 1}, eval_type: json_match}
        """,
    )
    result = pytester.runpytest()
    result.assert_outcomes(passed=1, errors=1)
    result.stdout.fnmatch_lines(
        [
            "projects/scored/arena.yaml:4: scorers.options.exact_match: scorer 'exact_match':"
            " unknown option 'ignorecase'"
            " (valid options: ignore_case, normalize_whitespace)"
        ]
    )


def test_a_broken_hooks_file_is_an_error_at_its_line(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    make_project("good", GOOD)
    make_project(
        "hooked",
        GOOD,
        files={"hooks.py": "def post_process(output):\n    return output\n"},
    )
    result = pytester.runpytest()
    result.assert_outcomes(passed=2, errors=1)
    result.stdout.fnmatch_lines(
        [
            "projects/hooked/hooks.py:1: post_process must accept the arguments (output, case, context)",
            "  fix: define it as 'def post_process(output, case, context):'",
        ]
    )


def test_a_prompt_template_variable_missing_from_a_case_is_an_error_for_that_case(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    make_project(
        "templated",
        """
        models: [sim_perfect]
        prompt:
          template: "Translate into {language}: {text}"
        tests:
          - id: ok
            input: {language: French, text: cat}
            reference: chat
          - id: lacking
            input: {text: dog}
            reference: chien
        """,
    )
    result = pytester.runpytest()
    result.assert_outcomes(passed=1, errors=1)
    result.stdout.fnmatch_lines(
        [
            "projects/templated/arena.yaml:8: prompt.template uses {language}, which this case's input lacks"
        ]
    )


@pytest.mark.parametrize(
    ("case", "line", "message"),
    [
        (
            "{id: typo, input: x, reference: Paris, eval_type: contains, options: {ignorecase: true}}",
            "projects/scored/arena.yaml:6:",
            "scorer 'contains': unknown option 'ignorecase'"
            " (valid options: values, mode, ignore_case, negate)",
        ),
        (
            "{id: typo, input: x, reference: '42', scoring: [{scorer: numeric_match, params: {abs_tolerance: 1}}]}",
            "projects/scored/arena.yaml:6:",
            "scorer 'numeric_match': unknown option 'abs_tolerance'"
            " (valid options: abs_tol, rel_tol, pick, partial_credit, convention)",
        ),
        (
            "{id: typo, input: x, reference: Paris, eval_type: llm_judge, options: {rubrik: be strict}}",
            "projects/scored/arena.yaml:6:",
            "scorer 'llm_judge': unknown option 'rubrik' (valid options: rubric, rubric_file,"
            " model, samples, reduce, threshold, include_reference)",
        ),
        (
            "{id: typo, input: x, reference: B, eval_type: choice, options: {choises: [a, b]}}",
            "projects/scored/arena.yaml:6:",
            "scorer 'choice': unknown option 'choises' (valid options: choices, convention)",
        ),
    ],
    ids=["case_options", "contract_params", "llm_judge", "choice"],
)
def test_a_misspelt_option_of_one_case_names_the_scorer_and_the_valid_options(
    pytester: pytest.Pytester, make_project: MakeProject, case: str, line: str, message: str
) -> None:
    make_project(
        "scored",
        f"""
        models: [sim_perfect]
        tests:
          - {{id: one, input: "1", reference: "1"}}
          - {{id: two, input: "2", reference: "2"}}
          - {{id: three, input: "3", reference: "3"}}
          - {case}
        """,
    )
    result = pytester.runpytest()
    result.assert_outcomes(passed=3, errors=1)
    result.stdout.fnmatch_lines([f"{line} {message}"])


def test_an_arena_models_key_that_would_break_node_ids_is_a_usage_error(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    make_project("p", "tests:\n  - {id: a, input: x}\n")
    result = pytester.runpytest("--arena-models", "sim_small,sim large")
    assert result.ret == 4
    result.stderr.fnmatch_lines(
        ["*--arena-models: model key 'sim large' may hold only letters, digits and _ . - / : @ +*"]
    )


def test_a_second_project_of_the_same_name_is_an_error_not_a_merge(
    pytester: pytest.Pytester,
) -> None:
    for team, reference in (("team1", "hi"), ("team2", "bye")):
        folder = pytester.mkdir(team) / "quiz"
        folder.mkdir()
        (folder / "arena.yaml").write_text(
            "models: [sim_echo]\n"
            "gate: {all: {accuracy: {min: 1.0}}}\n"
            f"tests:\n  - {{id: q1, input: hi, reference: {reference}}}\n"
        )
    result = pytester.runpytest("-p", "no:cacheprovider", "--arena-json", "r.json")
    assert result.ret == 1  # before: 0, team2's failure merged into team1's board
    result.assert_outcomes(passed=1, errors=1)
    result.stdout.fnmatch_lines(
        [
            "*team2/quiz/arena.yaml:1: the project name 'quiz' is also team1/quiz/arena.yaml's;"
            " two projects of one name would mix their records, leaderboards and gates: set"
            " 'name:' in one arena.yaml to tell them apart*"
        ]
    )
    records = json.loads((pytester.path / "r.json").read_text())["records"]
    assert [(r["project"], r["case"], r["status"]) for r in records] == [("quiz", "q1", "passed")]


def test_an_unquoted_date_is_a_reference_like_any_text(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    make_project(
        "p",
        "models: [sim_perfect]\ntests:\n"
        "  - {id: moon, input: 'When did Apollo 11 land?', reference: 1969-07-20}\n",
    )
    result = pytester.runpytest("-p", "no:cacheprovider", "--arena-json", "r.json")
    result.assert_outcomes(passed=1)  # before: "Object of type date is not JSON serializable"
    record = json.loads((pytester.path / "r.json").read_text())["records"][0]
    assert (record["reference"], record["output"]) == ("1969-07-20", "1969-07-20")


def test_inputs_that_could_not_be_loaded_are_said_under_the_boards(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    """A case whose template lacks a variable is on no board: the board's accuracy was of
    the other cases, and nothing under it said so."""
    make_project(
        "tr",
        """
        models: [sim_perfect]
        prompt: {template: "Say {text} in {language}"}
        tests:
          - {id: ok, input: {text: hi, language: French}, reference: "Say hi in French"}
          - {id: no_language, input: {text: hi}, reference: x}
        """,
    )
    result = pytester.runpytest()
    result.assert_outcomes(passed=1, errors=1)
    result.stdout.fnmatch_lines(
        [
            "*arena leaderboard: tr*",
            "arena: 1 input could not be loaded, so its cases are on no leaderboard (the errors"
            " above say why)",
        ]
    )


def test_collect_only_of_a_project_that_cannot_load_fails_and_says_why(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    """`pytest --co -q` as a check of the YAML in CI passed (exit 0) on a broken arena.yaml,
    listing it as a test named `config`; a Python file that cannot be imported exits 2."""
    make_project("good", "models: [sim_perfect]\ntests: [{id: a, input: x, reference: x}]\n")
    make_project("bad", "models: [sim_perfect]\ntests: [{id: a, input: x, reference: x}\n")
    result = pytester.runpytest("--collect-only", "-q")
    assert result.ret == pytest.ExitCode.INTERRUPTED
    result.stdout.fnmatch_lines(
        [
            "arena: 1 input(s) could not be loaded (exit status 2, as a Python file that cannot"
            " be imported):",
            "  projects/bad/arena.yaml::config: projects/bad/arena.yaml:*: YAML syntax error*",
        ]
    )
    fine = pytester.runpytest("--collect-only", "-q", "projects/good")
    assert fine.ret == 0 and "could not be loaded" not in fine.stdout.str()


def test_a_fields_column_the_dataset_lacks_is_an_error_at_its_line_not_a_green_run(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    """`fields: {reference: expected}` over a file with no `expected` column left every row
    unscored, and the run was green (`1 passed, 2 unscored`, accuracy 1.000)."""
    make_project(
        "p",
        """
        models: [sim_perfect]
        tests:
          - {id: inline1, input: "Capital of France?", reference: "Paris"}
        datasets:
          - path: data/f.csv
            fields: {input: question, reference: expected}
          - path: data/g.jsonl
            fields:
              input: question
              reference: anwser
        """,
        files={
            "data/f.csv": "id,question,answer\nr1,What is 2+2,4\nr2,What is 3+3,6\n",
            "data/g.jsonl": '{"id": "g1", "question": "1+1", "answer": "2"}\n'
            '{"id": "g2", "question": "2+1", "answer": "3", "note": "x"}\n',
        },
    )
    result = pytester.runpytest("-p", "no:cacheprovider")
    result.assert_outcomes(passed=1, errors=2)  # the inline case; each dataset, once
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(
        [
            "projects/p/arena.yaml:6: datasets[[]0].fields.reference: column 'expected' is not"
            " in data/f.csv (its columns: id, question, answer)",
            "  fix: map reference to one of its columns, or take reference out of fields",
        ]
    )
    result.stdout.fnmatch_lines(
        [
            "projects/p/arena.yaml:10: datasets[[]1].fields.reference: no row of data/g.jsonl"
            " has the field 'anwser' (its rows' fields: id, question, answer, note)",
            "  fix: did you mean 'answer'? map reference to one of its fields",
        ]
    )
    result.stdout.no_fnmatch_line("*unscored*")


def test_a_lone_surrogate_in_a_row_is_an_error_at_its_line_and_the_other_rows_run(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    """`"a\\ud800b"` (a valid JSON escape) loaded, then each case failed with a bare
    "UnicodeEncodeError: 'utf-8' codec can't encode character '\\ud800'", no file or line."""
    make_project(
        "p",
        """
        models:
          default: [ag]
          define:
            ag: {connector: command, command: ["sh", "agent.sh"]}
        datasets: [data/s.jsonl]
        """,
        files={
            "agent.sh": "cat\n",
            "data/s.jsonl": '{"id":"s1","input":"a\\ud800b","reference":"a\\ud800b"}\n'
            '{"id":"s2","input":"plain","reference":"\\udc00"}\n'
            '{"id":"s3","input":"x","reference":"x","metadata":{"k":"\\udfff"}}\n'
            '{"id":"s4","input":"\\ud83d\\ude00","reference":"\\ud83d\\ude00"}\n'
            '{"id":"s5","input":"x","reference":"x","\\udbff":1}\n',
        },
    )
    result = pytester.runpytest("-p", "no:cacheprovider")
    result.assert_outcomes(passed=1, errors=4)  # s4's pair is a whole character
    fix = "  fix: write the whole pair (\\ud83d\\ude00) or remove it"
    for line, key, half in [
        (1, "input", "d800"),
        (2, "reference", "dc00"),
        (3, "metadata.k", "dfff"),
        (5, "\\udbff", "dbff"),  # a key of the row, kept as its metadata
    ]:
        result.stdout.fnmatch_lines(
            [
                f"projects/p/data/s.jsonl:{line}: {key}: holds an unpaired surrogate (\\u{half}),"
                " half of a character",
                fix,
            ]
        )
    result.stdout.no_fnmatch_line("*UnicodeEncodeError*")


def test_a_boolean_where_a_number_goes_is_an_error_at_its_line_not_0_or_1(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    """`threshold: false` passed an answer 0.10 similar (a threshold of 0), and
    `budget: {max_cost: false}` skipped every case as over a $0 budget, exit 0."""
    make_project(
        "settings",
        """
        models:
          default: [priced]
          define:
            priced: {connector: sim, price: {input_per_mtok: true}}
        budget: {max_cost: false}
        tests:
          - {id: a, input: "Name the largest planet.", reference: Jupiter}
        """,
    )
    make_project(
        "cases",
        """
        models: [sim_small]
        scorers: {default: edit_similarity}
        tests:
          - {id: a, input: "Name the largest planet.", reference: Jupiter, threshold: false}
          - {id: b, input: "Name the largest planet.", reference: Jupiter, weight: true}
        """,
    )
    result = pytester.runpytest("-p", "no:cacheprovider")
    result.assert_outcomes(errors=3)
    fix = "is a boolean, not a number: write a number such as 0.5 (or leave the setting out)"
    for where, key, value in [
        ("settings/arena.yaml:4", "models.define.priced.price.input_per_mtok", "true"),
        ("settings/arena.yaml:5", "budget.max_cost", "false"),
        ("cases/arena.yaml:4", "tests[[]0].threshold", "false"),
        ("cases/arena.yaml:5", "tests[[]1].weight", "true"),
    ]:
        result.stdout.fnmatch_lines([f"projects/{where}: {key}: {value} {fix}"])
