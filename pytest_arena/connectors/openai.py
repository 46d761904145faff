"""Servers speaking OpenAI's chat-completions API: OpenAI, vLLM, Ollama, llama.cpp, LM Studio."""

from __future__ import annotations

from typing import Any, ClassVar

from pydantic import BaseModel

from pytest_arena.connectors.base import Request, Response
from pytest_arena.connectors.http_api import HttpConnector, HttpSettings, answer, joined
from pytest_arena.connectors.tool_format import (
    openai_calls,
    openai_messages,
    openai_tools,
    render_calls,
)
from pytest_arena.spec.images import without_alt


class OpenAISettings(HttpSettings):
    """`base_url` (default OpenAI's), `api_key_env` (default `OPENAI_API_KEY` for OpenAI's
    own URL, none for other servers), `model` (default: the model key), `params` (body
    fields such as temperature, max_tokens, seed), `headers`."""


class OpenAIConnector(HttpConnector):
    """POST {base_url}/chat/completions with the rendered messages and `params`."""

    name: ClassVar[str] = "openai"
    url_rule: ClassVar[str] = "{base_url}/chat/completions"
    settings_model: ClassVar[type[BaseModel]] = OpenAISettings
    default_base_url: ClassVar[str] = "https://api.openai.com/v1"
    default_key_env: ClassVar[str] = "OPENAI_API_KEY"
    takes_tools: ClassVar[bool] = True
    billed_by_tokens: ClassVar[bool] = True

    @property
    def url(self) -> str:
        return joined(self.settings.base_url, "/chat/completions")

    def body(self, request: Request) -> dict[str, Any]:
        body = {
            **self.settings.params,
            **request.params,
            "model": self.settings.model,
            "messages": openai_messages(without_alt(request.messages)),
        }
        if request.tools:
            body["tools"] = openai_tools(request.tools)
        return body

    def auth_headers(self, key: str) -> dict[str, str]:
        return {self.key_header: f"Bearer {key}"}

    def parse(self, data: Any, request: Request) -> Response:
        choice = data["choices"][0]
        message = choice["message"]
        text = message.get("content") or ""  # null when the model only calls tools
        if isinstance(text, list):  # parts, as some servers send (Mistral's reasoning models)
            text = "".join(_part_text(part) for part in text)
        if not isinstance(text, str):
            raise TypeError("the message content is not text")
        meta: dict[str, Any] = {
            "finish_reason": choice.get("finish_reason"),
            "model": data.get("model"),
        }
        calls = openai_calls(message)
        if calls:
            meta["tool_calls"] = calls
            if not text:  # a reply of calls alone: its text output shows them
                text, meta["rendered_calls"] = render_calls(calls), True
        if message.get("refusal"):
            meta["refusal"] = message["refusal"]
        usage = data.get("usage")
        response = answer(text, usage, ("prompt_tokens", "completion_tokens"), request, meta)
        cached = _cached_tokens(usage, response.tokens_in)
        if cached and not meta.get("tokens_estimated"):
            meta[CACHE_READ] = cached  # of prompt_tokens, which counts them
        return response

    def cost_of(self, response: Response) -> float | None:
        """As for any model, with the input read from OpenAI's prompt cache (usage's
        prompt_tokens_details.cached_tokens) at `cached_input_per_mtok` when it is given."""
        cost = super().cost_of(response)
        price = self.price
        if cost is None or response.cost is not None or price is None:
            return cost
        cached = response.meta.get(CACHE_READ)
        if type(cached) is not int or price.cached_input_per_mtok is None:
            return cost
        return cost + cached * (price.cached_input_per_mtok - price.input_per_mtok) / 1_000_000


CACHE_READ = "cache_read_tokens"  # as the anthropic connector keeps its own


def _cached_tokens(usage: Any, tokens_in: int) -> int:
    """The input tokens OpenAI read from its prompt cache, as usage says (0 if it does not,
    and never more than the input's)."""
    details = usage.get("prompt_tokens_details") if isinstance(usage, dict) else None
    cached = details.get("cached_tokens") if isinstance(details, dict) else None
    return min(cached, tokens_in) if type(cached) is int and cached > 0 else 0


def _part_text(part: Any) -> str:
    """The text of a part of a message's content given as a list: that of a text part
    (`{"type": "text", "text": ...}`); "" for others (a reasoning model's thinking)."""
    if isinstance(part, dict) and part.get("type") in ("text", "output_text"):
        text = part.get("text")
        if isinstance(text, str):
            return text
    return ""
