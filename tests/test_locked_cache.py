"""A cache file locked by another process holds up the calls that wait for it, and no
others: the cache is read and written off the engine's event loop."""

from __future__ import annotations

import sqlite3
import threading
import time
from pathlib import Path

from pydantic import BaseModel

from pytest_arena.cache import ResponseCache, key_parts
from pytest_arena.connectors.base import Connector, Request, Response
from pytest_arena.engine.calls import Engine
from pytest_arena.engine.limits import Limits
from pytest_arena.spec import Case

LOCKED_FOR = 1.5  # seconds another process keeps the cache file's write lock


class Settings(BaseModel):
    pass


class Quick(Connector):
    """Answers at once with the prompt."""

    name = "quick"
    settings_model = Settings

    async def acomplete(self, request: Request) -> Response:
        return Response(request.prompt, tokens_in=1, tokens_out=1)


def request(text: str) -> Request:
    return Request("m", [{"role": "user", "content": text}], Case(id=text, input=text))


def test_a_write_waiting_for_a_locked_file_holds_up_no_other_call(tmp_path: Path) -> None:
    path = tmp_path / "responses.sqlite3"
    connector = Quick("m", Settings())
    store = ResponseCache(path)
    store.put(key_parts(connector, request("cached")), Response("from the cache"))
    engine = Engine(store=store)
    cached, uncached = Limits(), Limits(cache=False)
    other = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    other.execute("BEGIN IMMEDIATE")  # another process is writing, and takes its time
    release = threading.Timer(LOCKED_FOR, lambda: other.execute("COMMIT"))
    release.start()
    try:
        started = time.monotonic()
        waits = engine.submit(connector, request("new"), cached)  # its answer must be stored
        time.sleep(0.2)  # it is waiting for the lock now
        hit = engine.wait(engine.submit(connector, request("cached"), cached))
        fresh = engine.wait(engine.submit(connector, request("not kept"), uncached))
        others_took = time.monotonic() - started
        stored = engine.wait(waits)
        took = time.monotonic() - started
    finally:
        release.join()
        other.close()
        engine.close()
    assert hit.cached and hit.response is not None and hit.response.text == "from the cache"
    assert fresh.response is not None and fresh.response.text == "not kept"
    assert others_took < LOCKED_FOR - 0.5  # they did not wait for the lock
    assert stored.response is not None and stored.warning is None
    assert took >= LOCKED_FOR - 0.1  # it did, and was stored once the lock was let go
    with ResponseCache(path) as again:
        assert again.get(key_parts(connector, request("new"))) is not None
