"""Is the reply polite? The scorer from the custom-scorers guide: it looks for "please"
(its failure says so, where the guide says "no politeness marker")."""

from pytest_arena.scorers import Scorer, ScoreResult


class ToneScorer(Scorer):
    name = "tone"

    def score(self, output, reference, context):
        polite = "please" in output.lower()
        return ScoreResult(
            score=1.0 if polite else 0.0,
            passed=polite,
            reason="found 'please'" if polite else "no 'please' in the reply",
        )
