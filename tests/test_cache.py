"""The response cache: keys, modes, strict replay, processes sharing one file, the CLI."""

from __future__ import annotations

import asyncio
import fnmatch
import multiprocessing
import os
import sqlite3
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any, ClassVar

import pytest
from pydantic import BaseModel

from pytest_arena.cache import (
    CachedResponse,
    CacheError,
    CacheMode,
    ReplayMiss,
    ResponseCache,
    canonical_json,
    default_cache_path,
    find_rootdir,
    key_parts,
    store,
)
from pytest_arena.cli import main
from pytest_arena.connectors.base import Connector, ConnectorError, Request, Response
from pytest_arena.spec.case import Case
from tests.conftest import ARENA

SECRET = "sk-test-7f3a9c1e5b2d4f6a8c0e"


def make_parts(**changes: Any) -> dict[str, Any]:
    parts: dict[str, Any] = {
        "connector": "openai",
        "base_url": "http://127.0.0.1:8000/v1",
        "model": "gpt_small",
        "messages": [
            {"role": "system", "content": "Reply with the answer only."},
            {"role": "user", "content": "What is 2+3?"},
        ],
        "params": {"temperature": 0.0, "max_tokens": 64},
        "sample": 0,
    }
    parts.update(changes)
    return parts


def answer(text: str = "5") -> Response:
    return Response(
        text, tokens_in=12, tokens_out=1, latency_ms=431.5, cost=0.00021, meta={"id": "r-1"}
    )


@pytest.fixture
def path(tmp_path: Path) -> Path:
    return default_cache_path(tmp_path)


@pytest.fixture
def response_cache(path: Path) -> Iterator[ResponseCache]:
    with ResponseCache(path) as opened:
        yield opened


# -- hits and misses


def test_a_stored_response_comes_back_whole(response_cache: ResponseCache) -> None:
    response_cache.put(make_parts(), answer())
    hit = response_cache.get(make_parts())
    assert isinstance(hit, CachedResponse)
    assert (hit.text, hit.tokens_in, hit.tokens_out, hit.latency_ms, hit.cost, hit.meta) == (
        "5",
        12,
        1,
        431.5,
        0.00021,
        {"id": "r-1"},
    )
    assert hit.created > 0


def test_key_order_of_a_mapping_does_not_matter(response_cache: ResponseCache) -> None:
    response_cache.put(make_parts(params={"temperature": 0.0, "max_tokens": 64}), answer())
    assert response_cache.get(make_parts(params={"max_tokens": 64, "temperature": 0.0})) is not None


@pytest.mark.parametrize(
    "change",
    [
        {"connector": "anthropic"},
        {"base_url": "http://127.0.0.1:9000/v1"},
        {"model": "gpt_large"},
        {"params": {"temperature": 0.7, "max_tokens": 64}},
        {"params": {"temperature": 0, "max_tokens": 64}},  # 0 is not 0.0
        {"params": {"temperature": 0.0, "max_tokens": 64, "top_p": 0.9}},
        {
            "messages": [
                {"role": "system", "content": "Reply with the answer only."},
                {"role": "user", "content": "What is 2+2?"},
            ]
        },
        {"sample": 1},
    ],
    ids=lambda change: next(iter(change)),
)
def test_a_call_differing_in_any_part_of_the_key_misses(
    response_cache: ResponseCache, change: dict[str, Any]
) -> None:
    response_cache.put(make_parts(), answer())
    assert response_cache.get(make_parts(**change)) is None
    assert response_cache.get(make_parts()) is not None


class HttpLike(Connector):
    """Stands for an HTTP connector: it reads its key from the environment."""

    name: ClassVar[str] = "openai"

    class Settings(BaseModel):
        base_url: str = "http://127.0.0.1:8000/v1"
        model: str = "gpt-4o-mini"
        api_key_env: str = "OPENAI_API_KEY"

    settings_model: ClassVar[type[BaseModel]] = Settings

    def headers(self) -> dict[str, str]:
        assert isinstance(self.settings, HttpLike.Settings)
        return {"Authorization": f"Bearer {os.environ[self.settings.api_key_env]}"}

    def complete(self, request: Request) -> Response:
        assert self.headers()["Authorization"].endswith(SECRET)
        return Response("4", tokens_in=10, tokens_out=1, meta={"finish_reason": "stop"})

    def cache_identity(self) -> dict[str, Any]:
        assert isinstance(self.settings, HttpLike.Settings)
        return {
            "connector": self.name,
            "base_url": self.settings.base_url,
            "model": self.settings.model,
        }


def request(content: str = "What is 2+2?", sample: int = 0) -> Request:
    case = Case(id="sum", input=content, reference="4")
    return Request(
        "gpt_small", [{"role": "user", "content": content}], case, sample, {"temperature": 0.0}
    )


