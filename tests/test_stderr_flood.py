"""A program that floods stderr (a command agent, a script scorer) is stopped once it has
written MAX_STDERR there, as one that floods stdout is: its stderr file grew on disk until
its timeout. The end of what it wrote is still what a failure quotes."""

from __future__ import annotations

import asyncio
import json
import os
import re
import signal
import sys
import time
from pathlib import Path

import pytest

from pytest_arena.engine import processes
from tests.conftest import MakeProject, running

pytestmark = pytest.mark.skipif(os.name != "posix", reason="the floods are written by bash too")

LINE = 32  # bytes of each line FLOOD writes: b"debug line %020d\n"
# Writes numbered debug lines to stderr, 1 MiB at a time (about 50 MiB/s); with an
# argument, that many MiB and then a minute of nothing, else without end.
FLOOD = """
import os, sys, time
from pathlib import Path
if "PIDS" in os.environ:
    Path(os.environ["PIDS"], str(os.getpid())).touch()
mib = int(sys.argv[1]) if len(sys.argv) > 1 else None
n = 0
while mib is None or n < mib * 32768:
    os.write(2, b"".join(b"debug line %020d\\n" % i for i in range(n, n + 32768)))
    n += 32768
    time.sleep(0.01)
time.sleep(60)
"""
CAP = processes.MAX_STDERR // 2**20
STOPPED = (
    f"was stopped once it had written more than {CAP} MiB to stderr, more than arena"
    " holds on disk while it runs; log less there (or to a file of your own)"
)


def written(stderr: str | bytes) -> int:
    """How many bytes FLOOD had written by the last line `stderr` quotes."""
    text = stderr.decode() if isinstance(stderr, bytes) else stderr
    return (int(re.findall(r"debug line (\d{20})", text)[-1]) + 1) * LINE


def test_a_program_writing_stderr_without_end_is_stopped_near_the_cap(tmp_path: Path) -> None:
    """It wrote on until its timeout: some GB of /tmp for a 60 s timeout, into a file
    already unlinked. Now what it writes stays near MAX_STDERR, and its end is kept."""
    script = tmp_path / "flood.py"
    script.write_text(FLOOD)
    argv = [sys.executable, str(script)]
    started = time.monotonic()
    done = processes.run(argv, cwd=tmp_path, env=os.environ, timeout=10)
    assert (done.stopped, done.returncode) == ("stderr", -signal.SIGKILL)
    assert done.how() == STOPPED
    assert len(done.stderr) == processes.STDERR_KEPT
    assert processes.MAX_STDERR < written(done.stderr) < processes.MAX_STDERR + 32 * 2**20

    async def go() -> processes.Finished:
        return await asyncio.wait_for(processes.arun(argv, cwd=tmp_path, env=os.environ), 10)

    done = asyncio.run(go())
    assert (done.stopped, done.returncode, done.stdout) == ("stderr", -signal.SIGKILL, b"")
    assert processes.MAX_STDERR < written(done.stderr) < processes.MAX_STDERR + 32 * 2**20
    assert time.monotonic() - started < 15


def test_a_command_agent_flooding_stderr_fails_its_case_at_once_quoting_its_end(
    pytester: pytest.Pytester, make_project: MakeProject, tmp_path: Path
) -> None:
    """80 MiB of debug lines, then a minute of nothing: the case waited for the model's
    timeout while the agent's stderr filled the disk."""
    pids = tmp_path / "pids"
    pids.mkdir()
    make_project(
        "p",
        f"""
        models:
          default: [chatty]
          define:
            chatty:
              connector: command
              command: [{json.dumps(sys.executable)}, flood.py, "80"]
              env: {{PIDS: {json.dumps(str(pids))}}}
              timeout: 120
        tests:
          - {{id: q, input: x, reference: x}}
        """,
        {"flood.py": FLOOD},
    )
    started = time.monotonic()
    result = pytester.runpytest("-p", "no:cacheprovider", "--arena-json=r.json")
    assert time.monotonic() - started < 60  # not the agent's minute, nor its timeout
    result.assert_outcomes(failed=1)
    said = f"model 'chatty' call failed: command *flood.py 80' {STOPPED}; end of stderr:"
    result.stdout.fnmatch_lines([said, "debug line 000000000000021*"])
    [record] = json.loads(Path("r.json").read_text())["records"]
    assert processes.MAX_STDERR < written(record["error"]) <= 80 * 2**20
    [pid] = [int(entry.name) for entry in pids.iterdir()]
    assert not running(pid)


def test_a_script_scorer_flooding_stderr_fails_its_case_at_once_quoting_its_end(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    make_project(
        "p",
        f"""
        models: [sim_perfect]
        scoring:
          - {{command: [{json.dumps(sys.executable)}, checks/flood.py, "80"], timeout: 120}}
        tests:
          - {{id: a, input: a, reference: a}}
        """,
        {"checks/flood.py": FLOOD},
    )
    started = time.monotonic()
    result = pytester.runpytest("-p", "no:cacheprovider")
    assert time.monotonic() - started < 60  # not the script's minute, nor its timeout
    result.assert_outcomes(failed=1)
    said = f"command '*checks/flood.py 80' {STOPPED}; end of stderr: '…*debug line *'"
    result.stdout.fnmatch_lines([said])
    [line] = [line for line in result.stdout.lines if "end of stderr" in line]
    assert processes.MAX_STDERR < written(line) <= 80 * 2**20
