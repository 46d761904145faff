"""The plugin's per-run state, kept in `config.stash`."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import cast

import pytest

from pytest_arena.connectors import CONNECTORS, Connector
from pytest_arena.engine import Engine
from pytest_arena.record import Record
from pytest_arena.scorers.base import Scorer

_KEY = pytest.StashKey["ArenaState"]()


@dataclass
class ArenaState:
    models: list[str] = field(default_factory=list)  # from --arena-models; empty: project defaults
    records: list[Record] = field(default_factory=list)
    engine: Engine = field(default_factory=Engine)
    _extensions: tuple[list[tuple[str, type[Scorer]]], dict[str, type[Connector]]] | None = None

    def extensions(
        self, config: pytest.Config
    ) -> tuple[list[tuple[str, type[Scorer]]], dict[str, type[Connector]]]:
        """Scorers and connectors that plugins offer, asked for once (conftests are loaded
        by the first collection)."""
        if self._extensions is None:
            scorers: list[tuple[str, type[Scorer]]] = []
            for impl in config.hook.pytest_arena_scorers.get_hookimpls():
                offered = cast("list[type[Scorer]]", impl.function() or [])
                scorers += [(impl.plugin_name, cls) for cls in offered]
            connectors = dict(CONNECTORS)
            for found in config.hook.pytest_arena_connectors():
                connectors.update({cls.name: cls for cls in found or ()})
            self._extensions = (scorers, connectors)
        return self._extensions

    @classmethod
    def of(cls, config: pytest.Config) -> ArenaState:
        return config.stash[_KEY]

    @classmethod
    def install(cls, config: pytest.Config, models: list[str], engine: Engine) -> ArenaState:
        state = cls(models=models, engine=engine)
        config.stash[_KEY] = state
        return state
