"""The openai and anthropic connectors against the local fake server: answers and faults."""

from __future__ import annotations

import asyncio
import base64
import json
import socket
import subprocess
import sys
import textwrap
import time
from pathlib import Path
from typing import Any

import pytest

from pytest_arena.connectors import ConnectorError, build_connector
from pytest_arena.connectors.anthropic import AnthropicConnector
from pytest_arena.connectors.base import credential_name, redacted, shown_url, url_secrets
from pytest_arena.spec import SpecError, load_project
from tests.conftest import ARENA, MakeProject
from tests.connectors import KEY_ENV, call, failure, make, request
from tests.fake_llm_server import FakeLLMServer

SECRET = "sk-test-5f3c9a1e7b2d4c6a8e0f"


def dead_proxy(monkeypatch: pytest.MonkeyPatch, userinfo: str = "") -> int:
    """HTTP_PROXY set to a port of 127.0.0.1 that nothing listens on (NO_PROXY: localhost
    alone); the port."""
    with socket.socket() as spare:
        spare.bind(("127.0.0.1", 0))
        port: int = spare.getsockname()[1]
    monkeypatch.setenv("HTTP_PROXY", f"http://{userinfo}127.0.0.1:{port}")
    monkeypatch.setenv("NO_PROXY", "localhost")
    return port


@pytest.fixture(autouse=True)
def api_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(KEY_ENV, SECRET)


def test_openai_answer_tokens_and_meta(fake_llm: FakeLLMServer) -> None:
    connector = make("openai", fake_llm, key="gpt-test", params={"temperature": 0, "seed": 7})
    response = call(connector, request("[[answer=Paris]] Capital of France?", system="Be brief."))
    assert response.text == "Paris"
    assert (response.tokens_in, response.tokens_out) == (6, 1)  # the fake counts words
    assert response.meta == {"finish_reason": "stop", "model": "gpt-test-served"}
    assert response.latency_ms is None and response.cost is None
    body = fake_llm.bodies[-1]
    assert body["model"] == "gpt-test"
    assert (body["temperature"], body["seed"]) == (0, 7)
    assert body["messages"][0] == {"role": "system", "content": "Be brief."}
    assert fake_llm.last_headers["Authorization"] == f"Bearer {SECRET}"


def test_openai_model_name_and_request_params(fake_llm: FakeLLMServer) -> None:
    connector = make("openai", fake_llm, model="llama3:8b", params={"top_p": 0.5})
    call(connector, request("hi", max_tokens=20))
    assert fake_llm.bodies[-1]["model"] == "llama3:8b"
    assert (fake_llm.bodies[-1]["top_p"], fake_llm.bodies[-1]["max_tokens"]) == (0.5, 20)


def test_anthropic_answer_system_field_and_headers(fake_llm: FakeLLMServer) -> None:
    connector = make("anthropic", fake_llm, key="claude-test")
    response = call(connector, request("[[answer=Rome]] Capital of Italy?", system="Be brief."))
    assert response.text == "Rome"
    assert (response.tokens_in, response.tokens_out) == (6, 1)
    assert response.meta == {
        "stop_reason": "end_turn",
        "finish_reason": "end_turn",
        "model": "claude-test-served",
    }
    body = fake_llm.bodies[-1]
    assert body["system"] == "Be brief."
    assert body["messages"] == [{"role": "user", "content": "[[answer=Rome]] Capital of Italy?"}]
    assert body["max_tokens"] == 1024
    headers = fake_llm.last_headers
    assert headers["x-api-key"] == SECRET
    assert headers["anthropic-version"] == "2023-06-01"
    assert "Authorization" not in headers


@pytest.mark.parametrize("name", ["openai", "anthropic"])
def test_half_a_character_in_the_prompt_is_sent_as_its_json_escape(
    fake_llm: FakeLLMServer, name: str
) -> None:
    """A lone surrogate (a hook's or an agent's text may hold one) failed the call with a bare
    "UnicodeEncodeError: 'utf-8' codec can't encode character '\\ud800'"; `\\ud800` is
    valid JSON."""
    prompt = "[[answer=ok]] caf\u00e9 a\ud800b"
    response = call(make(name, fake_llm), request(prompt, system="Be \udfff brief."))
    assert response.text == "ok"
    body = fake_llm.bodies[-1]
    assert body["messages"][-1] == {"role": "user", "content": prompt}
    system = body["system"] if name == "anthropic" else body["messages"][0]["content"]
    assert system == "Be \udfff brief."


def test_anthropic_max_tokens_can_be_set(fake_llm: FakeLLMServer) -> None:
    call(make("anthropic", fake_llm, params={"max_tokens": 50}), request("hi"))
    assert fake_llm.bodies[-1]["max_tokens"] == 50


def test_anthropic_text_is_every_text_block_joined() -> None:
    connector = make("anthropic", api_key_env=None)
    assert isinstance(connector, AnthropicConnector)
    data = {
        "content": [
            {"type": "text", "text": "The answer "},
            {"type": "tool_use", "id": "t", "name": "calc", "input": {}},
            {"type": "text", "text": "is 42."},
        ],
        "usage": {"input_tokens": 3, "output_tokens": 4},
    }
    response = connector.parse(data, request("q"))
    assert (response.text, response.tokens_in, response.tokens_out) == ("The answer is 42.", 3, 4)