def test_key_parts_hold_identity_messages_params_and_sample() -> None:
    connector = HttpLike("gpt_small", HttpLike.Settings())
    assert key_parts(connector, request(sample=2)) == {
        "connector": "openai",
        "base_url": "http://127.0.0.1:8000/v1",
        "model": "gpt-4o-mini",
        "messages": [{"role": "user", "content": "What is 2+2?"}],
        "params": {"temperature": 0.0},
        "sample": 2,
    }


def test_the_models_own_params_and_the_requests_both_reach_the_key() -> None:
    connector = HttpLike("gpt_small", HttpLike.Settings())
    connector.cache_identity = lambda: {"connector": "openai", "params": {"seed": 1, "top_p": 1}}  # type: ignore[method-assign]
    parts = key_parts(connector, request())
    assert parts["params"] == {"seed": 1, "top_p": 1, "temperature": 0.0}


def test_a_run_with_a_secret_in_the_environment_leaves_no_trace_of_it(
    path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    connector = HttpLike("gpt_small", HttpLike.Settings())
    with ResponseCache(path) as cache:
        for sample in range(3):
            call = request(sample=sample)
            parts = key_parts(connector, call)
            assert cache.get(parts) is None
            cache.put(parts, connector.complete(call))
        assert cache.get(key_parts(connector, request(sample=1))) is not None
        files = list(path.parent.iterdir())  # the database and its write-ahead log, open
        assert any(f.name.endswith("-wal") for f in files)
        assert all(SECRET.encode() not in f.read_bytes() for f in files)
    assert all(SECRET.encode() not in f.read_bytes() for f in path.parent.iterdir())


def test_a_key_part_named_like_a_credential_is_refused_without_showing_it(
    response_cache: ResponseCache,
) -> None:
    with pytest.raises(ValueError, match=r"params\.api_key looks like a credential") as info:
        response_cache.put(make_parts(params={"api_key": SECRET}), answer())
    assert SECRET not in str(info.value)
    assert not response_cache.path.exists()


def test_a_key_part_that_is_not_json_is_named(response_cache: ResponseCache) -> None:
    with pytest.raises(ValueError, match=r"params\.stop \(a set\) is not JSON data"):
        response_cache.put(make_parts(params={"stop": {"\n"}}), answer())


def test_a_response_whose_meta_is_not_json_is_refused(response_cache: ResponseCache) -> None:
    response = Response("5", meta={"raw": b"\x00"})
    with pytest.raises(ValueError, match="response meta is not JSON data"):
        response_cache.put(make_parts(), response)
    assert response_cache.get(make_parts()) is None


# -- errors are never cached


def test_a_failed_call_cannot_be_cached(response_cache: ResponseCache) -> None:
    error = ConnectorError("HTTP 500 from the server", retryable=True)
    with pytest.raises(TypeError, match="the engine must not cache a failed call"):
        response_cache.put(make_parts(), error)  # type: ignore[arg-type]
    assert response_cache.get(make_parts()) is None
    assert not response_cache.path.exists()


# -- modes


def test_off_neither_reads_nor_writes(path: Path) -> None:
    with ResponseCache(path) as cache:
        cache.put(make_parts(), answer("cached"))
    with ResponseCache(path, "off") as off:
        assert off.get(make_parts()) is None
        off.put(make_parts(sample=1), answer())
    with ResponseCache(path) as cache:
        assert cache.get(make_parts(sample=1)) is None


def test_off_creates_no_file(path: Path) -> None:
    with ResponseCache(path, CacheMode.OFF) as off:
        off.put(make_parts(), answer())
    assert not path.parent.exists()


def test_refresh_never_reads_and_overwrites(path: Path) -> None:
    with ResponseCache(path) as cache:
        cache.put(make_parts(), answer("old"))
    with ResponseCache(path, "refresh") as refresh:
        assert refresh.get(make_parts()) is None
        refresh.put(make_parts(), answer("new"))
    with ResponseCache(path) as cache:
        hit = cache.get(make_parts())
        assert hit is not None
        assert hit.text == "new"
        assert cache.stats().entries == 1  # type: ignore[union-attr]


def test_replay_reads_hits_and_writes_nothing(path: Path) -> None:
    with ResponseCache(path) as cache:
        cache.put(make_parts(), answer("5"))
    with ResponseCache(path, "replay") as replay:
        hit = replay.get(make_parts())
        assert hit is not None
        assert hit.text == "5"
        replay.put(make_parts(sample=3), answer())
    with ResponseCache(path) as cache:
        assert cache.get(make_parts(sample=3)) is None


def test_replay_miss_names_the_differences_from_the_nearest_entry(path: Path) -> None:
    with ResponseCache(path) as cache:
        cache.put(make_parts(), answer())
        cache.put(make_parts(params={"temperature": 0.0, "max_tokens": 512}, sample=4), answer())
    here = make_parts(
        params={"temperature": 0.2, "max_tokens": 64},
        messages=[
            {"role": "system", "content": "Reply with the answer only."},
            {"role": "user", "content": "What is 2+2?"},
        ],
    )
    with ResponseCache(path, "replay") as replay, pytest.raises(ReplayMiss) as info:
        replay.get(here)
    assert str(info.value) == (
        "no cached response for this call (strict replay): the nearest cached entry differs in"
        " params.temperature (0.2 here, 0.0 cached)"
        " and messages[1].content ('What is 2+2?' here, 'What is 2+3?' cached)"
    )


def test_replay_miss_names_parts_one_side_lacks(path: Path) -> None:
    with ResponseCache(path) as cache:
        cache.put(make_parts(), answer())
    here = make_parts(
        params={"max_tokens": 64, "seed": 7},
        messages=[*make_parts()["messages"], {"role": "user", "content": "Sure?"}],
    )
    with ResponseCache(path, "replay") as replay, pytest.raises(ReplayMiss) as info:
        replay.get(here)
    assert str(info.value).endswith(
        "differs in params.seed (7 here, absent cached), params.temperature (absent here, 0.0"
        " cached) and messages[2] ({'content': 'Sure?', 'role': 'user'} here, absent cached)"
    )


def test_replay_prefers_an_entry_of_the_same_base_url(path: Path) -> None:
    with ResponseCache(path) as cache:
        cache.put(make_parts(base_url="http://127.0.0.1:9000/v1"), answer())
        cache.put(make_parts(sample=1, params={"temperature": 1.0, "max_tokens": 8}), answer())
    with ResponseCache(path, "replay") as replay, pytest.raises(ReplayMiss) as info:
        replay.get(make_parts())
    assert str(info.value).endswith(
        "differs in params.max_tokens (64 here, 8 cached), params.temperature (0.0 here,"
        " 1.0 cached) and sample (0 here, 1 cached)"
    )


def test_replay_in_a_big_cache_still_finds_an_entry_with_the_same_messages(
    path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(store, "NEAREST_CANDIDATES", 3)  # stands for a cache of many entries
    with ResponseCache(path) as cache:
        cache.put(make_parts(), answer())
        for n in range(5):
            cache.put(make_parts(messages=[{"role": "user", "content": f"Question {n}"}]), answer())
    with ResponseCache(path, "replay") as replay, pytest.raises(ReplayMiss) as info:
        replay.get(make_parts(sample=2))
    assert str(info.value).endswith("differs in sample (2 here, 0 cached)")


def test_replay_miss_shows_where_a_long_message_differs(path: Path) -> None:
    story = "Once upon a time " * 10
    with ResponseCache(path) as cache:
        cache.put(make_parts(messages=[{"role": "user", "content": story + "the end."}]), answer())
    here = make_parts(messages=[{"role": "user", "content": story + "the start."}])
    with ResponseCache(path, "replay") as replay, pytest.raises(ReplayMiss) as info:
        replay.get(here)
    assert str(info.value).endswith(
        "messages[0].content ('…nce upon a time the start.' here,"
        " '…nce upon a time the end.' cached)"
    )


def test_replay_miss_names_the_entry_of_the_same_case_among_entries_as_far_off(
    path: Path,
) -> None:
    """With three cases cached and the template changed, France's miss named Germany's entry:
    every entry differs in one text, and the last read won."""

    def asked(country: str, template: str) -> dict[str, Any]:
        content = template.format(country=country)
        return make_parts(messages=[{"role": "user", "content": content}])

    old = "What is the capital of {country}?"
    with ResponseCache(path) as cache:
        for country in ("France", "Italy", "Germany"):
            cache.put(asked(country, old), answer())
    new = "Q: name the capital city of {country}, in one word."
    for country in ("France", "Italy", "Germany"):
        with ResponseCache(path, "replay") as replay, pytest.raises(ReplayMiss) as info:
            replay.get(asked(country, new))
        assert str(info.value).endswith(
            f"differs in messages[0].content ({new.format(country=country)!r} here,"
            f" {old.format(country=country)!r} cached)"
        )


def test_replay_with_nothing_cached_for_the_model_says_so(path: Path) -> None:
    with ResponseCache(path) as cache:
        cache.put(make_parts(model="gpt_large"), answer())
    with ResponseCache(path, "replay") as replay, pytest.raises(ReplayMiss) as info:
        replay.get(make_parts())
    assert str(info.value) == (
        "no cached response for this call (strict replay): the cache holds nothing for"
        " connector 'openai', model 'gpt_small' (it holds openai/gpt_large)"
    )


def test_replay_without_a_cache_file_says_so(path: Path) -> None:
    with ResponseCache(path, "replay") as replay, pytest.raises(ReplayMiss) as info:
        replay.get(make_parts())
    assert str(info.value) == (
        f"no cached response for this call (strict replay): the cache {path} does not exist"
    )


def test_an_unknown_mode_is_refused() -> None:
    with pytest.raises(ValueError, match="'sometimes' is not a valid CacheMode"):
        ResponseCache("x.sqlite3", "sometimes")


# -- the file


def test_the_file_is_made_on_the_first_write_with_a_gitignore(tmp_path: Path) -> None:
    path = default_cache_path(tmp_path)
    assert path == tmp_path / ".arena-cache" / "responses.sqlite3"
    with ResponseCache(path) as cache:
        assert cache.get(make_parts()) is None
        assert not path.parent.exists()
        cache.put(make_parts(), answer())
    assert path.is_file()
    assert (path.parent / ".gitignore").read_text().splitlines()[-1] == "*"


def test_a_cache_elsewhere_writes_no_gitignore(tmp_path: Path) -> None:
    with ResponseCache(tmp_path / "mine" / "answers.sqlite3") as cache:
        cache.put(make_parts(), answer())
    assert (tmp_path / "mine" / "answers.sqlite3").is_file()
    assert not (tmp_path / "mine" / ".gitignore").exists()


def test_the_journal_is_write_ahead(response_cache: ResponseCache) -> None:
    response_cache.put(make_parts(), answer())
    with sqlite3.connect(response_cache.path) as conn:
        assert conn.execute("PRAGMA journal_mode").fetchone() == ("wal",)


def test_a_file_that_is_no_database_is_named_with_the_fix(path: Path) -> None:
    path.parent.mkdir()
    path.write_text("these are my notes\n" * 100)
    with ResponseCache(path) as cache, pytest.raises(CacheError) as info:
        cache.get(make_parts())
    assert str(info.value) == (
        f"the response cache {path} cannot be read (file is not a database); delete the file"
        f" or run `arena cache clear --path {path}` to start a new cache"
    )


def test_a_cache_from_a_newer_version_asks_for_an_upgrade(response_cache: ResponseCache) -> None:
    response_cache.put(make_parts(), answer())
    response_cache.close()
    with sqlite3.connect(response_cache.path) as conn:
        conn.execute("PRAGMA user_version = 99")
    with pytest.raises(CacheError, match=r"written by a newer pytest-arena \(format 99") as info:
        response_cache.get(make_parts())
    assert str(info.value).endswith(
        "(format 99, this one reads 1); upgrade pytest-arena to use it, or give this version's"
        " cache another path: arena never deletes a newer cache (delete the file yourself if"
        " its answers can go)"
    )


def test_another_programs_database_is_refused_and_left_alone(tmp_path: Path) -> None:
    path = tmp_path / "app.db"
    with sqlite3.connect(path) as conn:
        conn.execute("CREATE TABLE users (name TEXT)")
    with ResponseCache(path) as cache, pytest.raises(CacheError, match="not a pytest-arena"):
        cache.put(make_parts(), answer())
    with sqlite3.connect(path) as conn:
        tables = conn.execute("SELECT name FROM sqlite_master").fetchall()
    assert tables == [("users",)]


def tamper(path: Path, sql: str) -> None:
    """Change the cache's rows as another program (or a person, or a bad disk) may."""
    conn = sqlite3.connect(path)
    with conn:
        conn.execute(sql)
    conn.close()


@pytest.mark.parametrize(
    ("change", "said"),
    [
        ("meta = 'not json'", "its meta is not a JSON object"),
        ("meta = '[1]'", "its meta is not a JSON object"),
        ("text = x'ff00'", "its text is bytes that are not UTF-8"),
        ("text = CAST(x'41ff' AS TEXT)", "its text is not UTF-8 text"),
        ("tokens_in = 'many'", "its tokens_in is not a number"),
        ("cost = x'00'", "its cost is not a number"),
        ("created = 'abc'", "its created is not a number"),
        # the run said "tokens -14999997" and "cost $-14.999997"
        ("tokens_in = -5000000", "its tokens_in is negative (-5000000)"),
        ("tokens_out = -1", "its tokens_out is negative (-1)"),
        ("cost = -15.0", "its cost is negative (-15.0)"),
        ("latency_ms = -2.5", "its latency_ms is negative (-2.5)"),
        ("cost = 9e999", "its cost is not a finite number"),
    ],
)
def test_a_row_that_is_not_as_arena_wrote_it_is_a_broken_cache_named_with_the_fix(
    response_cache: ResponseCache, change: str, said: str
) -> None:
    """A changed row gave "internal error in the arena engine: JSONDecodeError" without
    naming the cache, or a bytes text that crashed a scorer and the JSON report."""
    response_cache.put(make_parts(), answer())
    tamper(response_cache.path, f"UPDATE responses SET {change}")
    with pytest.raises(CacheError) as info:
        response_cache.get(make_parts())
    path = response_cache.path
    assert str(info.value) == (
        f"the response cache {path} cannot be read (a cached response is not as arena wrote"
        f" it: {said}); delete the file or run `arena cache clear --path {path}` to start a"
        " new cache"
    )


@pytest.mark.parametrize("mode", [CacheMode.USE, CacheMode.REPLAY])
def test_a_key_that_is_not_json_is_a_broken_cache_when_a_miss_reads_it(
    path: Path, mode: CacheMode
) -> None:
    with ResponseCache(path) as cache:
        cache.put(make_parts(), answer())
    tamper(path, "UPDATE responses SET parts = '{\"messages\": '")
    with ResponseCache(path, mode) as cache, pytest.raises(CacheError) as info:
        cache.get(make_parts(sample=1))  # a miss compares the call with the cached keys
    assert "(a cached response is not as arena wrote it: its key is not a JSON object)" in str(
        info.value
    )


def test_a_lone_surrogate_comes_back_exactly_and_other_text_is_stored_as_before(
    response_cache: ResponseCache,
) -> None:
    """SQLite holds UTF-8, which cannot hold half a UTF-16 pair: storing an answer ending
    in half an emoji ("Here: \\ud83d", valid JSON from a server) raised UnicodeEncodeError,
    and the answer was lost."""
    asked = make_parts(messages=[{"role": "user", "content": "cut \udc00 short"}])
    response = Response("Here: \ud83d", tokens_in=3, meta={"note": "half \udfff", "n": "é"})
    response_cache.put(asked, response)
    response_cache.put(make_parts(), answer("café"))
    hit = response_cache.get(asked)
    assert hit is not None
    assert (hit.text, hit.tokens_in, hit.meta) == (response.text, 3, response.meta)
    assert response_cache.get(make_parts(messages=[{"role": "user", "content": "cut"}])) is None
    conn = sqlite3.connect(response_cache.path)
    stored = conn.execute("SELECT typeof(text), text FROM responses").fetchall()
    conn.close()
    assert ("text", "café") in stored  # as every cache so far holds an answer


def test_an_answer_stored_as_utf_8_bytes_reads_as_its_text(response_cache: ResponseCache) -> None:
    response_cache.put(make_parts(), answer("café"))
    tamper(response_cache.path, "UPDATE responses SET text = CAST(text AS BLOB)")
    hit = response_cache.get(make_parts())
    assert hit is not None and hit.text == "café"


def test_a_cache_made_on_one_thread_works_on_an_event_loop_thread(path: Path) -> None:
    cache = ResponseCache(path)
    cache.put(make_parts(), answer("from main"))
    seen: list[str | None] = []

    async def engine() -> None:
        hit = cache.get(make_parts())
        seen.append(hit.text if hit else None)
        cache.put(make_parts(sample=1), answer("from the loop"))

    thread = threading.Thread(target=lambda: asyncio.run(engine()))
    thread.start()
    thread.join(timeout=30)
    hit = cache.get(make_parts(sample=1))
    cache.close()
    assert seen == ["from main"]
    assert hit is not None
    assert hit.text == "from the loop"


# -- processes sharing one file

KEYS = 120


def _value(key: int) -> str:
    return f"answer to {key}: " + "x" * (key % 50)


ROUNDS = 20  # fresh files, so that processes also race to create one


def _worker(paths: list[str], worker: int, start: Any, results: Any) -> None:
    """On each file at the same moment as the others: read-or-write every key, in an order
    of its own, then read them all back."""
    problems: list[str] = []
    try:
        for path in paths:
            start.wait(timeout=60)
            with ResponseCache(path) as cache:
                first = worker * KEYS // 4
                order = [*range(first, KEYS), *range(first)]
                for key in reversed(order) if worker % 2 else order:
                    parts = make_parts(sample=key)
                    hit = cache.get(parts)
                    if hit is None:
                        cache.put(parts, Response(_value(key), tokens_in=key))
                    elif hit.text != _value(key):
                        problems.append(f"key {key}: {hit.text!r}")
                for key in range(KEYS):
                    hit = cache.get(make_parts(sample=key))
                    if hit is None or (hit.text, hit.tokens_in) != (_value(key), key):
                        problems.append(f"key {key} read back as {hit!r}")
    except Exception as exc:
        problems.append(f"{type(exc).__name__}: {exc}")
        start.abort()  # the others stop waiting for this one
    results.put((worker, problems))


def test_processes_share_one_cache_file_at_once(tmp_path: Path) -> None:
    paths = [default_cache_path(tmp_path / f"round{n}") for n in range(ROUNDS)]
    context = multiprocessing.get_context("spawn")
    start, results = context.Barrier(4), context.Queue()
    workers = [
        context.Process(target=_worker, args=([str(p) for p in paths], n, start, results))
        for n in range(4)
    ]
    for process in workers:
        process.start()
    reports = dict(results.get(timeout=120) for _ in workers)
    for process in workers:
        process.join(timeout=30)
    assert reports == {0: [], 1: [], 2: [], 3: []}
    for path in paths:
        with ResponseCache(path) as cache:
            assert cache.stats().entries == KEYS  # type: ignore[union-attr]


# -- stats and clear


def test_stats_count_entries_per_model(response_cache: ResponseCache) -> None:
    assert response_cache.stats() is None
    for sample in range(3):
        response_cache.put(make_parts(sample=sample), answer())
    response_cache.put(make_parts(model="gpt_large"), answer())
    response_cache.put(make_parts(connector="sim", model="sim_small", base_url=None), answer())
    stats = response_cache.stats()
    assert stats is not None
    assert stats.entries == 5
    assert stats.per_model == {
        ("openai", "gpt_large"): 1,
        ("openai", "gpt_small"): 3,
        ("sim", "sim_small"): 1,
    }
    assert stats.oldest is not None
    assert stats.newest is not None
    assert stats.oldest <= stats.newest
    assert stats.size_bytes >= path_size(response_cache.path)


def path_size(path: Path) -> int:
    return path.stat().st_size


def test_clear_one_model_then_all(response_cache: ResponseCache) -> None:
    for sample in range(3):
        response_cache.put(make_parts(sample=sample), answer())
    response_cache.put(make_parts(model="gpt_large"), answer())
    assert response_cache.clear(model="gpt_small") == 3
    assert response_cache.get(make_parts()) is None
    assert response_cache.get(make_parts(model="gpt_large")) is not None
    assert response_cache.clear() == 1
    assert response_cache.stats().entries == 0  # type: ignore[union-attr]


# -- the arena command


def fill(path: Path) -> None:
    with ResponseCache(path) as cache:
        for sample in range(3):
            cache.put(make_parts(sample=sample), answer())
        cache.put(make_parts(model="gpt_large"), answer())


def test_arena_cache_stats(path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    fill(path)
    assert main(["cache", "stats", "--path", str(path)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == f"response cache {path}"
    assert lines[1].startswith("4 cached responses, ")
    assert lines[1].endswith(" KiB on disk")
    assert lines[2].startswith("oldest 20")
    assert [line.split() for line in lines[3:]] == [
        ["connector", "model", "responses"],
        ["openai", "gpt_large", "1"],
        ["openai", "gpt_small", "3"],
    ]


def test_arena_cache_stats_without_a_cache(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "nothing.sqlite3"
    assert main(["cache", "stats", "--path", str(path)]) == 0
    assert capsys.readouterr().out == f"no response cache at {path}\n"


def test_arena_cache_clear_one_model_then_all(
    path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    fill(path)
    assert main(["cache", "clear", "--path", str(path), "--model", "gpt_small"]) == 0
    assert capsys.readouterr().out == f"removed 3 cached responses of model gpt_small from {path}\n"
    assert main(["cache", "clear", "--path", str(path), "--model", "gpt_smal"]) == 0
    assert capsys.readouterr().out.splitlines() == [
        f"removed 0 cached responses of model gpt_smal from {path}",
        "cached models: gpt_large",
        "--model takes a model's name as its connector sends it (the model: of a definition"
        " in arena.yaml), not the key the project gives it",
    ]
    # a provider's model key: the connector and the name it sends
    assert main(["cache", "clear", "--path", str(path), "--model", "anthropic:gpt_large"]) == 0
    assert capsys.readouterr().out.startswith("removed 0 cached responses")
    assert main(["cache", "clear", "--path", str(path), "--model", "openai:gpt_large"]) == 0
    out = capsys.readouterr().out
    assert out == f"removed 1 cached response of model openai:gpt_large from {path}\n"
    fill(path)
    assert main(["cache", "clear", "--path", str(path)]) == 0
    assert capsys.readouterr().out == f"removed 4 cached responses from {path}\n"


@pytest.mark.parametrize("name", ["pytest.ini", "pytest.toml", ".pytest.toml"])
def test_arena_cache_uses_the_rootdir_cache_by_default(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    name: str,
) -> None:
    """From a project's folder, the cache under pytest's rootdir (under pytest 9's
    pytest.toml, `arena cache` looked in that folder, and said there was nothing there)."""
    if name.endswith(".toml") and int(pytest.version_tuple[0]) < 9:
        pytest.skip("pytest.toml is pytest 9's")
    (tmp_path / name).write_text("[pytest]\n")
    (tmp_path / "projects" / "quiz").mkdir(parents=True)
    fill(default_cache_path(tmp_path))
    monkeypatch.chdir(tmp_path / "projects" / "quiz")
    assert find_rootdir(Path.cwd()) == tmp_path
    assert main(["cache", "clear"]) == 0
    assert capsys.readouterr().out == (
        f"removed 4 cached responses from {default_cache_path(tmp_path)}\n"
    )


def test_arena_cache_on_an_unreadable_file(path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path.parent.mkdir()
    path.write_bytes(b"\x00garbage" * 600)
    assert main(["cache", "stats", "--path", str(path)]) == 4
    assert capsys.readouterr().err == (
        f"arena cache: the response cache {path} cannot be read (file is not a database);"
        f" delete the file or run `arena cache clear --path {path}` to start a new cache\n"
    )
    assert main(["cache", "clear", "--path", str(path)]) == 0
    assert capsys.readouterr().out == f"removed the unreadable cache file {path}\n"
    assert not path.exists()


@pytest.mark.parametrize(
    ("created", "said"),
    [
        ("'abc'", "oldest 20* UTC, newest unknown"),
        ("1e30", "oldest 20* UTC, newest unknown"),
        ("-1e300", "oldest unknown, newest 20* UTC"),
    ],
)
def test_arena_cache_stats_says_a_date_that_does_not_read_is_unknown(
    path: Path, capsys: pytest.CaptureFixture[str], created: str, said: str
) -> None:
    """A changed row's date crashed `arena cache stats` with a traceback (TypeError, or
    OverflowError past the calendar's years)."""
    fill(path)
    tamper(path, f"UPDATE responses SET created = {created} WHERE model = 'gpt_large'")
    assert main(["cache", "stats", "--path", str(path)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert fnmatch.fnmatchcase(lines[2], said), lines[2]
    assert lines[1].startswith("4 cached responses, ")


def test_arena_cache_clear_never_deletes_a_file_not_named_like_a_cache(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    notes = tmp_path / "notes.txt"
    notes.write_text("my notes\n" * 200)
    assert main(["cache", "clear", "--path", str(notes)]) == 4
    said = capsys.readouterr().err
    assert "cannot be read (file is not a database)" in said
    # the fix it gives is not the command that has just refused
    assert "arena cache clear" not in said and "delete the file if it is a broken cache" in said
    assert notes.read_text() == "my notes\n" * 200


def test_arena_cache_clear_never_deletes_a_newer_versions_cache(
    path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`arena cache clear --model gpt_small` on a cache a newer pytest-arena wrote said
    "removed the unreadable cache file": every model's paid answers were gone."""
    fill(path)
    tamper(path, "PRAGMA user_version = 2")
    before = path.read_bytes()
    for argv in (["clear", "--model", "gpt_small"], ["clear"]):
        assert main(["cache", *argv, "--path", str(path)]) == 4
        said = capsys.readouterr()
        assert said.out == ""
        assert said.err.startswith(
            f"arena cache: the response cache {path} was written by a newer pytest-arena"
            " (format 2, this one reads 1); upgrade pytest-arena to use it"
        )
    assert path.read_bytes() == before


def test_arena_cache_clear_of_one_model_never_deletes_the_whole_file(
    path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path.parent.mkdir()
    path.write_bytes(b"\x00garbage" * 600)
    assert main(["cache", "clear", "--model", "gpt_small", "--path", str(path)]) == 4
    assert capsys.readouterr().err == (
        f"arena cache: the response cache {path} cannot be read (file is not a database);"
        f" delete the file or run `arena cache clear --path {path}` to start a new cache;"
        " --model removes one model's answers from a cache that can be read, so nothing was"
        " removed\n"
    )
    assert path.read_bytes() == b"\x00garbage" * 600


@pytest.mark.parametrize(
    ("name", "content", "what"),
    [
        ("notes.db", b"my precious notes\n", "a text file"),
        (
            "photo.sqlite",
            b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" * 40,
            "a file that is no SQLite database",
        ),
    ],
)
def test_arena_cache_clear_never_deletes_a_file_that_is_no_sqlite_database(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str, content: bytes, what: str
) -> None:
    """`arena cache clear --path notes.db` deleted the user's notes: an SQLite suffix was all
    it took."""
    notes = tmp_path / name
    notes.write_bytes(content)
    assert main(["cache", "clear", "--path", str(notes)]) == 4
    assert capsys.readouterr().err == (
        f"arena cache: the response cache {notes} cannot be read (file is not a database); it"
        f" is {what}, which arena never deletes: give the cache another path, or delete the"
        " file if it is a broken cache\n"
    )
    assert notes.read_bytes() == content


def test_arena_cache_clear_deletes_a_broken_sqlite_file_at_the_path_it_is_given(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    broken = tmp_path / "answers.db"
    fill(broken)
    with broken.open("r+b") as file:  # its header stays, its first page is gone
        file.seek(16)
        file.write(b"\xff" * 4000)
    assert main(["cache", "clear", "--path", str(broken)]) == 0
    assert capsys.readouterr().out == f"removed the unreadable cache file {broken}\n"
    assert not broken.exists()


def test_arena_cache_never_deletes_another_programs_database(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`arena cache clear --path app.db` deleted a database of the user's: its name has an
    SQLite suffix, though arena had read that it is no cache of its own."""
    app = tmp_path / "app.db"
    with sqlite3.connect(app) as conn:
        conn.execute("CREATE TABLE users (name TEXT)")
        conn.execute("INSERT INTO users VALUES ('ada')")
    conn.close()
    for argv in (["stats"], ["clear"], ["clear", "--model", "gpt_small"]):
        assert main(["cache", *argv, "--path", str(app)]) == 4
        said = capsys.readouterr()
        assert said.out == ""
        assert said.err == (
            f"arena cache: the response cache {app} cannot be read (an SQLite database, but not"
            " a pytest-arena response cache); arena leaves another program's database as it"
            " is: give the cache another path\n"
        )
    with sqlite3.connect(app) as conn:
        assert conn.execute("SELECT name FROM users").fetchall() == [("ada",)]
    conn.close()


def test_the_arena_command_shows_the_cache(pytester: pytest.Pytester) -> None:
    fill(default_cache_path(pytester.path))
    pytester.makeini("[pytest]\n")
    result = pytester.run(*ARENA, "cache", "stats", timeout=60)
    assert result.ret == 0
    result.stdout.fnmatch_lines(
        [
            f"response cache {default_cache_path(pytester.path)}",
            "4 cached responses, * KiB on disk",
            "*openai*gpt_small*3",
        ]
    )
    result = pytester.run(*ARENA, "cache", "clear", "--model", "gpt_large", timeout=60)
    assert result.ret == 0
    result.stdout.fnmatch_lines(["removed 1 cached response of model gpt_large from *"])


PY = sys.executable


def built(connector: str, **settings: Any) -> Connector:
    from pytest_arena.connectors import build_connector
    from pytest_arena.spec.schema import ModelDef

    defined = {"m": ModelDef.model_validate({"connector": connector, **settings})}
    return build_connector("m", defined, Path("arena.yaml"))


@pytest.mark.parametrize(
    ("connector", "one", "other"),
    [
        ("openai", {"headers": {"OpenAI-Beta": "a"}}, {"headers": {"OpenAI-Beta": "b"}}),
        ("anthropic", {"anthropic_version": "2023-06-01"}, {"anthropic_version": "2099-01-01"}),
        ("anthropic", {"headers": {"anthropic-beta": "x"}}, {}),
        (
            "command",
            {"command": [PY, "-V"], "env": {"MODE": "careful"}},
            {"command": [PY, "-V"], "env": {"MODE": "sloppy"}},
        ),
        ("command", {"command": [PY, "-V"]}, {"command": [PY, "-VV"]}),
        ("python", {"callable": "json:dumps"}, {"callable": "json:loads"}),
    ],
)
def test_a_setting_that_changes_the_answer_changes_the_key(
    connector: str, one: dict[str, Any], other: dict[str, Any]
) -> None:
    first, second = (key_parts(built(connector, **s), request()) for s in (one, other))
    assert canonical_json(first) != canonical_json(second)


def test_a_default_written_out_keeps_the_key() -> None:
    """Anthropic's `max_tokens: 1024`, written out, sends the same body as leaving it out:
    it missed every cached answer (and paid for them again)."""
    plain, written = (
        key_parts(built("anthropic", model="y", **settings), request())
        for settings in ({}, {"params": {"max_tokens": 1024}})
    )
    assert canonical_json(plain) == canonical_json(written)
    other = key_parts(built("anthropic", model="y", params={"max_tokens": 2048}), request())
    assert canonical_json(other) != canonical_json(plain)


def test_a_credential_in_headers_or_env_decides_the_key_but_is_not_in_it() -> None:
    for connector, settings in (
        ("openai", {"headers": {"Authorization": f"Bearer {SECRET}"}}),
        ("command", {"command": [PY, "-V"], "env": {"AGENT_KEY": SECRET}}),
    ):
        parts = key_parts(built(connector, **settings), request())
        assert SECRET not in canonical_json(parts)


def test_a_model_without_headers_or_another_version_keeps_the_key_it_always_had() -> None:
    openai = key_parts(built("openai", base_url="http://127.0.0.1:8000/v1", model="x"), request())
    anthropic = key_parts(
        built("anthropic", base_url="http://127.0.0.1:8000", model="y"), request()
    )
    assert (
        sorted(openai)
        == sorted(anthropic)
        == ["base_url", "connector", "messages", "model", "params", "sample"]
    )


def test_a_workspace_path_in_the_messages_keeps_the_key_of_another_runs_workspace(
    tmp_path: Path,
) -> None:
    connector = HttpLike("gpt_small", HttpLike.Settings())

    def turn(workspace: Path) -> Request:
        said = f"saved to {workspace / 'note.txt'}"  # a tool's result naming its file
        case = Case(id="c", input="save it", project="p")
        messages = [{"role": "user", "content": "save it"}, {"role": "tool", "content": said}]
        return Request("gpt_small", messages, case, workspace=workspace)

    first, second = (key_parts(connector, turn(tmp_path / run / "w")) for run in ("r1", "r2"))
    assert canonical_json(first) == canonical_json(second)  # a rerun hits the cache
    assert first["messages"][1]["content"] == "saved to {workspace}/note.txt"
