"""A failed or broken case as people read it, in the terminal and in JUnit XML: the reason
first, then excerpts of the evidence, each cut to a size people read. Pure: no pytest.

A record itself is never cut: the `--arena-json` report holds every reason and output whole,
and every cut here says how much it left out and where the rest is. Control characters are
written as their escapes (`\\x1b`): a model's output never steers the terminal.
"""

from __future__ import annotations

import json
from typing import Any

from pytest_arena.record import Record
from pytest_arena.scorers.text import excerpt, printable

REASON_LIMIT = 2000  # characters of a reason in a failure's text
MESSAGE_LIMIT = 200  # the one-line message: pytest's short summary, JUnit's `message`, --tb=line
EXCERPT_LIMIT = 200  # characters of the output, the raw output and the reference
TRACEBACK_LINE_LIMIT = 300  # characters of one line of a user's traceback
TRACEBACK_HEAD, TRACEBACK_TAIL = 10, 40  # lines kept of a longer traceback: its start and end


def clip(text: str, limit: int, whole: str = "") -> str:
    """`text` cut to `limit` characters, saying how much is cut and, in `whole`, where the
    whole text is."""
    if len(text) <= limit:
        return text
    where = f"; {whole}" if whole else ""
    return f"{text[:limit]}… [{len(text) - limit:,} more characters cut{where}]"


def message(reason: str) -> str:
    """A reason as a failure's one-line message, cut to MESSAGE_LIMIT: the failure's text
    holds more of it."""
    return printable(clip(reason.strip(), MESSAGE_LIMIT), lines=True)


def no_reason(scorer: str) -> str:
    """What a failed case whose scorer gave no reason, or a blank one, says in its place."""
    return f"scorer '{scorer}' failed the output without a reason"


def failure_text(record: Record, whole: str = "") -> str:
    """The text of a failed case: the reason first (pytest's one-line summaries show that
    line), then the scorer and excerpts of the output and the reference. `whole` says where
    the whole texts are."""
    lines = [
        clip(record.reason, REASON_LIMIT, whole)
        if record.reason.strip()  # a blank reason says nothing: said as none
        else no_reason(record.scorer),
        f"  scorer:    {record.scorer} (score {record.score:.2f})"
        if record.score is not None
        else f"  scorer:    {record.scorer}",
    ]
    evidence = [("output", record.output or "", "")]
    if record.raw_output is not None:
        evidence.append(("raw", record.raw_output, " (before hooks.py post_process)"))
    if record.reference is not None:
        evidence.append(("reference", record.reference, ""))
    cut: list[str] = []
    for name, value, note in evidence:
        lines.append(f"  {name + ':':<10} {excerpt(value, EXCERPT_LIMIT)}{note}")
        text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
        if len(text.replace("\n", "\\n")) > EXCERPT_LIMIT:  # as `excerpt` counts
            cut.append(f"{'raw output' if name == 'raw' else name} of {len(text):,} characters")
    if cut:
        where = f"; {whole}" if whole else ""
        lines.append(f"  (cut to excerpts: {', '.join(cut)}{where})")
    lines += _agent_lines(record)
    return printable("\n".join(lines), lines=True)


def _agent_lines(record: Record) -> list[str]:
    """An agent's case: its workspace, and the steps of its tool loop, one line each."""
    lines = []
    steps = (record.response or {}).get("trajectory") or []
    if steps:
        lines.append(f"  trajectory: {len(steps)} step{'' if len(steps) == 1 else 's'}")
        lines += [f"    {line}" for line in trajectory_lines(steps)]
    workspace = record.detail.get("workspace")
    if workspace:
        lines.append(f"  workspace: {workspace}")
    return lines


def trajectory_lines(steps: list[dict[str, Any]], limit: int = 120) -> list[str]:
    """One line per step of a tool loop: the calls made and what each returned (that no
    result was reported, for an agent's call said without one), or the final answer."""
    lines = []
    for step in steps:
        message = step.get("message") or {}
        calls = message.get("tool_calls") or []
        results = {r.get("id"): r for r in step.get("tool_results") or []}
        head = f"{step.get('step', '?')}."
        if not calls:
            lines.append(f"{head} answer: {excerpt(message.get('content') or '', limit)}")
            continue
        for call in calls:
            args = json.dumps(call.get("arguments"), ensure_ascii=False)
            result = results.get(call.get("id"))
            if result is None:  # an agent's call said without its result: not a ''
                said = "(no result reported)"
            else:
                verb = "error" if result.get("is_error") else "->"
                said = f"{verb} {excerpt(result.get('content') or '', limit - 20)}"
            lines.append(f"{head} {call.get('name')}({clip(args, limit // 2)}) {said}")
            head = " " * len(head)
    return lines


def error_text(record: Record, traceback: str | None, whole: str = "") -> str:
    """The text of a case that could not be run or scored: the reason, then the traceback
    of the user's code that raised, if any, cut to a readable size."""
    text = clip(record.reason if record.reason.strip() else "error", REASON_LIMIT, whole)
    agent = _agent_lines(record)
    if agent:
        text += "\n" + "\n".join(agent)
    if traceback:
        text += "\n\n" + clip_traceback(traceback.rstrip())
    return printable(text, lines=True)


def clip_traceback(text: str) -> str:
    """A traceback with each line cut to TRACEBACK_LINE_LIMIT and, when it is longer than
    TRACEBACK_HEAD + TRACEBACK_TAIL lines, only its first and last lines."""
    lines = [clip(line, TRACEBACK_LINE_LIMIT) for line in text.split("\n")]
    if len(lines) > TRACEBACK_HEAD + TRACEBACK_TAIL:
        cut = len(lines) - TRACEBACK_HEAD - TRACEBACK_TAIL
        lines[TRACEBACK_HEAD:-TRACEBACK_TAIL] = [f"  … [{cut:,} lines of the traceback cut]"]
    return "\n".join(lines)
