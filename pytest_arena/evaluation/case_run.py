"""Running one case on one model: request, hooks, model call, scoring, record."""

from __future__ import annotations

import copy
import json
import os
import traceback
from collections.abc import Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from types import TracebackType
from typing import Any

from pytest_arena.connectors import Request
from pytest_arena.engine.calls import CallResult
from pytest_arena.engine.user_threads import RUNNER_FOLDERS
from pytest_arena.evaluation import user_code
from pytest_arena.evaluation.judge import Judge, JudgeRefused
from pytest_arena.evaluation.project import Component, Plan, Project
from pytest_arena.evaluation.project_hooks import ProjectHooks
from pytest_arena.evaluation.response_data import capped, response_data
from pytest_arena.numbers import at_least
from pytest_arena.record import ERROR, FAILED, PASSED, UNSCORED, Record
from pytest_arena.scorers.base import ScoreResult, ScoreResultError, ScoringContext, shown_score
from pytest_arena.scorers.contract import Part, combine
from pytest_arena.scorers.script import ScriptFailed
from pytest_arena.secrets import environment_secrets, redacted, redacted_data
from pytest_arena.spec import Case
from pytest_arena.spec.errors import raised
from pytest_arena.spec.images import (
    ImageProblem,
    checked_data_url,
    is_data_url,
    is_url,
    shortened,
)
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
    """The case's request to `model`, offering the project's tools if the model takes them
    (hooks.py pre_request sees them, and may offer fewer or describe them otherwise)."""
    prompt = project.file.spec.prompt
    messages = render_messages(case, prompt.template, prompt.system)
    request = Request(model, messages, _own(case), sample)  # the agent's: not the scorers
    tools = project.tools
    if tools is not None and tools.tools and project.connector(model).takes_tools:
        request.tools = tools.specs()
    return request


@dataclass
class Prepared:
    """A case ready to call its model: the request, or why it cannot be made."""

    record: Record
    context: ScoringContext
    judge: Judge
    hooks: ProjectHooks
    request: Request | None = None
    stop: _Stop | None = None


def prepare(project: Project, case: Case, model: str, plan: Plan, sample: int = 0) -> Prepared:
    """The record to fill and the request to send, after hooks.py pre_request."""
    record = Record(
        project=project.name,
        case_id=case.id,
        model=model,
        status=ERROR,
        scorer=plan.scorer,
        reference=case.reference,  # as written: the hooks and scorers get their own copy
        weight=case.weight,
        tags=list(case.tags),
        group=case.group,
        sample=sample,
        board=project.board(),
    )
    case = _own(case)
    judge = project.judge(case, sample)
    first = plan.components[0]
    context = ScoringContext(
        test_case=case,
        model_key=model,
        options=_own_options(first.options) if not plan.contract else {},
        judge=judge,
        project_root=project.root,
    )
    hooks = project.hooks
    prepared = Prepared(record, context, judge, hooks)
    try:
        request = build_request(project, case, model, sample)
        if hooks.pre_request is not None:
            loaded = _data_urls(request.messages)  # checked as the case was loaded
            changed = _call_user(
                "hooks.py pre_request",
                hooks.pre_request,
                request,
                case,
                context,
                limit=user_code.DEFAULT_TIMEOUT,
            )
            if changed is not None:
                if not isinstance(changed, Request):
                    raise _Stop(
                        f"hooks.py pre_request returned {type(changed).__name__};"
                        " return the request (or None after changing it in place)"
                    )
                request = changed
            _check_messages(request.messages)
            _check_images(request.messages, loaded)
            _check_params(request.params)
            _check_tools(request.tools)
    except _Stop as stop:
        prepared.stop = stop
    else:
        prepared.request = request
        record.messages = shortened(request.messages)  # an inline image's bytes: only their size
    return prepared


def _own(case: Case) -> Case:
    """The case as one call's agent, or its hooks and scorers, get it: its values that can
    change in place (metadata, options, an input or reference of lists and dicts) their own
    copies, so that what one changes neither the other nor another sample or model sees."""
    mutable = (list, dict, set)
    if not (
        case.metadata
        or case.options
        or isinstance(case.input, mutable)
        or isinstance(case.reference, mutable)
    ):
        return case
    return replace(
        case,
        input=copy.deepcopy(case.input),
        reference=copy.deepcopy(case.reference),
        metadata=copy.deepcopy(dict(case.metadata)),
        options=copy.deepcopy(dict(case.options)),
    )


