"""A model that cannot be reached is said once, plainly: texts that name the model once and
leave out transport noise."""

from __future__ import annotations

import asyncio
import json
import shutil
import socket
import ssl
import subprocess
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from pytest_arena.connectors import Connector, ConnectorError, Request, Response, build_connector
from pytest_arena.spec import Case
from pytest_arena.spec.schema import ModelDef
from tests.conftest import MakeProject
from tests.fake_llm_server import FakeLLMServer


def openai(base_url: str, **settings: Any) -> Connector:
    defined = {
        "m": ModelDef.model_validate({"connector": "openai", "base_url": base_url, **settings})
    }
    return build_connector("m", defined, Path("arena.yaml"))


def failure(connector: Connector) -> ConnectorError:
    async def once() -> Response:
        try:
            return await connector.acomplete(
                Request("m", [{"role": "user", "content": "hi"}], Case(id="c", input="hi"))
            )
        finally:
            await connector.aclose()

    with pytest.raises(ConnectorError) as caught:
        asyncio.run(once())
    return caught.value


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])  # nothing listens on it once closed


def test_a_refused_connection_is_said_in_words_without_aiohttps_noise() -> None:
    port = free_port()
    error = failure(openai(f"http://127.0.0.1:{port}/v1"))
    assert str(error) == (
        f"127.0.0.1:{port}: cannot connect: connection refused;"
        " fix: start the server, or correct base_url"
    )
    assert error.retryable and error.unreachable


def test_an_unknown_host_names_the_host(monkeypatch: pytest.MonkeyPatch) -> None:
    def unknown(host: str, *args: Any, **kwargs: Any) -> Any:
        raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")

    monkeypatch.setattr(socket, "getaddrinfo", unknown)  # no DNS server is asked
    error = failure(openai("http://models.example.invalid:8000/v1"))
    assert str(error) == (
        "models.example.invalid:8000: cannot connect: the host name 'models.example.invalid'"
        " is not known (Name or service not known)"
    )
    assert error.unreachable


def test_https_to_a_plain_http_server_is_a_failed_tls_handshake(fake_llm: FakeLLMServer) -> None:
    error = failure(openai(f"https://127.0.0.1:{fake_llm.port}/v1"))
    assert str(error).startswith(f"127.0.0.1:{fake_llm.port}: cannot connect: the TLS handshake")
    assert "ssl:" not in str(error) and "_ssl.c" not in str(error)
    assert error.unreachable


@pytest.fixture
def self_signed_server(tmp_path: Path) -> Iterator[int]:
    """A TLS server on 127.0.0.1 whose certificate nobody trusts; yields its port."""
    openssl = shutil.which("openssl")
    if openssl is None:
        pytest.skip("openssl is needed to make a certificate")
    key, cert = tmp_path / "key.pem", tmp_path / "cert.pem"
    subprocess.run(
        [
            *(openssl, "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1"),
            *("-subj", "/CN=127.0.0.1", "-keyout", str(key), "-out", str(cert)),
        ],
        check=True,
        capture_output=True,
    )
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert, key)
    listener = socket.create_server(("127.0.0.1", 0))
    stop = threading.Event()

    def serve() -> None:
        listener.settimeout(0.1)
        while not stop.is_set():
            try:
                conn, _ = listener.accept()
            except TimeoutError:
                continue
            try:
                with context.wrap_socket(conn, server_side=True):
                    pass
            except (ssl.SSLError, OSError):
                pass  # the client refused the certificate, as it should

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        yield int(listener.getsockname()[1])
    finally:
        stop.set()
        thread.join(5)
        listener.close()


def test_an_untrusted_certificate_is_said_so(self_signed_server: int) -> None:
    error = failure(openai(f"https://127.0.0.1:{self_signed_server}/v1"))
    assert str(error) == (
        f"127.0.0.1:{self_signed_server}: cannot connect: the server's TLS certificate is not"
        " trusted (self-signed certificate)"
    )
    assert error.unreachable


