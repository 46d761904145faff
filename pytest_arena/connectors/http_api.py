"""What the HTTP connectors share: settings, the aiohttp session, keys and error mapping."""

from __future__ import annotations

import asyncio
import codecs
import email.utils
import errno
import json
import os
import re
import socket
import time
import urllib.request
from abc import abstractmethod
from collections.abc import Hashable
from typing import TYPE_CHECKING, Any, ClassVar
from urllib.parse import urlsplit

from pydantic import BaseModel, ConfigDict, Field, field_validator

from pytest_arena.connectors import providers
from pytest_arena.connectors.base import (
    Connector,
    ConnectorError,
    Request,
    Response,
    SettingProblem,
    credentials_of,
    estimate_tokens,
    redacted,
    secret_safe_digest,
    shown_url,
    url_secrets,
)
from pytest_arena.spec.errors import did_you_mean
from pytest_arena.spec.images import content_text, image_count
from pytest_arena.spec.schema import Price
from pytest_arena.spec.surrogates import json_text

if TYPE_CHECKING:
    import aiohttp

RETRYABLE_STATUS = frozenset({408, 409, 429})  # and every 5xx
MAX_REPLY = 32 * 2**20  # bytes of a reply read; a larger one (an endless stream) is an error
REQUEST_PARAMS = frozenset(  # written beside the settings by mistake; they belong in `params`
    [
        "temperature",
        "top_p",
        "top_k",
        "max_tokens",
        "max_completion_tokens",
        "seed",
        "stop",
        "n",
        "frequency_penalty",
        "presence_penalty",
        "response_format",
        "logprobs",
        "reasoning_effort",
        "stop_sequences",
    ]
)
SHOWN_BODY = 200  # characters of an unexpected body quoted in an error
ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")  # an environment variable's name
VARIABLE_CASE = re.compile(r"[A-Z_][A-Z0-9_]*\Z")  # one named as variables are: shown
# No overall limit: the engine times each call out by cancelling it. These only end calls
# that would otherwise wait forever when no engine timeout is set.
SOCK_CONNECT, SOCK_READ = 60, 900


class HttpSettings(BaseModel):
    """Settings every HTTP connector takes (set under `models: define: KEY:`)."""

    model_config = ConfigDict(extra="forbid")

    base_url: str
    api_key_env: str | None = None
    model: str
    params: dict[str, Any] = Field(default_factory=dict)
    headers: dict[str, str] = Field(default_factory=dict)

    @field_validator("base_url")
    @classmethod
    def _http_url(cls, value: str) -> str:
        parts = urlsplit(value)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError(
                f"base_url {value!r} is not an http(s) URL; write it as, e.g.,"
                " 'http://127.0.0.1:8000/v1'"
            )
        return value

    @field_validator("api_key_env")
    @classmethod
    def _variable_name(cls, value: str | None) -> str | None:
        if value is not None and not ENV_NAME.match(value):
            # never echoed: what is written here may be the key itself
            raise ValueError(
                "api_key_env names the environment variable that holds the key (such as"
                " OPENAI_API_KEY), not the key: letters, digits and '_'; keep the key itself"
                " out of arena.yaml"
            )
        return value

    @field_validator("params")
    @classmethod
    def _whole_replies(cls, value: dict[str, Any]) -> dict[str, Any]:
        if value.get("stream"):
            raise ValueError(
                "params.stream: arena reads whole replies (a streamed one is no JSON it can"
                " read, and its cost would go uncounted); take 'stream' out of params"
            )
        for name in value:
            meant = did_you_mean(str(name), sorted(REQUEST_PARAMS | {"tools", "tool_choice"}))
            if meant and name not in REQUEST_PARAMS:
                raise ValueError(f"params.{name}: unknown request parameter; {meant}")
        return value


