"""The progress of a long run: plain lines in logs, one redrawn line on a terminal, nothing
under -q; pytest's own output around it unchanged."""

from __future__ import annotations

import importlib
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
TALKATIVE = """
models:
  default: [talker]
  define:
    talker: {connector: python, callable: "agent:answer", concurrency: 1}
tests:
"""
AGENT = """
import logging
import time


def answer(prompt, request):
    time.sleep(0.2)
    logging.warning("agent answered %s", prompt)
    print("agent printed", prompt)
    return prompt.split()[-1]
"""


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
    ahead = Progress(total=4, unstarted=6, started=100.0)  # 6 cases' calls not started yet
    ahead.finished(None, True)
    assert ahead.line(now=102.0) == "arena: 1/10 calls, 1 cached, $0.00 spent, about 18s left"


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


def test_the_total_counts_the_cases_whose_calls_are_not_started_yet(
    pytester: pytest.Pytester, make_project: MakeProject, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A run of more items than it starts ahead (collect.AHEAD) says its whole count from
    its first line, not the calls started so far."""
    collect = importlib.import_module("pytest_arena.plugin.collect")  # the inner run's
    monkeypatch.setattr(collect, "AHEAD", 3)
    monkeypatch.setattr(collect, "TOP_UP", 1)
    make_project("mine", SLOW + CASES)
    result = pytester.runpytest("--arena-progress-every", "0.2", "-p", "no:randomly")
    assert result.ret == 0
    said = re.compile(r"arena: (\d+)/(\d+) calls")
    lines = [m for m in map(said.search, result.stdout.lines) if m]
    assert len(lines) >= 3, result.stdout.str()
    assert {m.group(2) for m in lines} == {"10"}
    assert int(lines[0].group(1)) < 10


def _on_a_terminal(cwd: str, *args: str, columns: int = 120, **env: str) -> str:
    """pytest's output when its stdout is a terminal (a pseudo-terminal here), `columns`
    wide, in an interactive session (not CI's) unless `env` says otherwise."""
    import pty

    master, slave = pty.openpty()
    env = {
        **{k: v for k, v in os.environ.items() if k not in ("CI", "BUILD_NUMBER")},
        "TERM": "xterm",
        "COLUMNS": str(columns),
        **env,
    }
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


def _screen(text: str, columns: int | None = None) -> list[str]:
    """The lines a terminal shows for `text`: colours dropped, backspaces applied (which
    stop at the start of a row), lines wrapped at `columns`, if given."""
    text = re.sub(r"\x1b\[[0-9;]*[A-Za-z]", "", text).replace("\r\n", "\n")
    rows: list[list[str]] = [[]]
    at = 0
    for ch in text:
        if ch == "\n":
            rows.append([])
            at = 0
        elif ch == "\r":
            at = 0
        elif ch == "\b":
            at = max(0, at - 1)
        else:
            if columns is not None and at == columns:
                rows.append([])
                at = 0
            row = rows[-1]
            if at < len(row):
                row[at] = ch
            else:
                row.append(ch)
            at += 1
    return ["".join(row).rstrip() for row in rows]


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


@pytest.mark.skipif(sys.platform == "win32", reason="a pseudo-terminal")
@pytest.mark.parametrize(
    ("option", "other"), [("-s", "agent printed"), ("--log-cli-level=WARNING", "agent answered")]
)
def test_a_terminal_others_write_to_gets_no_line_redrawn(
    pytester: pytest.Pytester, make_project: MakeProject, option: str, other: str
) -> None:
    cases = "".join(f'  - {{id: c{i}, input: "say {i}", reference: "{i}"}}\n' for i in range(8))
    make_project("mine", TALKATIVE + cases, {"agent.py": AGENT})
    raw = _on_a_terminal(str(pytester.path), "-p", "no:randomly", "-p", "no:cacheprovider", option)
    assert f"{other} say 7" in raw  # the other writer
    assert "\b" not in raw
    assert not any(LINE.search(line) for line in _screen(raw))  # nothing left over


@pytest.mark.skipif(sys.platform == "win32", reason="a pseudo-terminal")
def test_a_narrow_terminal_gets_no_line_wider_than_itself(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    make_project("mine", SLOW + CASES)
    raw = _on_a_terminal(str(pytester.path), "-p", "no:randomly", columns=30)
    assert "\b" in raw  # drawn where it fits (in the blank line before the tests)
    screen = _screen(raw, columns=30)  # pytest's own lines wrap: it takes 80 below 40
    assert not any("/10 calls" in row for row in screen), screen  # all erased: none wrapped


@pytest.mark.skipif(sys.platform == "win32", reason="a pseudo-terminal")
@pytest.mark.parametrize("env", [{"CI": "true"}, {"TERM": "dumb"}])
def test_a_terminal_in_ci_or_dumb_gets_plain_lines(
    pytester: pytest.Pytester, make_project: MakeProject, env: dict[str, str]
) -> None:
    make_project("mine", SLOW + CASES)
    raw = _on_a_terminal(
        str(pytester.path), "-p", "no:randomly", "--arena-progress-every", "0.2", **env
    )
    assert "\b" not in raw
    assert any(LINE.fullmatch(line) for line in _screen(raw)), raw  # lines of their own


@pytest.mark.parametrize("every", ["-1", "nan", "inf"])
def test_a_progress_interval_that_cannot_work_is_a_usage_error(
    pytester: pytest.Pytester, make_project: MakeProject, every: str
) -> None:
    """-1 and nan were taken silently (and turned the progress off), where every other arena
    option is a usage error that names the option and the fix."""
    make_project("mine", SLOW + CASES)
    result = pytester.runpytest(f"--arena-progress-every={every}")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        [
            f"*--arena-progress-every {every}: give the seconds between progress lines as a"
            " finite number, 0 or more (--arena-progress-every 60; 0 shows no progress)"
        ]
    )
