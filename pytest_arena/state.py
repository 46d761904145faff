"""The plugin's per-run state, kept in `config.stash`."""

from __future__ import annotations

from dataclasses import dataclass, field

import pytest

from pytest_arena.record import Record

_KEY = pytest.StashKey["ArenaState"]()


@dataclass
class ArenaState:
    models: list[str] = field(default_factory=list)  # from --arena-models; empty: project defaults
    records: list[Record] = field(default_factory=list)

    @classmethod
    def of(cls, config: pytest.Config) -> ArenaState:
        return config.stash[_KEY]

    @classmethod
    def install(cls, config: pytest.Config, models: list[str]) -> ArenaState:
        state = cls(models=models)
        config.stash[_KEY] = state
        return state
