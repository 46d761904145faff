"""The registry of builtin scorers; each family lives in a module of its own."""

from __future__ import annotations

from pytest_arena.scorers.base import Scorer
from pytest_arena.scorers.equality import ExactMatch, JsonMatch
from pytest_arena.scorers.json_schema import JsonSchema
from pytest_arena.scorers.llm_judge import LlmJudge
from pytest_arena.scorers.matching import Choice, Contains, Regex
from pytest_arena.scorers.numeric import NumericMatch
from pytest_arena.scorers.similarity import EditSimilarity, TokenF1
from pytest_arena.scorers.tool_use import ToolCall, Trajectory

BUILTINS: tuple[type[Scorer], ...] = (
    ExactMatch,
    JsonMatch,
    Contains,
    Regex,
    Choice,
    NumericMatch,
    TokenF1,
    EditSimilarity,
    JsonSchema,
    LlmJudge,
    ToolCall,
    Trajectory,
)
