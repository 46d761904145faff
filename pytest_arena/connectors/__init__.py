"""Connectors: how model keys are reached. They know nothing about scorers or pytest."""

from pytest_arena.connectors.base import (
    Connector,
    ConnectorError,
    Request,
    Response,
    SettingProblem,
)
from pytest_arena.connectors.registry import BUILTIN_MODELS, CONNECTORS, build_connector

__all__ = [
    "BUILTIN_MODELS",
    "CONNECTORS",
    "Connector",
    "ConnectorError",
    "Request",
    "Response",
    "SettingProblem",
    "build_connector",
]
