"""The progress of a long run: plain lines in logs, one redrawn line on a terminal, nothing
under -q; pytest's own output around it unchanged."""

from __future__ import annotations

import os
import re
import subprocess
import sys

import pytest

from pytest_arena.engine.money import dollars
from pytest_arena.engine.progress import Progress, duration
from tests.conftest import MakeProject

SLOW = """
models:
  default: [slow]
  define:
    slow: {connector: sim, profile: sim_perfect, latency_ms: 300, concurrency: 2}
tests:
"""
CASES = "".join(f'  - {{id: c{i}, input: "say {i}", reference: "{i}"}}\n' for i in range(10))
LINE = re.compile(r"arena: (\d+)/10 calls, \$[\d.]+ spent(, about \d+s left)?")


def test_the_counts_and_the_time_left() -> None:
    progress = Progress(total=10, started=100.0)
    assert progress.line(now=100.0) == "arena: 0/10 calls, $0.00 spent, time left unknown"
    for cost, cached in [(0.25, False), (0.25, False), (0.5, True), (None, False)]:
        progress.finished(cost, cached)
    half = dollars(0.5)  # as every money amount is written
    assert progress.line(now=108.0) == (
        f"arena: 4/10 calls, 1 cached, {half} spent (+1 unpriced), about 12s left"
    )
    progress.done = 10
    assert progress.line(now=200.0) == f"arena: 10/10 calls, 1 cached, {half} spent (+1 unpriced)"
    assert [duration(s) for s in (4.4, 190, 7500)] == ["4s", "3m 10s", "2h 05m"]


def test_a_log_gets_plain_lines_while_calls_run_and_q_gets_none(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    make_project("mine", SLOW + CASES)
    result = pytester.runpytest("--arena-progress-every", "0.2", "-p", "no:randomly")
    assert result.ret == 0
    lines = [m for m in map(LINE.search, result.stdout.lines) if m]
    assert lines, result.stdout.str()
    done = [int(m.group(1)) for m in lines]
    assert done == sorted(done) and 0 < done[-1] <= 10
    result.stdout.fnmatch_lines(["*10 passed*"])
    quiet = pytester.runpytest("--arena-progress-every", "0.2", "-q")
    assert quiet.ret == 0
    assert not any(LINE.search(line) for line in quiet.stdout.lines)
    off = pytester.runpytest("--arena-progress-every", "0")
    assert not any(LINE.search(line) for line in off.stdout.lines)


def _on_a_terminal(cwd: str, *args: str) -> str:
    """pytest's output when its stdout is a terminal (a pseudo-terminal here)."""
    import pty

    master, slave = pty.openpty()
    env = {**os.environ, "COLUMNS": "120"}
    process = subprocess.Popen(
        [sys.executable, "-m", "pytest", *args],
        stdin=slave,
        stdout=slave,
        stderr=slave,
        cwd=cwd,
        env=env,
        close_fds=True,
    )
    os.close(slave)
    chunks = []
    while True:
        try:
            chunk = os.read(master, 65536)
        except OSError:  # the child closed the terminal
            break
        if not chunk:
            break
        chunks.append(chunk)
    process.wait(timeout=60)
    os.close(master)
    return b"".join(chunks).decode()


def _screen(text: str) -> list[str]:
    """The lines a terminal shows for `text`: colours dropped, backspaces applied."""
    text = re.sub(r"\x1b\[[0-9;]*[A-Za-z]", "", text).replace("\r\n", "\n")
    shown = []
    for raw in text.split("\n"):
        line: list[str] = []
        at = 0
        for ch in raw.split("\r")[-1]:
            if ch == "\b":
                at = max(0, at - 1)
                continue
            if at < len(line):
                line[at] = ch
            else:
                line.append(ch)
            at += 1
        shown.append("".join(line).rstrip())
    return shown


@pytest.mark.skipif(sys.platform == "win32", reason="a pseudo-terminal")
def test_a_terminal_gets_one_line_redrawn_and_erased(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    make_project("mine", SLOW + CASES)
    raw = _on_a_terminal(str(pytester.path), "-p", "no:randomly", "-p", "no:cacheprovider")
    assert LINE.search(raw), raw  # drawn while the calls ran
    assert "\b" in raw
    screen = _screen(raw)
    (row,) = [line for line in screen if line.startswith("projects/mine/arena.yaml")]
    assert re.fullmatch(r"projects/mine/arena\.yaml \.{10} +\[100%\]", row), row  # all erased
    assert not any(LINE.search(line) for line in screen)
