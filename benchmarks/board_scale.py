"""How long a leaderboard takes to build at scale. Run by hand:

PYTHONPATH=. python benchmarks/board_scale.py [CASES]

Builds, with the plugin's own code (reports/leaderboard.py), the boards of two unrelated
models of 70% accuracy on CASES pass/fail cases (50,000 by default): once weighing accuracy
alone (ranked by McNemar's exact test), once weighing cost and latency too (ranked by the
composite's bootstrap). Prints the time of each whole `build_boards`.
"""

from __future__ import annotations

import random
import sys
import time

from pytest_arena.record import FAILED, PASSED, Record
from pytest_arena.reports.leaderboard import build_boards


def records(cases: int, weights: dict[str, float]) -> list[Record]:
    rng = random.Random(0)
    board = {"weights": weights}
    found = []
    for model, price in (("model_a", 1e-6), ("model_b", 3e-6)):
        for i in range(cases):
            right = rng.random() < 0.7
            found.append(
                Record(
                    "scale",
                    f"case{i}",
                    model,
                    PASSED if right else FAILED,
                    float(right),
                    right,
                    tokens_in=100,
                    tokens_out=rng.randint(10, 50),
                    cost=price * rng.randint(50, 150),
                    latency_ms=rng.uniform(100, 900),
                    board=board,
                )
            )
    return found


def timed(cases: int, weights: dict[str, float]) -> float:
    found = records(cases, weights)
    start = time.perf_counter()
    build_boards(found)
    return time.perf_counter() - start


def main(cases: int) -> None:
    for label, weights in (
        ("accuracy alone", {"accuracy": 1.0}),
        ("accuracy, cost, latency", {"accuracy": 0.6, "cost": 0.2, "latency": 0.2}),
    ):
        print(f"{cases:,} cases x 2 models, {label}: build_boards {timed(cases, weights):.1f} s")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 50_000)
