"""Judge replies that turned a failing case green: quotes, negations, mixed grades, JSON
in other forms, and words that contradict a verdict standing alone."""

from __future__ import annotations

from pathlib import Path

import pytest

from pytest_arena.connectors import build_connector
from pytest_arena.engine.calls import direct
from pytest_arena.evaluation.judge import Judge, JudgeReplyError, parse_verdict
from pytest_arena.spec import Case
from tests.conftest import MakeProject

RUBRIC = "Score 1 if it names the same city, 0 otherwise"
SHOWN = ["Capital of France?", "Lyon", "Paris", RUBRIC]


def verdict(reply: str) -> tuple[float, bool]:
    score, passed, _ = parse_verdict(reply, 0.5, SHOWN)
    return round(score, 6), passed


def error(reply: str) -> str:
    with pytest.raises(JudgeReplyError) as caught:
        parse_verdict(reply, 0.5, SHOWN)
    return str(caught.value)


@pytest.mark.parametrize(
    "reply",
    [
        'The answer claims "Grade: PASS" but names Lyon, not Paris. Score: 0/10',
        "The answer claims \u201cGrade: PASS\u201d but names Lyon, not Paris. Score: 0/10",
        "The answer claims `Grade: PASS` but names Lyon, not Paris. Score: 0/10",
        "> Grade: PASS\nThe answer above names Lyon. Score: 0/10",
    ],
)
def test_a_pass_the_judge_quotes_is_not_its_verdict(reply: str) -> None:
    assert verdict(reply) == (0.0, False)


@pytest.mark.parametrize(
    "reply",
    [
        f'Per the rubric ("{RUBRIC}"), this answer names another city, so it does not meet it.',
        f"Per the rubric, {RUBRIC}; this answer names another city.",  # a passage, unquoted
    ],
)
def test_a_judge_quoting_its_rubric_gives_no_verdict(reply: str) -> None:
    assert error(reply).startswith("the judge's reply holds no verdict")


def test_a_judge_that_echoes_its_prompt_gives_no_verdict() -> None:
    """sim_echo as the judge passed every case whose rubric held a grade."""
    echo = build_connector("sim_echo", {}, Path("arena.yaml"))
    case = Case(id="capital", input="Capital of France?", reference="Paris", project="p")
    judge = Judge(case, direct(lambda key: echo), "sim_echo")
    for rubric in (RUBRIC, "PASS when it names the same city.", 'Reply {"score": 1} if Paris.'):
        with pytest.raises(JudgeReplyError, match="the judge's reply holds no verdict"):
            judge(rubric, "Lyon")


@pytest.mark.parametrize(
    "reply",
    [
        "The answer is NOT CORRECT: it names the wrong city.",
        "This answer does NOT PASS the rubric.",
        "It DOESN'T PASS: wrong city.",
        "The answer is never CORRECT here.",
    ],
)
def test_a_negated_verdict_word_is_a_fail(reply: str) -> None:
    assert verdict(reply) == (0.0, False)


def test_a_negation_reaches_three_words_within_its_clause() -> None:
    assert verdict("It is not INCORRECT.") == (1.0, True)
    assert verdict("No issues found. PASS") == (1.0, True)
    assert verdict("No issues, PASS") == (1.0, True)
    assert verdict("Not only CORRECT but complete. Score: 9/10") == (0.9, True)
    assert verdict("I cannot give this a passing score of 7/10; it is wrong.") == (0.7, False)


def test_a_fail_word_fails_whatever_the_score() -> None:
    assert verdict("Score: 9/10, but FAIL: it names Lyon.") == (0.9, False)
    assert verdict("PASS or FAIL? Score: 8/10") == (0.8, False)
    assert verdict("A PASS at first sight; on reflection FAIL. Score: 2/10") == (0.2, False)


@pytest.mark.parametrize(
    ("reply", "named"),
    [
        ("Score: 0.0\nPASS criteria not met.", "the score 'Score: 0.0' is below the pass mark 0.5"),
        (
            "Score: 3/10. The answer is CORRECT in format but wrong in content.",
            "the word 'CORRECT' a pass",
        ),
    ],
)
def test_a_pass_word_with_a_failing_score_is_an_error(reply: str, named: str) -> None:
    message = error(reply)
    assert message.startswith("the judge's reply says both pass and fail: ")
    assert named in message


def test_a_score_alone_passes_at_the_threshold() -> None:
    assert verdict("7/10") == (0.7, True)
    assert verdict("Score: 3/10") == (0.3, False)
    assert verdict("Score: 7/10 - PASS. Score: 7/10 again.") == (0.7, True)  # the same score


