"""Replies as servers really write them: JSON escapes where the key comes back, gzip bodies
(a bomb, one that is no gzip), and what a replay run may call. Each against a small server
on 127.0.0.1 that counts what it is sent."""

from __future__ import annotations

import gzip
import json
import sqlite3
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from tests.conftest import MakeProject
from tests.connectors import KEY_ENV, call, failure, make, request

KEY = "sk-test/1234567890abcdef"  # a `/`: PHP's JSON writes it `\/`
TAIL = "1234567890abcdef"  # what no output may hold, in any form
BOMB = 4 * 2**20  # decoded bytes of the gzip bomb's answer (the limit is made smaller)


def escaped(text: str, how: str) -> str:
    """`text` as a JSON string's inside, with `/` written `\\/` or every character as `\\u00XX`."""
    if how == "slash":
        return json.dumps(text)[1:-1].replace("/", "\\/")
    return "".join(f"\\u{ord(c):04X}" if i % 2 else f"\\u{ord(c):04x}" for i, c in enumerate(text))


class Handler(BaseHTTPRequestHandler):
    """/echo-slash/v1, /echo-unicode/v1: "you sent <the Bearer key>", escaped so; /fields/v1:
    no choices, the key (escaped) in an id; /bomb/v1: a gzip bomb; /badgzip/v1: a body
    labelled gzip that is none; /bom/v1: "Paris" after a byte order mark; /latin1/v1: "Café"
    in ISO-8859-1, as its Content-Type says; any other path: "Paris"."""

    protocol_version = "HTTP/1.1"
    server: Server

    def log_message(self, *args: Any) -> None:
        pass

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers["Content-Length"]))
        with self.server.lock:
            self.server.requests += 1
        mode = self.path.split("/")[1]
        key = self.headers.get("Authorization", "").removeprefix("Bearer ")
        encoding = None
        kind = "application/json"
        reply: dict[str, Any]
        if mode.startswith("echo-"):
            how = mode.removeprefix("echo-")
            said = escaped(f"you sent {key}", how)
            body = (
                '{"model": "served-' + escaped(key, how) + '", "choices": [{"message":'
                ' {"role": "assistant", "content": "' + said + '"}, "finish_reason": "stop"}],'
                ' "usage": {"prompt_tokens": 5, "completion_tokens": 2}}'
            ).encode()
        elif mode == "tool":  # PHP's JSON of arguments that are JSON of the key: `\\\/`
            arguments = json.dumps({"key": key}).replace("/", "\\/")
            message = {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {
                        "id": "c1",
                        "type": "function",
                        "function": {"name": "echo", "arguments": arguments},
                    }
                ],
            }
            reply = {"choices": [{"message": message, "finish_reason": "tool_calls"}]}
            body = json.dumps(reply).replace("/", "\\/").encode()
        elif mode == "fields":
            body = ('{"id": "' + escaped(key, "slash") + '", "object": "error"}').encode()
        elif mode == "bomb":
            answer = b'{"choices":[{"message":{"content":"' + b"A" * BOMB + b'"}}]}'
            body, encoding = gzip.compress(answer, 1), "gzip"
        elif mode == "badgzip":
            body, encoding = b"\x1f\x8b not gzip at all", "gzip"
        elif mode == "bom":  # as some .NET and PowerShell servers write JSON
            reply = {"choices": [{"message": {"content": "Paris"}, "finish_reason": "stop"}]}
            body = "\ufeff".encode() + json.dumps(reply).encode()
        elif mode == "latin1":  # JSON in the charset its Content-Type names
            reply = {"choices": [{"message": {"content": "Café"}, "finish_reason": "stop"}]}
            body = json.dumps(reply, ensure_ascii=False).encode("latin-1")
            kind = "application/json; charset=ISO-8859-1"
        else:
            reply = {
                "choices": [{"message": {"content": "Paris"}, "finish_reason": "stop"}],
                "usage": {"prompt_tokens": 5, "completion_tokens": 1},
            }
            body = json.dumps(reply).encode()
        self.send_response(200)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        if encoding:
            self.send_header("Content-Encoding", encoding)
        self.end_headers()
        self.wfile.write(body)


