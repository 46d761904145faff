"""Does the reply state the facts the customer needs? Politeness is the tone scorer's job.

A case lists its key points in its metadata; each must appear in the reply (ignoring
letter case and runs of whitespace):

    - id: double_charge_refund
      eval_type: key_points
      metadata:
        must_mention: ["order 58213", "$24.99", "5 business days"]

    scorers:
      options:
        key_points:
          pass_share: 1.0   # the share of key points a passing reply must mention
"""

from __future__ import annotations

from typing import Any

from pytest_arena.scorers import Scorer, ScoreResult, ScoringContext


def _squash(text: str) -> str:
    return " ".join(text.split()).casefold()


class KeyPointsScorer(Scorer):
    name = "key_points"

    def score(self, output: str, reference: Any, context: ScoringContext) -> ScoreResult:
        case = context.test_case
        points = case.metadata.get("must_mention") if case is not None else None
        if isinstance(points, str):
            points = [points]
        if not points:
            return ScoreResult(
                0.0, None, "this case lists no key points (metadata: must_mention): unscored"
            )
        pass_share = float(context.options.get("pass_share", 1.0))
        text = _squash(output)
        missing = [str(p) for p in points if _squash(str(p)) not in text]
        found = len(points) - len(missing)
        share = found / len(points)
        if not missing:
            reason = f"mentions all {len(points)} key points"
        else:
            listed = ", ".join(f"'{p}'" for p in missing)
            reason = f"mentions {found} of {len(points)} key points; missing {listed}"
        return ScoreResult(
            score=share,
            passed=share >= pass_share,
            reason=reason,
            detail={"missing": missing, "found": found, "total": len(points)},
        )
