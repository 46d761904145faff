"""pytest-arena: LLM and agent benchmarks as ordinary pytest test suites.

The names below are imported when first used, so that loading the plugin costs a pytest
run that collects no `arena.yaml` next to nothing.
"""

from __future__ import annotations

import sys
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


def _not_rewritten() -> None:
    """Take this package off the modules pytest rewrites the asserts of, as it does every
    module of a plugin installed with an entry point: it parses and compiles each from source
    (half a second for this package), on every run where it cannot keep the result
    (PYTHONDONTWRITEBYTECODE, as many container images set; an install the user cannot
    write to). The asserts here check the package's own workings: rewriting says nothing more
    of them. pytest has no public way to ask this; where its hook is not as read here, the
    modules are rewritten as before."""
    for finder in sys.meta_path:
        if type(finder).__name__ != "AssertionRewritingHook":
            continue
        marked = getattr(finder, "_must_rewrite", None)
        decided = getattr(finder, "_marked_for_rewrite_cache", None)
        if not isinstance(marked, set) or not isinstance(decided, dict):
            continue
        ours = {name for name in marked if name.partition(".")[0] == __name__}
        if ours:  # the package (an entry point's), or its module `-p` names
            marked -= ours
            decided.clear()  # what it decided while they were on it


_not_rewritten()
