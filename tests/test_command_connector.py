"""The command connector: an agent program run once per call in its workspace."""

from __future__ import annotations

import asyncio
import dataclasses
import json
import sys
import tempfile
import textwrap
import time
from pathlib import Path

import pytest

from pytest_arena.connectors import Connector, ConnectorError, Request, Response, build_connector
from pytest_arena.spec import Case, SpecError, load_project
from tests.conftest import MakeProject, running
from tests.fake_llm_server import FakeLLMServer

CASE = Case(
    id="fix_bug",
    input="Fix the failing test.",
    reference="SECRET-REFERENCE",
    tags=("code",),
    metadata={"repo": "demo"},
    project="p",
)

AGENT = """
import json, os, sys
from pathlib import Path

prompt = sys.stdin.read()
case = json.loads(os.environ["ARENA_CASE"])
Path("notes.txt").write_text("written by the agent")
print(json.dumps({
    "prompt": prompt,
    "case": case,
    "cwd": os.getcwd(),
    "workspace": os.environ["ARENA_WORKSPACE"],
    "extra": os.environ.get("EXTRA"),
    "model": os.environ["ARENA_MODEL"],
}))
"""


def build(root: Path, settings: str, files: dict[str, str] | None = None) -> Connector:
    for rel, text in (files or {}).items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(textwrap.dedent(text).lstrip())
    path = root / "arena.yaml"
    path.write_text(
        "models:\n  define:\n    agent:\n      connector: command\n"
        + textwrap.indent(textwrap.dedent(settings), " " * 6)
    )
    file = load_project(path)
    return build_connector("agent", file.spec.models.define, file.path, file.lines)


def request(workspace: Path | None) -> Request:
    return Request(
        "agent", [{"role": "user", "content": str(CASE.input)}], CASE, workspace=workspace
    )


def call(connector: Connector, req: Request) -> Response:
    return asyncio.run(connector.acomplete(req))


def python_command(script: str) -> str:
    return f"command: [{json.dumps(sys.executable)}, {script}]\n"


def test_the_agent_reads_stdin_and_the_case_and_writes_in_its_workspace(tmp_path: Path) -> None:
    connector = build(
        tmp_path / "project",
        python_command("agent.py") + "env: {EXTRA: 'yes'}\n",
        {"agent.py": AGENT},
    )
    workspace = tmp_path / "work"
    workspace.mkdir()
    response = call(connector, request(workspace))
    seen = json.loads(response.text)
    assert seen["prompt"] == "Fix the failing test."
    assert seen["case"] == {
        "id": "fix_bug",
        "input": "Fix the failing test.",
        "tags": ["code"],
        "metadata": {"repo": "demo"},
    }
    assert "SECRET-REFERENCE" not in response.text
    assert seen["cwd"] == seen["workspace"] == str(workspace)
    assert (seen["extra"], seen["model"]) == ("yes", "agent")
    assert (workspace / "notes.txt").read_text() == "written by the agent"
    assert response.meta == {"workspace": str(workspace), "exit_status": 0, "stderr_tail": ""}
    assert not response.text.endswith("\n")
    assert not connector.cacheable and connector.wants_workspace


def test_without_a_workspace_the_agent_gets_a_fresh_folder_removed_after_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    temp = tmp_path / "temp"
    temp.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(temp))  # TMPDIR, as tempfile read it
    connector = build(tmp_path / "project", python_command("agent.py"), {"agent.py": AGENT})
    response = connector.complete(request(None))
    workspace = Path(json.loads(response.text)["workspace"])
    assert workspace.parent.parent == temp
    assert workspace.parent.name.startswith("arena-agent-")
    assert "workspace" not in response.meta  # gone: the answer names no folder
    assert list(temp.iterdir()) == []