def test_a_dropped_connection_is_retried_but_the_server_was_reached(
    fake_llm: FakeLLMServer,
) -> None:
    connector = openai(fake_llm.base_url)

    async def once() -> None:
        try:
            await connector.acomplete(
                Request(
                    "m", [{"role": "user", "content": "[[fault=reset]]"}], Case(id="c", input="x")
                )
            )
        finally:
            await connector.aclose()

    with pytest.raises(ConnectorError) as caught:
        asyncio.run(once())
    assert str(caught.value).endswith(
        ": the server closed the connection without a reply; fix: see the server's log for why"
    )
    assert caught.value.retryable and not caught.value.unreachable


# -- the breaker: a model that cannot be reached stops being tried --------------------------


def test_a_moments_hiccup_does_not_open_the_breaker_but_a_failed_retry_does() -> None:
    from pytest_arena.engine.breaker import BREAK_AFTER, Breaker

    breaker = Breaker()
    for _ in range(BREAK_AFTER + 3):  # a wave of first tries, all failing at once
        breaker.cannot_connect("h: cannot connect: connection refused", 0, last_try=False)
    assert breaker.reason is None
    breaker.cannot_connect("h: cannot connect: connection refused", 1, last_try=False)
    assert breaker.reason == (
        f"h: cannot connect: connection refused ({BREAK_AFTER} tries in a row could not"
        " connect: the model's calls are no longer tried)"
    )


def test_a_reply_in_between_starts_the_count_again() -> None:
    from pytest_arena.engine.breaker import BREAK_AFTER, Breaker

    breaker = Breaker()
    for _ in range(3):
        for _ in range(BREAK_AFTER - 1):
            breaker.cannot_connect("refused", 1, last_try=False)
        breaker.replied()  # even an error status is a reply: the server is there
    assert breaker.reason is None


def test_a_provider_that_replied_before_needs_a_call_out_of_retries() -> None:
    from pytest_arena.engine.breaker import BREAK_AFTER, Breaker

    breaker = Breaker()
    breaker.replied()
    for retries in range(1, 4):  # an outage of a few seconds: calls are still retrying
        for _ in range(BREAK_AFTER):
            breaker.cannot_connect("refused", retries, last_try=False)
    assert breaker.reason is None
    breaker.cannot_connect("refused", 4, last_try=True)  # one call has used up its retries
    assert breaker.reason is not None


def test_calls_to_a_provider_that_cannot_be_reached_stop_being_tried() -> None:
    from pytest_arena.engine.calls import Engine
    from pytest_arena.engine.limits import Limits

    port = free_port()
    connector = openai(f"http://127.0.0.1:{port}/v1", max_retries=4, backoff=0.05)
    tries = 0
    acomplete = connector.acomplete

    async def counted(request: Request) -> Response:
        nonlocal tries
        tries += 1
        return await acomplete(request)

    connector.acomplete = counted  # type: ignore[method-assign]
    engine = Engine()
    limits = Limits.of(None, connector)
    try:
        calls = [
            engine.submit(
                connector,
                Request("m", [{"role": "user", "content": f"q{i}"}], Case(id=f"c{i}", input="")),
                limits,
            )
            for i in range(50)
        ]
        results = [engine.wait(call) for call in calls]
    finally:
        engine.close()
    assert {r.error for r in results} == {
        f"127.0.0.1:{port}: cannot connect: connection refused (5 tries in a row could not"
        " connect: the model's calls are no longer tried); fix: start the server, or correct"
        " base_url"
    }
    # each call was tried once, a few of them twice: not 50 calls x 5 tries. The breaker
    # opens when a retry fails, so the retries started before then are at most as many as
    # can be in flight at once (all of them, on a busy machine)
    assert 50 <= tries <= 50 + limits.concurrency
    assert sum(r.retries for r in results) == tries - 50


# -- whole runs -----------------------------------------------------------------------------

SECRET = "sk-test-9d2e4b7a1c3f5e6d8a0b"


