"""Running one case on one model: request, hooks, model call, scoring, record."""

from __future__ import annotations

import time
import traceback
from dataclasses import dataclass
from typing import Any

from pytest_arena.connectors import Request
from pytest_arena.project import Plan, Project
from pytest_arena.record import ERROR, FAILED, PASSED, UNSCORED, Record
from pytest_arena.scorers.base import ScoreResult, ScoringContext
from pytest_arena.spec import Case
from pytest_arena.spec.template import render_messages


@dataclass
class Outcome:
    record: Record
    traceback: str | None = None  # for errors raised by user code


class _Stop(Exception):
    def __init__(self, message: str, exc: BaseException | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.exc = exc


def build_request(project: Project, case: Case, model: str, sample: int = 0) -> Request:
    prompt = project.file.spec.prompt
    return Request(model, render_messages(case, prompt.template, prompt.system), case, sample)


def evaluate(project: Project, case: Case, model: str, plan: Plan, sample: int = 0) -> Outcome:
    """Run `case` on `model` and grade it. Every failure ends as a record, never raises."""
    record = Record(
        project=project.name,
        case_id=case.id,
        model=model,
        status=ERROR,
        scorer=plan.scorer,
        reference=case.reference,
        weight=case.weight,
        tags=list(case.tags),
        sample=sample,
        board=project.board(),
    )
    context = ScoringContext(
        test_case=case,
        model_key=model,
        options=plan.options,
        judge=None,
        project_root=project.root,
    )
    try:
        request = build_request(project, case, model, sample)
        hooks = project.hooks
        if hooks.pre_request is not None:
            changed = _call_user("hooks.py pre_request", hooks.pre_request, request, case, context)
            if changed is not None:
                if not isinstance(changed, Request):
                    raise _Stop(
                        f"hooks.py pre_request returned {type(changed).__name__};"
                        " return the request (or None after changing it in place)"
                    )
                request = changed
        connector = project.connector(model)
        started = time.perf_counter()
        try:
            response = connector.complete(request)
        except Exception as exc:
            raise _Stop(f"model '{model}' call failed: {type(exc).__name__}: {exc}", exc) from exc
        measured = (time.perf_counter() - started) * 1000
        record.latency_ms = measured if response.latency_ms is None else response.latency_ms
        record.tokens_in, record.tokens_out = response.tokens_in, response.tokens_out
        record.cost = connector.cost_of(response)
        output = response.text
        record.output = output
        if hooks.post_process is not None:
            output = _call_user("hooks.py post_process", hooks.post_process, output, case, context)
            if not isinstance(output, str):
                raise _Stop(
                    f"hooks.py post_process returned {type(output).__name__};"
                    " it must return a string"
                )
            if output != record.output:
                record.raw_output, record.output = record.output, output
        result = _call_user(
            f"scorer '{plan.scorer}'", plan.entry.scorer.score, output, case.reference, context
        )
        if not isinstance(result, ScoreResult):
            raise _Stop(
                f"scorer '{plan.scorer}' returned {type(result).__name__};"
                " it must return a ScoreResult"
            )
    except _Stop as stop:
        record.error = stop.message
        record.reason = stop.message
        return Outcome(record, _user_traceback(stop.exc))
    record.score, record.passed, record.reason = result.score, result.passed, result.reason
    record.detail, record.metrics = dict(result.detail), dict(result.metrics)
    record.status = UNSCORED if result.passed is None else PASSED if result.passed else FAILED
    return Outcome(record)


def _call_user(what: str, function: Any, *args: Any) -> Any:
    try:
        return function(*args)
    except Exception as exc:
        raise _Stop(f"{what} raised {type(exc).__name__}: {exc}", exc) from exc


def _user_traceback(exc: BaseException | None) -> str | None:
    """The traceback of user code, without the frames of this module."""
    if exc is None:
        return None
    tb = exc.__traceback__
    while tb is not None and tb.tb_frame.f_code.co_filename == __file__:
        tb = tb.tb_next
    return "".join(traceback.format_exception(type(exc), exc, tb))