def test_anthropic_prompt_cache_tokens_are_counted_and_priced_as_anthropic_prices_them() -> None:
    """usage.input_tokens counts only the input after the last cache breakpoint: 3,110
    input tokens were counted as 10, and $0.00588 as $0.00153."""
    connector = make(
        "anthropic", api_key_env=None, price={"input_per_mtok": 3, "output_per_mtok": 15}
    )
    usage = {
        "input_tokens": 10,
        "cache_creation_input_tokens": 1000,
        "cache_read_input_tokens": 2000,
        "output_tokens": 100,
    }
    data = {"content": [{"type": "text", "text": "Paris"}], "usage": usage}
    response = connector.parse(data, request("q"))
    assert (response.tokens_in, response.tokens_out) == (3010, 100)
    # 10 at $3, 1000 written at 1.25 x $3, 2000 read at 0.1 x $3, 100 out at $15 (per million)
    assert connector.cost_of(response) == pytest.approx(0.00588)
    assert (response.meta["cache_write_5m_tokens"], response.meta["cache_read_tokens"]) == (
        1000,
        2000,
    )
    # written to the 1-hour cache: twice the input price
    hour = {
        **usage,
        "cache_creation": {"ephemeral_5m_input_tokens": 400, "ephemeral_1h_input_tokens": 600},
    }
    response = connector.parse({**data, "usage": hour}, request("q"))
    assert response.tokens_in == 3010
    assert connector.cost_of(response) == pytest.approx(
        (10 * 3 + 400 * 3.75 + 600 * 6 + 2000 * 0.3 + 100 * 15) / 1e6
    )
    plain = connector.parse(
        {**data, "usage": {"input_tokens": 10, "output_tokens": 100}}, request("q")
    )
    assert connector.cost_of(plain) == pytest.approx((10 * 3 + 100 * 15) / 1e6)
    assert not any(key.startswith("cache_") for key in plain.meta)


def test_openai_cached_input_is_priced_at_the_cached_price_when_it_is_given(
    fake_llm: FakeLLMServer,
) -> None:
    """prompt_tokens counts the tokens OpenAI read from its prompt cache, which cost a half
    to a tenth of the input price: all were priced as input."""
    price = {"input_per_mtok": 2, "output_per_mtok": 8, "cached_input_per_mtok": 0.5}
    connector = make("openai", fake_llm, price=price)
    prompt = "[[answer=Paris]] [[cached=4]] " + "word " * 8  # 10 words: 10 tokens in
    response = call(connector, request(prompt))
    assert (response.tokens_in, response.tokens_out) == (10, 1)
    assert response.meta["cache_read_tokens"] == 4
    # 6 at $2, 4 cached at $0.50, 1 out at $8 (per million)
    assert connector.cost_of(response) == pytest.approx((6 * 2 + 4 * 0.5 + 1 * 8) / 1e6)
    # without a cached price: the input price, as before (the discount is the model's)
    plain = make("openai", fake_llm, price={k: price[k] for k in list(price)[:2]})
    assert plain.cost_of(response) == pytest.approx((10 * 2 + 1 * 8) / 1e6)
    # no cached tokens said: nothing kept
    assert "cache_read_tokens" not in call(connector, request("[[answer=Paris]] q")).meta


def test_openai_cached_tokens_said_beyond_the_prompt_count_only_the_prompt() -> None:
    connector = make(
        "openai",
        api_key_env=None,
        price={"input_per_mtok": 2, "output_per_mtok": 8, "cached_input_per_mtok": 0.5},
    )
    usage = {"prompt_tokens": 3, "completion_tokens": 1}
    data = {"choices": [{"message": {"content": "ok"}}], "usage": usage}
    for details, kept in [({"cached_tokens": 9}, 3), ({"cached_tokens": -1}, None), (7, None)]:
        given = {**usage, "prompt_tokens_details": details}
        response = connector.parse({**data, "usage": given}, request("q"))
        assert response.meta.get("cache_read_tokens") == kept
        cached = kept or 0  # of the 3 tokens in, at $0.50 rather than $2; 1 out at $8
        expected = ((3 - cached) * 2 + cached * 0.5 + 1 * 8) / 1e6
        assert connector.cost_of(response) == pytest.approx(expected)


def test_anthropic_cache_reads_take_the_cached_price_when_it_is_given() -> None:
    price = {"input_per_mtok": 3, "output_per_mtok": 15, "cached_input_per_mtok": 0.6}
    connector = make("anthropic", api_key_env=None, price=price)
    usage = {"input_tokens": 10, "cache_read_input_tokens": 2000, "output_tokens": 100}
    data = {"content": [{"type": "text", "text": "Paris"}], "usage": usage}
    response = connector.parse(data, request("q"))
    assert connector.cost_of(response) == pytest.approx((10 * 3 + 2000 * 0.6 + 100 * 15) / 1e6)


def test_a_claude_refusal_with_no_text_is_a_refusal_all_the_same() -> None:
    """stop_reason refusal and no text: `message.refusal`, which the agents guide promises
    when the model refused, was missing (an empty refusal was dropped)."""
    connector = make("anthropic", api_key_env=None)
    data = {
        "content": [],
        "stop_reason": "refusal",
        "usage": {"input_tokens": 3, "output_tokens": 0},
    }
    response = connector.parse(data, request("q"))
    assert response.text == ""
    assert response.meta["refusal"] == "the model refused (stop_reason: refusal)"


