"""The scorer API: subclass `Scorer` and return a `ScoreResult`.

The names are imported when first used: the plugin's own modules import pure helpers from
this package (`scorers.text`), and must not load pydantic with them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pytest_arena._lazy import lazy_names

if TYPE_CHECKING:
    from pytest_arena.scorers.base import Scorer, ScoreResult, ScoreResultError, ScoringContext

_LAZY = {
    name: "pytest_arena.scorers.base"
    for name in ("ScoreResult", "ScoreResultError", "Scorer", "ScoringContext")
}

__all__ = ["ScoreResult", "ScoreResultError", "Scorer", "ScoringContext"]

__getattr__ = lazy_names(__name__, _LAZY)
