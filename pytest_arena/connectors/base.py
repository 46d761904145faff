"""What every connector takes and gives back."""

from __future__ import annotations

import asyncio
import base64
import functools
import hashlib
import json
from abc import ABC
from collections.abc import Hashable
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any, ClassVar
from urllib.parse import parse_qsl, unquote, urlsplit, urlunsplit

from pydantic import BaseModel

from pytest_arena.record import json_safe

# (`as`: the HTTP connectors take these from here)
from pytest_arena.secrets import credential_name as credential_name
from pytest_arena.secrets import credentials_of as credentials_of
from pytest_arena.secrets import name_key_variable
from pytest_arena.secrets import redacted as redacted
from pytest_arena.spec.case import Case
from pytest_arena.spec.images import content_text
from pytest_arena.spec.schema import Price


@dataclass
class Request:
    """One call to a model: the rendered messages and the case they came from."""

    model: str
    messages: list[dict[str, Any]]  # content: text, or OpenAI's parts (text, image_url)
    case: Case
    sample: int = 0
    params: dict[str, Any] = field(default_factory=dict)
    workspace: Path | None = None  # a fresh folder for this call, for connectors that want one
    # the project's tools offered to the model: [{name, description, parameters (JSON schema)}];
    # messages may then hold assistant messages with `tool_calls` ([{id, name, arguments}])
    # and `tool` messages ({tool_call_id, name, content, is_error}) of earlier turns
    tools: list[dict[str, Any]] = field(default_factory=list)

    @property
    def prompt(self) -> str:
        """The content of the last user message; of content parts, their text, each image
        as `[image: its alt text]`."""
        for message in reversed(self.messages):
            if message.get("role") == "user":
                return content_text(message.get("content", ""))
        return ""


AGENT_META = "agent_meta"  # a python agent's own meta, kept apart from the connector's keys
AGENT_STEPS = "agent_steps"  # the steps of a python agent that said its tool calls


@dataclass
class Response:
    """A model's answer and what it cost."""

    text: str
    tokens_in: int = 0
    tokens_out: int = 0
    latency_ms: float | None = None  # None: the engine measures the call
    cost: float | None = None  # set by connectors that are told the cost; else priced
    retries: int = 0
    # what the model said beside the text, JSON data: `tool_calls` ([{id, name, arguments}],
    # arguments parsed), `finish_reason`, `refusal`; a python agent's own `meta`, whole under
    # AGENT_META; a command agent's `exit_status` and `stderr_tail`
    meta: dict[str, Any] = field(default_factory=dict)

    @property
    def tool_calls(self) -> list[dict[str, Any]]:
        """The tool calls of the reply: [{id, name, arguments}]."""
        calls = self.meta.get("tool_calls")
        return list(calls) if isinstance(calls, list) else []


class ConnectorError(Exception):
    """A call failed. `retryable` calls (429, 5xx, dropped connections, timeouts) are tried
    again by the engine, after `retry_after` seconds when the server said so. `unreachable`
    says no connection could be made at all (refused, unknown host, TLS): a run of those
    stops the model's calls (see the engine's breaker).

    The message says what went wrong, not which model: whoever reports it names the model.
    """

    def __init__(
        self,
        message: str,
        *,
        retryable: bool = False,
        retry_after: float | None = None,
        unreachable: bool = False,
    ) -> None:
        super().__init__(message)
        self.retryable = retryable
        self.retry_after = retry_after
        self.unreachable = unreachable


class SettingProblem(ValueError):
    """A connector setting that validates but cannot work, such as a callable that does
    not import. `setting` names the key, so the error points at its line."""

    def __init__(self, message: str, setting: str | None = None, hint: str = "") -> None:
        super().__init__(message)
        self.setting = setting
        self.hint = hint


