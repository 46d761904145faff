"""A local fake of the OpenAI and Anthropic chat APIs, with faults on request.

Serves `POST /v1/chat/completions` (OpenAI) and `POST /v1/messages` (Anthropic) on
127.0.0.1. What it does is decided by markers in the prompt (the text of every message,
and Anthropic's `system`), so a test project can ask for a behaviour per case:

    [[answer=Paris]]                   reply "Paris" (default: echo the last user message)
    [[latency=150]]                    wait 150 ms before replying (default: the server's)
    [[fault=429 retry_after=0.2]]      reply 429 with `Retry-After: 0.2`
    [[fault=503 times=2]]              fail the first 2 requests with this prompt, then answer
    [[fault=429 retry_after=date]]     Retry-After as an HTTP date, 2 s from now
    [[fault=hang]]                     answer nothing until the hang limit (30 s), then drop
    [[fault=reset]]                    drop the connection without a reply
    [[fault=malformed]]                reply 200 with a body that is not JSON
    [[fault=truncated]]                reply 200 and drop the connection halfway through the body
    [[fault=missing]]                  reply 200 with JSON lacking the expected fields
    [[fault=401 echo_headers=1]]       an error whose message quotes the request's headers
    [[fault=400 about=image]]          an error saying image input is not supported
    [[fault=redirect]]                 reply 307 to the same path on `localhost` (another origin)
    [[fault=endless]]                  reply 200 and stream bytes without end, no Content-Length
    [[cached=1024]]                    OpenAI: usage says 1024 of prompt_tokens were cached
    [[together=20]]                    hold each such request until 20 are held at once
                                       (504 if they do not come within the hang limit)
    [[call=lookup {"id": "7"}]]        call a tool: the first such marker on the first turn,
    [[call=refund {"id": "7"}]]        the second on the next (turns are counted by the
                                       assistant tool calls in the history), then answer
    [[loop=lookup {"id": "7"}]]        call this tool on every turn, never answering

Tool calls come in each API's own format (OpenAI's `tool_calls` with JSON-string
arguments and finish_reason "tool_calls"; Anthropic's `tool_use` blocks and stop_reason
"tool_use"), with ids `call_1`, `call_2`, ... With Anthropic's `thinking: {type: enabled}`
a tool_use turn starts with a signed thinking block, and a request whose assistant turn
does not send it back first is refused (400), as the API refuses it.

Any number works as a fault status (400, 401, 500, 529, ...). The server counts requests,
in total and per prompt, and the most it was answering at once (`peak`), and keeps the
headers, bodies and arrival times of the last ones.

As a script: `python tests/fake_llm_server.py --port 0 --latency-ms 100` prints
`listening on 127.0.0.1:PORT` and serves until killed.
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import contextlib
import email.utils
import json
import re
import threading
import time
from collections.abc import Awaitable, Callable
from typing import Any

from aiohttp import web

MARKER = re.compile(r"\[\[(\w+)=([^\]]*)\]\]")
TOOL_MARKER = re.compile(r"\[\[(call|loop)=(\w+) (\{[^\]]*\})\]\]")
HOST = "127.0.0.1"
Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]
ToolCall = tuple[str, str, str]  # id, name, arguments as JSON text


def markers(text: str) -> dict[str, str]:
    """The `[[name=value]]` markers in `text`; the first of each name wins."""
    found: dict[str, str] = {}
    for name, value in MARKER.findall(text):
        found.setdefault(name, value.strip())
    return found


def _fault(spec: str) -> tuple[str, dict[str, str]]:
    kind, *rest = spec.split()
    return kind, dict(part.split("=", 1) for part in rest if "=" in part)


class FakeLLMServer:
    """The fake server; `start()` runs it on a thread of its own, `stop()` ends it."""

    def __init__(
        self, latency_ms: float = 0.0, hang_seconds: float = 30.0, port: int = 0, keep: int = 50
    ) -> None:
        self.latency_ms = latency_ms
        self.hang_seconds = hang_seconds
        self.port = port
        self.total = 0
        self.per_prompt: collections.Counter[str] = collections.Counter()
        self.in_flight = 0  # requests being answered now, and the most at once so far
        self.peak = 0
        self.headers: collections.deque[dict[str, str]] = collections.deque(maxlen=keep)
        self.bodies: collections.deque[dict[str, Any]] = collections.deque(maxlen=keep)
        self.arrivals: collections.deque[float] = collections.deque(maxlen=keep)  # monotonic
        self._lock = threading.Lock()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._runner: web.AppRunner | None = None
        self._hanging: set[asyncio.Future[None]] = set()
        self._groups: dict[int, list[Any]] = {}  # together=N: [requests held, all arrived]

    @property
    def base_url(self) -> str:
        """The OpenAI-style base URL (`http://127.0.0.1:PORT/v1`)."""
        return f"http://{HOST}:{self.port}/v1"

    @property
    def root_url(self) -> str:
        """The Anthropic-style base URL (`http://127.0.0.1:PORT`)."""
        return f"http://{HOST}:{self.port}"

    @property
    def last_headers(self) -> dict[str, str]:
        return self.headers[-1] if self.headers else {}

    def reset(self) -> None:
        """Forget the requests seen so far (counts, headers, bodies, arrivals, the peak)."""
        with self._lock:
            self.total = 0
            self.per_prompt.clear()
            self.peak = self.in_flight
            self.headers.clear()
            self.bodies.clear()
            self.arrivals.clear()

    def count(self, prompt_part: str) -> int:
        """Requests whose prompt contains `prompt_part`."""
        with self._lock:
            return sum(n for prompt, n in self.per_prompt.items() if prompt_part in prompt)

    def app(self) -> web.Application:
        app = web.Application(client_max_size=16 * 1024 * 1024)
        app.router.add_post("/v1/chat/completions", self._counted(self._openai))
        app.router.add_post("/v1/messages", self._counted(self._anthropic))
        return app

    def _counted(self, handler: Handler) -> Handler:
        """`handler`, counting the requests in flight: from arrival until the reply is made."""

        async def counted(request: web.Request) -> web.StreamResponse:
            with self._lock:
                self.arrivals.append(time.monotonic())
                self.in_flight += 1
                self.peak = max(self.peak, self.in_flight)
            try:
                return await handler(request)
            finally:
                with self._lock:
                    self.in_flight -= 1

        return counted

    async def serve(self) -> None:
        """Start listening on the running loop (the port is known once this returns)."""
        self._runner = web.AppRunner(self.app(), access_log=None, shutdown_timeout=1.0)
        await self._runner.setup()
        site = web.TCPSite(self._runner, HOST, self.port)
        await site.start()
        self.port = self._runner.addresses[0][1]

    async def shutdown(self) -> None:
        for waiter in list(self._hanging):
            waiter.cancel()
        if self._runner is not None:
            await self._runner.cleanup()

    def start(self) -> FakeLLMServer:
        ready = threading.Event()
        failed: list[BaseException] = []

        def run() -> None:
            loop = asyncio.new_event_loop()
            self._loop = loop
            try:
                loop.run_until_complete(self.serve())
            except BaseException as exc:
                failed.append(exc)
                ready.set()
                loop.close()
                return
            ready.set()
            loop.run_forever()
            loop.run_until_complete(self.shutdown())
            loop.close()

        self._thread = threading.Thread(target=run, name="fake-llm-server", daemon=True)
        self._thread.start()
        if not ready.wait(10):
            raise RuntimeError("the fake LLM server did not start within 10 s")
        if failed:
            raise failed[0]
        return self

    def stop(self) -> None:
        if self._loop is not None and self._thread is not None:
            self._loop.call_soon_threadsafe(self._loop.stop)
            self._thread.join(10)

    def __enter__(self) -> FakeLLMServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    async def _openai(self, request: web.Request) -> web.StreamResponse:
        body, problem = await self._read(request)
        if problem is not None:
            return problem
        messages = body.get("messages") or []
        prompt = "\n".join(_content(m) for m in messages)
        last_user = next(
            (_content(m) for m in reversed(messages) if m.get("role") == "user"), prompt
        )

        turns = sum(1 for m in messages if m.get("role") == "assistant" and m.get("tool_calls"))
        said = markers(prompt).get("cached")  # of prompt_tokens, read from the prompt cache
        cached = {"prompt_tokens_details": {"cached_tokens": int(said)}} if said else {}

        def answer(
            text: str, tokens_in: int, tokens_out: int, call: ToolCall | None = None
        ) -> dict[str, Any]:
            message: dict[str, Any] = {"role": "assistant", "content": text}
            if call is not None:
                message["content"] = None
                message["tool_calls"] = [
                    {
                        "id": call[0],
                        "type": "function",
                        "function": {"name": call[1], "arguments": call[2]},
                    }
                ]
            return {
                "id": "chatcmpl-fake",
                "object": "chat.completion",
                "created": int(time.time()),
                "model": f"{body.get('model', '')}-served",
                "choices": [
                    {
                        "index": 0,
                        "message": message,
                        "finish_reason": "stop" if call is None else "tool_calls",
                    }
                ],
                "usage": {
                    "prompt_tokens": tokens_in,
                    "completion_tokens": tokens_out,
                    "total_tokens": tokens_in + tokens_out,
                    **cached,
                },
            }

        def error(status: int, message: str) -> dict[str, Any]:
            return {"error": {"message": message, "type": "fake_error", "code": status}}

        return await self._reply(request, prompt, last_user, answer, error, turns)

    async def _anthropic(self, request: web.Request) -> web.StreamResponse:
        body, problem = await self._read(request)
        if problem is not None:
            return problem
        messages = body.get("messages") or []
        system = body.get("system") or ""
        prompt = "\n".join(
            [system, *(_content(m) for m in messages)]
            if system
            else [_content(m) for m in messages]
        )
        last_user = next(
            (_content(m) for m in reversed(messages) if m.get("role") == "user"), prompt
        )

        turns = sum(
            1
            for m in messages
            if m.get("role") == "assistant"
            and isinstance(m.get("content"), list)
            and any(b.get("type") == "tool_use" for b in m["content"])
        )

        # extended thinking, as Anthropic's API checks it: a tool_use turn starts with a
        # signed thinking block, which the next request must send back before its tool_use
        thinking = (body.get("thinking") or {}).get("type") == "enabled"
        unsigned = [
            i
            for i, m in enumerate(messages)
            if m.get("role") == "assistant"
            and isinstance(m.get("content"), list)
            and any(b.get("type") == "tool_use" for b in m["content"])
            and m["content"][0]
            != {"type": "thinking", "thinking": "Look it up.", "signature": f"sig-{i}"}
        ]
        if thinking and unsigned:
            said = (
                f"messages.{unsigned[0]}.content.0.type: Expected `thinking` or `redacted_thinking`"
            )
            return web.json_response(
                {"type": "error", "error": {"type": "invalid_request_error", "message": said}},
                status=400,
            )

        def answer(
            text: str, tokens_in: int, tokens_out: int, call: ToolCall | None = None
        ) -> dict[str, Any]:
            content: list[dict[str, Any]] = [{"type": "text", "text": text}]
            if call is not None:
                arguments = json.loads(call[2])
                content = [{"type": "tool_use", "id": call[0], "name": call[1], "input": arguments}]
                if thinking:  # the index its assistant message will have in the next request
                    sign = f"sig-{len(messages)}"
                    content.insert(
                        0, {"type": "thinking", "thinking": "Look it up.", "signature": sign}
                    )
            return {
                "id": "msg_fake",
                "type": "message",
                "role": "assistant",
                "model": f"{body.get('model', '')}-served",
                "content": content,
                "stop_reason": "end_turn" if call is None else "tool_use",
                "usage": {"input_tokens": tokens_in, "output_tokens": tokens_out},
            }

        def error(status: int, message: str) -> dict[str, Any]:
            kind = {429: "rate_limit_error", 529: "overloaded_error"}.get(status, "api_error")
            return {"type": "error", "error": {"type": kind, "message": message}}

        return await self._reply(request, prompt, last_user, answer, error, turns)

    async def _read(self, request: web.Request) -> tuple[dict[str, Any], web.StreamResponse | None]:
        raw = await request.read()
        try:
            body = json.loads(raw)
        except ValueError:
            body = None
        with self._lock:
            self.total += 1
            self.headers.append(dict(request.headers))
        if not isinstance(body, dict):
            return {}, web.json_response({"error": {"message": "body is not JSON"}}, status=400)
        with self._lock:
            self.bodies.append(body)
        return body, None

    async def _reply(
        self,
        request: web.Request,
        prompt: str,
        last_user: str,
        answer: Any,
        error: Any,
        turns: int = 0,
    ) -> web.StreamResponse:
        with self._lock:
            self.per_prompt[prompt] += 1
            seen = self.per_prompt[prompt]
        return await self._answer(request, prompt, last_user, answer, error, seen, turns)

    async def _answer(
        self,
        request: web.Request,
        prompt: str,
        last_user: str,
        answer: Any,
        error: Any,
        seen: int,
        turns: int = 0,
    ) -> web.StreamResponse:
        marks = markers(prompt)
        if "together" in marks and not await self._together(int(marks["together"])):
            return web.json_response(error(504, "too few requests came together"), status=504)
        latency = float(marks.get("latency", self.latency_ms))
        if latency > 0:
            await asyncio.sleep(latency / 1000)
        if "fault" in marks:
            kind, opts = _fault(marks["fault"])
            if seen <= int(opts.get("times", "1000000000")):
                return await self._fault(request, kind, opts, error)
        tools = TOOL_MARKER.findall(prompt)
        loop = next(((n, a) for kind, n, a in tools if kind == "loop"), None)
        calls = [(n, a) for kind, n, a in tools if kind == "call"]
        call = loop or (calls[turns] if turns < len(calls) else None)
        if call is not None:
            made = (f"call_{turns + 1}", call[0], call[1])
            return web.json_response(answer("", len(prompt.split()), 10, made))
        text = marks.get("answer", last_user)
        return web.json_response(answer(text, len(prompt.split()), len(text.split())))

    async def _together(self, n: int) -> bool:
        """Hold this request until `n` requests marked `together=n` are held at once."""
        waiting, arrived = self._groups.setdefault(n, [0, asyncio.Event()])
        assert isinstance(waiting, int) and isinstance(arrived, asyncio.Event)
        self._groups[n][0] = waiting + 1
        if waiting + 1 >= n:
            del self._groups[n]
            arrived.set()
            return True
        try:
            await asyncio.wait_for(arrived.wait(), self.hang_seconds)
        except asyncio.TimeoutError:
            self._groups.pop(n, None)
            return False
        return True

    async def _fault(
        self, request: web.Request, kind: str, opts: dict[str, str], error: Any
    ) -> web.StreamResponse:
        if kind == "hang":
            waiter: asyncio.Future[None] = asyncio.get_running_loop().create_future()
            self._hanging.add(waiter)
            try:
                await asyncio.wait_for(waiter, self.hang_seconds)
            except (asyncio.TimeoutError, asyncio.CancelledError):
                pass
            finally:
                self._hanging.discard(waiter)
            kind = "reset"
        if kind == "reset":
            assert request.transport is not None
            request.transport.abort()
            return web.Response(status=200)
        if kind == "truncated":
            body = json.dumps(error(200, "never read to its end")).encode()
            cut = web.StreamResponse(status=200, headers={"Content-Type": "application/json"})
            cut.content_length = len(body)
            await cut.prepare(request)
            await cut.write(body[: len(body) // 2])
            assert request.transport is not None
            request.transport.abort()
            return cut
        if kind == "redirect":
            moved = f"http://localhost:{self.port}{request.path}"
            return web.Response(status=307, headers={"Location": moved})
        if kind == "endless":
            stream = web.StreamResponse(status=200, headers={"Content-Type": "application/json"})
            await stream.prepare(request)
            chunk = b" " * 2**20
            while True:  # until the client hangs up
                await stream.write(chunk)
        if kind == "malformed":
            return web.Response(
                status=200,
                text="<html><body>502 Bad Gateway</body></html>",
                content_type="text/html",
            )
        if kind == "missing":
            return web.json_response({"id": "fake", "object": "nothing-useful"})
        status = int(kind)
        headers = {}
        retry_after = opts.get("retry_after")
        if retry_after == "date":
            headers["Retry-After"] = email.utils.formatdate(time.time() + 2, usegmt=True)
        elif retry_after is not None:
            headers["Retry-After"] = retry_after
        message = f"fake failure {status}"
        if "about" in opts:  # [[fault=400 about=image]]: as a server refusing image input does
            message += f": {opts['about']} input is not supported by this model"
        if "echo_headers" in opts:  # as servers that quote a bad key back do
            message += f" (you sent {dict(request.headers)})"
        return web.json_response(error(status, message), status=status, headers=headers)


def _content(message: dict[str, Any]) -> str:
    content = message.get("content", "")
    if isinstance(content, list):  # content blocks
        return "".join(str(b.get("text", "")) for b in content if isinstance(b, dict))
    return str(content)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--latency-ms", type=float, default=0.0)
    parser.add_argument("--hang-seconds", type=float, default=30.0)
    args = parser.parse_args()
    server = FakeLLMServer(args.latency_ms, args.hang_seconds, args.port)

    async def run() -> None:
        await server.serve()
        print(f"listening on {HOST}:{server.port}", flush=True)
        try:
            await asyncio.Event().wait()
        finally:
            await server.shutdown()

    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(run())


if __name__ == "__main__":
    main()
