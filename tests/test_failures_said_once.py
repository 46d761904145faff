"""A model that cannot be reached is said once, plainly: texts that name the model once and
leave out transport noise."""

from __future__ import annotations

import asyncio
import shutil
import socket
import ssl
import subprocess
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from pytest_arena.connectors import Connector, ConnectorError, Request, Response, build_connector
from pytest_arena.spec import Case
from pytest_arena.spec.schema import ModelDef
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
    assert str(error) == f"127.0.0.1:{port}: cannot connect: connection refused"
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
    assert str(caught.value).endswith(": the server closed the connection without a reply")
    assert caught.value.retryable and not caught.value.unreachable