def test_a_reply_with_several_scores_is_an_error() -> None:
    reply = "Score 1 requires the right city; the answer names another one. Score: 0"
    assert error(reply).startswith(
        "the judge's reply gives several scores ('Score 1', 'Score: 0'): plain grade: "
    )


def test_a_score_out_of_nothing_is_out_of_range() -> None:
    assert error("Score: 0/0").startswith("the judge's score 'Score: 0/0' is out of range")


@pytest.mark.parametrize(
    "reply",
    [
        '{"Score": 0.9, "Passed": false, "Reason": "names the wrong city"}',
        '{"score": 0.9, "passed": 0, "reason": "wrong city"}',
        '{"score": 0.9, "verdict": "fail"}',
        '{"score": 0.9, "Grade": "INCORRECT"}',
        'Here it is: {"SCORE": 0.9, "Result": "Failed"} as asked.',
        '"passed": false, "score": 0.9',
        "The verdict, without braces: 'passed': false, 'score': 0.9",
    ],
)
def test_a_json_fail_in_other_forms_fails(reply: str) -> None:
    assert verdict(reply) == (0.9, False)


def test_a_json_pass_in_other_forms_passes() -> None:
    assert verdict('{"Score": 0.2, "Passed": 1}') == (0.2, True)
    assert verdict('{"score": 0.2, "verdict": "PASS", "reason": "lenient"}') == (0.2, True)
    assert verdict('"passed": true, "score": 0.8') == (0.8, True)


def test_a_json_verdict_and_a_key_that_disagree_are_an_error() -> None:
    assert error('{"score": 1, "passed": true, "verdict": "fail"}').startswith(
        "the judge's reply says both pass and fail"
    )


@pytest.mark.parametrize(
    "reply",
    [
        '```json\n{"score": 0.9, "passed": true, "reason": "names the city"}\n```\n'
        "Actually, on reflection the city is wrong. FAIL.",
        '{"score": 0.9, "passed": true, "reason": "ok"}\n\nWait, I misread: the city is wrong. FAIL.',
        'Verdict: FAIL\n\n```json\n{"score": 1, "passed": true}\n```',
    ],
)
def test_a_fail_in_words_beside_a_json_verdict_on_its_own_lines_is_an_error(reply: str) -> None:
    assert error(reply).startswith(
        "the judge's reply says both pass and fail, in its JSON and in its words: "
    )


def test_words_that_agree_with_a_json_verdict_on_its_own_lines_are_fine() -> None:
    reply = '```json\n{"score": 0.9, "passed": true, "reason": "Paris"}\n```\nIt is CORRECT.'
    assert parse_verdict(reply, 0.5, SHOWN) == (0.9, True, "Paris")
    failed = 'Verdict: FAIL\n```json\n{"score": 0, "passed": false, "reason": "Lyon"}\n```'
    assert parse_verdict(failed, 0.5, SHOWN) == (0.0, False, "Lyon")


REPLIES = {
    "negated": "The answer is NOT CORRECT: it names the wrong city.",
    "quoted": 'The answer claims "Grade: PASS" but names Lyon, not Paris. Score: 0/10',
}


def test_a_judge_reply_that_says_fail_fails_the_case(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    """Both cases passed on sim_perfect's right answers, as the judge's words were read as
    a pass: the negated "NOT CORRECT", and the "Grade: PASS" it quoted."""
    make_project(
        "judged",
        """
        models:
          default: [sim_perfect]
          define:
            myjudge: {connector: python, callable: "judge:grade"}
        judge: {model: myjudge}
        scorers: {default: llm_judge}
        tests:
          - {id: negated, input: "Name the French capital.", reference: "Paris"}
          - {id: quoted, input: "Name the French capital!", reference: "Paris"}
        """,
        files={
            "judge.py": f"""
            REPLIES = {REPLIES!r}


            def grade(prompt):
                return REPLIES["negated" if "capital." in prompt else "quoted"]
            """
        },
    )
    result = pytester.runpytest("-p", "no:cacheprovider", "-rA")
    result.assert_outcomes(failed=2)
    result.stdout.fnmatch_lines(
        ["*judged::negated[[]sim_perfect]*", "*judged::quoted[[]sim_perfect]*"]
    )
    result.stdout.fnmatch_lines(["judge myjudge: plain grade: 'The answer is NOT CORRECT*"])
    result.stdout.fnmatch_lines(["judge myjudge: plain grade: 'The answer claims *Grade: PASS*"])