class Server(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), Handler)
        self.lock = threading.Lock()
        self.requests = 0

    def url(self, mode: str) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}/{mode}/v1"


@pytest.fixture
def server() -> Iterator[Server]:
    running = Server()
    thread = threading.Thread(target=running.serve_forever, daemon=True)
    thread.start()
    try:
        yield running
    finally:
        running.shutdown()
        running.server_close()
        thread.join(10)


@pytest.fixture(autouse=True)
def api_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(KEY_ENV, KEY)


# 1. the key, JSON-escaped in a successful reply


@pytest.mark.parametrize("how", ["slash", "unicode"])
def test_a_key_the_reply_writes_escaped_is_in_no_output_report_or_cache(
    server: Server, pytester: pytest.Pytester, make_project: MakeProject, how: str
) -> None:
    """A PHP server writes `/` as `\\/` (and any server may write `\\u00XX`): the raw body was
    redacted before its escapes were undone, and the answer, "you sent sk-test/123...",
    reached the terminal, every report and the cache whole."""
    make_project(
        "leak",
        f"""
        models:
          default: [echo]
          define:
            echo: {{connector: openai, base_url: "{server.url("echo-" + how)}",
                    api_key_env: {KEY_ENV}, price: {{input_per_mtok: 1, output_per_mtok: 1}}}}
        tests:
          - {{id: q, input: "capital of France?", reference: Paris}}
        """,
    )
    result = pytester.runpytest(
        "-p",
        "no:cacheprovider",
        "--arena-json=out/r.json",
        "--arena-html=out/r.html",
        "--junitxml=out/j.xml",
        "--arena-cache-path=out/cache.sqlite3",
    )
    result.assert_outcomes(failed=1)
    assert server.requests == 1
    result.stdout.fnmatch_lines(["*got 'you sent [*][*][*]'*"])  # the answer, graded, redacted
    assert TAIL not in result.stdout.str()
    for name in ("r.json", "r.html", "j.xml", "cache.sqlite3"):
        data = (pytester.path / "out" / name).read_bytes()
        assert TAIL.encode() not in data, name
        assert escaped(TAIL, how).encode() not in data, name
    rows = sqlite3.connect(pytester.path / "out" / "cache.sqlite3").execute(
        "SELECT * FROM responses"
    )
    stored = json.dumps([list(map(str, row)) for row in rows])
    assert "you sent ***" in stored and TAIL not in stored


@pytest.mark.parametrize("how", ["slash", "unicode"])
def test_the_answer_and_meta_of_a_reply_are_redacted_after_decoding(
    server: Server, how: str
) -> None:
    response = call(
        make("openai", base_url=server.url(f"echo-{how}"), api_key_env=KEY_ENV), request("hi")
    )
    assert response.text == "you sent ***"
    assert response.meta["model"] == "served-***"


def test_tool_call_arguments_that_hold_the_key_escaped_twice_are_redacted(
    server: Server,
) -> None:
    response = call(make("openai", base_url=server.url("tool"), api_key_env=KEY_ENV), request("hi"))
    assert response.tool_calls[0]["arguments"] == {"key": "***"}
    assert TAIL not in json.dumps(response.meta) and TAIL not in response.text


def test_a_reply_that_lacks_the_fields_quotes_it_without_the_escaped_key(server: Server) -> None:
    error = failure(
        make("openai", base_url=server.url("fields"), api_key_env=KEY_ENV), request("hi")
    )
    assert "the reply lacks the expected fields (HTTP 200)" in str(error)
    assert '{"id": "***"' in str(error) and TAIL not in str(error)


@pytest.mark.parametrize(("mode", "answer"), [("bom", "Paris"), ("latin1", "Café")])
def test_a_reply_with_a_byte_order_mark_or_in_the_charset_it_names_is_read(
    server: Server, mode: str, answer: str
) -> None:
    """A UTF-8 byte order mark made the reply "not JSON"; an ISO-8859-1 body came out with
    U+FFFD where its accents were."""
    response = call(make("openai", base_url=server.url(mode), api_key_env=KEY_ENV), request("hi"))
    assert response.text == answer


# 2. a gzip bomb


