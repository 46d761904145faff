"""Anthropic's Messages API."""

from __future__ import annotations

from typing import Any, ClassVar

from pydantic import BaseModel

from pytest_arena.connectors.base import ConnectorError, Request, Response
from pytest_arena.connectors.http_api import HttpConnector, HttpSettings, answer, joined
from pytest_arena.connectors.tool_format import (
    anthropic_calls,
    anthropic_messages,
    anthropic_tools,
    render_calls,
)
from pytest_arena.spec.images import anthropic_content, content_text, image_count

DEFAULT_MAX_TOKENS = 1024
THINKING_BLOCKS = ("thinking", "redacted_thinking")


DEFAULT_VERSION = "2023-06-01"


class AnthropicSettings(HttpSettings):
    """As for `openai`, with `base_url` default `https://api.anthropic.com`, `api_key_env`
    default `ANTHROPIC_API_KEY` there, and `anthropic_version` (the API version header)."""

    anthropic_version: str = DEFAULT_VERSION


class AnthropicConnector(HttpConnector):
    """POST {base_url}/v1/messages; system messages go to the top-level `system` field and
    `max_tokens` defaults to 1024."""

    name: ClassVar[str] = "anthropic"
    url_rule: ClassVar[str] = "{base_url}/v1/messages"
    settings_model: ClassVar[type[BaseModel]] = AnthropicSettings
    default_base_url: ClassVar[str] = "https://api.anthropic.com"
    default_key_env: ClassVar[str] = "ANTHROPIC_API_KEY"
    takes_tools: ClassVar[bool] = True
    billed_by_tokens: ClassVar[bool] = True
    key_header: ClassVar[str] = "x-api-key"
    settings: AnthropicSettings

    @property
    def url(self) -> str:
        return joined(self.settings.base_url, "/v1/messages")

    def body(self, request: Request) -> dict[str, Any]:
        said = [m for m in request.messages if m.get("role") == "system"]
        if image_count(said):
            # its `system` field takes text blocks alone: sending the alt text there would
            # ask the model something else than the case says
            raise ConnectorError(
                f"case '{request.case.id}': anthropic takes no image in a system message:"
                " move the image into a user message"
            )
        system = [content_text(m.get("content", "")) for m in said]
        messages = anthropic_messages(
            [
                {**m, "content": anthropic_content(m["content"])}
                if m.get("role") in ("user", "assistant") and not m.get("tool_calls")
                else m
                for m in request.messages
            ]
        )
        body: dict[str, Any] = {
            "max_tokens": DEFAULT_MAX_TOKENS,
            **self.settings.params,
            **request.params,
            "model": self.settings.model,
            "messages": messages,
        }
        if system:
            body["system"] = "\n\n".join(system)
        if request.tools:
            body["tools"] = anthropic_tools(request.tools)
        return body

    def auth_headers(self, key: str) -> dict[str, str]:
        return {self.key_header: key}

    def _headers(self) -> dict[str, str]:
        return {"anthropic-version": self.settings.anthropic_version, **super()._headers()}

    def cache_identity(self) -> dict[str, Any]:
        """As for any HTTP model, with the API version when it is not the default (the
        default keeps the key it always had); `max_tokens: 1024` written out is the default
        it is (the same body is sent: the cached answers stay valid)."""
        identity = super().cache_identity()
        version = self.settings.anthropic_version
        extra = {} if version == DEFAULT_VERSION else {"anthropic_version": version}
        params = {
            k: v
            for k, v in identity["params"].items()
            if not (k == "max_tokens" and v == DEFAULT_MAX_TOKENS)
        }
        return {**identity, "params": params, **extra}

    def parse(self, data: Any, request: Request) -> Response:
        blocks = data["content"]
        if not isinstance(blocks, list):
            raise TypeError("content is not a list of blocks")
        text = "".join(b["text"] for b in blocks if b.get("type") == "text")
        stop = data.get("stop_reason")
        meta: dict[str, Any] = {
            "stop_reason": stop,
            "finish_reason": stop,
            "model": data.get("model"),
        }
        calls = anthropic_calls(blocks)
        if calls:
            meta["tool_calls"] = calls
            # with extended thinking, the API wants them back, signed, before the tool_use
            # blocks of the turn a tool loop answers
            thinking = [b for b in blocks if b.get("type") in THINKING_BLOCKS]
            if thinking:
                meta["thinking_blocks"] = thinking
            if not text:  # a reply of calls alone: its text output shows them
                text, meta["rendered_calls"] = render_calls(calls), True
        if stop == "refusal":  # with no text of its own: said all the same
            meta["refusal"] = text or "the model refused (stop_reason: refusal)"
        usage = data.get("usage")
        response = answer(text, usage, ("input_tokens", "output_tokens"), request, meta)
        if isinstance(usage, dict) and not meta.get("tokens_estimated"):
            cached = _cache_tokens(usage)
            if cached:  # input_tokens counts the input after the last cache breakpoint alone
                meta.update(cached)
                response.tokens_in += sum(cached.values())
        return response

    def cost_of(self, response: Response) -> float | None:
        """As for any model, with prompt caching's input priced as Anthropic prices it: 1.25
        times the input price for tokens written to a 5-minute cache, 2 times for a 1-hour
        one, 0.1 times for tokens read from the cache (or `cached_input_per_mtok`)."""
        cost = super().cost_of(response)
        if cost is None or response.cost is not None or self.price is None:
            return cost
        meta = response.meta
        price = self.price
        read = price.cached_input_per_mtok  # the project's own price of a cache read, if given
        extra = 0.0  # dollars per million tokens over the input price
        for key, rate in CACHE_RATES.items():
            if type(meta.get(key)) is int:  # (a replay of an older record may lack them)
                each = rate * price.input_per_mtok
                if key == "cache_read_tokens" and read is not None:
                    each = read - price.input_per_mtok
                extra += each * int(meta[key])
        return cost + extra / 1_000_000


# what a token of each kind of cached input costs beyond the input price, as a share of it
CACHE_RATES = {
    "cache_write_5m_tokens": 0.25,
    "cache_write_1h_tokens": 1.0,
    "cache_read_tokens": -0.9,
}


def _cache_tokens(usage: dict[str, Any]) -> dict[str, int]:
    """The input tokens that prompt caching wrote or read, by kind (none left out): usage's
    `cache_creation` splits the written ones by the cache's lifetime; without it they are
    the 5-minute cache's (the default)."""

    def count(value: Any) -> int:
        return value if type(value) is int and value > 0 else 0

    written = count(usage.get("cache_creation_input_tokens"))
    split = usage.get("cache_creation")
    hour = count(split.get("ephemeral_1h_input_tokens")) if isinstance(split, dict) else 0
    found = {
        "cache_write_5m_tokens": max(0, written - hour),
        "cache_write_1h_tokens": min(hour, written) if written else hour,
        "cache_read_tokens": count(usage.get("cache_read_input_tokens")),
    }
    return {key: n for key, n in found.items() if n}