def _one_authorization(cls: type[HttpConnector], data: dict[str, Any], env: str = "") -> None:
    """A user and password in `base_url` are sent as an Authorization header: a model that
    sends another (its key's, or one in `headers`) would fail every call, unsaid until then.
    `env`: the environment variable `base_url` was taken from, if it was not written."""
    url = data.get("base_url")
    parts = urlsplit(url) if isinstance(url, str) else None
    if parts is None or (parts.username is None and parts.password is None):
        return
    headers = data.get("headers")
    written = isinstance(headers, dict) and any(
        str(name).lower() == "authorization" for name in headers
    )
    keyed = bool(data.get("api_key_env")) and cls.key_header.lower() == "authorization"
    if written or keyed:
        by = "headers.Authorization" if written else "the key api_key_env names"  # unquoted
        if env:  # not in arena.yaml: said of the variable, not of a line with no base_url
            if not written and data.get("api_key_env") == cls.default_key_env:
                by = f"the key in {cls.default_key_env}"
            fix = (
                "the Authorization header out of headers"
                if written
                else "write the model's base_url in models.define instead (a server other"
                " than the provider's is sent no key unless api_key_env names one)"
            )
            raise SettingProblem(
                f"the environment variable {env}, which gives the model's base_url, holds a"
                f" user and password, sent as an Authorization header, and the model sends"
                f" another ({by}): a request carries one",
                None,
                f"take user:password@ out of {env}, or {fix}",
            )
        raise SettingProblem(  # the URL itself is not quoted: it holds a password
            f"base_url holds a user and password, sent as an Authorization header, and the"
            f" model sends another ({by}): a request carries one",
            "base_url",
            "take user:password@ out of base_url, or "
            + ("the Authorization header out of headers" if written else "api_key_env out"),
        )


def _unfit_key(env: str, key: str) -> str | None:
    """Why the key in variable `env` cannot be sent, never showing it: API keys are printable
    ASCII, and a character beyond that (a stray BOM, a curly quote, a line break, pasted
    with the key) fails the call, or comes back quoted in a form no redaction knows."""
    for position, char in enumerate(key, 1):
        if not "!" <= char <= "~":
            return (
                f"the API key in {env} holds {_named(char)} (character {position} of"
                f" {len(key)}), which no API key has: pasted with it? Set {env} again to the key"
                " alone"
            )
    return None


def _named(char: str) -> str:
    names = {"\ufeff": "a byte order mark", "\n": "a line break", "\r": "a line break"}
    names.update(dict.fromkeys("\u2018\u2019\u201c\u201d", "a curly quote"))
    names.update(dict.fromkeys(" \t\u00a0", "a space"))
    said = names.get(char, "a character other than printable ASCII")
    return f"U+{ord(char):04X}, {said}"


