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