class Connector(ABC):
    """How one model key is reached. Knows nothing about scorers or pytest.

    Implement `acomplete` (async: HTTP clients, subprocesses) or `complete` (plain code);
    each has a default built on the other. Raise ConnectorError for a failed call, never
    put a secret in its message. The engine owns concurrency, retries, timeouts and caching.
    """

    name: ClassVar[str]
    settings_model: ClassVar[type[BaseModel]]
    default_price: ClassVar[Price | None] = None
    cacheable: ClassVar[bool] = True  # False: answers are free or have side effects
    takes_tools: ClassVar[bool] = False  # True: the project's tools are offered to the model
    wants_workspace: ClassVar[bool] = False  # True: the engine gives each call a fresh folder
    default_concurrency: ClassVar[int] = 16  # calls in flight unless the model sets `concurrency`
    billed_by_tokens: ClassVar[bool] = False  # True: an answer costs its tokens at a price
    sends_alt: ClassVar[bool] = True  # False: image parts go without arena's `alt` text

    def __init__(
        self,
        key: str,
        settings: BaseModel,
        price: Price | None = None,
        *,
        root: Path | None = None,
    ) -> None:
        self.key = key
        self.settings = settings
        self.price = price or self.default_price  # None: unknown, so is the cost
        self.root = root  # the project folder: where relative paths in settings start
        key_env = getattr(settings, "api_key_env", None)
        if isinstance(key_env, str):  # its value is a secret in what any program says
            name_key_variable(key_env)

    @classmethod
    def settings_data(cls, key: str, raw: dict[str, Any]) -> tuple[dict[str, Any], Price | None]:
        """The settings to validate for model `key`, and a default price for it."""
        return raw, cls.default_price

    def check(self) -> None:
        """Raise SettingProblem (or ValueError), with the fix, if the validated settings cannot
        work; called once when the connector is built, and reported at the setting's line."""
        return None

    def provider(self) -> Hashable:
        """Whom the calls go to, as far as limits go: the engine keeps the `concurrency`,
        `rpm` and `tpm` of all model keys with one provider together, across the run's
        projects. By default: the connector kind, the model key and the project's folder."""
        return (self.name, self.key, str(self.root))

    def preflight(self) -> str | None:
        """Why no call can work, such as an API key variable that is not set, or None. The
        engine asks before the first call to the model's provider; if there is a reason, it
        fails every call with it and makes none. Never put a secret in it."""
        return None

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if cls.complete is Connector.complete and cls.acomplete is Connector.acomplete:
            raise TypeError(
                f"connector {cls.__name__} must implement complete (plain code) or acomplete"
                " (async code); the other one is built on it"
            )

    def complete(self, request: Request) -> Response:
        """Ask the model and return its response (blocking)."""
        return asyncio.run(self.acomplete(request))

    async def acomplete(self, request: Request) -> Response:
        """Ask the model and return its response, on the engine's event loop."""
        return await asyncio.to_thread(self.complete, request)

    def is_inline(self) -> bool:
        """True when a call is cheap CPU work that gains nothing from running ahead."""
        return False

    def warm_up(self) -> None:
        """Load what the first call will need (an HTTP client's modules), on the engine's
        thread while pytest still collects. Connectors that need nothing do nothing."""
        return None

    def cache_identity(self) -> dict[str, Any]:
        """What, beside the request, decides the answer: connector, base URL, model name and
        request parameters. Never a secret: this is stored in the response cache."""
        return {"connector": self.name, "model": self.key}

    def cache_case(self, case: Case) -> dict[str, Any]:
        """What of the case, beside the messages, decides the answer (JSON data, in the
        cache key as `case`): the fields the connector hands its model or reads itself.
        None by default, as a model reached over a network is sent the messages alone."""
        return {}

    async def aclose(self) -> None:
        """Release clients and sessions; called once on the engine's loop at the end."""
        return None

    def cost_of(self, response: Response) -> float | None:
        """Dollars, from the connector's own figure or the price; None when neither is known."""
        if response.cost is not None:
            return response.cost
        if self.price is None:
            return None
        return (
            response.tokens_in * self.price.input_per_mtok
            + response.tokens_out * self.price.output_per_mtok
        ) / 1_000_000


CASE_PLACE = ("source", "line", "field_lines")  # where a case is written, not what it says


def case_data(case: Case) -> dict[str, Any]:
    """`case` as JSON data for a cache key: every field but where it is written (an edit
    above it moves its line, and asks nothing new)."""
    data = {f.name: getattr(case, f.name) for f in fields(case) if f.name not in CASE_PLACE}
    if case.scoring is not None:
        data["scoring"] = [component.model_dump(mode="json") for component in case.scoring]
    return json_safe(data)  # type: ignore[no-any-return]


def secret_safe_digest(value: Any) -> str:
    """A digest of `value` (JSON data) for a cache key: settings that may hold a credential
    (headers, environment variables) decide the key without being stored in it."""
    text = json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode()).hexdigest()[:32]


@functools.lru_cache(maxsize=64)  # read for each reply, of one or two URLs a run
def url_secrets(url: str) -> tuple[str, ...]:
    """What a URL may carry of a credential: its user and password (also as the Basic
    authorization header made of them, which a server may quote), its query's credentials."""
    parts = urlsplit(url)
    pairs = parse_qsl(parts.query, keep_blank_values=True)
    found = credentials_of(pairs) + [name for name, value in pairs if not value]  # `?sk-...`
    if parts.username or parts.password:
        user, password = unquote(parts.username or ""), unquote(parts.password or "")
        basic = base64.b64encode(f"{user}:{password}".encode("latin-1", "replace")).decode()
        found += [user, password, basic, parts.username or "", parts.password or ""]
    return tuple(found)


def shown_url(url: str) -> str:
    """`url` without a credential it holds: no `user:password@`, and a query parameter that
    names a credential (`?key=`) as `***`; a URL without one, as written."""
    parts = urlsplit(url)
    pairs = parse_qsl(parts.query, keep_blank_values=True)
    if "@" not in parts.netloc and not url_secrets(url):
        return url
    host = parts.netloc.rpartition("@")[2]
    query = "&".join(
        "***"
        if not value  # a bare `?sk-...`: itself a key
        else f"{name}={'***' if credential_name(name) else value}"
        for name, value in pairs
    )
    return urlunsplit((parts.scheme, host, parts.path, query, parts.fragment))


def estimate_tokens(text: str) -> int:
    """About four characters a token, as tokenizers of English text give."""
    return max(1, (len(text) + 3) // 4) if text else 0
