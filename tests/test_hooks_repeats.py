"""hooks.py override_verdict on a repeated case: the samples it changed reach the case's
record, its reason and the run's summary."""

from __future__ import annotations

import json

import pytest

from tests.conftest import XDIST, MakeProject

# a Python agent that answers case 'half' right on even samples only
AGENT = """
def run(prompt, request):
    if request.case.id == "half":
        return "yes" if request.sample % 2 == 0 else "no"
    return "yes"
"""

OVERRIDE = """
from pytest_arena.scorers import ScoreResult


def override_verdict(result, output, case, context):
    if case.id == "half" and not result.passed:
        return ScoreResult(1.0, True, "known-bad reference, ticket ARENA-7")
    return None
"""

ARENA = """
models:
  default: [agent]
  define:
    agent: {connector: python, callable: "agent:run"}
repeat: 4
tests:
  - {id: half, input: "?", reference: "yes"}
  - {id: steady, input: "?", reference: "yes"}
"""


@pytest.mark.parametrize("workers", [(), (*XDIST, "-n", "2")], ids=["in-process", "xdist"])
def test_an_override_of_some_samples_is_said_for_the_case_and_in_the_summary(
    pytester: pytest.Pytester, make_project: MakeProject, workers: tuple[str, ...]
) -> None:
    make_project("over", ARENA, files={"agent.py": AGENT, "hooks.py": OVERRIDE})
    result = pytester.runpytest("-rA", "--arena-json=r.json", *workers)
    result.assert_outcomes(passed=2)
    result.stdout.fnmatch_lines(
        [
            "*- verdicts changed by hooks.py override_verdict -*",
            "over::half[[]agent]: 2 of 4 samples failed -> passed; the case passed:"
            " known-bad reference, ticket ARENA-7",
        ]
    )
    assert "over::steady" not in result.stdout.str().partition("override_verdict -")[2]
    data = json.loads((pytester.path / "r.json").read_text())
    half = next(r for r in data["records"] if r["case"] == "half")
    assert half["reason"].startswith(
        "passed 4 of 4; needs 100%; hooks.py override_verdict changed 2 of 4 samples"
        " (failed -> passed)"
    )
    assert half["detail"]["override"] == {
        "samples": [1, 3],
        "drawn": 4,
        "changes": "failed -> passed",
        "because": "known-bad reference, ticket ARENA-7",
    }
