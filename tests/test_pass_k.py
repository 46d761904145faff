"""pass@k and pass^k of repeated cases whose samples were not all graded: k and n count the
graded samples (passed or failed), not the samples drawn."""

from __future__ import annotations

import json

import jsonschema
import pytest

from pytest_arena.reports.json_report import schema
from pytest_arena.reports.statistics import pass_at_k, pass_hat_k
from tests.conftest import MakeProject

# each case's samples by a fixed pattern: 1 right, 0 wrong, ? an answer the scorer cannot grade
AGENT = """
PATTERNS = {"unsure": "1?1?", "coin": "1010"}
SAYS = {"1": "yes", "0": "no", "?": "?"}


def run(prompt, request):
    return SAYS[PATTERNS[request.case.id][request.sample]]
"""

SCORER = """
from pytest_arena.scorers import Scorer, ScoreResult


class Unsure(Scorer):
    name = "unsure"

    def score(self, output, reference, context):
        if output == "?":
            return ScoreResult(score=0.0, passed=None, reason="the model was not sure")
        right = output == reference
        return ScoreResult(score=float(right), passed=right, reason="" if right else "wrong")
"""

PROJECT = """
models:
  default: [agent]
  define:
    agent: {connector: python, callable: "agent:run"}
scorers: {default: unsure}
repeat: 4
min_pass_rate: 0.5
tests:
  - {id: unsure, input: "a?", reference: "yes"}
  - {id: coin, input: "b?", reference: "yes"}
"""


def test_k_is_the_fewest_graded_samples_not_the_fewest_drawn(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    """The docs said k was the fewest samples a repeated case drew: 4 here, which would have
    left out `unsure` (2 of its 4 samples graded) and said pass@4 of `coin` alone."""
    make_project("pk", PROJECT, {"agent.py": AGENT, "scorers/unsure.py": SCORER})
    result = pytester.runpytest("-p", "no:cacheprovider", "--arena-json=r.json")
    result.assert_outcomes(passed=2)
    result.stdout.fnmatch_lines(["*rank*model*pass@2*pass^2*"])
    data = json.loads((pytester.path / "r.json").read_text())
    jsonschema.validate(data, schema())
    drawn = {r["case"]: (r["sampling"]["drawn"], r["sampling"]["graded"]) for r in data["records"]}
    assert drawn == {"unsure": (4, 2), "coin": (4, 4)}
    (board,) = data["leaderboards"]
    (row,) = board["rows"]
    assert board["k"] == 2
    # unsure: 2 of 2 graded passed; coin: 2 of 4
    assert row["pass_at_k"] == pytest.approx((pass_at_k(2, 2, 2) + pass_at_k(4, 2, 2)) / 2)
    assert row["pass_hat_k"] == pytest.approx((pass_hat_k(2, 2, 2) + pass_hat_k(4, 2, 2)) / 2)
    assert (row["pass_at_k"], row["pass_hat_k"]) == pytest.approx((11 / 12, 7 / 12))


# an agent that answers each sample by the case's input, one character a sample: 1 right,
# 0 wrong, x raises
BY_INPUT = """
def answer(prompt, request):
    said = prompt[request.sample % len(prompt)]
    if said == "x":
        raise RuntimeError("the agent fell over")
    return "yes" if said == "1" else "no"
"""
BY_INPUT_HEAD = """
models:
  default: [agent]
  define:
    agent: {connector: python, callable: "agent:answer"}
metrics: {pass_k: 5}
"""


def test_a_pass_k_above_repeat_is_said_and_an_error_alone_is_no_pass_k(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    """`pass_k: 5` under `repeat: 3` showed pass@5 0.000: no case had 5 samples, so the one
    that erred was all it counted; without that case the columns were `-`, and nothing said
    why."""
    cases = (
        "tests:\n"
        "  - {id: ok, input: '111', reference: 'yes'}\n"
        "  - {id: boom, input: '1x1', reference: 'yes'}\n"
    )
    said = (
        "note: metrics.pass_k is 5, but no case may draw more than 3 samples (its repeat's"
        " most), so pass@5 and pass^5 have no case to go by (-): set pass_k to 3 or less, or"
        " repeat to 5 or more"
    )
    for tests in (cases, cases.replace("  - {id: boom, input: '1x1', reference: 'yes'}\n", "")):
        make_project("pk", BY_INPUT_HEAD + "repeat: 3\n" + tests, {"agent.py": BY_INPUT})
        result = pytester.runpytest("-p", "no:cacheprovider", "--arena-json=r.json")
        result.stdout.fnmatch_lines(["*rank*model*pass@5*pass^5*", "*agent * - * - *", said])
        (board,) = json.loads((pytester.path / "r.json").read_text())["leaderboards"]
        (row,) = board["rows"]
        assert (row["pass_at_k"], row["pass_hat_k"]) == (None, None)
        assert board["notes"] == [said.removeprefix("note: ")]


def test_pass_k_says_the_cases_it_left_out_when_sampling_stopped_them_early(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    """Sequential sampling stopped the three clear failures after 4 samples, so pass@5 was
    the FLAKY case's alone: 1.000 for a model that failed 3 of its 4 cases, said as if it
    were over them all."""
    tests = "".join(
        f"  - {{id: {case}, input: '{said}', reference: 'yes'}}\n"
        for case, said in (("f1", "0"), ("f2", "0"), ("f3", "0"), ("mixed", "110"))
    )
    head = BY_INPUT_HEAD + "repeat: {min: 3, max: 10}\nmin_pass_rate: 0.5\n"
    make_project("pk", head + "tests:\n" + tests, {"agent.py": BY_INPUT})
    result = pytester.runpytest("-p", "no:cacheprovider")
    assert result.parseoutcomes() == {"failed": 3, "flaky": 1}
    result.stdout.fnmatch_lines(
        [
            "*rank*model*pass@5*pass^5*",
            "*agent * 1.000 * 0.083 *",
            "note: pass@5 and pass^5 of agent are over 1 of its 4 cases, leaving out 3 with"
            " fewer than 5 graded samples (sequential sampling stops a case once its verdict is"
            " clear)",
        ]
    )


def test_errors_count_in_pass_k_only_beside_a_graded_case_that_has_k_samples(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    """A case that erred counts as never passing when its repeat allows k samples and some
    graded case has them; cases with fewer are named in the note."""
    tests = (
        "tests:\n"
        "  - {id: ok, input: '11110', reference: 'yes', repeat: 5}\n"
        "  - {id: boom, input: '1x', reference: 'yes', repeat: 5}\n"
        "  - {id: short, input: '1', reference: 'yes', repeat: 3}\n"
        "  - {id: once, input: '1', reference: 'yes'}\n"
    )
    make_project("pk", BY_INPUT_HEAD + tests, {"agent.py": BY_INPUT})
    pytester.runpytest("-p", "no:cacheprovider", "--arena-json=r.json")
    (board,) = json.loads((pytester.path / "r.json").read_text())["leaderboards"]
    (row,) = board["rows"]
    assert (row["pass_at_k"], row["pass_hat_k"]) == (0.5, 0.0)  # ok: 1 and 0; boom: 0
    assert board["notes"] == [
        "pass@5 and pass^5 of agent are over 2 of its 4 cases, leaving out 1 with fewer than"
        " 5 graded samples (repeat draws fewer than 5), 1 drawn once"
    ]