def test_a_gzip_reply_that_decodes_past_the_limit_is_an_error(
    server: Server, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A 179 KiB gzip body decoded to a 40 MiB answer that was graded: the limit was checked
    against the compressed size."""
    from pytest_arena.connectors import http_api

    monkeypatch.setattr(http_api, "MAX_REPLY", 2**20)  # the bomb decodes to 4 MiB
    error = failure(make("openai", base_url=server.url("bomb"), api_key_env=KEY_ENV), request("hi"))
    assert str(error) == (
        f"127.0.0.1:{server.server_address[1]}: the reply is larger than 1 MiB, more than any"
        " model's answer: is base_url the API's address?"
    )
    assert not error.retryable
    assert (
        call(make("openai", base_url=server.url("plain"), api_key_env=KEY_ENV), request("hi")).text
        == "Paris"
    )  # a small answer is read as before


# 3. a body labelled gzip that is none


def test_a_body_that_is_not_the_gzip_it_says_is_said_so_and_not_retried(
    server: Server, pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    """It was "the reply was cut off before its end after 5 tries"."""
    make_project(
        "bad",
        f"""
        models:
          default: [bad]
          define:
            bad: {{connector: openai, base_url: "{server.url("badgzip")}",
                   api_key_env: {KEY_ENV}, backoff: 0.01}}
        tests:
          - {{id: q, input: "capital of France?", reference: Paris}}
        """,
    )
    result = pytester.runpytest("-p", "no:cacheprovider")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            f"*127.0.0.1:{server.server_address[1]}: the reply's Content-Encoding 'gzip' could"
            " not be decoded*fix: *"
        ]
    )
    result.stdout.no_fnmatch_line("*cut off*")
    result.stdout.no_fnmatch_line("*tries*")
    assert server.requests == 1


def test_an_undecodable_body_is_not_retryable(server: Server) -> None:
    error = failure(
        make("openai", base_url=server.url("badgzip"), api_key_env=KEY_ENV), request("hi")
    )
    assert "Content-Encoding 'gzip' could not be decoded" in str(error)
    assert not error.retryable and not error.unreachable


# 4. --arena-cache replay and a model with cache: false


@pytest.mark.parametrize(
    ("mode", "calls", "outcome"),
    [("replay", 0, "failed"), ("off", 1, "passed"), ("use", 1, "passed"), ("refresh", 1, "passed")],
)
def test_replay_calls_no_model_that_is_kept_out_of_the_cache(
    server: Server,
    pytester: pytest.Pytester,
    make_project: MakeProject,
    mode: str,
    calls: int,
    outcome: str,
) -> None:
    """Replay is strict and offline, yet a model with `cache: false` was called live (and
    paid) in it; the other modes call it, as ever."""
    make_project(
        "live",
        f"""
        models:
          default: [paid]
          define:
            paid: {{connector: openai, base_url: "{server.url("plain")}", api_key_env: {KEY_ENV},
                    cache: false, price: {{input_per_mtok: 1, output_per_mtok: 1}}}}
        tests:
          - {{id: q, input: "capital of France?", reference: Paris}}
        """,
    )
    result = pytester.runpytest("-p", "no:cacheprovider", f"--arena-cache={mode}")
    result.assert_outcomes(**{outcome: 1})
    assert server.requests == calls
    if mode == "replay":
        result.stdout.fnmatch_lines(
            [
                "*not called: the model has 'cache: false'*--arena-cache replay makes no call"
                "*fix: take 'cache: false' off the model, or run without --arena-cache replay*"
            ]
        )


def test_replay_still_runs_a_model_cached_by_default_from_the_cache(
    server: Server, pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    make_project(
        "cached",
        f"""
        models:
          default: [paid]
          define:
            paid: {{connector: openai, base_url: "{server.url("plain")}", api_key_env: {KEY_ENV}}}
        tests:
          - {{id: q, input: "capital of France?", reference: Paris}}
        """,
    )
    pytester.runpytest("-p", "no:cacheprovider").assert_outcomes(passed=1)
    replayed = pytester.runpytest("-p", "no:cacheprovider", "--arena-cache=replay")
    replayed.assert_outcomes(passed=1)
    assert server.requests == 1
