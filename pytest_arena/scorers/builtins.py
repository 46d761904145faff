"""The registry of builtin scorers. Each family lives in a module of its own, imported when
a project first asks for one of its scorers (a run that only compares text loads none of
the others)."""

from __future__ import annotations

import importlib

from pytest_arena.scorers.base import Scorer

BUILTINS: dict[str, str] = {  # name: "module:class" (also the names, in their order)
    "exact_match": "pytest_arena.scorers.equality:ExactMatch",
    "json_match": "pytest_arena.scorers.equality:JsonMatch",
    "contains": "pytest_arena.scorers.matching:Contains",
    "regex": "pytest_arena.scorers.matching:Regex",
    "choice": "pytest_arena.scorers.matching:Choice",
    "numeric_match": "pytest_arena.scorers.numeric:NumericMatch",
    "token_f1": "pytest_arena.scorers.similarity:TokenF1",
    "edit_similarity": "pytest_arena.scorers.similarity:EditSimilarity",
    "json_schema": "pytest_arena.scorers.json_schema:JsonSchema",
    "llm_judge": "pytest_arena.scorers.llm_judge:LlmJudge",
    "tool_call": "pytest_arena.scorers.tool_use:ToolCall",
    "trajectory": "pytest_arena.scorers.tool_use:Trajectory",
}


def builtin(name: str) -> type[Scorer]:
    """The class of the builtin scorer `name` (a key of BUILTINS), its module imported."""
    module, _, cls = BUILTINS[name].partition(":")
    found: type[Scorer] = getattr(importlib.import_module(module), cls)
    return found


def builtin_classes() -> tuple[type[Scorer], ...]:
    """Every builtin scorer's class, all their modules imported."""
    return tuple(builtin(name) for name in BUILTINS)