class HttpConnector(Connector):
    """A JSON-over-HTTP chat API: one POST per call, one session per event loop."""

    default_base_url: ClassVar[str]
    default_key_env: ClassVar[str]
    key_header: ClassVar[str] = "Authorization"  # the header `auth_headers` puts the key in
    sends_alt: ClassVar[bool] = False
    settings: HttpSettings

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._session: aiohttp.ClientSession | None = None
        self._session_loop: asyncio.AbstractEventLoop | None = None
        self._proxy: str | None = None

    @classmethod
    def settings_data(cls, key: str, raw: dict[str, Any]) -> tuple[dict[str, Any], Price | None]:
        for name, value in raw.items():
            if name in REQUEST_PARAMS and name not in cls.settings_model.model_fields:
                raise SettingProblem(
                    f"'{name}' is a request parameter, not a connector setting",
                    name,
                    f"put it under params: 'params: {{{name}: {json.dumps(value)}}}'",
                )
        data = {"model": key, **raw}
        written = "base_url" in data
        from_env = ""  # the variable base_url was taken from
        if not written:  # the provider's, or where its own client's variable points
            env = providers.BASE_URL_ENV.get(cls.name, "")
            from_env = env if os.environ.get(env, "").strip() else ""
            data["base_url"] = os.environ.get(env, "").strip() or cls.default_base_url
            parts = urlsplit(data["base_url"])
            if parts.scheme not in ("http", "https") or not parts.hostname:  # from the variable
                raise SettingProblem(  # not quoted: a key set there by mistake stays unsaid
                    f"the environment variable {env} holds no http(s) URL",
                    None,
                    f"set {env} to, e.g., 'http://127.0.0.1:8000/v1', or unset it to reach"
                    f" {cls.default_base_url}",
                )
        if "api_key_env" not in data and (
            not written or _same_host(data["base_url"], cls.default_base_url)
        ):
            # The provider's own key goes to the provider (or where the user's variable sends
            # its client) only: another server gets no key unless `api_key_env` names one.
            data["api_key_env"] = cls.default_key_env
        _one_authorization(cls, data, from_env)
        return data, cls.default_price or providers.known_price(cls.name, str(data["model"]))

    def __repr__(self) -> str:
        s = self.settings
        return f"<{type(self).__name__} {self.key!r} {s.model!r} at {shown_url(s.base_url)}>"

    def cache_identity(self) -> dict[str, Any]:
        s = self.settings
        url = s.base_url.rstrip("/")
        shown = shown_url(url)  # a credential in the URL decides the key, as a digest
        return {
            "connector": self.name,
            "base_url": url if shown == url else f"{shown} {secret_safe_digest(url)}",
            "model": s.model,
            "params": s.params,
            # (a model without headers keeps the key it always had)
            **({"headers": secret_safe_digest(s.headers)} if s.headers else {}),
        }

    def provider(self) -> Hashable:
        s = self.settings
        return (self.name, s.base_url.rstrip("/"), s.model, s.api_key_env)

    url_rule: ClassVar[str] = ""  # how the posted URL is made of base_url, as the docs say

    @property
    @abstractmethod
    def url(self) -> str:
        """Where requests are posted."""

    @abstractmethod
    def body(self, request: Request) -> dict[str, Any]:
        """The JSON body of the request."""

    @abstractmethod
    def auth_headers(self, key: str) -> dict[str, str]:
        """Headers that carry the API key."""

    @abstractmethod
    def parse(self, data: Any, request: Request) -> Response:
        """The Response in the server's JSON; KeyError, IndexError or TypeError if absent."""

    async def acomplete(self, request: Request) -> Response:
        return await self._call(await self._session_here(), request)

    def complete(self, request: Request) -> Response:
        async def once() -> Response:
            async with _new_session() as session:
                return await self._call(session, request)

        return asyncio.run(once())

    def warm_up(self) -> None:
        import aiohttp  # noqa: F401  (its import builds TLS contexts: long, off the main thread)

    async def aclose(self) -> None:
        session, self._session = self._session, None
        if session is not None and not session.closed:
            await session.close()

    async def _session_here(self) -> aiohttp.ClientSession:
        loop = asyncio.get_running_loop()
        if self._session is None or self._session.closed or self._session_loop is not loop:
            self._session, self._session_loop = _new_session(), loop
            self._proxy = proxy_for(self.url)
        return self._session

    def preflight(self) -> str | None:
        env = self.settings.api_key_env
        if env and not os.environ.get(env, "").strip():
            if not VARIABLE_CASE.match(env):  # gsk_..., hex: a key pasted as its name?
                return (
                    "the API key variable that api_key_env names is not set (the name is not"
                    " shown: with lower-case letters it may be a key pasted there); set"
                    " api_key_env to the variable's name, such as OPENAI_API_KEY, and keep the"
                    " key itself out of arena.yaml"
                )
            return (
                f"the API key variable {env} is not set; export {env}=... (or set api_key_env"
                " to the variable that holds it)"
            )
        if env:
            return _unfit_key(env, os.environ[env].strip())
        return None

    def _headers(self) -> dict[str, str]:
        headers = {"Content-Type": "application/json", **self.settings.headers}
        missing = self.preflight()
        if missing is not None:
            raise ConnectorError(missing)
        env = self.settings.api_key_env
        if env:
            headers.update(self.auth_headers(os.environ[env].strip()))
        return headers

    async def _call(self, session: aiohttp.ClientSession, request: Request) -> Response:
        import aiohttp  # imported on the first call: runs on the sim alone never load it

        headers = self._headers()
        payload = json_text(self.body(request)).encode()  # a lone surrogate, escaped
        url = self.url  # (each subclass's builds it afresh)
        secrets = self._secrets(url)
        where = _host(url)
        encoding = ""  # the reply's Content-Encoding
        try:
            post = session.post(
                url,
                data=payload,
                headers=headers,
                proxy=self._proxy,
                allow_redirects=False,  # the key goes only where base_url says
            )
            async with post as reply:
                status, reply_headers = reply.status, reply.headers
                encoding = reply_headers.get("Content-Encoding", "")
                raw = await _body(reply, where)
        except aiohttp.ClientConnectorError as exc:  # no connection made: refused, DNS, TLS
            via = (
                f" (through the proxy {_host(self._proxy)} that HTTP(S)_PROXY names; NO_PROXY"
                f" lists the hosts reached directly)"
                if self._proxy
                else ""
            )
            problem = _connect_problem(exc)
            error = getattr(exc, "os_error", None)  # (aiohttp 3.9's certificate error: none)
            if not self._proxy and getattr(error, "errno", None) == errno.ECONNREFUSED:
                problem += "; fix: start the server, or correct base_url"
            raise ConnectorError(
                redacted(f"{where}: cannot connect{via}: {problem}", secrets),
                retryable=True,
                unreachable=True,
            ) from None
        except (aiohttp.ClientConnectionError, aiohttp.ClientPayloadError) as exc:
            if _undecodable(exc):
                encoding = redacted(_quote(encoding), secrets)
                raise ConnectorError(  # not retried: the same body would come again
                    f"{where}: the reply's Content-Encoding {encoding} could not be decoded:"
                    " the body is not encoded as the header says; fix: check the server at"
                    " base_url (or a proxy before it)"
                ) from None
            problem, unreachable = _dropped(exc)
            raise ConnectorError(
                redacted(f"{where}: {problem}", secrets), retryable=True, unreachable=unreachable
            ) from None
        except asyncio.TimeoutError:
            raise ConnectorError(f"{where}: no reply in time", retryable=True) from None
        except aiohttp.ClientError as exc:
            said = redacted(_describe(exc), secrets)  # aiohttp's may quote what was sent
            raise ConnectorError(f"{where}: the request failed: {said}") from None
        text = redacted(_text(raw, reply_headers.get("Content-Type", "")), secrets)
        if 300 <= status < 400:
            moved = _quote(redacted(reply_headers.get("Location", "elsewhere"), secrets))
            raise ConnectorError(
                f"{where}: HTTP {status}: the server redirects to {moved};"
                " set base_url to the address the API answers at (redirects are not followed,"
                " so the API key goes only where base_url says)"
            )
        if status >= 400:
            retryable = status in RETRYABLE_STATUS or status >= 500
            retry_after = _retry_after(reply_headers.get("Retry-After")) if retryable else None
            said = redacted(_server_message(text), secrets)  # as decoded: escapes undone
            if status == 400 and "image" in said.lower() and image_count(request.messages):
                raise ConnectorError(
                    f"{where}: HTTP 400: the model refused the image input of case"
                    f" '{request.case.id}': {said}; use a model that reads images, or keep"
                    " this case off this model with 'models:' on the case"
                )
            raise ConnectorError(
                f"{where}: HTTP {status}: {said}{self._fix_for(status)}",
                retryable=retryable,
                retry_after=retry_after,
            )
        try:
            response = self.parse(json.loads(text), request)
        except ValueError:
            problem = "the reply is not JSON"
        except (KeyError, IndexError, TypeError, AttributeError):
            problem = "the reply lacks the expected fields"
        else:
            # JSON may write the key escaped (`\\/`, `\\u00XX`), past the text's redaction:
            # what the reply says, decoded, is redacted again
            response.text = redacted(response.text, secrets)
            response.meta = _redacted_data(response.meta, secrets)
            return response
        raise ConnectorError(f"{where}: {problem} (HTTP {status}): {_quote(text)}")

    def _fix_for(self, status: int) -> str:
        """What a refusal most likely asks of the settings: the key, or the address."""
        env = self.settings.api_key_env
        if status in (401, 403):
            if not env:
                return (
                    " (no API key was sent: arena sends one to another server than the"
                    " provider's only if api_key_env names the variable that holds it)"
                )
            named = env if VARIABLE_CASE.match(env) else "the variable api_key_env names"
            return f" (the key sent is the one in {named}: check it is this server's)"
        if status in (404, 405):
            return (
                f" (posted to {urlsplit(self.url).path}, as requests go to {self.url_rule}:"
                " check base_url)"
            )
        return ""

    def _secrets(self, url: str | None = None) -> list[str]:
        """The key, the credentials of the headers and of the URLs: what a request (to `url`,
        if given: `self.url`) carries."""
        env = self.settings.api_key_env
        secrets = [os.environ.get(env, "").strip() if env else ""]
        secrets += [*credentials_of(self.settings.headers.items())]
        secrets += url_secrets(self.url if url is None else url)
        secrets += url_secrets(self._proxy or "")
        return secrets

    def _redact(self, text: str) -> str:
        """`text` without the key, the credentials of the headers and of the URLs."""
        return redacted(text, self._secrets())