def test_openai_content_given_as_parts_is_their_text_joined() -> None:
    """Some OpenAI-compatible servers (Mistral's reasoning models) send the content as a list
    of parts: the call failed, "the reply lacks the expected fields"."""
    connector = make("openai", api_key_env=None)
    parts = [
        {"type": "thinking", "thinking": [{"type": "text", "text": "France: Paris."}]},
        {"type": "text", "text": "Par"},
        {"type": "text", "text": "is"},
    ]
    choice = {"message": {"role": "assistant", "content": parts}, "finish_reason": "stop"}
    data = {"choices": [choice], "usage": {"prompt_tokens": 3, "completion_tokens": 2}}
    assert connector.parse(data, request("q")).text == "Paris"


def test_the_sync_call_works_outside_any_loop(fake_llm: FakeLLMServer) -> None:
    connector = make("openai", fake_llm)
    assert [connector.complete(request(f"[[answer={n}]]")).text for n in "ab"] == ["a", "b"]


FAULTS = [
    # marker, retryable, retry_after, words of the message
    ("429 retry_after=0.2", True, 0.2, "HTTP 429: fake failure 429"),
    ("429", True, None, "HTTP 429"),
    ("500", True, None, "HTTP 500: fake failure 500"),
    ("503 retry_after=3", True, 3.0, "HTTP 503"),
    ("529", True, None, "HTTP 529"),
    ("400", False, None, "HTTP 400: fake failure 400"),
    ("404 retry_after=5", False, None, "HTTP 404: fake failure 404"),
    ("reset", True, None, "the server closed the connection without a reply"),
    ("truncated", True, None, "the reply was cut off before its end"),
    ("malformed", False, None, "the reply is not JSON (HTTP 200): '<html><body>502 Bad Gateway"),
    ("missing", False, None, 'the reply lacks the expected fields (HTTP 200): \'{"id"'),
]


@pytest.mark.parametrize("name", ["openai", "anthropic"])
@pytest.mark.parametrize(("fault", "retryable", "retry_after", "words"), FAULTS)
def test_faults_become_connector_errors(
    fake_llm: FakeLLMServer,
    name: str,
    fault: str,
    retryable: bool,
    retry_after: float | None,
    words: str,
) -> None:
    error = failure(make(name, fake_llm), request(f"[[fault={fault}]] hi"))
    assert (error.retryable, error.retry_after) == (retryable, retry_after)
    assert words in str(error)
    assert str(error).startswith(f"127.0.0.1:{fake_llm.port}: ")


def test_retry_after_as_an_http_date(fake_llm: FakeLLMServer) -> None:
    error = failure(make("openai", fake_llm), request("[[fault=429 retry_after=date]]"))
    assert error.retryable
    assert error.retry_after is not None and 0.5 < error.retry_after <= 2.0


def test_a_fault_for_the_first_tries_only_then_the_answer(fake_llm: FakeLLMServer) -> None:
    connector = make("openai", fake_llm)
    req = request("[[fault=503 times=2]] [[answer=ok]]")
    assert failure(connector, req).retryable
    assert failure(connector, req).retryable
    assert call(connector, req).text == "ok"
    assert fake_llm.count("[[fault=503 times=2]]") == 3


def test_no_listening_server_is_a_retryable_error() -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]  # free, and nothing listens on it once closed
    connector = make("openai", base_url=f"http://127.0.0.1:{port}/v1")
    error = failure(connector, request("hi"))
    assert error.retryable and error.unreachable
    assert str(error) == (
        f"127.0.0.1:{port}: cannot connect: connection refused; fix: start the server, or"
        " correct base_url"
    )


def test_a_cancelled_call_leaves_the_connector_usable(fake_llm: FakeLLMServer) -> None:
    connector = make("openai", fake_llm)

    async def scenario() -> str:
        try:
            with pytest.raises(asyncio.TimeoutError):
                await asyncio.wait_for(connector.acomplete(request("[[fault=hang]]")), 0.3)
            return (await connector.acomplete(request("[[answer=after]]"))).text
        finally:
            await connector.aclose()

    assert asyncio.run(scenario()) == "after"


