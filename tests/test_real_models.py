"""Whole runs against real model servers on 127.0.0.1 and real agents, through the engine.

Every fault ends as a correct result or a clear failure: never a hang, never a lost record.
"""

from __future__ import annotations

import json
import signal
import sys
import textwrap
import time
from pathlib import Path

import pytest

from tests.conftest import MakeProject, alive, run_to_interrupt
from tests.fake_llm_server import FakeLLMServer

SECRET = "sk-e2e-secret-4242"
FAULTS = """
tests:
  - {id: plain, input: "[[answer=Paris]] Capital of France?", reference: Paris}
  - {id: throttled, input: "[[answer=Rome]] [[fault=429 retry_after=0.05 times=2]] Italy?", reference: Rome}
  - {id: flaky, input: "[[answer=Oslo]] [[fault=503 times=1]] Norway?", reference: Oslo}
  - {id: dropped, input: "[[answer=Bern]] [[fault=reset times=1]] Switzerland?", reference: Bern}
  - {id: hangs, input: "[[fault=hang]] Spain?", reference: Madrid}
  - {id: garbled, input: "[[fault=malformed]] Portugal?", reference: Lisbon}
  - {id: refused, input: "[[fault=400]] Greece?", reference: Athens}
"""


def http_model(connector: str, url: str) -> str:
    return f"""
models:
  default: [remote]
  define:
    remote:
      connector: {connector}
      base_url: {url}
      api_key_env: ARENA_E2E_KEY
      model: served
      timeout: 0.5
      max_retries: 2
      backoff: 0.01
"""


