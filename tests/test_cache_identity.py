"""What a cache key holds: everything a model reads, and no more. Agents and sims with
`cache: true` are asked again for another project, case or setting; an image's alt text,
never sent to a provider, buys no answer again; credential-named fields in what a model
is asked are cached; the keys of OpenAI and Anthropic models stay as they were."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from pytest_arena.cache import UncacheableKey, canonical_json, digest, key_parts
from pytest_arena.connectors import build_connector
from pytest_arena.connectors.base import Connector, Request
from pytest_arena.spec.case import Case
from pytest_arena.spec.schema import ModelDef
from tests.conftest import MakeProject
from tests.fake_llm_server import FakeLLMServer

SECRET = "sk-identity-secret-5151"
PY = sys.executable


def run(pytester: pytest.Pytester, *args: str) -> tuple[pytest.RunResult, dict[str, dict]]:
    report = pytester.path / "report.json"
    result = pytester.runpytest("-p", "no:cacheprovider", f"--arena-json={report}", *args)
    records = json.loads(report.read_text())["records"]
    return result, {f"{r['project']}::{r['case']}": r for r in records}


def outputs(records: dict[str, dict]) -> dict[str, tuple[str, bool]]:
    return {name: (r["output"], r["cached"]) for name, r in records.items()}


ORDERS = """
models:
  default: [agent]
  define:
    agent: {agent}
tests:
  - {{id: one, input: "Which order?", reference: "{one}", metadata: {{order: 7}}}}
  - {{id: two, input: "Which order?", reference: "{two}", metadata: {{order: 8}}}}
"""


def assert_each_project_replays_its_own(pytester: pytest.Pytester) -> None:
    """Run alpha and beta twice: the second run replays each case's own answer."""
    run(pytester)[0].assert_outcomes(passed=4)
    again, replayed = run(pytester)
    again.assert_outcomes(passed=4)
    assert outputs(replayed) == {
        "alpha::one": ("order-7", True),
        "alpha::two": ("order-8", True),
        "beta::one": ("BETA", True),
        "beta::two": ("BETA", True),
    }


