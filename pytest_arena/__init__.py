"""pytest-arena: LLM and agent benchmarks as ordinary pytest test suites."""

from pytest_arena.scorers import Scorer, ScoreResult, ScoringContext
from pytest_arena.spec.case import Case
from pytest_arena.testing import scoring_context

__version__ = "0.1.0"

__all__ = ["Case", "ScoreResult", "Scorer", "ScoringContext", "__version__", "scoring_context"]