@pytest.mark.parametrize("connector", ["openai", "anthropic"])
def test_every_fault_ends_as_a_right_result_or_a_clear_failure(
    connector: str,
    fake_llm: FakeLLMServer,
    pytester: pytest.Pytester,
    make_project: MakeProject,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("ARENA_E2E_KEY", SECRET)
    url = fake_llm.base_url if connector == "openai" else fake_llm.root_url
    make_project("geo", http_model(connector, url) + FAULTS)
    report = pytester.path / "report.json"
    result = pytester.runpytest("-p", "no:cacheprovider", f"--arena-json={report}")
    result.assert_outcomes(passed=4, failed=3)
    port = fake_llm.port
    result.stdout.fnmatch_lines(
        [
            "*_ geo::hangs[[]remote] _*",
            f"model 'remote' call failed: no answer within 0.5 s (the model's timeout) from"
            f" 127.0.0.1:{port} after 3 tries; fix: raise timeout: in models.define if the model"
            " is that slow",
            "*_ geo::garbled[[]remote] _*",
            f"model 'remote' call failed: 127.0.0.1:{port}: * not *JSON*",
            "*_ geo::refused[[]remote] _*",
            f"model 'remote' call failed: 127.0.0.1:{port}: HTTP 400*",
        ]
    )
    result.stdout.no_fnmatch_line(f"*{SECRET}*")
    records = {r["case"]: r for r in json.loads(report.read_text())["records"]}
    assert len(records) == 7  # no lost record
    assert [records[c]["retries"] for c in ("plain", "throttled", "flaky", "dropped")] == [
        0,
        2,
        1,
        1,
    ]
    assert (fake_llm.count("Italy"), fake_llm.count("Greece")) == (3, 1)  # 400 is not retried
    assert SECRET not in report.read_text()


AGENT = """
import json, os, sys
question = sys.stdin.read()
case = json.loads(os.environ["ARENA_CASE"])
with open("answer.txt", "w") as f:
    f.write(case["metadata"]["write"])
print("done: " + question)
"""

WORKSPACE_SCORER = """
from pytest_arena.scorers import Scorer, ScoreResult


class FileScorer(Scorer):
    name = "wrote_file"

    def score(self, output, reference, context):
        text = (context.workspace / "answer.txt").read_text()
        ok = text == reference
        return ScoreResult(float(ok), ok, f"answer.txt holds {text!r}")
"""


def test_a_command_agent_runs_in_a_workspace_that_the_scorers_can_read(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    make_project(
        "agentic",
        f"""
        models:
          default: [agent]
          define:
            agent: {{connector: command, command: [{json.dumps(sys.executable)}, agent.py]}}
        scorers:
          default: wrote_file
        tests:
          - {{id: good, input: "write it", reference: "42", metadata: {{write: "42"}}}}
          - {{id: bad, input: "write it", reference: "42", metadata: {{write: "41"}}}}
          - id: runloop
            input: "write ten characters"
            reference: null
            metadata: {{write: "0123456789"}}
            scoring:
              - scorer: length_check
                params: {{expected_length: 10, file_path: "{{workspace}}/answer.txt"}}
        """,
        {
            "agent.py": AGENT,
            "scorers/wrote_file.py": WORKSPACE_SCORER,
            "scorers/length_check": "import json, os, sys\n"
            "ctx = json.loads(os.environ['ARENA_SCORER_CONTEXT'])\n"
            "n = len(open(ctx['file_path']).read())\n"
            "print(1.0 if n == ctx['expected_length'] else 0.0)\n",
        },
    )
    script = pytester.path / "projects/agentic/scorers/length_check"
    script.write_text("#!" + sys.executable + "\n" + script.read_text())
    script.chmod(0o755)
    result = pytester.runpytest("-p", "no:cacheprovider", f"--basetemp={pytester.path / 'tmp'}")
    result.assert_outcomes(passed=2, failed=1)
    result.stdout.fnmatch_lines(["*_ agentic::bad[[]agent] _*", "answer.txt holds '41'"])
    # the workspaces are kept under pytest's basetemp, one folder per case
    root = pytester.path / "tmp" / "arena-workspaces"
    kept = sorted(p.name for p in root.iterdir() if p.is_dir())
    assert kept == [
        "00001-agentic-good-agent-0",
        "00002-agentic-bad-agent-0",
        "00003-agentic-runloop-agent-0",
    ]
    answer = pytester.path / "tmp/arena-workspaces/00002-agentic-bad-agent-0/answer.txt"
    assert answer.read_text() == "41"


def test_a_python_agent_is_called_with_the_rendered_prompt(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    make_project(
        "mine",
        """
        models:
          default: [app]
          define:
            app: {connector: python, callable: "my_app:answer"}
        prompt:
          template: "Q: {input}"
        tests:
          - {id: echo, input: "ping", reference: "A to Q: ping"}
        """,
        {"my_app.py": "async def answer(prompt):\n    return 'A to ' + prompt\n"},
    )
    pytester.runpytest("-p", "no:cacheprovider").assert_outcomes(passed=1)


HANGING_AGENT = """
import os, sys, time
with open(os.path.join(os.environ["PIDS"], str(os.getpid())), "w"):
    pass
if sys.stdin.read().startswith("fail"):
    deadline = time.monotonic() + 10
    while len(os.listdir(os.environ["PIDS"])) < 3 and time.monotonic() < deadline:
        time.sleep(0.02)  # fail once the other two agents in flight have started
    sys.exit("I give up")
time.sleep(60)
"""


def agent_project(make_project: MakeProject, pids: Path) -> None:
    make_project(
        "slow",
        textwrap.dedent(f"""
        models:
          default: [agent]
          define:
            agent:
              connector: command
              command: [{json.dumps(sys.executable)}, agent.py]
              env: {{PIDS: {json.dumps(str(pids))}}}
              concurrency: 3
              timeout: 120
        tests:
          - {{id: first, input: "fail now", reference: x}}
        """)
        + "".join(f"  - {{id: c{i}, input: wait, reference: x}}\n" for i in range(4)),
        {"agent.py": HANGING_AGENT},
    )


def test_stopping_at_the_first_failure_ends_the_agents_still_running(
    pytester: pytest.Pytester, make_project: MakeProject, tmp_path: Path
) -> None:
    pids = tmp_path / "pids"
    pids.mkdir()
    agent_project(make_project, pids)
    started = time.monotonic()
    result = pytester.runpytest("-p", "no:cacheprovider", "-x")
    result.assert_outcomes(failed=1)
    assert time.monotonic() - started < 30  # the 60 s agents did not hold the run
    # three start at once; the failing one's slot may go to a fourth before -x stops the
    # run; the fifth never starts
    assert len(list(pids.iterdir())) in (3, 4)
    assert alive(pids) == []


def test_ctrl_c_cancels_the_calls_and_ends_the_agents(
    pytester: pytest.Pytester, make_project: MakeProject, tmp_path: Path
) -> None:
    pids = tmp_path / "pids"
    pids.mkdir()
    agent_project(make_project, pids)
    run = run_to_interrupt(pytester.path, "-p", "no:cacheprovider", "projects")
    deadline = time.monotonic() + 20
    while len(list(pids.iterdir())) < 3 and time.monotonic() < deadline:
        time.sleep(0.05)
    time.sleep(0.3)  # let the failing agent's case report
    run.send_signal(signal.SIGINT)
    out, _ = run.communicate(timeout=30)
    assert run.returncode == 2, out  # pytest's "interrupted"
    assert "KeyboardInterrupt" in out
    assert alive(pids) == []
