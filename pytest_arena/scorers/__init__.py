"""The scorer API: subclass `Scorer` and return a `ScoreResult`."""

from pytest_arena.scorers.base import Scorer, ScoreResult, ScoreResultError, ScoringContext

__all__ = ["ScoreResult", "ScoreResultError", "Scorer", "ScoringContext"]
