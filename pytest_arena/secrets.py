"""What counts as a secret, and text with the secrets it holds written as `***`: what a
program arena starts says (a command agent's or a script scorer's stderr and output), what
a python agent returns or raises, and what a server says back, before any of it reaches a
report, a cache, a log or an error."""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Mapping
from typing import Any

# the words of a name that say it holds a credential: a header (`x-api-key`,
# `Authorization`), a query parameter (`?key=`, Azure's `sig=`), a variable (`API_TOKEN`);
# `api-version`, `Content-Type` or `X-Design` say none, and their values stay as written
_CREDENTIAL_WORDS = frozenset(
    [
        "auth",
        "authorization",
        "bearer",
        "cookie",
        "credential",
        "credentials",
        "pass",
        "passwd",
        "pwd",
        "session",
        "sig",
        "signature",
    ]
)
_CREDENTIAL_ENDS = ("key", "token", "secret", "password")  # apikey, access_token
# variables those words would count that the shell or the desktop set, and hold a folder or
# a socket: `PWD`, the working folder, is in every traceback a program prints
_PLAIN_VARIABLES = re.compile(
    r"(PWD|SSH_AUTH_SOCK|DBUS_SESSION_BUS_ADDRESS|SESSION_MANAGER|DESKTOP_SESSION|XDG_SESSION_\w+)\Z"
)
# the variables the providers' own clients read their key from: the `api_key_env` of the
# openai and anthropic connectors for the providers' own servers
PROVIDER_KEY_VARIABLES = ("OPENAI_API_KEY", "ANTHROPIC_API_KEY")
_key_variables: set[str] = set(PROVIDER_KEY_VARIABLES)  # and each `api_key_env` named


def redacted(text: str, secrets: Iterable[str]) -> str:
    """`text` with each secret of 8 characters or more written as `***`, also where JSON
    wrote it escaped, in part or whole: a key that holds a stray BOM or a curly quote comes
    back from a server's JSON error as `\\ufeffsk-...`, and PHP's JSON writes every `/` as
    `\\/` (`sk-test\\/123...`); any character may be written `\\u00XX`. A shorter one is
    left: it would blank words."""
    for secret in sorted(set(secrets), key=len, reverse=True):  # one may hold another
        if len(secret) < 8:
            continue
        text = text.replace(secret, "***")
        if "\\" in text:  # an escape: the secret may be there, written otherwise
            text = _escaped(secret).sub("***", text)
    return text


def redacted_data(value: Any, secrets: Iterable[str]) -> Any:
    """`value` with each string in it `redacted`, in dicts (keys too), lists and tuples;
    what holds no secret is the same object, and other objects are left as they are."""
    kept = [secret for secret in secrets if len(secret) >= 8]
    return _redacted_in(value, kept) if kept else value


def _redacted_in(value: Any, secrets: list[str]) -> Any:
    if isinstance(value, str):
        said = redacted(value, secrets)
        return value if said == value else said
    if isinstance(value, dict):
        items = [(_redacted_in(k, secrets), _redacted_in(v, secrets)) for k, v in value.items()]
        same = all(a is k and b is v for (a, b), (k, v) in zip(items, value.items(), strict=True))
        return value if same else dict(items)
    if isinstance(value, list | tuple):
        parts = [_redacted_in(part, secrets) for part in value]
        if all(a is b for a, b in zip(parts, value, strict=True)):
            return value
        return parts if isinstance(value, list) else tuple(parts)
    return value


_SHORT_ESCAPES = {
    '"': '\\"',
    "\\": "\\\\",
    "/": "\\/",
    "\b": "\\b",
    "\f": "\\f",
    "\n": "\\n",
    "\r": "\\r",
    "\t": "\\t",
}


@functools.lru_cache(maxsize=256)
def _escaped(secret: str) -> re.Pattern[str]:
    """`secret` as JSON may write it: each character as itself, as its short escape (`\\/`)
    or as `\\uXXXX` (a pair of them past U+FFFF), in either case of hex digits."""
    parts = []
    for char in secret:
        forms = [re.escape(char)]
        if char in _SHORT_ESCAPES:
            forms.append(re.escape(_SHORT_ESCAPES[char]))
        code = ord(char)
        high, low = divmod(code - 0x10000, 0x400)  # past U+FFFF: a surrogate pair
        units = [code] if code < 0x10000 else [0xD800 + high, 0xDC00 + low]
        forms.append("".join(rf"\\u(?i:{unit:04x})" for unit in units))
        parts.append(f"(?:{'|'.join(forms)})")
    return re.compile("".join(parts))


@functools.lru_cache(maxsize=1024)  # the same few names, asked of every case's results
def credential_name(name: str) -> bool:
    """Whether `name` (of a header, a query parameter, a variable) names a credential."""
    words = re.findall(r"[a-z0-9]+", name.lower())
    return any(w in _CREDENTIAL_WORDS or w.endswith(_CREDENTIAL_ENDS) for w in words)


def credentials_of(named: Iterable[tuple[str, str]]) -> list[str]:
    """The values of the (name, value) pairs whose name says they are a credential."""
    return [value for name, value in named if credential_name(name)]


def name_key_variable(name: str) -> None:
    """Count variable `name` as holding a key from now on, whatever its name: a model's
    `api_key_env` (`LLM`), told when its connector is made."""
    _key_variables.add(name)


def secret_variable(name: str) -> bool:
    """Whether environment variable `name` holds a secret: a key variable (a provider's, a
    model's `api_key_env`), or one named as a credential (`GITHUB_TOKEN`, `DB_PASSWORD`,
    `SMTP_PASS`) but for those the shell and the desktop set (`PWD`, `SSH_AUTH_SOCK`)."""
    return name in _key_variables or _credential_variable(name)


@functools.lru_cache(maxsize=1024)
def _credential_variable(name: str) -> bool:
    return credential_name(name) and not _PLAIN_VARIABLES.match(name)


def environment_secrets(env: Mapping[str, str]) -> list[str]:
    """The secrets among the values of `env`, the environment a program is started with:
    what it may print (`curl -v` prints the header it sends), for `redacted`. Each without
    the spaces around it, as the HTTP connectors send a key (and as text keeps its spacing)."""
    return [value.strip() for name, value in env.items() if secret_variable(name)]
