"""Every model key a project can use, described for `arena models`: the builtin sims, the keys
of `models.define`, and the provider keys with a known price. Never a key's value: only the
name of its variable and whether it is set."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from pytest_arena.connectors import providers
from pytest_arena.connectors.base import Connector
from pytest_arena.connectors.registry import BUILTIN_MODELS, CONNECTORS, mock_connector
from pytest_arena.engine import limits
from pytest_arena.spec.errors import SpecError
from pytest_arena.spec.files import PROJECT_FILE
from pytest_arena.spec.schema import ModelDef, Price
from pytest_arena.spec.validation import validate


@dataclass(frozen=True)
class ModelInfo:
    key: str
    source: str  # builtin, defined, provider
    connector: str
    base_url: str | None = None
    model: str | None = None
    price: Price | None = None  # None: unknown
    concurrency: int | None = None
    rpm: float | None = None
    tpm: float | None = None
    timeout: float | None = None
    max_retries: int | None = None
    key_env: str | None = None
    problem: str = ""  # why this key cannot be used as written

    @property
    def key_set(self) -> bool | None:
        """Whether the key variable holds a value (None: the model needs no key)."""
        return bool(os.environ.get(self.key_env, "").strip()) if self.key_env else None


def describe(
    key: str,
    definition: ModelDef | None,
    source: str,
    connectors: Mapping[str, type[Connector]] = CONNECTORS,
) -> ModelInfo:
    """What a run would use for `key`, or the problem that stops it."""
    d = definition or providers.definition(key) or ModelDef()
    cls = connectors.get(d.connector)
    if cls is None:
        mock = mock_connector(d.connector).removesuffix(";")
        problem = f"unknown connector '{d.connector}'" + (f"; {mock}" if mock else "")
        return ModelInfo(key, source, d.connector, problem=problem)
    try:
        data, price = cls.settings_data(key, d.settings())
    except ValueError as exc:
        return ModelInfo(key, source, d.connector, problem=str(exc))
    try:  # as the run does: a setting it refuses (a key pasted as api_key_env) is said here
        validate(cls.settings_model, data, None, Path(PROJECT_FILE), beside=ModelDef.model_fields)
    except SpecError as exc:  # its messages never quote a value that may be a key
        said = "; ".join(
            p.message if p.message.startswith(p.key) else f"{p.key}: {p.message}"
            for p in exc.problems
        )
        return ModelInfo(key, source, d.connector, problem=said)
    model = data.get("model") or data.get("profile")
    return ModelInfo(
        key,
        source,
        d.connector,
        base_url=data.get("base_url"),
        model=str(model) if model else None,
        price=d.price or price,
        concurrency=d.concurrency or cls.default_concurrency,
        rpm=d.rpm,
        tpm=d.tpm,
        timeout=d.timeout if d.timeout is not None else limits.DEFAULT_TIMEOUT,
        max_retries=d.max_retries if d.max_retries is not None else limits.DEFAULT_RETRIES,
        key_env=data.get("api_key_env"),
    )


def catalog(
    defined: Mapping[str, ModelDef] | None = None,
    connectors: Mapping[str, type[Connector]] = CONNECTORS,
) -> list[ModelInfo]:
    """The builtins, then the defined keys, then the priced provider keys not defined."""
    defined = defined or {}
    out = [describe(k, None, "builtin", connectors) for k in BUILTIN_MODELS if k not in defined]
    out += [describe(k, providers.resolve(k, defined), "defined", connectors) for k in defined]
    for key in providers.priced_keys():
        if key not in defined:
            out.append(describe(key, None, "provider", connectors))
    return out
