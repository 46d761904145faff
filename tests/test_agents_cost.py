"""What a failed call of your own agent cost: unknown (a dash on the board) for a model without a price, as
its answers are, never $0; and the line under the boards counts answers alone among those
"of models without a price", not the calls that failed."""

from __future__ import annotations

import json
import re
import textwrap
from pathlib import Path

import pytest

from pytest_arena.connectors import Connector, Request, build_connector
from pytest_arena.engine.calls import Engine
from pytest_arena.engine.limits import Limits
from pytest_arena.record import Record
from pytest_arena.reports.leaderboard import build_board
from pytest_arena.reports.tables import UNKNOWN, render_board, spending
from pytest_arena.spec import Case, load_project
from tests.conftest import MakeProject

CASE = Case(id="q", input="x", reference="x", project="p")
AGENT = "def run(prompt):\n    raise RuntimeError('no plan')\n"


def agent(root: Path, price: str = "") -> Connector:
    root.mkdir(parents=True)
    (root / "agent.py").write_text(AGENT)
    (root / "arena.yaml").write_text(
        "models:\n  define:\n    mine:\n      connector: python\n"
        '      callable: "agent:run"\n' + textwrap.indent(price, " " * 6)
    )
    file = load_project(root / "arena.yaml")
    return build_connector("mine", file.spec.models.define, file.path, file.lines)


def test_a_failed_call_of_an_agent_without_a_price_costs_what_is_unknown(tmp_path: Path) -> None:
    unpriced = agent(tmp_path / "unpriced")
    priced = agent(tmp_path / "priced", "price: {input_per_mtok: 1, output_per_mtok: 2}\n")
    engine = Engine(workspace_root=tmp_path / "work")
    try:
        results = [
            engine.call(c, Request("mine", [{"role": "user", "content": "x"}], CASE), limits)
            for c in (unpriced, priced)
            for limits in [Limits.of(None, c)]
        ]
    finally:
        engine.close()
    assert [r.error is not None for r in results] == [True, True]
    assert [r.cost for r in results] == [None, 0.0]


def record(model: str, status: str, cost: float | None, latency_ms: float | None) -> Record:
    return Record("p", "q", model, status, cost=cost, latency_ms=latency_ms, score=1.0, passed=True)


def test_an_agent_whose_calls_all_failed_shows_an_unknown_cost_and_no_unpriced_answer() -> None:
    """Its row said `$0.000000`, beside a dash for an unpriced agent that answered."""
    records = [
        record("failing", "error", None, None),  # no answer came: its cost is unknown
        record("answering", "passed", None, 12.0),  # an answer of a model without a price
        record("priced", "passed", 0.25, 12.0),
    ]
    board = render_board(build_board("p", records))
    rows = [re.split(r"\s{2,}", line.strip()) for line in board.splitlines()[2:5]]
    costs = {cells[1]: cells[9] for cells in rows}
    assert costs == {"failing": UNKNOWN, "answering": UNKNOWN, "priced": "$0.250000"}, board
    assert spending(records) == (
        "2 answers graded; $0.25 spent on models and judges, and an unknown amount on 1 answer"
        " of models without a price (set price: in models.define)"
    )


def test_a_run_whose_agent_calls_all_failed_says_their_cost_is_unknown(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    make_project(
        "p",
        """
        models:
          default: [mine, sim_perfect]
          define:
            mine: {connector: python, callable: "agent:run"}
        tests:
          - {id: a, input: x, reference: x}
          - {id: b, input: y, reference: y}
        """,
        {"agent.py": AGENT},
    )
    result = pytester.runpytest("-p", "no:cacheprovider", "--arena-json=run.json")
    result.assert_outcomes(passed=2, failed=2)
    (row,) = [line for line in result.stdout.lines if re.match(r"\s+=?\d+\s+mine\s", line)]
    assert row.split()[-2] == UNKNOWN, row  # the cost column: unknown, not $0.000000
    records = json.loads((pytester.path / "run.json").read_text())["records"]
    assert [r["cost"] for r in records if r["model"] == "mine"] == [None, None]
    result.stdout.no_fnmatch_line("*unknown amount on*")  # no answer of theirs came