def _own_options(options: dict[str, Any]) -> dict[str, Any]:
    """A scorer's options as one call gets them in `context.options`: its own dict (and its
    own copy of any list or mapping they hold), so that what one call changes no other sees."""
    if any(isinstance(value, (list, dict, set)) for value in options.values()):
        return copy.deepcopy(options)
    return dict(options)


def _check_messages(messages: Any) -> None:
    """The messages pre_request left are what connectors send: a list of {role, content},
    content text or a list of parts; _Stop saying what they are instead."""
    if not isinstance(messages, list) or not messages:
        what = "an empty list" if isinstance(messages, list) else f"a {type(messages).__name__}"
    else:
        odd = [
            m
            for m in messages
            if not (
                isinstance(m, dict)
                and isinstance(m.get("role"), str)
                and (  # an assistant's turn of tool calls may have no content
                    isinstance(m.get("content"), str | list)
                    or (m.get("role") == "assistant" and m.get("content") is None)
                )
            )
        ]
        if not odd:
            part = next((p for m in messages for p in _parts(m) if not _is_part(p)), None)
            if part is None:
                return
            raise _Stop(
                f"hooks.py pre_request left a content part that is {_described(part)}; a"
                " message's content is text, or a list of parts each {type: text, text: ...}"
                " or {type: image_url, image_url: {url: ...}} (to add text to a list, append"
                " {type: text, text: ...}; `+=` a string adds its characters)"
            )
        first = odd[0]
        what = (
            "a message without a text role and content"
            if isinstance(first, dict)
            else f"a list holding a {type(first).__name__}"
        )
    raise _Stop(
        f"hooks.py pre_request left request.messages as {what}; give a list of messages, each"
        " {role, content}, as request.messages held them"
    )


def _data_urls(messages: list[dict[str, Any]]) -> dict[int, str]:
    """The data URLs of `messages`' images, by identity (held, so that none is reused)."""
    urls = _image_urls(messages)
    return {id(url): url for url in urls if isinstance(url, str) and is_data_url(url)}


def _image_urls(messages: list[dict[str, Any]]) -> Iterator[object]:
    """The url of each image part of `messages`: whatever it holds (a hook may leave any)."""
    for message in messages:
        for part in _parts(message):
            if isinstance(part, dict) and part.get("type") == "image_url":
                yield part["image_url"].get("url")


def _check_images(messages: list[dict[str, Any]], loaded: dict[int, str]) -> None:
    """The images pre_request left are what connectors send: an http(s) URL, or a data URL
    of an image providers take (those the case had when it was loaded were checked then);
    _Stop saying which is not, and the fix."""
    for url in _image_urls(messages):
        if not isinstance(url, str) or not is_url(url):
            what = f"'{url:.60}'" if isinstance(url, str) else f"a {type(url).__name__}"
            raise _Stop(
                f"hooks.py pre_request left an image whose url is {what}, neither an http(s)"
                " URL nor a data URL; fix: give {type: image_url, image_url: {url: ...}} an"
                " https:// URL or a base64 data URL (data:image/png;base64,...); a file of the"
                " project goes in the case's input, as {image: path}"
            )
        if is_data_url(url) and id(url) not in loaded:
            try:
                checked_data_url(url)
            except ImageProblem as problem:
                raise _Stop(
                    f"hooks.py pre_request left an image whose {problem}; fix: {problem.hint}"
                ) from None


def _check_params(params: Any) -> None:
    """The params pre_request left are sent as JSON body fields (and key the cache); _Stop
    saying what JSON cannot hold."""
    if not isinstance(params, dict):
        raise _Stop(
            f"hooks.py pre_request left request.params as a {type(params).__name__}; give a"
            " mapping of body fields, such as {'temperature': 0}"
        )
    try:
        json.dumps(params, allow_nan=False)
    except (TypeError, ValueError) as exc:
        raise _Stop(
            f"hooks.py pre_request left request.params holding what JSON cannot ({exc}); give"
            " strings, finite numbers, true/false/null, lists and mappings with string keys"
        ) from None


