"""Model keys that name a provider (`openai:gpt-4o-mini`, `anthropic:claude-3-5-haiku-latest`):
usable without a `models.define` block, and the list prices known for their models.

A key `PROVIDER:MODEL` is the provider's connector with `model: MODEL`, its default base URL
(or the provider's `*_BASE_URL` variable, as the providers' own clients read it) and its key
variable. Defining the same key under `models: define:` overrides any of it. A model whose
price is not listed here, nor written in `arena.yaml`, costs an unknown amount: reports show
a dash, never $0.
"""

from __future__ import annotations

from collections.abc import Mapping

from pytest_arena.spec.schema import ModelDef, Price

PROVIDERS: dict[str, str] = {"openai": "openai", "anthropic": "anthropic"}  # prefix: connector
SEPARATOR = ":"
# where the providers' own clients read another base URL from (a proxy, a test server)
BASE_URL_ENV: dict[str, str] = {"openai": "OPENAI_BASE_URL", "anthropic": "ANTHROPIC_BASE_URL"}


def _p(inp: float, out: float, cached: float | None = None) -> Price:
    return Price(input_per_mtok=inp, output_per_mtok=out, cached_input_per_mtok=cached)


# Dollars per million tokens, from the providers' price pages (2025): input, output and
# OpenAI's cached input. A model missing here is priced unknown unless `price:` is written
# for it.
PRICES: dict[tuple[str, str], Price] = {
    ("openai", "gpt-4o"): _p(2.5, 10.0, 1.25),
    ("openai", "gpt-4o-mini"): _p(0.15, 0.6, 0.075),
    ("openai", "gpt-4.1"): _p(2.0, 8.0, 0.5),
    ("openai", "gpt-4.1-mini"): _p(0.4, 1.6, 0.1),
    ("openai", "gpt-4.1-nano"): _p(0.1, 0.4, 0.025),
    ("openai", "o3-mini"): _p(1.1, 4.4, 0.55),
    ("anthropic", "claude-3-5-haiku-latest"): _p(0.8, 4.0),
    ("anthropic", "claude-3-5-sonnet-latest"): _p(3.0, 15.0),
    ("anthropic", "claude-3-7-sonnet-latest"): _p(3.0, 15.0),
    ("anthropic", "claude-sonnet-4-0"): _p(3.0, 15.0),
    ("anthropic", "claude-opus-4-0"): _p(15.0, 75.0),
}


def split(key: str) -> tuple[str, str] | None:
    """(connector, model name) for a key `PROVIDER:MODEL` of a known provider, else None."""
    prefix, sep, model = key.partition(SEPARATOR)
    if not sep or not model.strip() or prefix not in PROVIDERS:
        return None
    return PROVIDERS[prefix], model.strip()


def definition(key: str) -> ModelDef | None:
    """The definition a provider key stands for when `models.define` does not have it."""
    found = split(key)
    if found is None:
        return None
    return ModelDef.model_validate({"connector": found[0], "model": found[1]})


def resolve(key: str, defined: Mapping[str, ModelDef]) -> ModelDef | None:
    """The definition of `key`: as written under `models.define` (for a provider key, over
    the provider's defaults unless it names another connector), else the provider's."""
    written, implied = defined.get(key), definition(key)
    if written is None or implied is None or "connector" in written.model_fields_set:
        return written or implied
    return ModelDef.model_validate(
        {**implied.model_dump(exclude_unset=True), **written.model_dump(exclude_unset=True)}
    )


def priced_keys() -> list[str]:
    """`PROVIDER:MODEL` for every model with a known price."""
    prefix = {c: p for p, c in PROVIDERS.items()}
    return [f"{prefix[c]}{SEPARATOR}{m}" for c, m in PRICES]


def known_price(connector: str, model: str) -> Price | None:
    return PRICES.get((connector, model))
