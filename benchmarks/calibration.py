"""Are the leaderboard's verdicts calibrated? Measured on the simulated models, whose share of
right answers is known. Run by hand:

PYTHONPATH=. python benchmarks/calibration.py [RUNS]

Each run draws a fresh set of cases (the sims' seed), lets the sim connector decide each
answer as it does in a pytest run, and builds the leaderboard from the records with the
plugin's own code (reports/leaderboard.py, reports/verdicts.py). It prints:

- coverage: how often the accuracy's 95% interval holds the sim's true accuracy (0.7, 200
  cases); it should be 93-97%;
- false alarms: two sims of the same accuracy (0.7, 200 cases) not ranked as a tie
  (`=1`) and called different against the leader: at most 5%;
- power: a sim of 0.8 against one of 0.7 on 500 cases called different: at least 80%.
"""

from __future__ import annotations

import sys

from pytest_arena.connectors.base import Request
from pytest_arena.connectors.sim import SimConnector, SimSettings
from pytest_arena.record import FAILED, PASSED, Record
from pytest_arena.reports.leaderboard import Board, build_board
from pytest_arena.spec.case import Case


def sim(key: str, accuracy: float, seed: int) -> SimConnector:
    return SimConnector(key, SimSettings(accuracy=accuracy, seed=seed, format_noise=0.0))


def records(model: SimConnector, cases: list[Case]) -> list[Record]:
    found = []
    for case in cases:
        request = Request(model.key, [{"role": "user", "content": str(case.input)}], case)
        right = model.complete(request).meta.get("verdict") == "right"
        status = PASSED if right else FAILED
        found.append(Record("calibration", case.id, model.key, status, float(right), right))
    return found


def board(models: dict[str, float], n: int, seed: int) -> Board:
    cases = [
        Case(id=f"q{i}", input=f"question {i}", reference=f"answer {i}", project="calibration")
        for i in range(n)
    ]
    found: list[Record] = []
    for key, accuracy in models.items():
        found += records(sim(key, accuracy, seed), cases)
    return build_board("calibration", found)


def main(runs: int) -> None:
    covered = alarms = found = 0
    for seed in range(runs):
        one = board({"sim_a": 0.7}, 200, seed).rows[0].intervals["accuracy"]
        assert one.low is not None and one.high is not None
        covered += one.low <= 0.7 <= one.high
        same = board({"sim_a": 0.7, "sim_b": 0.7}, 200, seed)
        alarms += same.comparisons[0].significant
        apart = board({"sim_a": 0.8, "sim_b": 0.7}, 500, seed)
        found += apart.comparisons[0].significant and apart.rows[0].model == "sim_a"
    print(f"runs: {runs}")
    print(f"coverage of the accuracy's 95% interval (200 cases, truth 0.7): {covered / runs:.1%}")
    print(f"identical sims (0.7, 200 cases) called different: {alarms / runs:.1%}")
    print(f"a 10-point gap (0.8 vs 0.7, 500 cases) detected: {found / runs:.1%}")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 1000)
