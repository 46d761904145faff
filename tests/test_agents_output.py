"""What your own agents say reaches the reports within bounds: a command agent that keeps
printing is stopped at 16 MiB (it filled the disk), and a python agent's answer has the
same cap; a failure quotes the end of stderr, not its middle; and the secrets of the
environment an agent ran in are written *** in what it says, answered or raised."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import pytest

from tests.conftest import MakeProject

KEY = "sk-test-7d3f0a9c2b4e6f81"  # OPENAI_API_KEY in these runs


def command(script: str) -> str:
    return f"{{connector: command, command: [{json.dumps(sys.executable)}, {script}]}}"


def test_a_command_agent_that_keeps_printing_is_stopped_at_16_mib_not_at_its_timeout(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    """`while True: write 1 MiB` with a 4 s timeout wrote 2 GB of /tmp in 3.5 s (files
    already unlinked): arena read 16 MiB of it back and let the program write on until its
    timeout, each retry again. It is stopped once past what arena reads."""
    make_project(
        "p",
        f"""
        models:
          default: [spews]
          define:
            spews: {command("spews.py")[:-1]}, timeout: 60, max_retries: 0}}
        tests:
          - {{id: q, input: x, reference: x}}
        """,
        {  # 40 MiB, then nothing more for a minute: the timeout would end it
            "spews.py": "import sys, time\n"
            "for _ in range(40):\n"
            "    sys.stdout.buffer.write(b'y' * 2**20)\n"
            "sys.stdout.flush()\n"
            "time.sleep(60)\n"
        },
    )
    started = time.monotonic()
    result = pytester.runpytest("-p", "no:cacheprovider")
    assert time.monotonic() - started < 30  # not its 60 s timeout
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            "model 'spews' call failed: command '*spews.py' wrote more than 16 MiB to stdout,"
            " more than arena reads of an answer; write the answer alone to stdout (and logs to"
            " stderr or to files in the workspace)",
        ]
    )


def test_a_failure_quotes_the_end_of_stderr_not_what_came_before_16_mib(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    """600,000 debug lines, then the reason, then exit 1: the failure quoted a debug line
    from the middle (arena kept the first 16 MiB of stderr, and quoted the end of that)."""
    make_project(
        "p",
        f"""
        models:
          default: [noisy]
          define:
            noisy: {command("noisy.py")}
        tests:
          - {{id: q, input: x, reference: x}}
        """,
        {
            "noisy.py": "import sys\n"  # 24 MB of it
            "for i in range(600_000):\n"
            "    print(f'debug: step {i} of a long log line', file=sys.stderr)\n"
            "print('FATAL: the real reason', file=sys.stderr)\n"
            "sys.exit(1)\n"
        },
    )
    result = pytester.runpytest("-p", "no:cacheprovider")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            "model 'noisy' call failed: command '*noisy.py' exited with status 1; end of stderr:",
            "*debug: step 599999 of a long log line",
            "FATAL: the real reason",
        ]
    )


def test_a_python_agents_answer_over_16_mib_fails_as_a_command_agents_does(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    """`return "x" * 50 MiB` was graded, and the JSON and HTML reports of 2 cases held
    105 MB each; a command agent's answer over 16 MiB fails its case."""
    make_project(
        "p",
        """
        models:
          default: [mine]
          define:
            mine: {connector: python, callable: "agent:run"}
        tests:
          - {id: big, input: big, reference: x}
          - {id: fits, input: small, reference: x}
        """,
        {
            "agent.py": "def run(prompt):\n    return 'x' * (16 * 2**20 + 1) if prompt == 'big' else 'x'\n"
        },
    )
    result = pytester.runpytest("-p", "no:cacheprovider", "--arena-json", "r.json")
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(
        [
            "model 'mine' call failed: agent:run returned more than 16 MiB of text, more than"
            " arena reads of an answer; return the answer alone (and write logs to files in"
            " the workspace)",
        ]
    )
    assert Path("r.json").stat().st_size < 2**20


AGENT = """
import os


def raises(prompt):
    raise RuntimeError("401 Unauthorized: key " + os.environ["OPENAI_API_KEY"])


def says(prompt):
    key = os.environ["OPENAI_API_KEY"]
    return {
        "text": "using key " + key,
        "meta": {"key": key, "kept": ["fine", key]},
        "tool_calls": [{"name": "login", "arguments": {"key": key}, "result": "ok " + key}],
    }


async def raises_async(prompt):
    raise PermissionError(f"denied for {os.environ['OPENAI_API_KEY']!r}")
"""

PRINTS = "import os, sys\nsys.stdin.read()\nprint('using key', os.environ['OPENAI_API_KEY'])\n"


def test_a_key_an_agent_raises_or_says_reaches_no_report(
    pytester: pytest.Pytester, make_project: MakeProject, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`raise RuntimeError("401: key " + os.environ["OPENAI_API_KEY"])` put the key in the
    terminal, the JSON report (twice), JUnit and HTML, where a command agent's stderr has it
    as ***; and what either agent answered (its stdout, its returned text and meta) kept it."""
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    make_project(
        "p",
        f"""
        models:
          default: [raises, raises_async, says, prints]
          define:
            raises: {{connector: python, callable: "agent:raises"}}
            raises_async: {{connector: python, callable: "agent:raises_async"}}
            says: {{connector: python, callable: "agent:says"}}
            prints: {command("prints.py")}
        tests:
          - {{id: q, input: x, reference: "using key ***"}}
        """,
        {"agent.py": AGENT, "prints.py": PRINTS},
    )
    result = pytester.runpytest(
        "-p",
        "no:cacheprovider",
        "-rA",
        "--arena-json=r.json",
        "--junitxml=j.xml",
        "--arena-html=r.html",
    )
    result.assert_outcomes(passed=2, failed=2)
    result.stdout.fnmatch_lines(
        [
            "model 'raises' call failed: agent:raises raised RuntimeError: 401 Unauthorized: key ***",
            "model 'raises_async' call failed: agent:raises_async raised PermissionError:"
            " denied for '***'",
        ]
    )
    said = {
        "terminal": result.stdout.str() + result.stderr.str(),
        **{name: Path(name).read_text() for name in ("r.json", "j.xml", "r.html")},
    }
    assert [where for where, text in said.items() if KEY in text] == []
    records = {r["model"]: r for r in json.loads(said["r.json"])["records"]}
    assert records["says"]["output"] == records["prints"]["output"] == "using key ***"
    assert records["says"]["response"]["meta"] == {"key": "***", "kept": ["fine", "***"]}
