"""Helpers for unit tests of scorers: `ctx = scoring_context(options={"floor": 0.8})`."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from pytest_arena.connectors import Connector, build_connector
from pytest_arena.engine.calls import direct
from pytest_arena.evaluation.judge import Judge
from pytest_arena.scorers.base import ScoringContext
from pytest_arena.spec.case import Case, Input


def scoring_context(
    reference: Any = None,
    *,
    input: Input = "",
    options: Mapping[str, Any] | None = None,
    model_key: str = "sim_small",
    case_id: str = "case",
    tags: Iterable[str] = (),
    metadata: Mapping[str, Any] | None = None,
    project_root: Path | str | None = None,
    workspace: Path | str | None = None,
    judge: str | None = "sim_judge",
    response: Mapping[str, Any] | None = None,
    trajectory: Iterable[Mapping[str, Any]] | None = None,
) -> ScoringContext:
    """A ScoringContext for one made-up case, in one line.

    `judge` names the judge's model key (a simulated one unless you say otherwise);
    pass None for a context without a judge. `response` is `context.response`;
    `trajectory` its steps, for scorers of agents: `[{"message": {"content": "...",
    "tool_calls": [{"id", "name", "arguments"}]}, "tool_results": [...]}, ...]`.
    """
    case = Case(
        id=case_id,
        input=input,
        reference=reference,
        tags=tuple(tags),
        metadata=dict(metadata or {}),
        project="test",
    )
    root = Path(project_root) if project_root is not None else Path.cwd()
    return ScoringContext(
        test_case=case,
        model_key=model_key,
        options=dict(options or {}),
        judge=_judge(case, judge, root) if judge else None,
        project_root=root,
        workspace=Path(workspace) if workspace is not None else None,
        response=_response(response, trajectory),
    )


def _response(
    response: Mapping[str, Any] | None, trajectory: Iterable[Mapping[str, Any]] | None
) -> dict[str, Any]:
    data = dict(response or {})
    if trajectory is not None:
        steps = [{"step": i, **step} for i, step in enumerate(trajectory, 1)]
        data["trajectory"] = steps
        if steps and "message" not in data:
            data["message"] = steps[-1].get("message", {})
    return data


def _judge(case: Case, model: str, root: Path) -> Judge:
    made: dict[str, Connector] = {}

    def connector(key: str) -> Connector:
        if key not in made:
            made[key] = build_connector(key, {}, root / "arena.yaml")
        return made[key]

    return Judge(case, direct(connector), model)