def answer(
    text: str, usage: Any, keys: tuple[str, str], request: Request, meta: dict[str, Any]
) -> Response:
    """The Response for `text`, with the tokens in and out that `usage` holds under `keys`;
    estimated (and `meta` says so) when the server sent no usage."""
    usage = usage if isinstance(usage, dict) else {}
    tokens_in, tokens_out = usage.get(keys[0]), usage.get(keys[1])
    if not _count(tokens_in) or not _count(tokens_out):  # none, or nonsense (below 0)
        tokens_in = sum(
            estimate_tokens(content_text(m.get("content", ""))) + 4 for m in request.messages
        )
        tokens_out = estimate_tokens(text)
        meta["tokens_estimated"] = True
    return Response(text=text, tokens_in=tokens_in, tokens_out=tokens_out, meta=meta)


def _redacted_data(value: Any, secrets: list[str]) -> Any:
    """JSON data `value` with the secrets redacted from each string in it, keys too."""
    if isinstance(value, str):
        return redacted(value, secrets)
    if isinstance(value, dict):
        return {
            (redacted(k, secrets) if isinstance(k, str) else k): _redacted_data(v, secrets)
            for k, v in value.items()
        }
    if isinstance(value, (list, tuple)):
        return [_redacted_data(v, secrets) for v in value]
    return value