def _parts(message: dict[str, Any]) -> list[Any]:
    content = message.get("content")
    return content if isinstance(content, list) else []


def _is_part(part: Any) -> bool:
    if not isinstance(part, dict):
        return False
    if part.get("type") == "text":
        return isinstance(part.get("text"), str)
    return part.get("type") == "image_url" and isinstance(part.get("image_url"), dict)


def _described(part: Any) -> str:
    if isinstance(part, dict):
        return f"a mapping of {sorted(map(str, part))}"
    return f"a {type(part).__name__} ({part!r:.40})"


def _check_tools(tools: Any) -> None:
    """The tools pre_request left on the request are what connectors read: a list of
    {name, description, parameters}; _Stop saying what they are instead."""
    if not isinstance(tools, list):
        what = f"a {type(tools).__name__}"
    else:
        odd = [t for t in tools if not (isinstance(t, dict) and isinstance(t.get("name"), str))]
        if not odd:
            return
        first = odd[0]
        what = (
            "a tool without a name"
            if isinstance(first, dict)
            else f"a list holding a {type(first).__name__}"
        )
    raise _Stop(
        f"hooks.py pre_request left request.tools as {what}; give a list of the tools offered,"
        " each {name, description, parameters}, as request.tools held them"
    )


def finish(prepared: Prepared, plan: Plan, result: CallResult) -> Outcome:
    """Grade the model's answer (or record why there is none). Never raises."""
    record, context, judge = prepared.record, prepared.context, prepared.judge
    case, model = context.test_case, context.model_key
    assert case is not None
    hooks = prepared.hooks
    try:
        if prepared.stop is not None:
            raise prepared.stop
        # a failed call's tries count as much as an answered one's
        record.retries, record.cached = result.retries, result.cached
        request = prepared.request
        if request is not None and request.workspace is not None:  # said even if it failed
            record.detail["workspace"] = str(request.workspace)
        if result.trajectory and result.error is not None:
            # the tool loop failed (a later turn's call, or a budget cut it short): the turns
            # that ran are kept, with what they took and cost
            record.response = capped(response_data(result))
            _count_turns(record, result)
        elif result.error is not None:  # nothing, or unknown for a model without a price
            record.cost = result.cost
        if result.cut_short:
            raise _Stop(f"model '{model}' {result.error}")
        if result.error is not None:
            raise _Stop(f"model '{model}' call failed: {result.error}")
        response = result.response
        assert response is not None
        context.response = response_data(result)
        record.response = capped(dict(context.response))
        record.latency_ms = result.latency_ms
        record.tokens_in, record.tokens_out = response.tokens_in, response.tokens_out
        record.cost = result.cost
        record.cached_cost = (result.cost or 0.0) if result.cached else result.cached_cost
        if result.warning:
            record.detail["warning"] = result.warning
        workspace = response.meta.get("workspace")
        if workspace:
            context.workspace = Path(workspace)
            record.detail["workspace"] = str(workspace)
        output = response.text
        record.output = output
        if result.failure is not None:  # the tool loop ended without an answer: max_turns
            record.score, record.passed, record.reason = 0.0, False, result.failure
            record.status = FAILED
            return Outcome(record)
        if hooks.post_process is not None:
            output = _call_user(
                "hooks.py post_process",
                hooks.post_process,
                output,
                case,
                context,
                limit=user_code.DEFAULT_TIMEOUT,
            )
            if not isinstance(output, str):
                raise _Stop(
                    f"hooks.py post_process returned {type(output).__name__};"
                    " it must return a string"
                )
            if output != record.output:
                record.raw_output, record.output = record.output, output
        verdict = _grade(plan, output, case, context)
        if hooks.override_verdict is not None:
            verdict = _override(hooks.override_verdict, verdict, output, case, context)
    except _Stop as stop:
        # what user code raised ("401: key sk-...") is said with the environment's secrets
        # as ***, as a python agent's is: it reaches every report
        secrets = environment_secrets(os.environ)
        record.error = record.reason = redacted(stop.message, secrets)
        trace = _user_traceback(stop.exc)
        return Outcome(record, None if trace is None else redacted(trace, secrets))
    except Exception as exc:  # no check foresaw it (a bug of ours): the case still counts
        if isinstance(exc, _FOR_THE_RUN):  # pytest.exit()'s Exit is an Exception
            raise
        secrets = environment_secrets(os.environ)
        said = f"pytest-arena could not grade the answer: {exc!r}"
        record.error = record.reason = redacted(said, secrets)
        return Outcome(record, redacted(traceback.format_exc(), secrets))
    finally:
        record.judge_tokens = judge.usage.tokens_in + judge.usage.tokens_out
        record.judge_cost = judge.usage.cost
        record.judge_cached_cost = judge.usage.cached_cost
    record.score, record.passed, record.reason = verdict.score, verdict.passed, verdict.reason
    record.detail = {**record.detail, **verdict.detail}
    record.metrics = dict(verdict.metrics)
    record.status = UNSCORED if verdict.passed is None else PASSED if verdict.passed else FAILED
    return Outcome(record)


