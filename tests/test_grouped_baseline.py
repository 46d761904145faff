"""A regression gate on cases that share a `group`, end to end: one case that flipped in a
group is no significant regression, as it is without the group."""

from __future__ import annotations

import pytest

from tests.conftest import MakeProject

AGENT = """
from pathlib import Path

FAILING = Path(__file__).with_name("failing.txt")


def answer(prompt):
    failing = FAILING.read_text().split() if FAILING.exists() else []
    return "wrong" if any(case in str(prompt) for case in failing) else "ok"
"""


def grouped_project(group: str) -> str:
    cases = "\n".join(
        f"  - {{id: c{i}, input: 'question q{i}.', reference: ok{group}}}" for i in range(10)
    )
    return (
        "models:\n  default: [mine]\n  define:\n"
        '    mine: {connector: python, callable: "agent:answer"}\n'
        "gate:\n  regression: significant\n  regression_level: 0.05\n"
        f"tests:\n{cases}\n"
    )


@pytest.mark.parametrize("group", [", group: g", ""], ids=["one group", "no group"])
def test_one_flipped_case_of_a_group_holds_a_significant_regression_gate(
    pytester: pytest.Pytester, make_project: MakeProject, group: str
) -> None:
    """Ten cases of one group, all passed in the baseline, one fails now: the gate failed
    (exit 1) on "change -0.100 (95% CI -0.162 to -0.038), p=0.002 paired z, clustered",
    where the same cases without the group gave McNemar's p = 1 and held."""
    root = make_project("grouped", grouped_project(group), files={"agent.py": AGENT})
    saved = pytester.runpytest("--arena-save-baseline", "base.json", "--no-arena-gate")
    assert saved.ret == 0, saved.stdout.str()
    (root / "failing.txt").write_text("q0.\n")
    result = pytester.runpytest("--arena-baseline", "base.json")
    test = "sign-flip by group (exact)" if group else "McNemar (exact)"
    result.stdout.fnmatch_lines(
        [
            f"grouped mine: accuracy 1.000 -> 0.900, change -0.100 (95% CI -0.326 to +0.126),"
            f" p=1.000 {test}, 10 cases; 1 regressed, 0 fixed, 0 new, 0 gone",
            "gate held*",
        ]
    )
    assert result.ret == 0  # the gate holds, and decides for its project