def _new_session() -> aiohttp.ClientSession:
    import aiohttp

    # limit=0: no cap on connections; the engine decides how many calls are in flight
    connector = aiohttp.TCPConnector(limit=0)
    timeout = aiohttp.ClientTimeout(total=None, sock_connect=SOCK_CONNECT, sock_read=SOCK_READ)
    # trust_env would read the proxy variables and ~/.netrc again on every request; the
    # proxy is looked up once per connector instead (proxy_for)
    return aiohttp.ClientSession(connector=connector, timeout=timeout)


def proxy_for(url: str) -> str | None:
    """The proxy that HTTP(S)_PROXY and NO_PROXY give for `url`, if any."""
    proxies = urllib.request.getproxies_environment()
    parts = urlsplit(url)
    proxy = proxies.get(parts.scheme)
    bypass = urllib.request.proxy_bypass_environment  # type: ignore[attr-defined]  # not in typeshed
    if not proxy or bypass(parts.hostname or "", proxies):
        return None
    return proxy


def joined(base_url: str, path: str) -> str:
    """`base_url` with `path` added to its path, its query (Azure's api-version) kept last."""
    parts = urlsplit(base_url)
    return parts._replace(path=parts.path.rstrip("/") + path).geturl()


def _host(url: str) -> str:
    """The host and port of `url` (no `user:password@` it may hold)."""
    return urlsplit(url).netloc.rpartition("@")[2] or shown_url(url)


def _same_host(url: str, other: str) -> bool:
    return urlsplit(url).hostname == urlsplit(other).hostname


def _describe(exc: BaseException) -> str:
    text = str(exc) or type(exc).__name__
    return text if type(exc).__name__ in text else f"{type(exc).__name__}: {text}"


def _connect_problem(exc: aiohttp.ClientConnectorError) -> str:
    """Why no connection was made, in words: what aiohttp's message adds ("ssl:default",
    the connector's repr) is left out."""
    import ssl

    import aiohttp

    if isinstance(exc, aiohttp.ClientConnectorCertificateError):
        cert = exc.certificate_error
        return f"the server's TLS certificate is not trusted ({_ssl_text(cert)})"
    error = exc.os_error  # (aiohttp 3.9's certificate error lacks it: asked after)
    if isinstance(exc, aiohttp.ClientSSLError) or isinstance(error, ssl.SSLError):
        return f"the TLS handshake failed ({_ssl_text(error)})"
    if isinstance(error, socket.gaierror):
        return f"the host name {exc.host!r} is not known ({error.strerror or error})"
    if isinstance(error, (TimeoutError, asyncio.TimeoutError)):
        return "no connection in time"
    return _os_text(error)


