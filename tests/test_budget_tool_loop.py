"""A budget reached in the middle of a case's tool loop: the case started, so it is not
"not run". It was skipped as "call not started" and its trajectory dropped, though its first
model call and a tool had run and been paid for."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import MakeProject

# a sim that is always right, at $0.10 a token: about $2 a turn
MODEL = (
    "models:\n  default: [pricey]\n  define:\n    pricey: {accuracy: 1.0, price:"
    " {input_per_mtok: 100000, output_per_mtok: 100000}}\n"
)
CASE = """
  - id: {id}
    input: "Where is order {order}, and is it in stock?"
    reference:
      tool_calls:
        - {{name: lookup_order, arguments: {{order_id: "{order}"}}}}
        - {{name: check_stock, arguments: {{order_id: "{order}"}}}}
      answer: "Order {order} has shipped."
"""


def tools(log: Path) -> str:
    return f'''
def lookup_order(order_id: str) -> dict:
    """Look an order up: its status."""
    with open({str(log)!r}, "a") as f:
        f.write(f"lookup_order {{order_id}}\\n")
    return {{"order_id": order_id, "status": "shipped"}}


def check_stock(order_id: str) -> str:
    """Whether an order's items are in stock."""
    with open({str(log)!r}, "a") as f:
        f.write(f"check_stock {{order_id}}\\n")
    return "in stock"
'''


def desk(
    make_project: MakeProject, log: Path, cases: list[tuple[str, str]], cap: float | None = None
) -> None:
    text = MODEL + "tools: {max_turns: 5}\n"
    text += "scoring:\n  - {scorer: tool_call}\n"
    if cap is not None:
        text += f"budget: {{max_cost: {cap}}}\n"
    text += "tests:" + "".join(CASE.format(id=i, order=o) for i, o in cases)
    make_project("desk", text, {"tools.py": tools(log)})


def run(pytester: pytest.Pytester, *args: str) -> tuple[pytest.RunResult, dict[str, Any]]:
    report = pytester.path / "run.json"
    report.unlink(missing_ok=True)
    result = pytester.runpytest("-p", "no:cacheprovider", "-rs", f"--arena-json={report}", *args)
    return result, json.loads(report.read_text())


def turn_costs(pytester: pytest.Pytester, make_project: MakeProject, log: Path) -> list[float]:
    """What each turn of the case costs, from a run without a cap: three turns, two tools."""
    desk(make_project, log, [("where", "1182")])
    result, report = run(pytester)
    result.assert_outcomes(passed=1)
    steps = report["records"][0]["response"]["trajectory"]
    assert len(steps) == 3
    log.unlink()
    return [float(s["cost"]) for s in steps]


@pytest.mark.parametrize(
    ("turns", "cap"), [(1, "--arena-max-cost"), (2, "--arena-max-cost"), (2, "project")]
)
def test_a_tool_loop_the_budget_stops_is_cut_short_with_its_turns_kept_and_counted(
    pytester: pytest.Pytester, make_project: MakeProject, turns: int, cap: str
) -> None:
    log = pytester.path / "tools.log"
    costs = turn_costs(pytester, make_project, log)
    # reached by the turns that ran, not before: the next turn is refused
    limit = sum(costs[: turns - 1]) + costs[turns - 1] / 2
    args: list[str] = []
    if cap == "project":
        desk(make_project, log, [("where", "1182")], cap=limit)
        source = "budget.max_cost in arena.yaml of project desk"
    else:
        args = ["--arena-max-cost", str(limit)]
        source = "--arena-max-cost"
    result, report = run(pytester, *args)

    result.assert_outcomes(failed=1)  # started: an error of the case, not a skip
    spent = sum(costs[:turns])
    said = (
        f"model 'pricey' cut short by the budget after {turns} turn{'s' if turns > 1 else ''}"
        f" of its tool loop: budget spent: ${spent:.2f} of ${limit:.2f} ({source});"
        " no final answer"
    )
    result.stdout.fnmatch_lines([said, f"arena: 0 answers graded; ${spent:.2f} spent on*"])
    result.stdout.no_fnmatch_line("*call not started*")
    result.stdout.no_fnmatch_line("*not run: budget spent*")
    result.stdout.no_fnmatch_line("*no case was graded by*")  # its turns are its own
    ran = ["lookup_order 1182", "check_stock 1182"][:turns]
    assert log.read_text().splitlines() == ran

    (record,) = report["records"]
    assert record["status"] == "error" and record["reason"] == said
    steps = record["response"]["trajectory"]
    assert [s["step"] for s in steps] == list(range(1, turns + 1))
    called = [f"{c['name']} {c['arguments']['order_id']}" for c in _calls(steps)]
    assert called == ran and all(s["tool_results"][0]["is_error"] is False for s in steps)
    assert record["cost"] == pytest.approx(spent)
    assert record["tokens"]["input"] > 0 and record["tokens"]["output"] > 0
    assert report["spend"]["on_graded"] == pytest.approx(spent)
    assert report["spend"]["on_ungraded"] == 0 and report["spend"]["budget_skips"] == 0


def test_a_case_whose_first_call_the_budget_refuses_is_still_not_run(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    """Beside a case the budget cut short, one it kept from starting is skipped as before:
    the sim answers inline, so the cases run one after the other."""
    log = pytester.path / "tools.log"
    costs = turn_costs(pytester, make_project, log)
    desk(make_project, log, [("first", "1182"), ("second", "1204")])
    result, report = run(pytester, "--arena-max-cost", str(costs[0] / 2))

    result.assert_outcomes(failed=1, skipped=1)
    result.stdout.fnmatch_lines(
        [
            "*model 'pricey' cut short by the budget after 1 turn of its tool loop: budget"
            " spent: $* of $* (--arena-max-cost); no final answer",
            "arena: 0 answers graded; $* spent on models and judges; 1 not run: budget spent",
            "SKIPPED*projects/desk/arena.yaml:*: budget spent: $* of $*"
            " (--arena-max-cost); call not started",
        ]
    )
    assert log.read_text().splitlines() == ["lookup_order 1182"]  # the second's never ran
    assert [(r["case"], r["status"]) for r in report["records"]] == [("first", "error")]
    assert len(report["records"][0]["response"]["trajectory"]) == 1
    assert report["spend"]["budget_skips"] == 1 and report["spend"]["on_ungraded"] == 0


def _calls(steps: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [c for s in steps for c in s["message"]["tool_calls"]]