def project_yaml(models: dict[str, dict[str, Any]], cases: int) -> str:
    defined = "\n".join(
        f"    {key}: {{{', '.join(f'{k}: {v}' for k, v in settings.items())}}}"
        for key, settings in models.items()
    )
    tests = "\n".join(
        f"  - {{id: c{i}, input: 'q{i} [[answer=a]]', reference: a}}" for i in range(cases)
    )
    return f"models:\n  default: {list(models)}\n  define:\n{defined}\ntests:\n{tests}\n"


def reasons(report: Path) -> dict[str, set[str]]:
    by_model: dict[str, set[str]] = {}
    for record in json.loads(report.read_text())["records"]:
        by_model.setdefault(record["model"], set()).add(record["reason"])
    return by_model


def test_a_server_that_is_down_fails_its_models_cases_fast_with_one_reason(
    fake_llm: FakeLLMServer, pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    port = free_port()
    models = {
        "mock-t0": {"connector": "openai", "base_url": f"http://127.0.0.1:{port}/v1"},
        "up": {"connector": "openai", "base_url": fake_llm.base_url, "cache": "false"},
    }
    make_project("down", project_yaml(models, 50))
    started = time.monotonic()
    full = "--arena-failures=full"  # each case's block (compact: tests/test_failure_style.py)
    result = pytester.runpytest("-p", "no:cacheprovider", "--arena-json=out.json", full)
    took = time.monotonic() - started
    result.assert_outcomes(passed=50, failed=50)
    assert took < 8  # 50 cases x 5 tries took 10 to 15 s; now a backoff or two
    said = (
        f"model 'mock-t0' call failed: 127.0.0.1:{port}: cannot connect: connection refused"
        " (5 tries in a row could not connect: the model's calls are no longer tried);"
        " fix: start the server, or correct base_url"
    )
    assert reasons(pytester.path / "out.json") == {"mock-t0": {said}, "up": {"exact match"}}
    result.stdout.fnmatch_lines([said])
    result.stdout.no_fnmatch_line("*ssl:*")
    result.stdout.no_fnmatch_line("*model 'mock-t0'*model 'mock-t0'*")
    assert fake_llm.total == 50  # the model that is up was not held back
    # the first failure says it in full; the 49 others point at it in their one line
    assert result.stdout.str().count("said there in full") == 49
    result.stdout.fnmatch_lines(
        [f"{said} (as for projects/down/arena.yaml::*, said there in full)"]
    )


def test_a_missing_key_is_said_once_with_its_variable_and_nothing_is_sent(
    fake_llm: FakeLLMServer,
    pytester: pytest.Pytester,
    make_project: MakeProject,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("ARENA_SET_KEY", SECRET)
    monkeypatch.delenv("ARENA_UNSET_KEY", raising=False)
    url = fake_llm.base_url
    models = {
        "keyless": {"connector": "openai", "base_url": url, "api_key_env": "ARENA_UNSET_KEY"},
        "keyed": {"connector": "openai", "base_url": url, "api_key_env": "ARENA_SET_KEY"},
    }
    make_project("keys", project_yaml(models, 20))
    result = pytester.runpytest("-p", "no:cacheprovider", "--arena-json=out.json")
    result.assert_outcomes(passed=20, failed=20)
    said = (
        "model 'keyless' call failed: the API key variable ARENA_UNSET_KEY is not set;"
        " export ARENA_UNSET_KEY=... (or set api_key_env to the variable that holds it)"
    )
    assert reasons(pytester.path / "out.json") == {"keyless": {said}, "keyed": {"exact match"}}
    assert fake_llm.total == 20  # the keyed model's calls only
    assert {h["Authorization"] for h in fake_llm.headers} == {f"Bearer {SECRET}"}
    result.stdout.no_fnmatch_line(f"*{SECRET}*")
    assert SECRET not in (pytester.path / "out.json").read_text()
    caches = list(pytester.path.rglob("*.sqlite3*"))
    assert caches  # the keyed model's answers were kept, and its key was not
    for cache in caches:
        assert SECRET.encode() not in cache.read_bytes()
