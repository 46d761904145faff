"""pytest collection: `arena.yaml` files become items, one per case and model."""

from __future__ import annotations

import functools
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from pytest_arena.engine import Call, CallResult
from pytest_arena.evaluation import Outcome, Prepared, finish, prepare
from pytest_arena.project import Plan, PlanError, Project, load
from pytest_arena.record import ERROR, FAILED, Record
from pytest_arena.scorers.text import excerpt
from pytest_arena.spec import Case, SpecError
from pytest_arena.spec.errors import location
from pytest_arena.state import ArenaState


class CaseFailed(Exception):
    """The scorer said the output is wrong."""


class CaseError(Exception):
    """The case could not be run or scored."""


class ArenaFile(pytest.File):
    """One project's `arena.yaml`."""

    def collect(self) -> Iterator[pytest.Item | pytest.Collector]:
        state = ArenaState.of(self.config)
        scorers, connectors = state.extensions(self.config)
        try:
            project = load(self.path, scorers, connectors)
        except SpecError as exc:
            yield ProblemItem.from_parent(self, name="config", message=exc.format())
            return
        project.engine = state.engine
        models = state.models or project.default_models()
        if not models:
            message = (
                f"{location(self.path)}: no models to run: pass --arena-models sim_small"
                " (any model keys, comma separated) or set 'models: default: [sim_small]'"
                " in arena.yaml"
            )
            yield ProblemItem.from_parent(self, name="models", message=message)
            return
        usable = []
        for model in models:
            try:
                project.connector(model, "--arena-models" if state.models else "")
            except SpecError as exc:
                yield ProblemItem.from_parent(self, name=f"model-{model}", message=exc.format())
            else:
                usable.append(model)
        for problem in project.scorers.problems:
            yield ProblemItem.from_parent(
                self, name=f"scorers/{problem.path.name}", message=problem.format()
            )
        datasets: dict[str, DatasetNode] = {}
        for case_problem in project.file.problems:
            message = "\n".join(p.format() for p in case_problem.problems)
            if case_problem.dataset is not None:
                node = datasets.setdefault(
                    case_problem.dataset, DatasetNode.from_parent(self, name=case_problem.dataset)
                )
                node.own.append((case_problem.name, message))
                continue
            yield ProblemItem.from_parent(self, name=case_problem.name, message=message)
        for case in project.file.cases:
            if case.dataset is not None:
                node = datasets.setdefault(
                    case.dataset, DatasetNode.from_parent(self, name=case.dataset)
                )
                node.cases.append(case)
                continue
            yield from case_items(self, project, case, usable)
        for node in datasets.values():
            node.project, node.models = project, usable
            yield node