def test_python_agents_of_two_projects_and_two_cases_never_share_an_answer(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    """Keyed on the callable's name and the messages alone, beta's agent was answered with
    alpha's answers (beta::one passed with alpha's), and alpha::two got order-7."""
    agent = '{connector: python, callable: "agent:run", cache: true}'
    make_project(
        "alpha",
        ORDERS.format(agent=agent, one="order-7", two="order-8"),
        files={
            "agent.py": "def run(prompt, case):\n    return f\"order-{case.metadata['order']}\"\n"
        },
    )
    make_project(
        "beta",
        ORDERS.format(agent=agent, one="BETA", two="BETA"),
        files={"agent.py": "def run(prompt):\n    return 'BETA'\n"},
    )
    assert_each_project_replays_its_own(pytester)


def test_command_agents_of_two_projects_never_share_an_answer(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    """`command: python3 agent.py` is the same words in both projects: the key held them,
    not the project's agent.py they run, nor the case's metadata the agent reads."""
    agent = f'{{connector: command, command: "{PY} agent.py", cache: true}}'
    reads = (
        "import json, os\n"
        "case = json.loads(os.environ['ARENA_CASE'])\n"
        "print(f\"order-{case['metadata']['order']}\")\n"
    )
    make_project(
        "alpha", ORDERS.format(agent=agent, one="order-7", two="order-8"), {"agent.py": reads}
    )
    make_project(
        "beta", ORDERS.format(agent=agent, one="BETA", two="BETA"), {"agent.py": "print('BETA')\n"}
    )
    assert_each_project_replays_its_own(pytester)


SIM = """
models:
  default: [guess]
  define:
    guess: {{connector: sim, accuracy: {accuracy}, format_noise: 0, cache: true}}
tests:
  - {{id: capital, input: "Capital of France?", reference: {reference}}}
"""


def test_a_sim_whose_settings_or_reference_changed_is_asked_again(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    """A sim's answer was replayed after its accuracy went from 1 to 0 (and after the
    reference it answers from changed): its key held no setting."""
    make_project("quiz", SIM.format(accuracy=1.0, reference="Paris"))
    run(pytester)[0].assert_outcomes(passed=1)
    make_project("quiz", SIM.format(accuracy=0.0, reference="Paris"))
    worse, records = run(pytester)
    worse.assert_outcomes(failed=1)
    assert records["quiz::capital"]["cached"] is False
    make_project("quiz", SIM.format(accuracy=1.0, reference="Lutetia"))
    moved, records = run(pytester)
    moved.assert_outcomes(passed=1)
    assert outputs(records) == {"quiz::capital": ("Lutetia", False)}


def built(connector: str, root: Path | None = None, **settings: Any) -> Connector:
    defined = {"m": ModelDef.model_validate({"connector": connector, **settings})}
    return build_connector("m", defined, (root or Path(".")) / "arena.yaml")


def test_the_key_of_a_python_agent_holds_its_folder_and_the_whole_case(tmp_path: Path) -> None:
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    for folder in ("a", "b"):
        (tmp_path / folder / "agent.py").write_text("def run(prompt):\n    return prompt\n")
    first, other = (built("python", tmp_path / f, callable="agent:run") for f in ("a", "b"))
    case = Case(id="c", input="hi", reference="x", metadata={"order": 7}, tags=("t",))

    def key(connector: Connector, case: Case) -> str:
        return canonical_json(key_parts(connector, Request("m", [], case)))

    assert key(first, case) != key(other, case)
    for changed in (
        Case(id="c", input="hi", reference="y", metadata={"order": 7}, tags=("t",)),
        Case(id="c", input="hi", reference="x", metadata={"order": 8}, tags=("t",)),
        Case(id="d", input="hi", reference="x", metadata={"order": 7}, tags=("t",)),
    ):
        assert key(first, changed) != key(first, case)
    # where the case is written is not what it says: an edit above it keeps the key
    moved = Case(id="c", input="hi", reference="x", metadata={"order": 7}, tags=("t",), line=40)
    assert key(first, moved) == key(first, case)


# -- the keys of HTTP models: as they always were, and the messages as sent

CASE = Case(id="sum", input="What is 2+2?", reference="4", metadata={"order": 7})
MESSAGES: list[dict[str, Any]] = [
    {"role": "system", "content": "Be brief."},
    {"role": "user", "content": "What is 2+2?"},
    {
        "role": "assistant",
        "content": None,
        "tool_calls": [{"id": "c1", "name": "add", "arguments": {"a": 2}}],
    },
    {"role": "tool", "tool_call_id": "c1", "name": "add", "content": "4", "is_error": False},
]
TOOLS = [
    {
        "name": "add",
        "description": "Add.",
        "parameters": {"type": "object", "properties": {"a": {"type": "integer"}}},
    }
]
IMAGE = [
    {
        "role": "user",
        "content": [
            {"type": "text", "text": "What?"},
            {"type": "image_url", "image_url": {"url": "https://example.com/x.png"}},
        ],
    }
]


@pytest.mark.parametrize(
    ("connector", "settings", "request_", "pinned"),
    [
        (
            "openai",
            {"base_url": "http://127.0.0.1:8000/v1", "model": "x", "params": {"temperature": 0.0}},
            Request("m", MESSAGES[:2], CASE, 1, {"seed": 3}),
            "10fb88853dc8d111abaafd092e35e3191479fa65adadf39c02a59d4a55b82b7a",
        ),
        (
            "openai",
            {"base_url": "http://127.0.0.1:8000/v1", "model": "x", "params": {"temperature": 0.0}},
            Request("m", MESSAGES, CASE, 0, {}, tools=TOOLS),
            "4d37d7a7731b872cadd5495d938637a6fa77606b212b666a63f1275744908871",
        ),
        (
            "anthropic",
            {"base_url": "http://127.0.0.1:8000", "model": "y", "headers": {"anthropic-beta": "b"}},
            Request("m", MESSAGES[:2], CASE, 1, {"seed": 3}),
            "ead2c795bdf3d05065e9664cbe4b7184d98bd7e7a90f7dddd98312dedc24a5cc",
        ),
        (
            "anthropic",
            {"base_url": "http://127.0.0.1:8000", "model": "y", "headers": {"anthropic-beta": "b"}},
            Request("m", MESSAGES, CASE, 0, {}, tools=TOOLS),
            "be96a509993a804db9d1829a8009b4ee88b4bcc5473ce3fe750d519109582d13",
        ),
        (
            "openai",
            {"base_url": "http://u:p@127.0.0.1:8000/v1?key=abc", "model": "x"},
            Request("m", MESSAGES, CASE, 0, {}, tools=TOOLS),
            "e8d6acda20b0851dc052799ed5fa1b500c1c7e162452537acd21ad82de08f8d9",
        ),
        (
            "openai",
            {"base_url": "http://127.0.0.1:8000/v1", "model": "x"},
            Request("m", IMAGE, CASE),
            "dce883b382d6c3174d56307658a51adfe983d0cc86abac689131ccc4c7efd760",
        ),
        (
            "anthropic",
            {"base_url": "http://127.0.0.1:8000", "model": "y"},
            Request("m", IMAGE, CASE),
            "1cf1e38e6228aaefb0f98cdd18f03c8c94a21161695b73e4d877df386ddacce2",
        ),
    ],
)
def test_the_keys_of_openai_and_anthropic_models_are_as_they_always_were(
    connector: str, settings: dict[str, Any], request_: Request, pinned: str
) -> None:
    """Caches written before keep answering: the case (read by agents and sims) is no part
    of the key of a model sent the messages alone."""
    assert digest(canonical_json(key_parts(built(connector, **settings), request_))) == pinned


def test_an_images_alt_text_is_no_part_of_an_http_models_key() -> None:
    def key(connector: Connector, alt: str) -> str:
        image = {"type": "image_url", "image_url": {"url": "https://example.com/x.png"}, "alt": alt}
        messages = [{"role": "user", "content": [{"type": "text", "text": "What?"}, image]}]
        return canonical_json(key_parts(connector, Request("m", messages, CASE)))

    for http in (built("openai", model="x"), built("anthropic", model="y")):
        assert key(http, "a bike") == key(http, "a red bike")
    sim = built("sim", profile="sim_echo", cache=True)  # it reads the alt text: "[image: …]"
    assert key(sim, "a bike") != key(sim, "a red bike")


PHOTO = """
models:
  default: [gpt]
  define:
    gpt:
      connector: openai
      base_url: {url}
      api_key_env: ARENA_IDENTITY_KEY
      model: vision
      max_retries: 0
tests:
  - id: bike
    input:
      - role: user
        content:
          - {{type: text, text: "[[answer=a bicycle]] What is in the picture?"}}
          - {{type: image_url, image_url: {{url: "https://example.com/bike.png"}}, alt: {alt}}}
    reference: a bicycle
"""


@pytest.fixture
def server(fake_llm: FakeLLMServer, monkeypatch: pytest.MonkeyPatch) -> FakeLLMServer:
    monkeypatch.setenv("ARENA_IDENTITY_KEY", SECRET)
    fake_llm.reset()
    return fake_llm


def test_editing_an_images_alt_text_buys_no_answer_again(
    pytester: pytest.Pytester, make_project: MakeProject, server: FakeLLMServer
) -> None:
    """The alt text is arena's, never sent: a changed one made the same call, paid again."""
    make_project("pics", PHOTO.format(url=server.base_url, alt="a bike"))
    run(pytester)[0].assert_outcomes(passed=1)
    make_project("pics", PHOTO.format(url=server.base_url, alt="a red bicycle by a wall"))
    again, records = run(pytester)
    again.assert_outcomes(passed=1)
    assert server.total == 1 and records["pics::bike"]["cached"] is True


# -- credential-named fields in what a model is asked

TOOLS_PY = '''
def reset_password(username: str, password: str) -> str:
    """Set a user's password."""
    return f"password of {username} reset"
'''
ASKED = """
models:
  default: [fake]
  define:
    fake:
      connector: openai
      base_url: {url}
      api_key_env: ARENA_IDENTITY_KEY
      model: served
      max_retries: 0
      params: {params}
tests:
  - {{id: reset, input: "[[answer=done]] Reset the password of ada. Your secret: api_key", reference: done}}
"""
SCHEMA = (
    "{response_format: {type: json_schema, json_schema: {name: login, schema: {type: object,"
    " properties: {password: {type: string}, secret: {type: string}}}}}}"
)


@pytest.mark.parametrize(("params", "files"), [("{}", {"tools.py": TOOLS_PY}), (SCHEMA, {})])
def test_a_tool_or_schema_with_a_credential_named_field_is_asked_and_cached(
    pytester: pytest.Pytester,
    make_project: MakeProject,
    server: FakeLLMServer,
    params: str,
    files: dict[str, str],
) -> None:
    """A tool parameter or a JSON schema property named `password` failed every case: "cache
    key part tools[0].parameters.properties.password looks like a credential"."""
    make_project("desk", ASKED.format(url=server.base_url, params=params), files)
    first, _ = run(pytester)
    first.assert_outcomes(passed=1)
    again, records = run(pytester)
    again.assert_outcomes(passed=1)
    assert server.total == 1 and records["desk::reset"]["cached"] is True
    assert "not cached" not in first.stdout.str()


def test_a_credential_in_a_models_params_is_refused_naming_the_setting_and_the_fix(
    pytester: pytest.Pytester, make_project: MakeProject, server: FakeLLMServer
) -> None:
    make_project("desk", ASKED.format(url=server.base_url, params=f"{{api_key: {SECRET}}}"))
    result, records = run(pytester)
    result.assert_outcomes(failed=1)
    reason = records["desk::reset"]["reason"]
    assert reason == (
        "model 'fake' call failed: params.api_key looks like a credential, which the response"
        " cache never stores: give the model its key with api_key_env: (or in headers:, kept"
        " as a digest), not in its params: nor in what hooks.py's pre_request sets; or set"
        " cache: false on the model"
    )
    assert SECRET not in result.stdout.str() and server.total == 0


def test_a_credential_named_part_of_a_connectors_identity_is_still_refused() -> None:
    connector = built("openai", model="x")
    connector.cache_identity = lambda: {"connector": "x", "auth": {"Password": SECRET}}  # type: ignore[method-assign]
    parts = key_parts(connector, Request("m", [{"role": "user", "content": "hi"}], CASE))
    with pytest.raises(UncacheableKey, match=r"auth\.Password looks like a credential") as info:
        canonical_json(parts)
    assert SECRET not in str(info.value)
