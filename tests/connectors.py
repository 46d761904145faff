"""Building and calling the HTTP connectors in tests, outside pytest's run: the helpers the
connector tests share."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from pytest_arena.connectors import Connector, ConnectorError, Request, Response, build_connector
from pytest_arena.spec import Case
from pytest_arena.spec.schema import ModelDef
from tests.fake_llm_server import FakeLLMServer

KEY_ENV = "ARENA_TEST_API_KEY"


def make(name: str, server: FakeLLMServer | None = None, key: str = "m", **settings: Any):
    if server is not None:
        base = server.base_url if name == "openai" else server.root_url
        settings = {"base_url": base, "api_key_env": KEY_ENV, **settings}
    defined = {key: ModelDef.model_validate({"connector": name, **settings})}
    return build_connector(key, defined, Path("arena.yaml"))


def request(prompt: str, system: str | None = None, **params: Any) -> Request:
    messages = [{"role": "system", "content": system}] if system else []
    messages.append({"role": "user", "content": prompt})
    return Request("m", messages, Case(id="c", input=prompt, project="p"), params=params)


def call(connector: Connector, req: Request) -> Response:
    async def once() -> Response:
        try:
            return await connector.acomplete(req)
        finally:
            await connector.aclose()

    return asyncio.run(once())


def failure(connector: Connector, req: Request) -> ConnectorError:
    with pytest.raises(ConnectorError) as caught:
        call(connector, req)
    return caught.value
