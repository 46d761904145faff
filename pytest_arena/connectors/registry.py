"""From a model key to a ready connector."""

from __future__ import annotations

import importlib
import re
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path

from pytest_arena.connectors import providers
from pytest_arena.connectors.base import Connector, SettingProblem
from pytest_arena.connectors.sim import PROFILES, SimConnector
from pytest_arena.spec.errors import Problem, SpecError, did_you_mean
from pytest_arena.spec.schema import ModelDef
from pytest_arena.spec.validation import validate
from pytest_arena.spec.yamlfile import LineMap


class ConnectorTypes(Mapping[str, type[Connector]]):
    """Connector classes by name, each imported when first asked for (a run on the sim
    models never loads the HTTP client)."""

    def __init__(self, where: Mapping[str, str | type[Connector]]) -> None:
        self._where = dict(where)

    def __getitem__(self, name: str) -> type[Connector]:
        found = self._where[name]
        if isinstance(found, str):
            module, _, attr = found.partition(":")
            found = self._where[name] = getattr(importlib.import_module(module), attr)
        return found

    def __iter__(self) -> Iterator[str]:
        return iter(self._where)

    def __len__(self) -> int:
        return len(self._where)

    def plus(self, classes: Iterable[type[Connector]]) -> ConnectorTypes:
        """These types and `classes` (which win on a name both have)."""
        return ConnectorTypes({**self._where, **{c.name: c for c in classes}})


CONNECTORS = ConnectorTypes(
    {
        SimConnector.name: SimConnector,
        "openai": "pytest_arena.connectors.openai:OpenAIConnector",
        "anthropic": "pytest_arena.connectors.anthropic:AnthropicConnector",
        "python": "pytest_arena.connectors.python:PythonConnector",
        "command": "pytest_arena.connectors.command:CommandConnector",
    }
)
BUILTIN_MODELS: tuple[str, ...] = tuple(PROFILES)


def known_models(defined: dict[str, ModelDef]) -> list[str]:
    return sorted({*BUILTIN_MODELS, *defined})


def build_connector(
    key: str,
    defined: dict[str, ModelDef],
    path: Path,
    lines: LineMap | None = None,
    asked_by: str = "",
    connectors: Mapping[str, type[Connector]] = CONNECTORS,
) -> Connector:
    """The connector for model `key`; SpecError naming file and line if it cannot be made.

    `asked_by` names where the key came from when that is not the project file.
    """
    definition = providers.resolve(key, defined)
    if definition is None:
        if key not in PROFILES:
            close = did_you_mean(key, [*known_models(defined), *providers.priced_keys()])
            hint = (close + " " if close else "") + (
                f"define it under 'models: define: {key}:', pick a known model, or name a"
                f" provider's model as {_provider_keys()}"
            )
            if _MOCK.search(key) and not close:  # the seed's "mock" models: the sims here
                hint = _mock_models(key, asked_by)
            raise SpecError(
                [
                    Problem(
                        path,
                        None if asked_by or lines is None else lines.line(("models",)),
                        f"model '{key}'{' (from ' + asked_by + ')' if asked_by else ''}"
                        " is neither defined in models.define nor a builtin"
                        f" ({', '.join(BUILTIN_MODELS)})",
                        hint=hint,
                    )
                ]
            )
        definition = ModelDef()
    loc = ("models", "define", key)
    cls = connectors.get(definition.connector)
    if cls is None:
        name = definition.connector
        said = [did_you_mean(name, connectors), mock_connector(name)]
        hint = " ".join([*filter(None, said), f"connectors: {', '.join(connectors)}"])
        raise SpecError(
            [
                Problem(
                    path,
                    lines.line((*loc, "connector")) if lines else None,
                    f"unknown connector '{definition.connector}'",
                    key=f"models.define.{key}.connector",
                    hint=hint,
                )
            ]
        )
    try:
        data, price = cls.settings_data(key, definition.settings())
    except ValueError as exc:
        raise _problem(exc, path, lines, loc, key in defined) from None
    beside = list(ModelDef.model_fields)  # connector, price, timeout...: read by ModelDef
    settings = validate(cls.settings_model, data, lines, path, base=loc, beside=beside)
    connector = cls(key, settings, definition.price or price, root=path.parent)
    try:
        connector.check()
    except ValueError as exc:
        raise _problem(exc, path, lines, loc, key in defined) from None
    return connector


# what other tools call the models or connector that answer offline, as the sims do here
_MOCK = re.compile(r"mock|fake|dummy|stub", re.IGNORECASE)


def _mock_models(key: str, asked_by: str = "") -> str:
    """The fix for a model key such as `mock`: the simulated models are those."""
    example = f"{asked_by} sim_small" if asked_by.startswith("--") else "sim_small"
    return (
        "the builtins are simulated models, what other tools call mock models: offline, free"
        f" and deterministic; write {example} (or another builtin) in place of {key}"
    )


def mock_connector(name: str) -> str:
    """The fix for a connector such as `mock` (the sim connector is that), '' for another."""
    if not _MOCK.search(name):
        return ""
    return (
        "the sim connector is what other tools call a mock connector (offline, free and"
        " deterministic): write 'connector: sim', with 'profile: sim_small' or an"
        " 'accuracy: 0.8' of its own;"
    )


def _provider_keys() -> str:
    return " or ".join(f"{p}{providers.SEPARATOR}MODEL" for p in providers.PROVIDERS)


def _problem(
    exc: ValueError, path: Path, lines: LineMap | None, loc: tuple[str, ...], written: bool
) -> SpecError:
    """A SpecError at the line of the setting `exc` names (when the project writes it)."""
    setting = exc.setting if isinstance(exc, SettingProblem) else None
    where = (*loc, setting) if setting and written else loc
    return SpecError(
        [
            Problem(
                path,
                lines.line(where) if lines else None,
                str(exc),
                key=".".join(where),
                hint=exc.hint if isinstance(exc, SettingProblem) else "",
            )
        ]
    )