def test_a_missing_key_is_named_and_nothing_is_sent(
    fake_llm: FakeLLMServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(KEY_ENV)
    error = failure(make("openai", fake_llm), request("hi"))
    assert not error.retryable
    assert f"the API key variable {KEY_ENV} is not set" in str(error)
    assert fake_llm.total == 0


@pytest.mark.parametrize(
    ("pasted", "said"),
    [
        ("\u201c{}\u201d", "U+201C, a curly quote (character 1 of 22)"),
        ("{}\ufeff", "U+FEFF, a byte order mark (character 21 of 21)"),
        ("{}\u00e9", "U+00E9, a character other than printable ASCII"),
        ("sk-1\n{}", "U+000A, a line break (character 5 of"),
    ],
    ids=["curly quotes", "bom", "accent", "line break"],
)
def test_a_key_holding_what_no_key_has_is_said_and_never_sent(
    fake_llm: FakeLLMServer, monkeypatch: pytest.MonkeyPatch, pasted: str, said: str
) -> None:
    """Sent as UTF-8, it came back from a server that reads headers as latin-1 (http.server,
    Starlette, Node) quoted in a form no redaction knew, into every report; a line break
    gave aiohttp's "Potential header injection attack"."""
    key = "sk-test-0123456789ab"
    monkeypatch.setenv(KEY_ENV, pasted.format(key))
    error = failure(make("openai", fake_llm), request("hi"))
    assert f"the API key in {KEY_ENV} holds {said}" in str(error)
    assert str(error).endswith(f"Set {KEY_ENV} again to the key alone")
    assert key not in str(error) and not error.retryable
    assert fake_llm.total == 0


@pytest.mark.parametrize("name", ["openai", "anthropic"])
def test_the_key_is_in_no_message_or_repr(fake_llm: FakeLLMServer, name: str) -> None:
    connector = make(name, fake_llm)
    error = failure(connector, request("[[fault=401 echo_headers=1]]"))
    assert "you sent" in str(error) and "***" in str(error)
    for text in (str(error), repr(error), repr(connector), str(connector.cache_identity())):
        assert SECRET not in text
    assert SECRET in str(fake_llm.last_headers)  # it was sent


def test_the_default_key_goes_only_to_the_providers_own_url(
    fake_llm: FakeLLMServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    monkeypatch.setenv("ANTHROPIC_API_KEY", SECRET)
    assert make("openai").settings.api_key_env == "OPENAI_API_KEY"  # type: ignore[attr-defined]
    assert make("anthropic").settings.api_key_env == "ANTHROPIC_API_KEY"  # type: ignore[attr-defined]
    local = make("openai", base_url=fake_llm.base_url)
    assert call(local, request("[[answer=free]]")).text == "free"
    assert "Authorization" not in fake_llm.last_headers


def test_extra_headers_are_sent(fake_llm: FakeLLMServer) -> None:
    call(make("openai", fake_llm, headers={"OpenAI-Organization": "org-1"}), request("hi"))
    assert fake_llm.last_headers["OpenAI-Organization"] == "org-1"


def test_the_cache_identity_names_the_server_model_and_params() -> None:
    connector = make(
        "openai", key="mine", base_url="http://127.0.0.1:9/v1/", params={"temperature": 0}
    )
    assert connector.cache_identity() == {
        "connector": "openai",
        "base_url": "http://127.0.0.1:9/v1",
        "model": "mine",
        "params": {"temperature": 0},
    }


@pytest.mark.parametrize("name", ["openai", "anthropic"])
def test_a_misspelt_setting_names_file_line_and_the_valid_keys(tmp_path: Path, name: str) -> None:
    path = tmp_path / "arena.yaml"
    path.write_text(
        textwrap.dedent(
            f"""\
            models:
              define:
                mine:
                  connector: {name}
                  base_url: http://127.0.0.1:8000/v1
                  temprature: 0
            """
        )
    )
    file = load_project(path)
    with pytest.raises(SpecError) as caught:
        build_connector("mine", file.spec.models.define, file.path, file.lines)
    text = caught.value.format(tmp_path)
    assert "arena.yaml:6: models.define.mine.temprature: unknown key 'temprature'" in text
    assert "api_key_env, backoff, base_url, cache, concurrency, connector, headers" in text
    assert "max_retries, model, params, price, rpm, tags, timeout, tpm" in text


def test_a_project_runs_against_a_local_openai_compatible_server(
    fake_llm: FakeLLMServer, pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    make_project(
        "quiz",
        f"""
        models:
          default: [local]
          define:
            local:
              connector: openai
              base_url: {fake_llm.base_url}
              api_key_env: {KEY_ENV}
              model: served-model
              params: {{temperature: 0}}
        tests:
          - id: right
            input: "[[answer=Paris]] Capital of France?"
            reference: Paris
          - id: refused
            input: "[[fault=400]] Capital of Spain?"
            reference: Madrid
        """,
    )
    result = pytester.runpytest("-p", "no:cacheprovider")
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(
        [f"*model 'local' call failed: 127.0.0.1:{fake_llm.port}: HTTP 400: fake failure 400*"]
    )
    result.stdout.no_fnmatch_line(f"*{SECRET}*")
    assert fake_llm.bodies[0]["model"] == "served-model"
    assert fake_llm.headers[0]["Authorization"] == f"Bearer {SECRET}"


def test_a_request_parameter_beside_the_settings_is_sent_to_params(tmp_path: Path) -> None:
    path = tmp_path / "arena.yaml"
    path.write_text(
        "models:\n  define:\n    mine:\n      connector: openai\n      temperature: 0.2\n"
    )
    file = load_project(path)
    with pytest.raises(SpecError) as caught:
        build_connector("mine", file.spec.models.define, file.path, file.lines)
    assert caught.value.format(tmp_path).splitlines() == [
        "arena.yaml:5: models.define.mine.temperature: 'temperature' is a request parameter,"
        " not a connector setting",
        "  fix: put it under params: 'params: {temperature: 0.2}'",
    ]


def test_the_fake_server_runs_as_a_script_for_benchmarks() -> None:
    server = subprocess.Popen(
        [sys.executable, str(Path(__file__).parent / "fake_llm_server.py"), "--port", "0"],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert server.stdout is not None
        line = server.stdout.readline()
        assert line.startswith("listening on 127.0.0.1:")
        connector = make("anthropic", base_url=f"http://{line.split()[-1]}", api_key_env=None)
        assert call(connector, request("[[answer=up]]")).text == "up"
    finally:
        server.terminate()
        server.wait(10)


def test_the_fake_server_forgets_what_it_saw_on_reset(fake_llm: FakeLLMServer) -> None:
    call(make("openai", fake_llm), request("once"))
    assert (fake_llm.total, fake_llm.count("once")) == (1, 1)
    assert (len(fake_llm.arrivals), fake_llm.in_flight, fake_llm.peak) == (1, 0, 1)
    fake_llm.reset()
    assert (fake_llm.total, fake_llm.count("once"), fake_llm.last_headers) == (0, 0, {})
    assert (len(fake_llm.arrivals), fake_llm.peak) == (0, 0)


def test_a_base_url_without_a_scheme_is_an_error_at_its_line(tmp_path: Path) -> None:
    path = tmp_path / "arena.yaml"
    path.write_text(
        "models:\n  define:\n    mine:\n      connector: openai\n      base_url: localhost:8000/v1\n"
    )
    file = load_project(path)
    with pytest.raises(SpecError) as caught:
        build_connector("mine", file.spec.models.define, file.path, file.lines)
    assert caught.value.format(tmp_path).startswith(
        "arena.yaml:5: models.define.mine.base_url: base_url 'localhost:8000/v1' is not an"
        " http(s) URL; write it as, e.g., 'http://127.0.0.1:8000/v1'"
    )


@pytest.mark.parametrize(
    ("connector", "setting", "fix"),
    [
        ("openai", "api_key_env: MY_KEY", "api_key_env out"),
        (
            "openai",
            "headers: {authorization: Basic eA==}",
            "the Authorization header out of headers",
        ),
        (
            "anthropic",
            "headers: {Authorization: Basic eA==}",
            "the Authorization header out of headers",
        ),
    ],
)
def test_a_password_in_base_url_beside_another_authorization_is_an_error_at_its_line(
    tmp_path: Path, connector: str, setting: str, fix: str
) -> None:
    """Every call failed with aiohttp's 'Cannot combine AUTHORIZATION header with AUTH
    argument or credentials encoded in URL', with no line and no fix."""
    path = tmp_path / "arena.yaml"
    path.write_text(
        f"models:\n  define:\n    mine:\n      connector: {connector}\n"
        f"      base_url: http://u:pw-secret@127.0.0.1:9/v1\n      {setting}\n"
    )
    file = load_project(path)
    with pytest.raises(SpecError) as caught:
        build_connector("mine", file.spec.models.define, file.path, file.lines)
    said = caught.value.format(tmp_path)
    assert said.startswith(
        "arena.yaml:5: models.define.mine.base_url: base_url holds a user and password, sent as"
        " an Authorization header, and the model sends another"
    ), said
    assert f"take user:password@ out of base_url, or {fix}" in said
    assert "pw-secret" not in said


def test_a_password_in_base_url_alone_or_beside_anthropics_key_is_no_error(tmp_path: Path) -> None:
    path = tmp_path / "arena.yaml"
    path.write_text(
        "models:\n  define:\n"
        "    a: {connector: openai, base_url: 'http://u:pw@127.0.0.1:9/v1'}\n"
        "    b: {connector: anthropic, base_url: 'http://u:pw@127.0.0.1:9', api_key_env: K}\n"
    )
    file = load_project(path)
    for key in ("a", "b"):
        build_connector(key, file.spec.models.define, file.path, file.lines)


@pytest.mark.parametrize("name", ["openai", "anthropic"])
def test_the_client_does_not_cap_the_calls_in_flight(fake_llm: FakeLLMServer, name: str) -> None:
    connector = make(name, fake_llm)

    async def many() -> list[str]:
        try:
            calls = [connector.acomplete(request(f"[[together=120]] {i}")) for i in range(120)]
            return [r.text for r in await asyncio.gather(*calls)]
        finally:
            await connector.aclose()

    assert asyncio.run(many()) == [f"[[together=120]] {i}" for i in range(120)]


def test_the_proxy_comes_from_the_environment_once_and_no_proxy_is_honoured(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from pytest_arena.connectors.http_api import proxy_for

    for name in ("http_proxy", "https_proxy", "no_proxy", "HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY"):
        monkeypatch.delenv(name, raising=False)
    assert proxy_for("https://api.openai.com/v1/chat/completions") is None
    monkeypatch.setenv("HTTPS_PROXY", "http://proxy.internal:3128")
    monkeypatch.setenv("NO_PROXY", "localhost,127.0.0.1")
    assert proxy_for("https://api.openai.com/v1/chat/completions") == "http://proxy.internal:3128"
    assert proxy_for("http://127.0.0.1:8080/v1/chat/completions") is None


@pytest.mark.parametrize("name", ["openai", "anthropic"])
def test_a_redirect_is_not_followed_so_the_key_goes_only_where_base_url_says(
    fake_llm: FakeLLMServer, name: str
) -> None:
    fake_llm.reset()
    error = failure(make(name, fake_llm), request("[[fault=redirect]] hi"))
    path = "/v1/chat/completions" if name == "openai" else "/v1/messages"
    assert str(error) == (
        f"127.0.0.1:{fake_llm.port}: HTTP 307: the server redirects to"
        f" 'http://localhost:{fake_llm.port}{path}'; set base_url to the address the API"
        " answers at (redirects are not followed, so the API key goes only where base_url says)"
    )
    assert not error.retryable
    assert fake_llm.total == 1  # nothing went to localhost: not the prompt, not the key
    assert all(h.get("Host", "").startswith("127.0.0.1") for h in fake_llm.headers)


def test_a_reply_without_end_is_cut_at_the_limit_with_an_error(fake_llm: FakeLLMServer) -> None:
    error = failure(make("openai", fake_llm), request("[[fault=endless]] hi"))
    assert str(error) == (
        f"127.0.0.1:{fake_llm.port}: the reply is larger than 32 MiB, more than any model's"
        " answer: is base_url the API's address?"
    )


def test_a_retry_after_of_an_hour_ends_the_call_at_once_saying_so(
    fake_llm: FakeLLMServer, pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    make_project(
        "quiz",
        f"""
        models:
          default: [local]
          define:
            local: {{connector: openai, base_url: "{fake_llm.base_url}", timeout: 5}}
        tests:
          - id: later
            input: "[[fault=429 retry_after=3600 times=1]] [[answer=Paris]] hi"
            reference: Paris
        """,
    )
    started = time.monotonic()
    result = pytester.runpytest("-p", "no:cacheprovider")
    assert time.monotonic() - started < 30
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            f"*model 'local' call failed: 127.0.0.1:{fake_llm.port}: HTTP 429: fake failure 429;"
            " the server asks for 3600 s before another try, more than the 60 s arena waits*"
        ]
    )


@pytest.mark.parametrize(
    "usage",
    [None, {"prompt_tokens": -2_000_000_000, "completion_tokens": 5}, {"prompt_tokens": "7"}],
    ids=["none", "below-zero", "text"],
)
def test_usage_a_server_did_not_give_or_gave_as_nonsense_is_estimated(usage: Any) -> None:
    from pytest_arena.connectors.http_api import answer

    response = answer(
        "Paris is the capital",
        usage,
        ("prompt_tokens", "completion_tokens"),
        request("Capital of France?"),
        {},
    )
    assert response.tokens_in > 0 and response.tokens_out > 0
    assert response.meta == {"tokens_estimated": True}


def test_a_refusal_says_which_key_was_sent_or_that_none_was(fake_llm: FakeLLMServer) -> None:
    """A 401 from a hosted router said only "No auth credentials found": arena had sent no
    key (another server than the provider's gets one only through api_key_env)."""
    keyless = make("openai", base_url=fake_llm.base_url)
    error = failure(keyless, request("[[fault=401]]"))
    assert "HTTP 401" in str(error) and "(no API key was sent: arena sends one" in str(error)
    assert "only if api_key_env names the variable that holds it)" in str(error)
    keyed = failure(make("openai", fake_llm), request("[[fault=403]]"))
    assert f"(the key sent is the one in {KEY_ENV}: check it is this server's)" in str(keyed)


@pytest.mark.parametrize("name", ["openai", "anthropic"])
def test_a_404_says_the_path_posted_and_how_base_url_makes_it(
    fake_llm: FakeLLMServer, name: str
) -> None:
    """A base_url without /v1 (or with it, for Anthropic) said only "HTTP 404": the path
    posted, which tells the mistake, was not shown."""
    wrong = fake_llm.root_url if name == "openai" else fake_llm.base_url
    error = failure(make(name, base_url=wrong, api_key_env=KEY_ENV), request("hi"))
    posted = "/chat/completions" if name == "openai" else "/v1/v1/messages"
    assert "HTTP 404: " in str(error) and f"(posted to {posted}, as requests go to" in str(error)


def test_a_base_url_with_a_query_keeps_it_after_the_path(fake_llm: FakeLLMServer) -> None:
    """Azure's `?api-version=...` got "/chat/completions" appended to the query: the path
    lost it, and the version was garbled."""
    connector = make("openai", base_url=fake_llm.base_url + "?api-version=2024-06-01")
    assert connector.url == f"{fake_llm.base_url}/chat/completions?api-version=2024-06-01"  # type: ignore[attr-defined]
    assert call(connector, request("[[answer=fine]]")).text == "fine"


def test_a_proxy_that_cannot_be_reached_is_named(
    fake_llm: FakeLLMServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With HTTP_PROXY set and 127.0.0.1 not in NO_PROXY, the failure blamed the server."""
    for name in ("http_proxy", "no_proxy", "NO_PROXY"):
        monkeypatch.delenv(name, raising=False)
    port = dead_proxy(monkeypatch)
    error = failure(make("openai", fake_llm), request("hi"))
    assert f"cannot connect (through the proxy 127.0.0.1:{port} that HTTP(S)_PROXY" in str(error)
    assert fake_llm.total == 0


@pytest.mark.parametrize(
    ("settings", "said"),
    [
        (
            {"api_key_env": SECRET},
            "api_key_env names the environment variable that holds the key",
        ),
        ({"params": {"temprature": 0}}, "params.temprature: unknown request parameter; did you"),
        ({"params": {"stream": True}}, "params.stream: arena reads whole replies"),
    ],
)
def test_settings_that_cannot_work_are_refused_at_their_line(
    tmp_path: Path, settings: dict[str, Any], said: str
) -> None:
    """The key itself written as api_key_env was printed in every failure and report; a
    misspelt parameter was sent and ignored; a streamed reply failed every call."""
    import json

    path = tmp_path / "arena.yaml"
    written = json.dumps({"connector": "openai", "base_url": "http://127.0.0.1:9/v1", **settings})
    path.write_text(f"models:\n  define:\n    mine: {written}\n")
    file = load_project(path)
    with pytest.raises(SpecError) as caught:
        build_connector("mine", file.spec.models.define, file.path, file.lines)
    text = caught.value.format(tmp_path)
    assert text.startswith("arena.yaml:3: models.define.mine.") and said in text
    assert SECRET not in text


def test_a_bad_base_url_from_the_environment_names_the_variable(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_BASE_URL", "127.0.0.1:18801/v1")
    path = tmp_path / "arena.yaml"
    path.write_text("models: [openai:gpt-4o-mini]\n")
    file = load_project(path)
    with pytest.raises(SpecError) as caught:
        build_connector("openai:gpt-4o-mini", file.spec.models.define, file.path, file.lines)
    assert "the environment variable OPENAI_BASE_URL holds no http(s) URL" in str(caught.value)
    assert "18801" not in str(caught.value)  # not quoted: a key put there would be said


def test_a_secret_the_servers_json_escapes_is_redacted_too() -> None:
    """A secret with a stray non-ASCII character (a `headers:` value with é or a curly quote;
    an API key with one is not sent) comes back in a JSON error as `\\u00e9`: the text
    matched nothing, and the decoded message held the whole secret."""
    secret = "tok-\u00e95f3c9a1e7b2d4c6a8e0f"
    said = json.dumps({"error": {"message": f"bad token {secret}"}})  # ASCII: \u00e9
    assert "\\u00e9" in said and redacted(said, [secret]).endswith('"bad token ***"}}')


def test_credentials_in_the_base_url_or_the_proxy_are_said_of_no_failure_and_no_cache_key(
    fake_llm: FakeLLMServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    base = fake_llm.base_url.replace("http://", f"http://alice:{SECRET}@") + f"?key={SECRET}"
    connector = make("openai", fake_llm, base_url=base, api_key_env=None)  # no header too
    error = failure(connector, request("[[fault=401 echo_headers=1]]"))
    identity = str(connector.cache_identity())
    basic = base64.b64encode(f"alice:{SECRET}".encode()).decode()  # the header sent
    assert redacted(f"Authorization: Basic {basic}", url_secrets(base)).endswith("Basic ***")
    for text in (str(error), repr(connector), identity):
        assert SECRET not in text and "alice" not in text and basic not in text, text
    assert "key=***" in identity  # and a digest of the URL: another key is another entry
    port = dead_proxy(monkeypatch, f"alice:{SECRET}@")  # with a password
    error = failure(make("openai", fake_llm), request("hi"))
    assert f"through the proxy 127.0.0.1:{port} that" in str(error)
    assert SECRET not in str(error) and "alice" not in str(error)


def test_a_key_pasted_as_a_variable_name_is_not_said_when_it_is_unset(
    fake_llm: FakeLLMServer,
) -> None:
    """`gsk_...` (Groq's keys), hex keys: they pass as variable names, and were printed."""
    pasted = "gsk_" + SECRET.replace("-", "")
    error = failure(make("openai", fake_llm, api_key_env=pasted), request("hi"))
    assert "the API key variable that api_key_env names is not set" in str(error)
    assert pasted not in str(error)


def test_what_aiohttp_quotes_of_the_request_is_redacted() -> None:
    """A server whose malformed reply holds the request's Authorization line: aiohttp's
    error quotes it, and it reached every report."""

    async def scenario() -> str:
        async def answer(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            head = await reader.readuntil(b"\r\n\r\n")
            auth = next(line for line in head.split(b"\r\n") if line.startswith(b"Authorization"))
            writer.write(b"HTTP/1.1 401 No\r\nContent-Length: " + auth + b"\r\n\r\n")
            await writer.drain()
            writer.close()

        server = await asyncio.start_server(answer, "127.0.0.1", 0)
        port = server.sockets[0].getsockname()[1]
        connector = make("openai", base_url=f"http://127.0.0.1:{port}/v1", api_key_env=KEY_ENV)
        try:
            await connector.acomplete(request("hi"))
        except ConnectorError as error:
            return str(error)
        finally:
            await connector.aclose()
            server.close()
        raise AssertionError("the call did not fail")

    said = asyncio.run(scenario())
    assert "the request failed" in said and "***" in said, said
    assert SECRET not in said


def test_only_values_named_as_credentials_are_redacted_never_an_answer(
    fake_llm: FakeLLMServer,
) -> None:
    """`X-Title` or Azure's `api-version` name no credential: an answer that holds their
    values is graded as written, and such a URL keeps its cache key; `x-api-key` is one."""
    other = "sk-other-9a8b7c6d5e4f3a2b1c0d"
    base = fake_llm.base_url + "?api-version=2024-02-01"
    headers = {"X-Title": "benchmark-suite", "x-api-key": other}
    connector = make("openai", fake_llm, base_url=base, headers=headers)
    answer = call(connector, request("benchmark-suite 2024-02-01"))
    assert answer.text == "benchmark-suite 2024-02-01"
    assert connector.cache_identity()["base_url"] == base
    error = failure(
        make("openai", fake_llm, headers={"x-api-key": other}),
        request("[[fault=401 echo_headers=1]]"),
    )
    assert other not in str(error)


def test_credentials_are_redacted_whole_in_every_form_a_url_holds_them() -> None:
    secrets = url_secrets("http://johnsmith:johnsmith-2024!x@proxy:3128")
    assert redacted("bad password johnsmith-2024!x", secrets) == "bad password ***"  # longest first
    encoded = "http://svc-user:p%40ss-very-secret@127.0.0.1:9"  # as aiohttp quotes it back
    assert redacted(f"url='{encoded}'", url_secrets(encoded)) == "url='http://***:***@127.0.0.1:9'"
    assert shown_url("http://h/v1?sk-abcdefghijkl") == "http://h/v1?***"  # a bare key
    assert shown_url("http://h/v1?key=abc&api-version=1") == "http://h/v1?key=***&api-version=1"
    named = ["Authorization", "Ocp-Apim-Subscription-Key", "access_token", "sig", "Cookie"]
    assert all(map(credential_name, named))
    assert not any(map(credential_name, ["X-Design", "X-Title", "api-version", "passage_id"]))


def test_a_cache_miss_never_says_the_credential_an_older_key_held() -> None:
    """Keys written before a URL's credential was kept as a digest hold the URL whole."""
    from pytest_arena.cache.diff import Difference, describe

    old = "http://h/v1?key=AIzaSyD-very-secret-key-123"
    said = describe([Difference("base_url", "http://h/v1?key=*** 8b9c0d1e", old)])
    assert said == "base_url (a credential in it: not shown)"
    said = describe([Difference("base_url", "http://other/v1", old)])
    assert "AIzaSyD" not in said and "'http://other/v1' here" in said


def test_a_password_in_the_base_url_variable_is_said_of_the_variable(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With no models.define, the message named `models.define.openai:gpt-4o-mini: base_url`
    and said to take api_key_env out: the file holds neither."""
    monkeypatch.setenv("OPENAI_BASE_URL", "http://u:pw-secret@127.0.0.1:18801/v1")
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    path = tmp_path / "arena.yaml"
    path.write_text("tests:\n  - {id: q, input: hi, reference: hi}\n")
    file = load_project(path)
    with pytest.raises(SpecError) as caught:
        build_connector("openai:gpt-4o-mini", file.spec.models.define, file.path, file.lines)
    said = caught.value.format(tmp_path)
    assert (
        "the environment variable OPENAI_BASE_URL, which gives the model's base_url, holds a"
        " user and password, sent as an Authorization header, and the model sends another"
        " (the key in OPENAI_API_KEY)"
    ) in said, said
    assert "fix: take user:password@ out of OPENAI_BASE_URL, or write" in said
    assert "api_key_env out" not in said and ": base_url holds" not in said
    assert "pw-secret" not in said and SECRET not in said


@pytest.mark.parametrize(
    ("how", "written"),
    [
        ("slash", "sk-test\\/1234567890abcdef"),
        ("unicode", "".join(f"\\u{ord(c):04X}" for c in "sk-test/1234567890abcdef")),
        ("mixed", "sk-test\\u002F1234567890abc\\u0064ef"),
        ("astral", "\\ud83d\\ude00sk-test/1234567890abcdef"),
    ],
)
def test_a_secret_is_redacted_in_every_json_escape_of_it(how: str, written: str) -> None:
    """PHP's JSON writes `/` as `\\/`; any character may come as `\\u00XX`: the key was
    said whole in the quote of a reply that was not what arena expected."""
    key = ("\U0001f600" if how == "astral" else "") + "sk-test/1234567890abcdef"
    assert redacted(f'{{"id": "{written}"}} and {key}', [key]) == '{"id": "***"} and ***'
    assert redacted("no escape here: sk-test/12345", [key]) == "no escape here: sk-test/12345"


def test_a_timeout_names_the_host_and_the_setting_to_raise(
    fake_llm: FakeLLMServer, pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    make_project(
        "slow",
        f"""
        models:
          default: [local]
          define:
            local: {{connector: openai, base_url: "{fake_llm.base_url}", timeout: 0.3,
                     max_retries: 1, backoff: 0.01}}
        tests:
          - {{id: q, input: "[[latency=2000]] [[answer=Paris]] hi", reference: Paris}}
        """,
    )
    result = pytester.runpytest("-p", "no:cacheprovider")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            "*model 'local' call failed: no answer within 0.3 s (the model's timeout) from"
            f" 127.0.0.1:{fake_llm.port} after 2 tries; fix: raise timeout: in models.define if"
            " the model is that slow"
        ]
    )


def test_a_dropped_connection_says_the_tries_before_the_fix(
    fake_llm: FakeLLMServer, pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    make_project(
        "dropped",
        f"""
        models:
          default: [local]
          define:
            local: {{connector: openai, base_url: "{fake_llm.base_url}", max_retries: 1,
                     backoff: 0.01}}
        tests:
          - {{id: q, input: "[[fault=reset]] hi", reference: Paris}}
        """,
    )
    result = pytester.runpytest("-p", "no:cacheprovider")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            f"*call failed: 127.0.0.1:{fake_llm.port}: the server closed the connection without"
            " a reply after 2 tries; fix: see the server's log for why*"
        ]
    )


def test_arena_models_says_how_to_send_a_key_to_a_server_of_the_users(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    """It said "none sent (api_key_env names one)" of a model with no api_key_env."""
    make_project(
        "mine",
        """
        models:
          define:
            router: {connector: openai, base_url: "http://127.0.0.1:8/v1", model: llama}
        tests:
          - {id: a, input: x, reference: x}
        """,
    )
    result = pytester.run(*ARENA, "models", "--project", "projects/mine")
    assert result.ret == 0, result.stderr.str()
    result.stdout.fnmatch_lines(["*router*none sent (set api_key_env to send one)*"])