@pytest.mark.parametrize(
    ("agent", "said"),
    [
        ("import sys\nsys.exit('no plan')\n", "exited with status 1"),
        ("print('not json')\n", "not a JSON object"),
        ("open('started', 'w').close()\nimport time\ntime.sleep(60)\n", "cancelled"),
    ],
)
def test_a_failed_call_without_a_workspace_leaves_no_folder_behind(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, agent: str, said: str
) -> None:
    """Its `arena-agent-*` folder, with the case's JSON files, was left in the temp folder
    by every call that failed."""
    temp = tmp_path / "temp"
    temp.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(temp))
    settings = python_command("agent.py") + "output: json\n"
    connector = build(tmp_path / "project", settings, {"agent.py": agent})

    async def ask() -> str:
        task = asyncio.ensure_future(connector.acomplete(request(None)))
        if said == "cancelled":  # as the engine's timeout does, once the agent runs
            for _ in range(200):
                if list(temp.glob("arena-agent-*/workspace/started")):
                    break
                await asyncio.sleep(0.05)
            task.cancel()
        try:
            await task
        except asyncio.CancelledError:
            return "cancelled"
        except ConnectorError as exc:
            return str(exc)
        return "answered"

    assert said in asyncio.run(ask())
    assert list(temp.iterdir()) == []


def test_a_relative_program_is_taken_from_the_project_folder(tmp_path: Path) -> None:
    script = tmp_path / "bin" / "agent.sh"
    script.parent.mkdir()
    script.write_text('#!/bin/sh\necho "$1 $(cat)"\n')
    script.chmod(0o755)
    connector = build(tmp_path, "command: ./bin/agent.sh --flag\n")
    workspace = tmp_path / "work"
    assert call(connector, request(workspace)).text == "--flag Fix the failing test."


def test_a_failing_agent_is_an_error_with_its_status_and_stderr(tmp_path: Path) -> None:
    connector = build(
        tmp_path,
        python_command("agent.py"),
        {"agent.py": "import sys\nprint('working', file=sys.stderr)\nsys.exit('no plan found')\n"},
    )
    with pytest.raises(ConnectorError) as caught:
        call(connector, request(tmp_path / "work"))
    assert not caught.value.retryable
    message = str(caught.value)
    assert message.startswith("command '")
    assert "agent.py' exited with status 1; end of stderr:\nworking\nno plan found" in message


@pytest.mark.parametrize(("size", "cut"), [(16 * 2**20 - 21, False), (16 * 2**20 - 20, True)])
def test_an_answer_longer_than_arena_reads_is_an_error_not_a_cut_answer(
    tmp_path: Path, size: int, cut: bool
) -> None:
    agent = f"import sys\nsys.stdout.write('x' * {size} + '\\nFINAL ANSWER: Paris\\n')\n"
    connector = build(tmp_path, python_command("agent.py"), {"agent.py": agent})
    if not cut:
        assert call(connector, request(tmp_path / "work")).text.endswith("FINAL ANSWER: Paris")
        return
    with pytest.raises(ConnectorError) as caught:
        call(connector, request(tmp_path / "work"))
    assert str(caught.value).endswith(
        "agent.py' wrote more than 16 MiB to stdout, more than arena reads of an answer; write"
        " the answer alone to stdout (and logs to stderr or to files in the workspace)"
    )


FILE_AGENT = """
import json, os, sys
from pathlib import Path

case = json.loads(Path(os.environ["ARENA_CASE_FILE"]).read_text(encoding="utf-8"))
messages = json.loads(Path(os.environ["ARENA_MESSAGES_FILE"]).read_text(encoding="utf-8"))
print(json.dumps({
    "input_length": len(case["input"]),
    "message_length": len(messages[-1]["content"]),
    "in_env": sorted(n for n in ("ARENA_CASE", "ARENA_MESSAGES") if n in os.environ),
    "workspace_files": os.listdir("."),
}))
"""


def big_request(workspace: Path, size: int) -> Request:
    text = "Summarise this report. " + "x" * size
    case = dataclasses.replace(CASE, input=text)
    return Request("agent", [{"role": "user", "content": text}], case, workspace=workspace)


def test_a_case_too_big_for_an_environment_variable_reaches_the_agent_in_a_file(
    tmp_path: Path,
) -> None:
    connector = build(tmp_path, python_command("agent.py"), {"agent.py": FILE_AGENT})
    seen = json.loads(call(connector, big_request(tmp_path / "work", 300_000)).text)
    assert seen["input_length"] == seen["message_length"] == 300_023
    assert seen["in_env"] == []  # Linux would refuse to start the program with them
    assert seen["workspace_files"] == []  # the files lie beside the workspace, not in it