def _without_secrets(verdict: ScoreResult) -> ScoreResult:
    """The verdict of user code (a scorer of the project's, override_verdict) with the
    secrets of arena's environment in its reason, detail and metric names written `***`:
    its own words ("called the API with sk-..."), as a script scorer's and a python agent's
    are, before any report holds them."""
    secrets = environment_secrets(os.environ)
    reason = redacted(verdict.reason, secrets)
    detail, metrics = (
        redacted_data(verdict.detail, secrets),
        redacted_data(verdict.metrics, secrets),
    )
    if reason == verdict.reason and detail is verdict.detail and metrics is verdict.metrics:
        return verdict
    return ScoreResult(verdict.score, verdict.passed, reason, detail, metrics)


def _count_turns(record: Record, result: CallResult) -> None:
    """What the turns of a tool loop that failed took and cost, as an answer's are counted."""
    steps = result.trajectory or []
    record.latency_ms, record.cost = result.latency_ms, result.cost
    record.cached_cost = (result.cost or 0.0) if result.cached else result.cached_cost
    record.tokens_in = sum(int(s.get("tokens_in") or 0) for s in steps)
    record.tokens_out = sum(int(s.get("tokens_out") or 0) for s in steps)


def _grade(plan: Plan, output: str, case: Case, context: ScoringContext) -> ScoreResult:
    if not plan.contract:
        result = _score(plan.components[0], output, case, context)
        return result if plan.threshold is None else _held_to(result, plan)
    parts = [
        Part(
            c.name,
            c.scorer,
            c.weight,
            c.required,
            _score(c, output, case, replace(context, options=_own_options(c.options))),
        )
        for c in plan.components
    ]
    return combine(parts, plan.threshold)


def _held_to(result: ScoreResult, plan: Plan) -> ScoreResult:
    """The verdict of a case graded by one scorer and its own `threshold`: passed when the
    score reaches it, whatever the scorer said, as for a contract of that one scorer."""
    threshold = plan.threshold
    if result.passed is None or threshold is None:
        return result
    reached = at_least(result.score, threshold)
    rule = f"score {shown_score(result.score)} {'reaches' if reached else 'is below'}"
    reason = (
        f"{rule} the case's threshold {threshold:.2f}; {plan.scorer} said:"
        f" {result.reason or '(no reason)'}"
    )
    detail = {**result.detail, "threshold": threshold}
    return ScoreResult(result.score, reached, reason, detail, dict(result.metrics))


def _score(component: Component, output: str, case: Case, context: ScoringContext) -> ScoreResult:
    what = f"scorer '{component.name}'"
    score = component.grader.score
    try:
        result = _call_user(
            what, score, output, case.reference, context, limit=component.time_limit
        )
    except _Stop as stop:
        if isinstance(stop.exc, ScriptFailed):  # its message says it all: no traceback
            raise _Stop(str(stop.exc)) from None
        raise
    if not isinstance(result, ScoreResult):
        raise _Stop(f"{what} returned {type(result).__name__}; it must return a ScoreResult")
    checked = _checked(what, result)
    if type(component.entry.scorer).__module__.startswith("pytest_arena."):
        return checked  # a builtin's, or a script scorer's, which redacts its own
    return _without_secrets(checked)


def _checked(what: str, result: ScoreResult) -> ScoreResult:
    """`result`, checked again: a field set after it was built (`result.score = 2.5`) was
    never checked, and reached the board (accuracy 2.5) or crashed the run's end."""
    try:
        result.check()
    except ScoreResultError as exc:
        raise _Stop(f"{what} returned a ScoreResult changed after it was built: {exc}") from None
    return result


