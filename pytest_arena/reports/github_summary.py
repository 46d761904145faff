"""The leaderboards as markdown, for GitHub Actions' job summary (`GITHUB_STEP_SUMMARY`)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

from pytest_arena.reports.baseline import BaselineComparison
from pytest_arena.reports.gates import GateResult
from pytest_arena.reports.leaderboard import Board
from pytest_arena.reports.markdown import escape_markdown
from pytest_arena.reports.tables import render_board

STEP_SUMMARY = "GITHUB_STEP_SUMMARY"


def markdown(
    boards: Iterable[Board],
    gates: Iterable[GateResult] = (),
    compared: Iterable[BaselineComparison] = (),
    flaky: Mapping[str, Sequence[tuple[str, str]]] | None = None,
    partial: Sequence[str] = (),
    decided: str = "",
) -> str:
    """One section per project: its leaderboard (intervals, ties, each model against the
    leader, power; a board with no row, its notes alone), its FLAKY cases (`flaky`: per
    project, each case's `case[model]` and what its samples did), its change against the
    baseline, then its gate if it has one; first, why the boards are not the whole
    benchmark (`partial`), if they are not, and why the gates did not decide the exit
    status (`decided`), if they did not."""
    by_project = {g.project: g for g in gates}
    flaky = flaky or {}
    against: dict[str, list[BaselineComparison]] = {}
    for c in compared:
        against.setdefault(c.project, []).append(c)
    parts: list[str] = [f"> ⚠️ {escape_markdown(said)}\n" for said in [*partial, decided] if said]
    for board in boards:
        parts.append(f"### arena leaderboard: {escape_markdown(board.project)}\n")
        lines = render_board(board, fmt="github").split("\n")
        table = [line for line in lines if line.startswith("|")]  # its cells escaped
        parts.extend([*table, ""] if table else [])  # (none on a board with no row)
        parts.extend(f"{escape_markdown(line)}  " for line in lines if not line.startswith("|"))
        if board.project in flaky:
            parts.append("\n**flaky cases (no clear verdict):**\n")
            parts.extend(f"- `{case}`: {said}" for case, said in flaky[board.project])
        for c in against.get(board.project, []):
            head, *rest = c.lines()
            parts.append(f"\n**against the baseline:** {escape_markdown(head)}\n")
            parts.extend(f"- {escape_markdown(line.strip())}" for line in rest)
        gate = by_project.get(board.project)
        if gate is not None:
            mark = "✅" if gate.held else "❌"
            parts.append(f"\n**{mark} {escape_markdown(gate.headline())}**\n")
            parts.extend(f"- {escape_markdown(c.describe())}" for c in gate.checks)
        parts.append("")
    return "\n".join(parts) + "\n"


def ungraded(said: Sequence[str]) -> str:
    """The summary of a run that graded no case: a heading, and why (`said`)."""
    parts = ["### arena: no case was graded\n", *(f"> ⚠️ {escape_markdown(s)}\n" for s in said)]
    return "\n".join(parts) + "\n"


def append_step_summary(path: Path, text: str) -> None:
    """Append to the job summary file; GitHub shows the whole file as markdown."""
    with path.open("a", encoding="utf-8") as out:
        out.write(text)
