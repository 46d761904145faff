"""Hooks through which installed packages extend pytest-arena.

Implement them in a pytest plugin (a `pytest11` entry point, or a conftest.py);
pytest-arena calls them once for each project, with the hooks of the project's folder: a
conftest.py offers its own to the projects in its folder and below.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pluggy

hookspec = pluggy.HookspecMarker("pytest")  # pytest's own marker, without importing pytest

if TYPE_CHECKING:
    from pytest_arena.connectors.base import Connector
    from pytest_arena.scorers.base import Scorer


@hookspec
def pytest_arena_scorers() -> list[type[Scorer]]:
    """Return Scorer classes that every project can use by their `name`."""
    return []


@hookspec
def pytest_arena_connectors() -> list[type[Connector]]:
    """Return Connector classes that model definitions can name as `connector:`."""
    return []
