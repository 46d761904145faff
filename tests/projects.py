"""Project texts that more than one test module runs."""

from __future__ import annotations

import json
import sys
from pathlib import Path

# A scorer that reads each model's verdict from the case's metadata, and a project whose
# numbers test_leaderboard_run computes by hand: per case and model, the score, whether it
# passed and a citation_rate metric.
TABLE_SCORER = """
from pytest_arena.scorers import Scorer, ScoreResult


class TableScorer(Scorer):
    '''Reads each model's verdict from the case's metadata.'''

    name = "table"

    def score(self, output, reference, context):
        row = context.test_case.metadata[context.model_key]
        metrics = {"citation_rate": row["cr"]} if "cr" in row else {}
        return ScoreResult(row["score"], row["passed"], "from the table", metrics=metrics)
"""

TABLE_PROJECT = """
models:
  default: [sim_perfect, pricey]
  define:
    pricey:
      profile: sim_perfect
      latency_ms: 20
      price: {input_per_mtok: 1000000, output_per_mtok: 2000000}
scorers:
  default: table
metrics:
  weights: {accuracy: 0.4, citation_rate: 0.4, cost: 0.2}
tests:
  - id: c1
    input: abcd
    reference: abcdefgh
    metadata:
      sim_perfect: {score: 1.0, passed: true, cr: 1.0}
      pricey: {score: 0.5, passed: false, cr: 0.5}
  - id: c2
    input: abcd
    reference: abcdefgh
    weight: 3
    metadata:
      sim_perfect: {score: 0.5, passed: false, cr: 0.0}
      pricey: {score: 1.0, passed: true, cr: 1.0}
  - id: c3
    input: abcd
    reference: abcdefgh
    metadata:
      sim_perfect: {score: 0.0, passed: null}
      pricey: {score: 0.0, passed: null}
"""

# Six long questions to sim_large, which charges for them: a small budget runs out within it.
BUDGET_PROJECT = """
models: [sim_large]
tests:
""" + "".join(
    f"  - {{id: c{i}, input: '{'a long question ' * 40}', reference: 'an answer'}}\n"
    for i in range(6)
)

# Two priced models: `--arena-max-cost 0` (an empty cache) keeps both from every case, and
# the board says cheap's 1 case and dear's 2 cases were not run.
PRICED = "{profile: sim_perfect, price: {input_per_mtok: 1, output_per_mtok: 1}}"
PRICED_PROJECT = f"""
models:
  default: [cheap, dear]
  define: {{cheap: {PRICED}, dear: {PRICED}}}
tests:
  - {{id: a, input: one, reference: one}}
  - {{id: b, input: two, reference: two, models: [dear]}}
"""


def local_openai(base_url: str, settings: str = "", reference: str = "x") -> str:
    """A project of one case, `a`, on model `m`: the openai connector at `base_url` (the
    local server of tests/fake_llm_server.py, which answers 'x'), with more `settings`."""
    more = f", {settings}" if settings else ""
    return (
        "models:\n  default: [m]\n  define:\n"
        f'    m: {{connector: openai, base_url: "{base_url}"{more}}}\n'
        f'tests:\n  - {{id: a, input: "[[answer=x]] one", reference: {reference}}}\n'
    )


# A python agent that answers "yes" or "no" by a pattern per prompt, one character a sample
# ("10" passes every other sample), and the project head that repeats its cases until
# min_pass_rate is decided: the flaky and repeat tests read their counts off these patterns.
PATTERNED_AGENT = """
PATTERNS = {"steady": "1", "coin": "10", "mostly": "1111011111", "early": "1011111111"}


def answer(prompt, request):
    pattern = PATTERNS[prompt]
    return "yes" if pattern[request.sample % len(pattern)] == "1" else "no"
"""

PATTERNED_PROJECT = """
models:
  default: [patterned]
  define:
    patterned: {connector: python, callable: "agent:answer"}
repeat: {min: 3, max: 10}
min_pass_rate: 0.8
"""


def slow_agent(pids: Path) -> tuple[str, dict[str, str]]:
    """A project whose one case's command agent touches `pids`/<its pid> and sleeps two
    minutes: what a test that stops pytest mid-call waits to see ended."""
    project = f"""
        models:
          default: [slow]
          define:
            slow: {{connector: command, command: [{json.dumps(sys.executable)}, slow.py]}}
        tests:
          - {{id: q, input: x, reference: x}}
        """
    agent = (
        "import os, time\nfrom pathlib import Path\n"
        f"Path({str(pids)!r}, str(os.getpid())).touch()\ntime.sleep(120)\n"
    )
    return project, {"slow.py": agent}
