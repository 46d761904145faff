"""`arena compare`: changes that round to 0, and reports holding a record twice."""

from __future__ import annotations

import json
import re
from html import unescape
from typing import Any

import pytest

from pytest_arena.engine.money import dollars
from pytest_arena.numbers import signed
from pytest_arena.reports.comparison import ModelComparison, aggregate_lines
from tests.conftest import ARENA, MakeProject

PROJECT = """
models: [sim_perfect]
tests:
  - {id: q1, input: "2 + 2?", reference: "4"}
  - {id: q2, input: "Capital of Italy?", reference: "Rome"}
  - {id: q3, input: "3 * 7?", reference: "21"}
"""


def run_json(pytester: pytest.Pytester, name: str) -> dict[str, Any]:
    pytester.runpytest_subprocess("projects", "--arena-json", name, "-q")
    data: dict[str, Any] = json.loads((pytester.path / name).read_text())
    return data


def test_a_change_that_rounds_to_0_is_said_without_a_sign(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    """A latency 0.2 ms lower said "-0 ms", and so on: "-$0.00", "-0.0 pts", "-0.000"."""
    make_project("mine", PROJECT)
    a = run_json(pytester, "a.json")
    b = json.loads(json.dumps(a))
    (row_a,) = a["leaderboards"][0]["rows"]
    (row_b,) = b["leaderboards"][0]["rows"]
    row_a.update(latency_ms=100.2, cost=0.000101, accuracy=0.5, pass_rate=0.5)
    row_b.update(latency_ms=100.0, cost=0.0001009999, accuracy=0.4999, pass_rate=0.4999)
    b["records"][0]["score"] = 0.9996  # still passed: a mean change of -0.0001
    (pytester.path / "a.json").write_text(json.dumps(a))
    (pytester.path / "b.json").write_text(json.dumps(b))
    result = pytester.run(*ARENA, "compare", "a.json", "b.json", "--html", "cmp.html")
    assert result.ret == 0, result.stderr.str()
    result.stdout.re_match_lines(
        [
            r"accuracy\s+0\.500\s+0\.500\s+0\.000$",
            r"pass_rate\s+50\.0%\s+50\.0%\s+0\.0 pts$",
            r"cost\s+\$0\.000101\s+\$0\.000101\s+\$0\.00$",
            r"latency\s+100 ms\s+100 ms\s+0 ms$",
            r"mean score change 0\.000 over 3 paired cases, 95% CI \[-0\.001, 0\.000\]",
        ]
    )
    page = unescape((pytester.path / "cmp.html").read_text())
    for said in (result.stdout.str(), page):
        assert not re.findall(r"[-+]\$?0(?:\.0*)?(?![.\d])", said)  # a signed 0
    assert "<td>0 ms</td>" in page and "mean score change 0.000 over 3" in page


def test_a_report_holding_a_record_twice_is_refused_naming_it(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    """The comparison kept one of the two at random, and said nothing."""
    make_project("mine", PROJECT)
    a = run_json(pytester, "a.json")
    twice = json.loads(json.dumps(a))
    twice["records"].append(dict(twice["records"][1], status="failed", passed=False, score=0.0))
    (pytester.path / "twice.json").write_text(json.dumps(twice))
    said = (
        "twice.json: records[[]3[]] repeats records[[]1[]]: both are project 'mine', case 'q2',"
        " model 'sim_perfect', sample 0, and a report holds one record of each; write one with"
        " `pytest --arena-json RUN.json`"
    )
    for args in (("compare", "a.json", "twice.json"), ("report", "twice.json", "--html", "x")):
        result = pytester.run(*ARENA, *args)
        assert result.ret == 4
        result.stderr.fnmatch_lines([f"arena {args[0]}: {said}"])
        assert "Traceback" not in result.stderr.str()
    # the same case on another sample, model or project is no repeat
    other = json.loads(json.dumps(a))
    other["records"].append(dict(other["records"][1], sample=1))
    other["records"].append(dict(other["records"][1], model="sim_echo"))
    other["records"].append(dict(other["records"][1], project="theirs"))
    (pytester.path / "other.json").write_text(json.dumps(other))
    assert pytester.run(*ARENA, "compare", "a.json", "other.json").ret == 0


@pytest.mark.parametrize(
    ("before", "after", "said"),
    [
        (0.000101, 0.0001009999, "$0.00"),  # a change that rounds to $0: no sign
        (0.0001009999, 0.000101, "$0.00"),
        (1.25, 1.25, "$0.00"),
        (0.5, 0.75, "+$0.25"),
        (0.75, 0.5, "-$0.25"),
        (0.000101, 0.000088, "-$0.000013"),
        (2.0, 14.5, "+$12.50"),
    ],
)
def test_a_cost_change_is_signed_unless_it_rounds_to_0(
    before: float, after: float, said: str
) -> None:
    item = ModelComparison("p", "m", {"cost": before}, {"cost": after})
    (cost,) = [line for line in aggregate_lines(item) if line[0] == "cost"]
    assert cost[3] == said


def test_a_change_in_dollars_follows_the_rule_of_every_signed_change() -> None:
    assert [signed(d, dollars) for d in (0.25, -0.25, 1e-9, -1e-9, 0.0, -0.0)] == [
        "+$0.25",
        "-$0.25",
        "$0.00",
        "$0.00",
        "$0.00",
        "$0.00",
    ]
    assert [signed(d) for d in (0.5, -1e-9)] == ["+0.500", "0.000"]  # as a format spec writes
