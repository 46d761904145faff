"""The settings of your own agents say what they mean: a command agent's program is looked
up on the PATH it runs with, `${NAME}` in its `env:` is the variable NAME, a command that
cannot be split and a reply whose text is None are said as such."""

from __future__ import annotations

import json
import sys
import tempfile
import textwrap
from pathlib import Path

import pytest

from pytest_arena.connectors import Connector, ConnectorError, Request, build_connector
from pytest_arena.spec import Case, SpecError, load_project
from tests.conftest import MakeProject

CASE = Case(id="q", input="x", reference="x", project="p")


def build(root: Path, settings: str, files: dict[str, str] | None = None) -> Connector:
    for rel, text in (files or {}).items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(textwrap.dedent(text).lstrip())
    root.mkdir(parents=True, exist_ok=True)
    path = root / "arena.yaml"
    path.write_text(
        "models:\n  define:\n    agent:\n" + textwrap.indent(textwrap.dedent(settings), " " * 6)
    )
    file = load_project(path)
    return build_connector("agent", file.spec.models.define, file.path, file.lines)


def test_a_program_on_the_path_of_env_is_found_and_run_from_there(
    pytester: pytest.Pytester, make_project: MakeProject, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`command: myagent` with `env: {PATH: tools:...}` was "program 'myagent' not found":
    the check looked on arena's PATH, not on the one the program runs with."""
    root = make_project(
        "p",
        """
        models:
          default: [viapath]
          define:
            viapath:
              connector: command
              command: myagent --loud
              env: {PATH: "${ARENA_TOOLS}:${PATH}"}
        tests:
          - {id: q, input: hello, reference: HELLO}
        """,
    )
    tool = root / "tools" / "myagent"
    tool.parent.mkdir()
    tool.write_text(f"#!{sys.executable}\nimport sys\nprint(sys.stdin.read().upper())\n")
    tool.chmod(0o755)
    monkeypatch.setenv("ARENA_TOOLS", str(tool.parent))
    result = pytester.runpytest("-p", "no:cacheprovider")
    result.assert_outcomes(passed=1)


def test_env_takes_variables_of_arenas_environment_by_name(
    pytester: pytest.Pytester, make_project: MakeProject, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`env: {MY_KEY: "${OPENAI_API_KEY}"}` handed the agent the text `${OPENAI_API_KEY}`."""
    monkeypatch.setenv("UPSTREAM_REGION", "eu-west-3")
    make_project(
        "p",
        f"""
        models:
          default: [told, unset]
          define:
            told:
              connector: command
              command: [{json.dumps(sys.executable)}, agent.py]
              env: {{REGION: "${{UPSTREAM_REGION}} (from $${{UPSTREAM_REGION}})"}}
            unset:
              connector: command
              command: [{json.dumps(sys.executable)}, agent.py]
              env: {{REGION: "${{NOT_SET_ANYWHERE}}"}}
        tests:
          - {{id: q, input: x, reference: "eu-west-3 (from ${{UPSTREAM_REGION}})"}}
        """,
        {"agent.py": "import os\nprint(os.environ['REGION'])\n"},
    )
    result = pytester.runpytest("-p", "no:cacheprovider")
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(
        [
            "model 'unset' call failed: the variable NOT_SET_ANYWHERE that env: REGION names"
            " (${NOT_SET_ANYWHERE}) is not set; fix: export NOT_SET_ANYWHERE=... before"
            " running pytest, or write the value itself in env:",
        ]
    )


def test_a_command_with_an_unclosed_quote_is_an_error_at_its_line(tmp_path: Path) -> None:
    """It was `arena.yaml:4: models.define.unbal: No closing quotation`: no key, no fix."""
    with pytest.raises(SpecError) as caught:
        build(tmp_path, 'connector: command\ncommand: "python \'agent.py"\n')
    assert str(caught.value).endswith(
        'arena.yaml:5: models.define.agent.command: "python \'agent.py" cannot be'
        " split into a program and its arguments (no closing quotation): close the quote, or"
        " give the command as a list, [python, agent.py]"
    )


def test_a_reply_whose_text_is_none_says_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`{"text": None}` was "returned a dict with keys ['text']; return one with 'text'"."""
    temp = tmp_path / "temp"  # the command agent, called without a workspace, made one here
    temp.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(temp))
    python = build(
        tmp_path / "py",
        'connector: python\ncallable: "agent:run"\n',
        {"agent.py": "def run(prompt):\n    return {'text': None}\n"},
    )
    printed = build(
        tmp_path / "cmd",
        f"connector: command\ncommand: [{json.dumps(sys.executable)}, agent.py]\noutput: json\n",
        {"agent.py": "print('{\"text\": null}')\n"},
    )
    # a workspace, as a run gives each call: the connector's own would be left in /tmp
    request = Request(
        "agent", [{"role": "user", "content": "x"}], CASE, workspace=tmp_path / "work"
    )
    for connector, says in ((python, "agent:run returned"), (printed, "agent.py' printed")):
        with pytest.raises(ConnectorError) as caught:
            connector.complete(request)
        assert f"{says} a dict whose text is None; " in str(caught.value)
    assert list(temp.iterdir()) == []


def test_a_cached_command_agents_key_holds_its_env_as_the_agent_gets_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With `${NAME}` expanded, a variable of arena's environment changes what the agent is
    given: its answers cached with another value are not its answers now."""
    agent = build(
        tmp_path,
        f"connector: command\ncommand: [{json.dumps(sys.executable)}, agent.py]\n"
        'cache: true\nenv: {MODE: "${AGENT_MODE}"}\n',
        {"agent.py": "print(1)\n"},
    )
    monkeypatch.setenv("AGENT_MODE", "careful")
    careful = agent.cache_identity()
    monkeypatch.setenv("AGENT_MODE", "hasty")
    assert agent.cache_identity() != careful
    monkeypatch.setenv("AGENT_MODE", "careful")
    assert agent.cache_identity() == careful