def test_a_small_case_is_in_both_the_variable_and_the_file(tmp_path: Path) -> None:
    connector = build(tmp_path, python_command("agent.py"), {"agent.py": FILE_AGENT})
    seen = json.loads(call(connector, big_request(tmp_path / "work", 10)).text)
    assert seen["in_env"] == ["ARENA_CASE", "ARENA_MESSAGES"]
    assert seen["input_length"] == 33


HALVES_AGENT = """
import json, os, sys
from pathlib import Path

print(json.dumps({
    "stdin": sys.stdin.buffer.read().decode(),
    "case": json.loads(os.environ["ARENA_CASE"]),
    "messages": json.loads(os.environ["ARENA_MESSAGES"]),
    "case_file": json.loads(Path(os.environ["ARENA_CASE_FILE"]).read_text(encoding="utf-8")),
}))
"""


def test_half_a_character_reaches_stdin_as_u_fffd_and_the_json_as_its_escape(
    tmp_path: Path,
) -> None:
    """A lone surrogate (a hook's text may hold one) failed the call with a bare
    "UnicodeEncodeError: 'utf-8' codec can't encode character '\\ud800'"."""
    text = "caf\u00e9 a\ud800b \ud83d\ude00"  # a half, then two that make a character
    case = dataclasses.replace(CASE, input=text, metadata={"k": "\udfff"})
    req = Request("agent", [{"role": "user", "content": text}], case, workspace=tmp_path / "w")
    connector = build(tmp_path, python_command("agent.py"), {"agent.py": HALVES_AGENT})
    seen = json.loads(call(connector, req).text)
    assert seen["stdin"] == "caf\u00e9 a\ufffdb \U0001f600"
    read = "caf\u00e9 a\ud800b \U0001f600"  # JSON's reader joins the escapes of a pair
    assert seen["case"] == seen["case_file"]
    assert (seen["case"]["input"], seen["case"]["metadata"]) == (read, {"k": "\udfff"})
    assert seen["messages"] == [{"role": "user", "content": read}]


def test_an_agent_reading_the_variable_of_a_big_case_is_told_to_read_the_file(
    tmp_path: Path,
) -> None:
    connector = build(tmp_path, python_command("agent.py"), {"agent.py": AGENT})
    with pytest.raises(ConnectorError) as caught:
        call(connector, big_request(tmp_path / "work", 300_000))
    message = str(caught.value)
    assert "KeyError: 'ARENA_CASE'" in message
    assert message.endswith(
        "ARENA_CASE was not set: 293 KiB is too much for an environment variable;"
        " read the file named by ARENA_CASE_FILE instead\n"
        "ARENA_MESSAGES was not set: 293 KiB is too much for an environment variable;"
        " read the file named by ARENA_MESSAGES_FILE instead"
    )


@pytest.mark.skipif(sys.platform != "linux", reason="reads /proc")
def test_a_cancelled_call_ends_the_agent_and_its_children(tmp_path: Path) -> None:
    connector = build(
        tmp_path,
        python_command("agent.py"),
        {
            "agent.py": """
                import os, subprocess, sys, time
                child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
                with open("pids.tmp", "w") as f:
                    f.write(f"{os.getpid()} {child.pid}")
                os.rename("pids.tmp", "pids")
                time.sleep(60)
            """
        },
    )
    workspace = tmp_path / "work"

    async def scenario() -> list[int]:
        task = asyncio.ensure_future(connector.acomplete(request(workspace)))
        for _ in range(200):
            if (workspace / "pids").exists():
                break
            await asyncio.sleep(0.05)
        pids = [int(p) for p in (workspace / "pids").read_text().split()]
        assert all(running(pid) for pid in pids)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        return pids

    pids = asyncio.run(scenario())
    deadline = time.monotonic() + 5
    while any(running(pid) for pid in pids) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not any(running(pid) for pid in pids)