def _undecodable(exc: BaseException) -> bool:
    """Whether `exc` says the reply's body did not decode as its Content-Encoding says (a
    body labelled gzip that is not), rather than that it was cut off."""
    from aiohttp.http_exceptions import ContentEncodingError

    return isinstance(exc.__cause__, ContentEncodingError) or (
        "decode content-encoding" in str(exc).lower()
    )


def _dropped(exc: BaseException) -> tuple[str, bool]:
    """What happened to a connection that failed after the connector's first step, and
    whether the server was reached at all (a connect timeout, a fingerprint mismatch)."""
    import aiohttp

    if isinstance(exc, aiohttp.ServerDisconnectedError):
        return (
            "the server closed the connection without a reply; fix: see the server's log for why",
            False,
        )
    if isinstance(exc, aiohttp.ClientPayloadError):
        return "the reply was cut off before its end", False
    if type(exc).__name__ == "ConnectionTimeoutError" or (
        isinstance(exc, aiohttp.ServerTimeoutError) and "connect" in str(exc).lower()
    ):
        return "cannot connect: no connection in time", True
    if isinstance(exc, aiohttp.ServerFingerprintMismatch):
        return "cannot connect: the server's certificate fingerprint does not match", True
    if isinstance(exc, aiohttp.ClientOSError) and exc.errno:
        return f"the connection failed: {_os_text(exc)}", False
    return f"the connection failed: {_describe(exc)}", False


def _os_text(error: OSError) -> str:
    """An OSError as words: "connection refused", not "[Errno 111] Connect call failed
    ('127.0.0.1', 9)"."""
    if error.errno:
        return os.strerror(error.errno).lower()
    return str(error) or type(error).__name__


def _ssl_text(error: BaseException) -> str:
    """An ssl error's own words, without OpenSSL's source file and line."""
    text = getattr(error, "verify_message", None) or getattr(error, "reason", None)
    if not text:
        text = re.sub(r"\s*\(_ssl\.c:\d+\)", "", str(error))
    return str(text).replace("_", " ").lower() if str(text).isupper() else str(text)


def _count(value: object) -> bool:
    return type(value) is int and value >= 0


async def _body(reply: aiohttp.ClientResponse, where: str) -> bytes:
    """The reply's body, at most MAX_REPLY bytes decoded; ConnectorError for a larger one."""
    length = reply.content_length  # of the body as sent: a gzip one decodes to more
    encoded = reply.headers.get("Content-Encoding", "identity").strip().lower() != "identity"
    if length is not None and length <= MAX_REPLY and not encoded:
        return await reply.read()
    chunks, size = [], 0
    async for chunk in reply.content.iter_chunked(1 << 16):
        size += len(chunk)
        if size > MAX_REPLY:
            raise ConnectorError(
                f"{where}: the reply is larger than {MAX_REPLY // 2**20} MiB, more than any"
                " model's answer: is base_url the API's address?"
            )
        chunks.append(chunk)
    return b"".join(chunks)


_CHARSET = re.compile(r";\s*charset\s*=\s*\"?([^\";\s]+)", re.IGNORECASE)


def _text(raw: bytes, content_type: str) -> str:
    """The body as text: in the charset its Content-Type names, else UTF-8 (JSON's own), a
    byte order mark before it dropped; what does not decode replaced, never an error."""
    said = _CHARSET.search(content_type)
    named = said.group(1).lower() if said else "utf-8"
    try:
        codecs.lookup(named)
    except LookupError:  # a charset no codec knows: JSON is UTF-8
        named = "utf-8"
    if named.replace("_", "-") in ("utf-8", "utf8"):
        named = "utf-8-sig"
    return raw.decode(named, "replace")


def _retry_after(value: str | None) -> float | None:
    """Seconds to wait from a Retry-After header: a number of seconds or an HTTP date."""
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())


def _server_message(text: str) -> str:
    """The error message in an error body ({"error": {"message"}}, {"message"}), else its start."""
    try:
        data = json.loads(text)
    except ValueError:
        return _quote(text)
    for found in (data.get("error") if isinstance(data, dict) else None, data):
        if isinstance(found, dict) and isinstance(found.get("message"), str):
            return _trim(found["message"])
        if isinstance(found, str):
            return _trim(found)
    return _quote(text)


def _trim(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= SHOWN_BODY else text[: SHOWN_BODY - 3] + "..."


def _quote(text: str) -> str:
    return repr(_trim(text)) if text.strip() else "(empty body)"
