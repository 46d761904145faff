"""grounded: the final answer says what the tools returned, and claims nothing they did not.

It reads the case's trajectory (`context.trajectory`): every lookup_order result that came
back gives the order number and status the answer must mention, every refund or
cancellation that succeeded gives the numbers it reported (order, amount), and the answer
may say it refunded or cancelled only if that tool call succeeded.
"""

from __future__ import annotations

import json
import re
from typing import Any

from pytest_arena.scorers import Scorer, ScoreResult, ScoringContext

CLAIMS = {"issue_refund": "refunded", "cancel_order": "cancelled"}


class GroundedScorer(Scorer):
    name = "grounded"

    def score(self, output: str, reference: Any, context: ScoringContext) -> ScoreResult:
        answer = output.lower()
        facts: list[str] = []
        done: set[str] = set()
        for step in context.trajectory:
            for result in step.get("tool_results", []):
                if result["is_error"]:
                    continue
                done.add(result["name"])
                if result["name"] == "lookup_order":
                    order = json.loads(result["content"])
                    facts += [str(order["order_id"]), str(order["status"])]
                elif result["name"] in CLAIMS:  # "refunded 24.50 on order 1190"
                    facts += re.findall(r"\d+(?:\.\d+)?", result["content"])
        facts = list(dict.fromkeys(facts))  # each said once
        problems = [f"does not mention {fact!r}" for fact in facts if fact.lower() not in answer]
        problems += [
            f"says {word!r} but {tool} did not succeed"
            for tool, word in CLAIMS.items()
            if word in answer and tool not in done
        ]
        checks = len(facts) + len(CLAIMS)
        score = max(0.0, 1 - len(problems) / checks)
        if problems:
            return ScoreResult(score, False, "the answer " + "; ".join(problems))
        return ScoreResult(1.0, True, f"the answer matches the tools' results ({len(facts)} facts)")