class DatasetNode(pytest.Collector):
    """The cases one dataset file contributes, so that its file is in their node ids."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.cases: list[Case] = []
        self.own: list[tuple[str, str]] = []
        self.project: Project | None = None
        self.models: list[str] = []

    def collect(self) -> Iterator[pytest.Item]:
        for name, message in self.own:
            yield ProblemItem.from_parent(self, name=name, message=message)
        assert self.project is not None
        for case in self.cases:
            yield from case_items(self, self.project, case, self.models)


def start_ahead(items: list[pytest.Item]) -> None:
    """Start the model calls of `items`, in their order, before the first one runs."""
    for item in items:
        if isinstance(item, ArenaItem):
            item.start()


def case_items(
    parent: pytest.Collector, project: Project, case: Case, models: list[str]
) -> Iterator[ArenaItem]:
    try:
        plan: Plan | str = project.plan(case)
    except PlanError as exc:
        plan = str(exc)
    for model in models:
        yield ArenaItem.from_parent(
            parent, name=f"{case.id}[{model}]", project=project, case=case, model=model, plan=plan
        )


@functools.cache
def _model_mark(project: str, model: str) -> pytest.MarkDecorator:
    return pytest.mark.arena(project=project, model=model)  # one for all the model's items


@functools.cache
def _tag_mark(tag: str) -> pytest.MarkDecorator:
    return pytest.mark.arena(tag=tag)


class ArenaItem(pytest.Item):
    """One case run on one model."""

    def __init__(
        self, *, project: Project, case: Case, model: str, plan: Plan | str, **kwargs: Any
    ) -> None:
        # The node id given as a string: pytest 9.2 derives a structured id for a name with
        # "[model]" that does not equal the one it reads back from its cache, so --lf and --ff
        # lost every arena case (pytest-dev/pytest#15045). The string is parsed like the cache's.
        kwargs.setdefault("nodeid", f"{kwargs['parent'].nodeid}::{kwargs['name']}")
        super().__init__(path=case.source, **kwargs)
        self.project = project
        self.case = case
        self.model = model
        self.plan = plan
        self.record: Record | None = None
        self.user_traceback: str | None = None
        self.prepared: Prepared | None = None
        self.call: Call | None = None
        self.add_marker(_model_mark(project.name, model))
        for tag in case.tags:
            self.add_marker(_tag_mark(tag))
        self.extra_keyword_matches.update({project.name, model, *case.tags})

    def setup(self) -> None:
        if isinstance(self.plan, str):
            self.record = Record(
                project=self.project.name,
                case_id=self.case.id,
                model=self.model,
                status=ERROR,
                reason=self.plan,
                error=self.plan,
                weight=self.case.weight,
                tags=list(self.case.tags),
                board=self.project.board(),
            )
            raise CaseError(self.plan)

    def start(self) -> None:
        """Prepare the request and, unless the call is cheap inline work, start it ahead."""
        if isinstance(self.plan, str) or self.prepared is not None:
            return
        self.prepared = prepare(self.project, self.case, self.model, self.plan)
        request = self.prepared.request
        if request is not None and not self.project.connector(self.model).is_inline():
            self.call = self.project.submit(self.model, request)

    def runtest(self) -> None:
        assert not isinstance(self.plan, str)
        self.start()
        prepared = self.prepared
        assert prepared is not None
        if prepared.request is None:
            result = CallResult()
        elif self.call is not None:
            result = self.project.engine.wait(self.call)
        else:
            result = self.project.call(self.model, prepared.request)
        self.prepared = self.call = None  # done with them: keep memory flat on long runs
        if result.skipped is not None:
            pytest.skip(result.skipped)
        outcome: Outcome = finish(prepared, self.plan, result)
        self.record, self.user_traceback = outcome.record, outcome.traceback
        if outcome.record.status == FAILED:
            raise CaseFailed(outcome.record.reason)
        if outcome.record.status == ERROR:
            raise CaseError(outcome.record.reason)

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> Any:
        record = self.record
        if isinstance(excinfo.value, CaseFailed) and record is not None:
            return failure_text(record)
        if isinstance(excinfo.value, CaseError) and record is not None:
            text = record.reason or "error"
            if self.user_traceback:
                text += "\n\n" + self.user_traceback.rstrip()
            return text
        return super().repr_failure(excinfo)

    def reportinfo(self) -> tuple[Path, int, str]:
        return (
            self.case.source,
            self.case.line - 1,
            f"{self.project.name}::{self.case.id}[{self.model}]",
        )


def failure_text(record: Record) -> str:
    """The reason first (pytest's one-line summaries show that line), then the evidence."""
    lines = [
        record.reason or f"scorer '{record.scorer}' failed the output without a reason",
        f"  scorer:    {record.scorer} (score {record.score:.2f})"
        if record.score is not None
        else f"  scorer:    {record.scorer}",
        f"  output:    {excerpt(record.output or '', 200)}",
    ]
    if record.raw_output is not None:
        lines.append(
            f"  raw:       {excerpt(record.raw_output, 200)} (before hooks.py post_process)"
        )
    if record.reference is not None:
        lines.append(f"  reference: {excerpt(record.reference, 200)}")
    return "\n".join(lines)


class ProblemItem(pytest.Item):
    """Stands for input that could not be loaded, so the rest of the run goes on."""

    def __init__(self, *, message: str, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.message = message

    def setup(self) -> None:
        raise CaseError(self.message)

    def runtest(self) -> None:
        """Never reached: setup always raises."""

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> Any:
        if isinstance(excinfo.value, CaseError):
            return self.message
        return super().repr_failure(excinfo)

    def reportinfo(self) -> tuple[Path, int, str]:
        # like a case's "project::case[model]"; a domain that ends the node id would have
        # its dots shown as "::" by pytest's verbose lines
        return self.path, 0, f"{self.path.parent.name}::{self.name}"
