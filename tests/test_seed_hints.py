"""Config written as the seeds write it (our first draft's "mock" models, Runloop's scoring
contract and script scorers) gets an error whose fix points the right way."""

from __future__ import annotations

import os
import stat
import sys
import textwrap

import pytest

from pytest_arena.connectors.catalog import describe
from pytest_arena.spec.schema import ModelDef
from tests.conftest import MakeProject

CASE = """
tests:
  - {id: hello, input: "Say hi.", reference: "hi"}
"""

TONE = """
from pytest_arena.scorers import Scorer, ScoreResult


class ToneScorer(Scorer):
    name = "tone"

    def score(self, output, reference, context):
        return ScoreResult(1.0, True, "polite")
"""


def test_mock_models_are_said_to_be_the_simulated_ones(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    make_project("quiz", "models: [sim_perfect]\n" + CASE)
    result = pytester.runpytest("--arena-models", "mock")
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(
        [
            "projects/quiz/arena.yaml: model 'mock' (from --arena-models) is neither defined*",
            "  fix: the builtins are simulated models, what other tools call mock models: offline,"
            " free and deterministic; write --arena-models sim_small (or another builtin) in"
            " place of mock",
        ]
    )


def test_a_mock_connector_is_said_to_be_the_sim_connector(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    make_project(
        "quiz", "models:\n  default: [fake]\n  define:\n    fake: {connector: mock}\n" + CASE
    )
    result = pytester.runpytest()
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(
        [
            "projects/quiz/arena.yaml:4: models.define.fake.connector: unknown connector 'mock'",
            "  fix: the sim connector is what other tools call a mock connector (offline, free and"
            " deterministic): write 'connector: sim', with 'profile: sim_small' or an"
            " 'accuracy: 0.8' of its own; connectors: sim, openai, anthropic, python, command",
        ]
    )
    # `arena models` says it of the key too
    problem = describe("fake", ModelDef(connector="mock"), "defined").problem
    assert problem.startswith("unknown connector 'mock'; the sim connector is what other tools")


def test_runloops_names_in_a_flat_component_are_said_as_ours(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    make_project(
        "contract",
        textwrap.dedent("""
        models: [sim_perfect]
        scoring:
          - name: my scorer
            type: custom_scorer
            custom_scorer_type: exact_match
            scorer_params: {ignore_case: true}
        """)
        + CASE,
    )
    result = pytester.runpytest()
    result.assert_outcomes(errors=1)
    known = "known keys here: command, name, params, required, scorer, timeout, weight"
    result.stdout.fnmatch_lines(
        [
            "projects/contract/arena.yaml:4: scoring[[]0].type: unknown key 'type'",
            "  fix: take it out: Runloop's 'type: custom_scorer' is not needed here, where every"
            f" scorer, builtin or your own, is named by 'scorer:' alone; {known}",
            "projects/contract/arena.yaml:5: scoring[[]0].custom_scorer_type: unknown key"
            " 'custom_scorer_type'",
            "  fix: write it as 'scorer: NAME': Runloop's custom_scorer_type is the scorer's name,"
            f" and every scorer, builtin or your own, is named by 'scorer:' here; {known}",
            "projects/contract/arena.yaml:6: scoring[[]0].scorer_params: unknown key 'scorer_params'",
            "  fix: rename it to 'params': Runloop's scorer_params are a component's params here;"
            f" {known}",
        ]
    )
    assert "did you mean 'scorer'" not in result.stdout.str()


def test_runloops_scoring_function_parameters_are_said_to_be_scoring(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    make_project(
        "contract",
        textwrap.dedent("""
        models: [sim_perfect]
        scoring_function_parameters:
          - {name: my scorer, scorer: exact_match, weight: 1.0}
        """)
        + CASE,
    )
    result = pytester.runpytest()
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(
        [
            "projects/contract/arena.yaml:2: scoring_function_parameters: unknown key"
            " 'scoring_function_parameters'",
            "  fix: rename it to 'scoring': Runloop's scoring_function_parameters are the"
            " components listed under scoring: here, each {name, scorer, weight, params};"
            " known keys here: *",
        ]
    )


def test_runloops_nested_scorer_block_is_said_to_be_flat_here(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    make_project(
        "contract",
        textwrap.dedent("""
        models: [sim_perfect]
        scoring:
          - name: my scorer
            scorer:
              type: custom_scorer
              custom_scorer_type: my_custom_scorer_type
              scorer_params: {expected_length: 10, file_path: /home/user/file.txt}
            weight: 1.0
        """)
        + CASE,
    )
    result = pytester.runpytest()
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(
        [
            "projects/contract/arena.yaml:4: scoring[[]0].scorer: Input should be a valid string"
            " (got a mapping)",
            "  fix: write a string, the scorer's name: {scorer: my_custom_scorer_type, params:"
            " {...}}. Runloop's nested scorer block is flat here: its custom_scorer_type is the"
            " scorer's name, its scorer_params are the component's params, and"
            " 'type: custom_scorer' is not needed",
        ]
    )


def test_several_scorers_where_one_is_named_are_said_as_a_scoring_contract(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    make_project(
        "by_default", "models: [sim_perfect]\nscorers:\n  default: [exact_match, contains]\n" + CASE
    )
    make_project(
        "by_case",
        """
        models: [sim_perfect]
        tests:
          - {id: hello, input: "Say hi.", reference: "hi", eval_type: [exact_match, contains]}
        """,
    )
    result = pytester.runpytest()
    result.assert_outcomes(errors=2)
    contract = "scoring: [[]{scorer: exact_match}, {scorer: contains}]"
    result.stdout.fnmatch_lines(
        [
            "projects/by_case/arena.yaml:3: tests[[]0].eval_type: Input should be a valid string"
            " (got a list)",
            "  fix: write a string: eval_type names one scorer; to grade with several, list them"
            f" under the case's 'scoring:' in its place: {contract}",
        ]
    )
    result.stdout.fnmatch_lines(
        [
            "projects/by_default/arena.yaml:3: scorers.default: Input should be a valid string"
            " (got a list)",
            "  fix: write a string: scorers.default names one scorer; to grade with several,"
            f" list them under the project's 'scoring:' in its place: {contract}",
        ]
    )


def test_a_scorer_named_by_its_class_is_told_its_name(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    make_project(
        "toned",
        """
        models: [sim_perfect]
        tests:
          - {id: polite, input: "Say hi.", reference: "hi", eval_type: ToneScorer}
          - {id: exact, input: "Say hi.", reference: "hi", eval_type: ExactMatchScorer}
        """,
        files={"scorers/tone.py": TONE},
    )
    result = pytester.runpytest()
    result.assert_outcomes(errors=2)
    result.stdout.fnmatch_lines(
        [
            "projects/toned/arena.yaml:3: eval_type: no scorer is named 'ToneScorer' (did you mean"
            " 'tone'? ToneScorer is the class of scorer 'tone', and a scorer is named by its"
            " `name`); known scorers: *",
        ]
    )
    result.stdout.fnmatch_lines(
        [
            "projects/toned/arena.yaml:4: eval_type: no scorer is named 'ExactMatchScorer' (did"
            " you mean 'exact_match'?); known scorers: *",
        ]
    )


RUNLOOP_PYTHON = """
import json
import os

context = json.loads(os.environ["RL_SCORER_CONTEXT"])
expected = context["expected_length"]
print(max(0.0, 1.0 - abs(len(context["output"]) - expected) / expected))
"""


def test_a_python_script_scorer_saved_as_py_is_told_to_drop_the_suffix(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    root = make_project(
        "lengths",
        textwrap.dedent("""
        models: [sim_perfect]
        scorers:
          default: length
          options:
            length: {expected_length: 2}
        """)
        + CASE,
        files={"scorers/length.py": RUNLOOP_PYTHON},
    )
    result = pytester.runpytest()
    result.assert_outcomes(errors=2)
    result.stdout.fnmatch_lines(
        [
            "projects/lengths/scorers/length.py:4: scorer file scorers/length.py failed to"
            " import: KeyError: 'RL_SCORER_CONTEXT'",
            "  fix: it reads RL_SCORER_CONTEXT and defines no class, as a script scorer does, but"
            " a file ending in .py is a Python scorer module, imported, never run: save the script"
            " without the suffix, its first line '#!/usr/bin/env python3'"
            " (mv scorers/length.py scorers/length && chmod +x scorers/length)",
        ]
    )
    # done as it says (with this Python on the '#!' line), the script scores the case
    module = root / "scorers" / "length.py"
    script = root / "scorers" / "length"
    script.write_text(f"#!{sys.executable}\n" + module.read_text())
    module.unlink()
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    result = pytester.runpytest()
    result.assert_outcomes(passed=1)


def test_a_script_scorer_that_imports_cleanly_as_py_is_said_when_its_name_is_asked_for(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    make_project(
        "lengths",
        "models: [sim_perfect]\nscorers:\n  default: length\n" + CASE,
        files={
            "scorers/length.py": "def main():\n    print(1.0)\n\n\n"
            'if __name__ == "__main__":\n    main()\n',
            "scorers/words.py": "MARKER = 'please'\n",  # a helper: loads quietly, as ever
        },
    )
    result = pytester.runpytest()
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(
        [
            "projects/lengths/arena.yaml:3: scorers.default: no scorer is named 'length'; known"
            " scorers: *; scorers/length.py holds no Scorer class, and a file ending in .py is a"
            " Python module, imported, never run: a script scorer that prints its score goes"
            " without the suffix (scorers/length), executable and starting with a '#!' line",
        ]
    )
    assert "words" not in result.stdout.str()


def test_a_scorer_in_a_subfolder_of_scorers_is_said_where_it_is(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    make_project(
        "toned",
        "models: [sim_perfect]\nscorers:\n  default: tone\n" + CASE,
        files={"scorers/domain/tone.py": TONE},
    )
    result = pytester.runpytest()
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(
        [
            "projects/toned/arena.yaml:3: scorers.default: no scorer is named 'tone'; known"
            " scorers: *; scorers/domain/tone.py is in a subfolder, and scorers are looked for in"
            " scorers/ itself only: move it to scorers/ (a subfolder may hold helpers that"
            " scorers import)",
        ]
    )
    assert os.path.isfile(pytester.path / "projects/toned/scorers/domain/tone.py")
