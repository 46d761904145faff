"""A cache file locked by another process holds up the calls that wait for it, and no
others: the cache is read and written off the engine's event loop; once a wait for it was
in vain, no call waits again."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from pydantic import BaseModel

from pytest_arena.cache import ResponseCache, key_parts, store
from pytest_arena.connectors.base import Connector, Request, Response
from pytest_arena.engine.calls import Engine
from pytest_arena.engine.limits import Limits
from pytest_arena.spec import Case
from tests.conftest import MakeProject

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


HOLD = """
import sqlite3, sys
conn = sqlite3.connect(sys.argv[1], isolation_level=None)
if sys.argv[2] == "reads":  # readers too are kept out, not only writers
    conn.execute("PRAGMA locking_mode = EXCLUSIVE")
conn.execute("BEGIN IMMEDIATE")
conn.execute("DELETE FROM responses WHERE 0")
print("locked", flush=True)
sys.stdin.read()  # until the test lets go
"""


@contextmanager
def held(path: Path, what: str = "writes") -> Iterator[None]:
    """The cache file locked by another process, for writes (or, `what="reads"`, for all)."""
    with subprocess.Popen(
        [sys.executable, "-c", HOLD, str(path), what],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    ) as holder:
        assert holder.stdout is not None and holder.stdin is not None
        assert holder.stdout.readline() == "locked\n"
        try:
            yield
        finally:
            holder.stdin.close()
            holder.wait(10)


WAIT = 1.0  # seconds a statement waits for the lock, in these tests (BUSY_TIMEOUT_S)
CASES = 16  # waiting once takes WAIT; waiting for each would take CASES * WAIT: far apart, also on a loaded machine


def test_a_run_with_a_locked_cache_waits_once_and_says_its_answers_were_not_cached(
    pytester: pytest.Pytester, make_project: MakeProject, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each answer waited its turn to be written, the full lock wait each: 3 cases took 92 s,
    and 44 lasted as long as another process held the file (150 s)."""
    monkeypatch.setattr(store, "BUSY_TIMEOUT_S", WAIT)
    tests = "".join(f"  - {{id: c{i}, input: 'q{i}', reference: 'q{i}'}}\n" for i in range(CASES))
    make_project(
        "p",
        "models:\n  default: [echo]\n  define:\n"
        "    echo: {connector: python, callable: 'agent:run', cache: true}\n"
        f"tests:\n{tests}",
        files={"agent.py": "def run(prompt):\n    return prompt\n"},
    )
    path = pytester.path / ".arena-cache" / "responses.sqlite3"
    with ResponseCache(path) as cache:  # made before: another process is writing to it
        cache.put({"connector": "other", "model": "m", "messages": []}, Response("x"))
    with held(path):
        started = time.monotonic()
        result = pytester.runpytest("-p", "no:cacheprovider")
        took = time.monotonic() - started
    result.assert_outcomes(passed=CASES)
    assert took < CASES * WAIT / 2, took
    result.stdout.fnmatch_lines(
        [
            f"arena: {CASES} answers not cached: the response cache {path} stayed locked by"
            f" another process for {WAIT:g} s, so this run wrote no more answers to it (another"
            " run, or a program with the file open, holds it)"
        ]
    )


def test_reads_of_a_locked_cache_wait_once_then_try_without_waiting_until_one_gets_through(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(store, "BUSY_TIMEOUT_S", WAIT)
    path = tmp_path / "responses.sqlite3"
    connector = Quick("m", Settings())
    with ResponseCache(path) as cache:
        cache.put(key_parts(connector, request("cached")), Response("from the cache"))
    engine = Engine(store=ResponseCache(path))
    try:
        with held(path, "reads"):
            started = time.monotonic()
            calls = [engine.submit(connector, request(f"q{i}"), Limits()) for i in range(CASES)]
            failed = [engine.wait(call) for call in calls]
            took = time.monotonic() - started
        assert took < CASES * WAIT / 2, took
        assert all(f.response is None and f.error for f in failed)
        assert "is locked by another process (waited 1 s)" in str(failed[0].error)
        assert "is still locked by another process (a read of this run waited 1 s for it in" in (
            str(failed[-1].error)
        )
        hit = engine.wait(engine.submit(connector, request("cached"), Limits()))
        assert hit.cached and hit.response is not None  # let go: read again
    finally:
        engine.close()
