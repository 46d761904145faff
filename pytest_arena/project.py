"""A project ready to run: its file, scorers, hooks and model connectors."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from pytest_arena.connectors import Connector, build_connector
from pytest_arena.importing import project_package
from pytest_arena.project_hooks import ProjectHooks, load_hooks
from pytest_arena.scorers.builtins import BUILTINS
from pytest_arena.scorers.discovery import ScorerEntry, ScorerSet, discover
from pytest_arena.spec import Case, ProjectFile, load_project
from pytest_arena.spec.errors import location

DEFAULT_SCORER = "exact_match"


@dataclass(frozen=True)
class Plan:
    """How one case is scored."""

    scorer: str
    entry: ScorerEntry
    options: dict[str, Any]


class PlanError(Exception):
    """A case that cannot be scored as written; the message says why and where."""


@dataclass
class Project:
    file: ProjectFile
    scorers: ScorerSet
    hooks: ProjectHooks
    _connectors: dict[str, Connector] = field(default_factory=dict)

    @property
    def name(self) -> str:
        return self.file.name

    @property
    def root(self) -> Path:
        return self.file.root

    def connector(self, key: str, asked_by: str = "") -> Connector:
        """The connector for model `key`; SpecError if the project cannot reach it."""
        if key not in self._connectors:
            file = self.file
            self._connectors[key] = build_connector(
                key, file.spec.models.define, file.path, file.lines, asked_by
            )
        return self._connectors[key]

    def default_models(self) -> list[str]:
        return list(self.file.spec.models.default)

    def plan(self, case: Case) -> Plan:
        """Which scorer grades `case`, with which options; PlanError if that cannot work."""
        spec = self.file.spec
        name = case.eval_type or spec.scorers.default or DEFAULT_SCORER
        entry = self.scorers.get(name)
        where = location(case.source, case.line_of("eval_type"))
        if entry is None:
            source = "eval_type" if case.eval_type else "scorers.default"
            raise PlanError(f"{where}: {source}: {self.scorers.unknown(name)}")
        shared = spec.scorers.options.get(name, {})
        options = {**shared, **case.options}
        model = type(entry.scorer).options_model
        if model is not None:
            try:
                model.model_validate(options)
            except ValidationError as exc:
                first = str(exc.errors()[0]["loc"][0]) if exc.errors()[0]["loc"] else ""
                where = location(case.source, case.line_of("options"))
                if first in shared and first not in case.options:
                    loc = ("scorers", "options", name, first)
                    line = self.file.lines.line(loc)
                    where = f"{location(self.file.path, line)}: scorers.options.{name}"
                raise PlanError(f"{where}: {_options_problem(name, model, exc)}") from None
        return Plan(name, entry, options)

    def board(self) -> dict[str, Any]:
        metrics = self.file.spec.metrics
        return {"weights": dict(metrics.weights), "lower_is_better": list(metrics.lower_is_better)}


def load(path: Path) -> Project:
    """Load the project whose `arena.yaml` is at `path`; SpecError for a project-wide problem."""
    file = load_project(path)
    package = project_package(file.root)
    hooks = load_hooks(file.root, package)
    scorers = discover(file.root, package, BUILTINS)
    return Project(file, scorers, hooks)


def _options_problem(name: str, model: type[Any], exc: ValidationError) -> str:
    valid = ", ".join(model.model_fields) or "none"
    parts = []
    for error in exc.errors(include_url=False):
        option = ".".join(str(p) for p in error["loc"])
        if error["type"] == "extra_forbidden":
            parts.append(f"unknown option '{option}'")
        else:
            parts.append(f"option '{option}': {error['msg']}")
    return f"scorer '{name}': {'; '.join(parts)} (valid options: {valid})"
