"""pytest-arena: LLM and agent benchmarks as ordinary pytest test suites.

The names below are imported when first used, so that loading the plugin costs a pytest
run that collects no `arena.yaml` next to nothing.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pytest_arena._lazy import lazy_names

if TYPE_CHECKING:
    from pytest_arena.scorers import Scorer, ScoreResult, ScoringContext
    from pytest_arena.spec.case import Case
    from pytest_arena.testing import scoring_context
    from pytest_arena.tools import tool

__version__ = "0.1.0"

_LAZY = {
    "Case": "pytest_arena.spec.case",
    "ScoreResult": "pytest_arena.scorers.base",
    "Scorer": "pytest_arena.scorers.base",
    "ScoringContext": "pytest_arena.scorers.base",
    "scoring_context": "pytest_arena.testing",
    "tool": "pytest_arena.tools",
}

__all__ = [
    "Case",
    "ScoreResult",
    "Scorer",
    "ScoringContext",
    "__version__",
    "scoring_context",
    "tool",
]


__getattr__ = lazy_names(__name__, _LAZY)