def test_a_program_that_does_not_exist_is_an_error_at_its_line(tmp_path: Path) -> None:
    with pytest.raises(SpecError) as caught:
        build(tmp_path, "command: ./agent.sh\n")
    text = caught.value.format(tmp_path)
    assert text.startswith(
        "arena.yaml:5: models.define.agent.command: command './agent.sh': program './agent.sh'"
        " not found in"
    )
    assert "fix: give a path relative to the project folder, or a program on PATH" in text


def test_a_misspelt_setting_is_an_error_at_its_line(tmp_path: Path) -> None:
    with pytest.raises(SpecError) as caught:
        build(tmp_path, "command: [cat]\nenviron: {A: b}\n")
    text = caught.value.format(tmp_path)
    assert "arena.yaml:6: models.define.agent.environ: unknown key 'environ'" in text
    assert (
        "known keys here: backoff, cache, command, concurrency, connector, env, max_retries" in text
    )


def test_a_retry_after_a_timeout_runs_in_a_fresh_workspace(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    agent = """
        import os, sys, time
        from pathlib import Path

        sys.stdin.read()
        tries = Path(os.environ["ARENA_PROJECT_ROOT"]) / "tries.txt"
        first = not tries.exists()
        tries.write_text("tried")
        seen = sorted(os.listdir("."))
        if first:
            Path("draft.txt").write_text("half done")
            time.sleep(60)  # the model's timeout ends this try
        print(f"workspace held at start: {seen}")
    """
    yaml = f"""
        models:
          default: [agent]
          define:
            agent:
              connector: command
              command: [{json.dumps(sys.executable)}, agent.py]
              timeout: 1
              max_retries: 1
              backoff: 0.1
        tests:
          - {{id: q, input: go, reference: "workspace held at start: []"}}
    """
    make_project("p", yaml, {"agent.py": agent})
    result = pytester.runpytest("-p", "no:cacheprovider")
    result.assert_outcomes(passed=1)  # before: the retry found the first try's draft.txt


def test_the_values_of_env_are_kept_out_of_the_stderr_it_keeps(tmp_path: Path) -> None:
    """`curl -v` in an agent prints the header it sends: the stderr tail went whole into the
    JSON report and the cache, though `env:` values are treated as secrets elsewhere."""
    token = "sk-test-5f3c9a1e7b2d4c6a8e0f"
    agent = (
        "import os, sys\nprint('> Authorization: Bearer ' + os.environ['TOKEN'], file=sys.stderr)\n"
    )
    connector = build(
        tmp_path,
        python_command("agent.py") + f"env: {{TOKEN: {token}}}\n",
        {"agent.py": agent + "print('done')\n", "fail.py": agent + "sys.exit(3)\n"},
    )
    response = call(connector, request(tmp_path / "work"))
    assert response.meta["stderr_tail"] == "> Authorization: Bearer ***"
    failing = build(tmp_path, python_command("fail.py") + f"env: {{TOKEN: {token}}}\n")
    with pytest.raises(ConnectorError) as caught:
        call(failing, request(tmp_path / "work2"))
    assert "Bearer ***" in str(caught.value) and token not in str(caught.value)


INHERITED = {  # variables the run inherits, each holding a key an agent or a script may print
    "OPENAI_API_KEY": "sk-proj-INHERITEDopenai0001",  # a provider's
    "GITHUB_TOKEN": "ghp_INHERITEDgithub0002",  # named as a credential
    "GATEWAY_LLM": "gw-INHERITEDgateway0003",  # named by a model's api_key_env alone
    "PIN_TOKEN": "pin4242",  # too short to tell from a word: left as it is
}


def test_keys_the_agent_inherits_are_kept_out_of_the_run_and_its_report(
    pytester: pytest.Pytester,
    make_project: MakeProject,
    monkeypatch: pytest.MonkeyPatch,
    fake_llm: FakeLLMServer,
) -> None:
    """An agent whose upstream refused its key said so on stderr, key and all: only the values
    of its own `env:` were redacted, so a key it inherited (OPENAI_API_KEY) went into the
    terminal and the JSON report, in the failure and in the stderr tail a passing case keeps."""
    for name, value in INHERITED.items():
        monkeypatch.setenv(name, value)
    says = "import os, sys\n" + "".join(
        f"print('{name}: ' + os.environ['{name}'], file=sys.stderr)\n" for name in INHERITED
    )
    make_project(
        "leaky",
        f"""
        models:
          default: [failing, chatty, gateway]
          define:
            failing: {{connector: command, command: [{json.dumps(sys.executable)}, failing.py]}}
            chatty: {{connector: command, command: [{json.dumps(sys.executable)}, chatty.py]}}
            gateway:
              connector: openai
              base_url: "{fake_llm.base_url}"
              api_key_env: GATEWAY_LLM
              cache: false
        tests:
          - {{id: a, input: "x", reference: "x"}}
        """,
        {"failing.py": says + "sys.exit(1)\n", "chatty.py": says + "print('x')\n"},
    )
    result = pytester.runpytest("-p", "no:cacheprovider", "-rA", "--arena-json", "r.json")
    result.assert_outcomes(passed=2, failed=1)
    report = Path("r.json").read_text()
    for said in (result.stdout.str(), report):
        for name in ("OPENAI_API_KEY", "GITHUB_TOKEN", "GATEWAY_LLM"):
            assert INHERITED[name] not in said
            assert f"{name}: ***" in said
        assert "PIN_TOKEN: pin4242" in said
    tails = [
        r["response"]["stderr_tail"]
        for r in json.loads(report)["records"]
        if r["model"] == "chatty"
    ]
    assert tails == ["OPENAI_API_KEY: ***\nGITHUB_TOKEN: ***\nGATEWAY_LLM: ***\nPIN_TOKEN: pin4242"]


def test_which_variables_hold_a_secret() -> None:
    from pytest_arena.connectors.anthropic import AnthropicConnector
    from pytest_arena.connectors.openai import OpenAIConnector
    from pytest_arena.secrets import environment_secrets, redacted, secret_variable

    for provider in (OpenAIConnector, AnthropicConnector):  # named here and in secrets.py
        assert secret_variable(provider.default_key_env)
    named = ["GITHUB_TOKEN", "AWS_SECRET_ACCESS_KEY", "DB_PASSWORD", "SMTP_PASS", "NPM_AUTH"]
    assert all(map(secret_variable, named))
    plain = ["PATH", "HOME", "PWD", "OLDPWD", "SSH_AUTH_SOCK", "XDG_SESSION_TYPE", "KEYBOARD"]
    assert not any(map(secret_variable, plain))
    env = {"PWD": "/home/someone/project", "API_TOKEN": " tok-0123456789 ", "MY_KEY": "short"}
    said = redacted("in /home/someone/project: tok-0123456789 short", environment_secrets(env))
    assert said == "in /home/someone/project: *** short"


REPORTER = """
import json, sys
prompt = sys.stdin.read()
calls = [{"name": "lookup_order", "arguments": {"order_id": "1182"}, "result": {"status": "shipped"}}]
if "refund" in prompt:
    calls.append({"name": "issue_refund", "arguments": {"order_id": "1182"}})
print("thinking...", file=sys.stderr)
print(json.dumps({
    "text": "Order 1182 has shipped.",
    "tokens_in": 12,
    "tokens_out": 5,
    "cost": 0.25,
    "meta": {"plan": "look it up"},
    "tool_calls": calls,
}))
"""


def test_with_output_json_the_agent_says_its_usage_cost_meta_and_tool_calls(
    tmp_path: Path,
) -> None:
    from pytest_arena.connectors.base import AGENT_META, AGENT_STEPS

    connector = build(
        tmp_path, python_command("agent.py") + "output: json\n", {"agent.py": REPORTER}
    )
    response = call(connector, request(tmp_path / "work"))
    assert response.text == "Order 1182 has shipped."
    assert (response.tokens_in, response.tokens_out, response.cost) == (12, 5, 0.25)
    assert response.meta[AGENT_META] == {"plan": "look it up"}
    assert response.meta["exit_status"] == 0 and response.meta["stderr_tail"] == "thinking..."
    steps = response.meta[AGENT_STEPS]
    assert [s["message"]["tool_calls"] for s in steps] == [
        [{"id": "call_1", "name": "lookup_order", "arguments": {"order_id": "1182"}}],
        [],
    ]
    assert steps[0]["tool_results"][0]["content"] == '{"status": "shipped"}'


@pytest.mark.parametrize(
    ("printed", "said"),
    [
        ("print('Order 1182 has shipped.')", "printed 'Order 1182 has shipped.' on stdout, not a"),
        ("pass", "printed nothing on stdout, not a JSON object"),
        ("print('[1, 2]')", "printed JSON list on stdout, not an object"),
        ("print('{\"answer\": 1}')", "printed a dict with keys ['answer']; print one with 'text'"),
        ('print(\'{"text": "x", "cost": -1}\')', "printed a dict whose cost is -1.0; print"),
        (
            'print(\'{"text": "x", "tool_calls": [{"tool": "a"}]}\')',
            "printed tool_calls[0] = {'tool': 'a'}; print a list of the calls the agent made",
        ),
    ],
)
def test_with_output_json_anything_but_a_reply_object_is_the_agents_error(
    tmp_path: Path, printed: str, said: str
) -> None:
    connector = build(
        tmp_path, python_command("agent.py") + "output: json\n", {"agent.py": printed}
    )
    with pytest.raises(ConnectorError) as caught:
        call(connector, request(tmp_path / "work"))
    assert str(caught.value).startswith("command '") and said in str(caught.value)


def test_a_command_agent_that_says_its_tool_calls_is_graded_on_them(
    make_project: MakeProject, pytester: pytest.Pytester
) -> None:
    """tool_call and trajectory left a command agent's cases unscored: its calls were not
    seen. With `output: json` it says them, and what it took and cost reaches the board."""
    make_project(
        "desk",
        f"""
        models:
          default: [agent]
          define:
            agent: {{connector: command, command: [{json.dumps(sys.executable)}, agent.py], output: json}}
        scoring:
          - {{scorer: tool_call}}
          - {{scorer: trajectory, params: {{must_not_call: [issue_refund]}}}}
        tests:
          - id: where
            input: Where is order 1182?
            reference: {{tool_calls: [{{name: lookup_order, arguments: {{order_id: "1182"}}}}]}}
          - id: refund
            input: Please refund order 1182.
            reference: {{tool_calls: [{{name: lookup_order, arguments: {{order_id: "1182"}}}}]}}
        """,
        {"agent.py": REPORTER},
    )
    result = pytester.runpytest("-p", "no:cacheprovider", "--arena-json=run.json")
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(
        ["*trajectory*failed: issue_refund was called once but must not be"]
    )
    result.stdout.no_fnmatch_line("*unscored*")
    result.stdout.fnmatch_lines(["*agent*34*$0.500000*"])  # tokens and cost of both cases
    records = {
        r["case"]: r for r in json.loads((pytester.path / "run.json").read_text())["records"]
    }
    assert records["where"]["response"]["meta"] == {"plan": "look it up"}
    assert len(records["refund"]["response"]["trajectory"]) == 3


@pytest.mark.parametrize(
    ("first_line", "said"),
    [
        (
            b"#!/bin/sh\r\n",
            "could not be started: its '#!' line ends in a carriage return (the file has Windows"
            " CRLF line endings), so the system looks for '/bin/sh\\r', which no program is\n"
            "  fix: save it with LF line endings: sed -i 's/\\r$//' bin/agent.sh",
        ),
        (
            b"#!/usr/bin/no-such-shell -e\n",
            "could not be started: its interpreter /usr/bin/no-such-shell, named by its '#!'"
            " line, is not installed (No such file or directory)\n"
            "  fix: install it, or name one that is, such as #!/bin/sh",
        ),
    ],
)
def test_an_agent_whose_shebang_names_no_program_says_why_it_could_not_start(
    tmp_path: Path, first_line: bytes, said: str
) -> None:
    """A file saved with CRLF line endings was 'could not be started: No such file or
    directory', though the file is there; script scorers already said why."""
    script = tmp_path / "bin" / "agent.sh"
    script.parent.mkdir()
    script.write_bytes(first_line + b"echo hi\r\n")
    script.chmod(0o755)
    connector = build(tmp_path, "command: ./bin/agent.sh\n")
    with pytest.raises(ConnectorError) as caught:
        call(connector, request(tmp_path / "work"))
    assert str(caught.value) == f"command './bin/agent.sh' {said}"
