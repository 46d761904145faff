"""Cache keys: the parts that decide a model's answer, and their digest."""

from __future__ import annotations

import hashlib
import json
from typing import Any

from pytest_arena.connectors.base import Connector, Request

# names that hold credentials; a key part with one of them is refused, never stored (see
# _refuse_credentials for where they are looked for)
SECRET_NAMES = frozenset(
    {
        "api_key",
        "apikey",
        "x_api_key",
        "authorization",
        "proxy_authorization",
        "access_token",
        "bearer_token",
        "password",
        "secret",
        "client_secret",
    }
)


def key_parts(connector: Connector, request: Request) -> dict[str, Any]:
    """The key of one call: the connector's identity, the messages as the model reads them,
    every request parameter, the sample index and what the model reads of the case."""
    identity = connector.cache_identity()
    messages: Any = request.messages
    if not connector.sends_alt:  # the key holds what the model reads
        messages = _without_alt(messages)
    if request.workspace is not None:  # a tool's result may name it: it is new each run
        messages = _placed(messages, str(request.workspace))
    case = connector.cache_case(request.case)
    return {
        **identity,
        "messages": messages,
        # the model's own params, then the request's (hooks.py pre_request may set some)
        "params": {**identity.get("params", {}), **request.params},
        "sample": request.sample,
        # tools offered change the answer; a call without any keeps the key it always had
        **({"tools": request.tools} if request.tools else {}),
        # an agent's or a sim's: a model sent the messages alone keeps the key it always had
        **({"case": case} if case else {}),
    }


def _without_alt(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The messages without the `alt` text of their image parts, which is never sent; each
    message without one as it is (so is its key)."""
    out = []
    for message in messages:
        content = message.get("content")
        if isinstance(content, list) and any(
            isinstance(part, dict) and "alt" in part for part in content
        ):
            content = [
                {k: v for k, v in part.items() if k != "alt"} if isinstance(part, dict) else part
                for part in content
            ]
            message = {**message, "content": content}
        out.append(message)
    return out


WORKSPACE = "{workspace}"  # the case's workspace, in a key


def _placed(value: Any, workspace: str) -> Any:
    """`value` with the workspace's path written as WORKSPACE wherever a text holds it."""
    if isinstance(value, str):
        return value.replace(workspace, WORKSPACE) if workspace in value else value
    if isinstance(value, list):
        return [_placed(v, workspace) for v in value]
    if isinstance(value, dict):
        return {k: _placed(v, workspace) for k, v in value.items()}
    return value


class UncacheableKey(ValueError):
    """A call's key cannot be written: a part is not JSON data or looks like a secret."""


def canonical_json(parts: dict[str, Any], *, ascii_only: bool = False) -> str:
    """`parts` as JSON with sorted keys and no spaces (with `ascii_only`, every character past
    ASCII as its escape); UncacheableKey naming a part that is not JSON data or that looks
    like a credential."""
    _refuse_credentials(parts)
    try:
        return json.dumps(
            parts, sort_keys=True, separators=(",", ":"), ensure_ascii=ascii_only, allow_nan=False
        )
    except (TypeError, ValueError) as exc:
        raise UncacheableKey(
            f"cache key part {_first_non_json(parts, '') or '?'} is not JSON data ({exc}); a"
            " request's messages and params hold strings, finite numbers, true/false/null,"
            " lists and mappings with string keys (see the model's params: and what hooks.py's"
            " pre_request sets)"
        ) from None


def digest(canonical: str) -> str:
    """The key's SHA-256, of its UTF-8; a lone surrogate (half of a UTF-16 pair, as a case
    or a model's JSON may hold) counts as the three bytes UTF-8 would give its code point."""
    return hashlib.sha256(canonical.encode("utf-8", "surrogatepass")).hexdigest()


def join(path: str, key: str | int) -> str:
    if isinstance(key, int):
        return f"{path}[{key}]"
    return f"{path}.{key}" if path else key


# what the model is asked: any words, a tool's `password` parameter, a schema's `secret`
# property, a case's metadata; a credential is never kept there, so these are not looked in
ASKED = frozenset({"messages", "tools", "case", "sample"})


def _refuse_credentials(parts: dict[str, Any]) -> None:
    """UncacheableKey if a key part is named as a credential where one could be: in the
    connector's identity, or among the params (the model's and the request's) themselves;
    never within what the model is asked (ASKED) nor within a param's value (a JSON
    schema's properties)."""
    for name, value in parts.items():
        if name == "params" and isinstance(value, dict):
            for param in value:
                if _credential(param):
                    raise UncacheableKey(
                        f"params.{param} looks like a credential, which the response cache"
                        " never stores: give the model its key with api_key_env: (or in"
                        " headers:, kept as a digest), not in its params: nor in what hooks.py's"
                        " pre_request sets; or set cache: false on the model"
                    )
        elif name not in ASKED:
            _refuse_in_identity({name: value}, "")


def _refuse_in_identity(value: Any, path: str) -> None:
    if isinstance(value, dict):
        for key, item in value.items():
            where = join(path, str(key))
            if _credential(key):
                raise UncacheableKey(
                    f"cache key part {where} looks like a credential; a cache key must never"
                    " hold one: the connector's cache_identity() leaves it out, or holds its"
                    " digest (secret_safe_digest)"
                )
            _refuse_in_identity(item, where)
    elif isinstance(value, (list, tuple)):
        for index, item in enumerate(value):
            _refuse_in_identity(item, join(path, index))


def _credential(name: object) -> bool:
    return str(name).lower().replace("-", "_") in SECRET_NAMES


def _first_non_json(value: Any, path: str) -> str | None:
    if isinstance(value, dict):
        for key, item in value.items():
            if not isinstance(key, str):
                return f"{join(path, str(key))} (a key of type {type(key).__name__})"
            found = _first_non_json(item, join(path, key))
            if found:
                return found
        return None
    if isinstance(value, (list, tuple)):
        for index, item in enumerate(value):
            found = _first_non_json(item, join(path, index))
            if found:
                return found
        return None
    if value is None or isinstance(value, (str, int, bool)):
        return None
    if isinstance(value, float):
        return None if value == value and value not in (float("inf"), float("-inf")) else path
    return f"{path} (a {type(value).__name__})"