def _override(
    hook: Any, result: ScoreResult, output: str, case: Case, context: ScoringContext
) -> ScoreResult:
    """Let hooks.py change the verdict, and say so in the reason. The hook gets a copy: one
    that changes it and returns None keeps the scorer's verdict, as the docs say."""
    given = copy.deepcopy(result)
    new = _call_user(
        "hooks.py override_verdict",
        hook,
        given,
        output,
        case,
        context,
        limit=user_code.DEFAULT_TIMEOUT,
    )
    if new is None or new == result:
        return result
    if not isinstance(new, ScoreResult):
        raise _Stop(
            f"hooks.py override_verdict returned {type(new).__name__};"
            " return a ScoreResult, or None to keep the scorer's verdict"
        )
    new = _without_secrets(_checked("hooks.py override_verdict", new))
    if not new.reason.strip():
        raise _Stop("hooks.py override_verdict changed the verdict without a reason; give one")
    was = {True: "passed", False: "failed", None: "unscored"}[result.passed]
    reason = (
        f"verdict overridden by hooks.py override_verdict: {new.reason}"
        f" (the scorer said {was}, score {result.score:.2f}: {result.reason})"
    )
    was_verdict = {"score": result.score, "passed": result.passed, "reason": result.reason}
    detail = {**new.detail, "override": {**was_verdict, "because": new.reason}}
    return ScoreResult(new.score, new.passed, reason, detail, {**result.metrics, **new.metrics})


def _call_user(what: str, function: Any, *args: Any, limit: float | None) -> Any:
    """Call user code, at most `limit` seconds (None: no limit; see user_code); what it
    raises becomes the case's error, naming `what`.

    `sys.exit()`, a cancelled task's `CancelledError` and any other BaseException are user
    code's mistakes like any other exception. A KeyboardInterrupt (Ctrl-C), a judge's
    refused call and the test framework's outcomes (see `for_the_run`) go on up: they are
    meant for the run, not for this case.
    """
    try:
        return user_code.call(function, args, limit)
    except user_code.Overran as exc:
        raise _Stop(f"{what} {exc}; its thread is left to finish") from None
    except BaseException as exc:
        if isinstance(exc, _FOR_THE_RUN):
            raise
        raise _Stop(f"{what} raised {raised(exc)}", exc) from exc


_FOR_THE_RUN: tuple[type[BaseException], ...] = (KeyboardInterrupt, JudgeRefused)


def for_the_run(*kinds: type[BaseException]) -> None:
    """Let what user code raises of `kinds` go on up to the run rather than fail its case.
    The plugin names pytest's outcomes (`pytest.skip()` in a scorer skips its case), as
    this module does not import pytest."""
    global _FOR_THE_RUN
    _FOR_THE_RUN = (*_FOR_THE_RUN, *(k for k in kinds if k not in _FOR_THE_RUN))


def _user_traceback(exc: BaseException | None) -> str | None:
    """The traceback of user code: without the frames of this module that called it, nor
    those of the package below the user's last line (a `ScoreResult` refusing its values)."""
    if exc is None:
        return None
    tb = exc.__traceback__
    while tb is not None and _ours(tb.tb_frame.f_code.co_filename):
        tb = tb.tb_next
    if tb is None:  # no line of the user's: what it chains to is ours too (Python 3.10 makes
        return None  # a cancelled task's CancelledError anew, out of the loop's own frames)
    frames = []
    walk: TracebackType | None = tb
    while walk is not None:
        frames.append(walk.tb_frame.f_code.co_filename)
        walk = walk.tb_next
    keep = len(frames)
    while keep > 1 and (frames[keep - 1].startswith(_PACKAGE) or frames[keep - 1] == "<string>"):
        keep -= 1  # "<string>": the __init__ a dataclass makes, calling __post_init__
    return "".join(traceback.format_exception(type(exc), exc, tb, limit=keep))


_PACKAGE = str(Path(__file__).parent.parent) + os.sep


def _ours(filename: str) -> bool:
    """A frame of this module, of user_code's worker, or of what runs the user's code."""
    return filename in (__file__, user_code.__file__) or filename.startswith(RUNNER_FOLDERS)
