"""Edges where a verdict, a number or a message of the scorers was wrong."""

from __future__ import annotations

import json
import stat
import sys
from pathlib import Path
from typing import Any

import pytest

from pytest_arena.scorers import ScoreResult
from pytest_arena.scorers.builtins import builtin
from pytest_arena.scorers.contract import Part, combine
from pytest_arena.scorers.script import ScriptFailed, ScriptScorer
from pytest_arena.testing import scoring_context
from tests.conftest import MakeProject


def score(name: str, output: str, reference: Any, **options: Any) -> ScoreResult:
    return builtin(name)().score(output, reference, scoring_context(reference, options=options))


def make_executable(path: Path) -> None:
    path.chmod(path.stat().st_mode | stat.S_IXUSR)


# 1. a required component that could not grade


def test_a_required_component_left_unscored_never_lets_the_case_pass(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    """exact_match, required, on a case without a reference was left out, and the case
    PASSED on the other component alone."""
    make_project(
        "p",
        """
        models: [sim_perfect]
        scoring:
          - {scorer: exact_match, required: true}
          - {scorer: regex, params: {pattern: "."}}
        tests:
          - {id: no_reference, input: "x"}
        """,
    )
    result = pytester.runpytest("-rA")
    assert result.parseoutcomes() == {"unscored": 1}
    result.stdout.fnmatch_lines(
        ["*1 of 1 components passed; required 'exact_match' not graded, so the case cannot pass*"]
    )


def test_a_required_unscored_component_beside_a_failure_fails_the_case() -> None:
    unscored = ScoreResult(0.0, None, "cannot tell")
    passed, failed = ScoreResult(1.0, True, "ok"), ScoreResult(0.0, False, "no")
    alone = combine([Part("a", "a", 1, True, unscored), Part("b", "b", 1, False, passed)], None)
    assert alone.passed is None
    assert "required 'a' not graded, so the case cannot pass: unscored" in alone.reason
    with_threshold = combine(
        [Part("a", "a", 1, True, unscored), Part("b", "b", 1, False, passed)], 0.5
    )
    assert with_threshold.passed is None
    beside = combine([Part("a", "a", 1, True, unscored), Part("b", "b", 1, False, failed)], None)
    assert beside.passed is False


# 2. contains: an empty item of a list reference


@pytest.mark.parametrize("mode", ["any", "all"])
def test_an_empty_item_of_a_list_reference_is_not_found_in_every_output(mode: str) -> None:
    """["", "Rome"] passed "Berlin": "" was found in it."""
    result = score("contains", "Berlin", ["", "Rome"], mode=mode)
    assert result.passed is False
    assert result.reason.endswith("(1 empty item of the reference left out)")
    found = score("contains", "Rome", ["", "Rome"], mode=mode)
    assert (found.passed, found.score) == (True, 1.0)


def test_contains_values_with_an_empty_string_are_refused() -> None:
    with pytest.raises(ValueError, match="an empty string is in every output"):
        score("contains", "Berlin", None, values=["", "Rome"])


# 3. regex: an empty reference


@pytest.mark.parametrize("reference", ["", "  "])
def test_an_empty_regex_reference_is_unscored_not_matched_by_everything(reference: str) -> None:
    result = score("regex", "abc", reference)
    assert (result.passed, result.reason) == (
        None,
        "the reference is empty: no pattern to match: unscored",
    )


def test_an_empty_regex_pattern_option_is_refused() -> None:
    with pytest.raises(ValueError, match="an empty pattern matches every output"):
        score("regex", "abc", "b", pattern="")


# 4. json_match: empty lists without order


@pytest.mark.parametrize("ignore_list_order", [False, True])
def test_matching_empty_lists_count_with_or_without_list_order(ignore_list_order: bool) -> None:
    """With ignore_list_order, [] against [] counted for nothing: 0 of 1, not 1 of 2."""
    options = {"ignore_list_order": ignore_list_order}
    result = score("json_match", '{"a": [], "b": 2}', {"a": [], "b": 3}, **options)
    assert result.score == 0.5
    assert result.reason.startswith("1 of 2 values match")
    nested = score("json_match", "[[], []]", [[1], []], **options)
    assert nested.score == 0.5


# 5. a scoring entry's timeout


SLOW_LENGTH = """
import time

from pydantic import BaseModel, ConfigDict

from pytest_arena.scorers import Scorer, ScoreResult


class LengthOptions(BaseModel):
    model_config = ConfigDict(extra="forbid")
    max_words: int = 50


class LengthScorer(Scorer):
    name = "length"
    options_model = LengthOptions

    def score(self, output, reference, context):
        time.sleep(LengthOptions.model_validate(dict(context.options)).max_words)
        return ScoreResult(1.0, True, "short")
"""


def test_a_scoring_entry_timeout_is_the_time_limit_not_an_option(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    """`timeout:` on a scorer with options_model was "unknown option 'timeout'"."""
    make_project(
        "p",
        """
        models: [sim_perfect]
        tests:
          - id: exact
            input: "x"
            reference: "Paris"
            scoring:
              - {scorer: exact_match, timeout: 5}
          - id: slow
            input: "x"
            reference: "Paris"
            scoring:
              - {scorer: length, timeout: 0.5, params: {max_words: 3}}
        """,
        {"scorers/length.py": SLOW_LENGTH},
    )
    result = pytester.runpytest("-rA")
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(["*scorer 'length' did not return within 0.5 s*"])
    result.stdout.no_fnmatch_line("*unknown option*")


# 6. a script's pass_threshold and timeout


HALF = "#!/bin/sh\necho 0.5\n"


@pytest.mark.parametrize(
    ("where", "said"),
    [
        (
            "scorers:\n  options:\n    half: {pass_threshold: high}\n",
            "arena.yaml:4: scorers.options.half: scorer 'half': option 'pass_threshold' is"
            " 'high', not a number from 0 to 1",
        ),
        (
            "scorers:\n  options:\n    half: {pass_threshold: 2}\n",
            "arena.yaml:4: scorers.options.half: scorer 'half': option 'pass_threshold' is 2,"
            " not a number from 0 to 1",
        ),
        (
            "scorers:\n  options:\n    half: {timeout: -5}\n",
            "arena.yaml:4: scorers.options.half: scorer 'half': option 'timeout' is -5, not a"
            " number of seconds above 0",
        ),
        (
            "scorers:\n  options:\n    half: {timeout: 0}\n",
            "arena.yaml:4: scorers.options.half: scorer 'half': option 'timeout' is 0, not a"
            " number of seconds above 0",
        ),
    ],
)
def test_a_script_options_mistake_is_said_at_its_line(
    pytester: pytest.Pytester, make_project: MakeProject, where: str, said: str
) -> None:
    """pass_threshold: high raised ValueError with a traceback in every case; timeout: -5
    timed out at once, timeout: 0 was 30 s, pass_threshold: 2 failed every case."""
    root = make_project(
        "p",
        "models: [sim_perfect]\n"
        + where
        + "tests:\n  - {id: a, input: x, reference: y, eval_type: half}\n",
        {"scorers/half.sh": HALF},
    )
    make_executable(root / "scorers/half.sh")
    result = pytester.runpytest()
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines([f"projects/p/{said}", "  fix: *"])
    result.stdout.no_fnmatch_line("*Traceback*")


def test_a_command_timeout_and_params_are_checked_too(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    make_project(
        "p",
        """
        models: [sim_perfect]
        tests:
          - id: a
            input: x
            reference: y
            scoring:
              - {command: [sh, -c, "echo 1"], params: {pass_threshold: -1}}
        """,
    )
    result = pytester.runpytest()
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(
        ["projects/p/arena.yaml:7: scorer 'sh': option 'pass_threshold' is -1, not a number*"]
    )


# 7. builtin mistakes said once, at the case's line


def test_builtin_option_and_reference_mistakes_are_load_errors_at_the_case(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    """They were "scorer 'regex' raised ValueError" with a traceback, per case."""
    make_project(
        "p",
        """
        models: [sim_perfect]
        scorers:
          options:
            choice: {choices: [a, b]}
        tests:
          - {id: group, input: x, reference: B, eval_type: regex, options: {group: 1}}
          - {id: own_choices, input: x, reference: y, eval_type: choice, options: {choices: [a, b]}}
          - {id: ok, input: x, reference: a, eval_type: choice}
          - {id: shared_plan, input: x, reference: C, eval_type: choice}
          - {id: no_letter, input: x, reference: Berlin, eval_type: choice, options: {convention: inspect}}
        """,
    )
    result = pytester.runpytest("-rA")
    result.assert_outcomes(passed=1, errors=4)
    result.stdout.fnmatch_lines(
        [
            "projects/p/arena.yaml:6: regex: the option group needs the option pattern*",
            "  fix: give a pattern with the group*",
        ]
    )
    for line, reference in ((7, "'y' is not one of"), (9, "'C' is not one of")):
        result.stdout.fnmatch_lines(
            [f"projects/p/arena.yaml:{line}: choice: reference {reference}*"]
        )
    result.stdout.fnmatch_lines(
        ["projects/p/arena.yaml:10: choice: reference 'Berlin' is neither a choice letter*"]
    )
    result.stdout.no_fnmatch_line("*raised ValueError*")


# 8. a shebang naming no program


@pytest.mark.parametrize(
    ("first_line", "said"),
    [
        (
            b"#!/bin/bash\r\n",
            "ends in a carriage return (the file has Windows CRLF line endings), so the system"
            " looks for '/bin/bash\\r', which no program is\n  fix: save it with LF line endings",
        ),
        (
            b"#!/usr/bin/no-such-shell -e\n",
            "its interpreter /usr/bin/no-such-shell, named by its '#!' line, is not installed",
        ),
    ],
)
def test_a_script_whose_interpreter_is_missing_names_it(
    tmp_path: Path, first_line: bytes, said: str
) -> None:
    """It said "could not be started: No such file or directory" of a file that exists."""
    script = tmp_path / "scorers" / "win.sh"
    script.parent.mkdir()
    script.write_bytes(first_line + b"echo 1\r\n")
    make_executable(script)
    scorer = ScriptScorer("win", [str(script)], "script scorers/win.sh")
    with pytest.raises(ScriptFailed) as failed:
        scorer.score("x", "x", scoring_context("x", project_root=tmp_path))
    assert said in str(failed.value)
    assert str(failed.value).startswith("script scorers/win.sh could not be started: its ")


# 9. an executable .py meant as a script


def test_an_executable_python_script_in_scorers_is_told_to_drop_its_suffix(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    root = make_project(
        "p",
        """
        models: [sim_perfect]
        scorers: {default: exact_match}
        tests:
          - {id: a, input: x, reference: x}
        """,
        {
            "scorers/check.py": """
            #!/usr/bin/env python3
            import json, os
            told = json.loads(os.environ["ARENA_SCORER_CONTEXT"])
            print(1)
            """
        },
    )
    make_executable(root / "scorers/check.py")
    result = pytester.runpytest()
    result.stdout.fnmatch_lines(
        [
            "*scorers/check.py:3: scorer file scorers/check.py failed to import: KeyError*",
            "  fix: it starts with '#!' as a script does, but a file ending in .py is a Python"
            " scorer module, imported, not run; a script scorer must not end in .py: drop the"
            " suffix (mv scorers/check.py scorers/check)",
        ]
    )


# 10. a cut output is named in `cut`


def test_an_output_cut_in_the_variable_is_named_in_cut(tmp_path: Path) -> None:
    """A 40,000-character output was cut to 2,000 in the variable with cut None."""
    script = tmp_path / "told.py"
    script.write_text(
        "import json, os\n"
        "told = json.loads(os.environ['ARENA_SCORER_CONTEXT'])\n"
        "whole = open(told['output_file']).read()\n"
        "print(json.dumps({'score': 1, 'detail': {'cut': told.get('cut'),"
        " 'size': len(told['output']), 'whole': len(whole),"
        " 'truncated': told.get('output_truncated')}}))\n"
    )
    scorer = ScriptScorer("told", [sys.executable, str(script)], "script told.py")
    output = "w" * 40_000
    ctx = scoring_context("x", response={"message": {"role": "assistant", "content": output}})
    result = scorer.score(output, "x", ctx)
    assert result.detail["cut"][0] == "output"
    assert (result.detail["size"], result.detail["whole"]) == (2000, 40_000)
    assert result.detail["truncated"] is True
    short = scorer.score("short", "x", scoring_context("x"))
    assert json.dumps(short.detail) == json.dumps(
        {"cut": None, "size": 5, "whole": 5, "truncated": None}
    )


# 11. numeric_match slips


@pytest.mark.parametrize(
    ("output", "reference", "passed", "reason"),
    [
        ("The answer is not 12, it's 13", 12, False, "expected 12, found 13 in *"),
        ("The answer is not 12, it's 13", 13, True, "found 13, as expected"),
        ("1/0", 1, False, "no number found in '1/0'"),
        ("\\frac{1}{0}", 1, False, "no number found in *"),
        ("The answer is 1½", 1, False, "expected 1, found 1.5 in *"),
        ("The answer is 1½", 1.5, True, "found 1.5, as expected"),
        ("about 2 ¾ cups", 2.75, True, "found 2.75, as expected"),
        ("¼", 0.25, True, "found 0.25, as expected"),
    ],
)
def test_numeric_match_slips(output: str, reference: float, passed: bool, reason: str) -> None:
    """ "is not 12" was the answer 12; "1/0" was 1; "1½" was 1."""
    import fnmatch

    result = score("numeric_match", output, reference)
    assert result.passed is passed
    assert fnmatch.fnmatchcase(result.reason, reason), result.reason
