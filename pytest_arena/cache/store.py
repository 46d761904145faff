"""The response cache: one SQLite file shared by every process of a run."""

from __future__ import annotations

import difflib
import json
import math
import os
import re
import sqlite3
import threading
import time
import urllib.parse
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pytest_arena.cache.diff import Difference, describe, key_differences
from pytest_arena.cache.keys import canonical_json, digest
from pytest_arena.cache.location import CACHE_DIR, not_a_cache
from pytest_arena.cache.modes import CacheMode
from pytest_arena.connectors.base import Response

APPLICATION_ID = 0x4152_4331  # "ARC1": marks the file as ours
SCHEMA_VERSION = 1
BUSY_TIMEOUT_S = 30.0  # how long a process waits for another's write before failing
# a replay miss compares the call with the entries of its model that have the same messages
# and with this many of the newest others: a miss stays fast however big the cache grows
NEAREST_CANDIDATES = 2000

_SCHEMA = """
CREATE TABLE IF NOT EXISTS responses (
    digest TEXT PRIMARY KEY,
    connector TEXT NOT NULL,
    model TEXT NOT NULL,
    base_url TEXT NOT NULL,
    messages_digest TEXT NOT NULL,
    parts TEXT NOT NULL,
    text TEXT NOT NULL,
    tokens_in INTEGER NOT NULL,
    tokens_out INTEGER NOT NULL,
    cost REAL,
    latency_ms REAL,
    meta TEXT NOT NULL,
    created REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS responses_by_age ON responses (connector, model, created);
CREATE INDEX IF NOT EXISTS responses_by_messages ON responses (connector, model, messages_digest)
"""
_COLUMNS = "text, tokens_in, tokens_out, cost, latency_ms, meta, created"
_NOT_AS_WRITTEN = "a cached response is not as arena wrote it"  # a row changed by hand, say
_UNDECODABLE = re.compile(r"Could not decode to UTF-8 column '([^']*)'")  # sqlite3's words


class CacheError(Exception):
    """The cache file cannot be used; the message names the file and the fix."""


class UnreadableCache(CacheError):
    """The file at the cache's path is no cache this version can read; `foreign`: it is
    another program's SQLite database, `newer`: a cache of a newer pytest-arena, which arena
    never deletes."""

    def __init__(self, message: str, *, foreign: bool = False, newer: bool = False) -> None:
        super().__init__(message)
        self.foreign = foreign
        self.newer = newer


class CacheLocked(CacheError):
    """Another process held the file locked for longer than BUSY_TIMEOUT_S."""


class _NotAsWritten(Exception):
    """A row does not read as `put` writes it; the message says which of its parts."""


class ReplayMiss(Exception):
    """Strict replay found no cached response; the message says how the call differs from
    the nearest cached one."""


@dataclass(eq=False)
class CachedResponse(Response):
    """A Response read from the cache, with the time (epoch seconds) it was stored."""

    created: float = 0.0


@dataclass
class CacheStats:
    path: Path
    entries: int
    size_bytes: int  # the database and its write-ahead log
    oldest: float | None  # epoch seconds; None without entries, or a time that does not read
    newest: float | None
    per_model: dict[tuple[str, str], int] = field(default_factory=dict)  # (connector, model)


class ResponseCache:
    """Successful model responses by the key of their call (see `key_parts`).

    The engine calls `get` before a call and `put` after a successful one; it must never
    store a failed call. Opens its SQLite connections lazily on first use, so it may be
    made on one thread and used on others; the file is created on the first write.
    Safe for several processes at once (WAL journal, busy timeout, one statement a write).
    Reads and writes have a connection each, so a read never waits behind a write that
    waits for another process to let go of the file. Once a write has waited BUSY_TIMEOUT_S
    for another process's lock in vain, no more are made (each would hold its answer up as
    long); once a read has, the next reads try without waiting, until one gets through.
    """

    def __init__(self, path: Path | str, mode: CacheMode | str = CacheMode.USE) -> None:
        self.path = Path(path)
        self.mode = CacheMode(mode)
        self._reads = _Line()
        self._writes = _Line()
        # misses in use mode of calls whose messages the cache holds for their model: how
        # the nearest such entry differs (a setting changed, or what a key holds did)
        self.near_misses: Counter[str] = Counter()
        self._no_writes = ""  # why writes stopped: the file stayed locked

    def __enter__(self) -> ResponseCache:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def get(self, parts: dict[str, Any]) -> CachedResponse | None:
        """The cached response for this key, or None (a miss, or a mode that does not read).

        In replay mode a miss raises ReplayMiss.
        """
        if self.mode in (CacheMode.OFF, CacheMode.REFRESH):
            return None
        canonical = canonical_json(parts)
        with self._reads.lock:
            line = self._reads
            try:
                found = self._lookup(self._connect(line, create=False), canonical)
            except _NotAsWritten as exc:
                raise self._unusable(f"{_NOT_AS_WRITTEN}: {exc}") from None
            except CacheLocked as exc:
                if line.locked:  # tried at once, without waiting again
                    raise CacheLocked(
                        f"the response cache {self.path} is still locked by another process"
                        f" (a read of this run waited {BUSY_TIMEOUT_S:g} s for it in vain: the"
                        f" next ones try without waiting){_LOCK_FIX}"
                    ) from None
                _wait(line, locked=True)
                raise exc from None
            if line.locked:  # let go: reads wait their turn again
                _wait(line, locked=False)
            return found

    def _lookup(self, conn: sqlite3.Connection | None, canonical: str) -> CachedResponse | None:
        """`get` on an open cache (`conn`, None when there is no file yet); _NotAsWritten
        for a row, or a key a miss compares the call with, that is not as `put` wrote it."""
        rows: list[Any] = []
        if conn is not None:
            rows = self._fetch(
                conn, f"SELECT {_COLUMNS} FROM responses WHERE digest = ?", (digest(canonical),)
            )
        if not rows and self.mode is CacheMode.REPLAY:
            raise ReplayMiss(self._miss_message(conn, json.loads(canonical)))
        if not rows and conn is not None:
            near = self._same_messages(conn, json.loads(canonical))
            if near:
                self.near_misses[near] += 1
        return _response(rows[0]) if rows else None

    def put(self, parts: dict[str, Any], response: Response, replace: bool = False) -> None:
        """Store a successful response (in use and refresh modes; others store nothing);
        `replace`: over the one stored for its key, as refresh mode always does."""
        if not isinstance(response, Response):
            raise TypeError(
                f"only a successful Response is cached, not {type(response).__name__}:"
                " the engine must not cache a failed call"
            )
        if self.mode not in (CacheMode.USE, CacheMode.REFRESH):
            return
        if not isinstance(response.text, str):
            raise TypeError(f"a response's text is a str, not {type(response.text).__name__}")
        canonical = canonical_json(parts)
        meta = _json(response.meta, "response meta")
        # use: two processes that made the same call keep the first answer stored
        conflict = "REPLACE" if replace or self.mode is CacheMode.REFRESH else "IGNORE"
        row = (
            digest(canonical),
            str(parts.get("connector", "")),
            str(parts.get("model", "")),
            str(parts.get("base_url") or ""),
            _messages_digest(parts),
            canonical if _utf8(canonical) else canonical_json(parts, ascii_only=True),
            _storable(response.text),
            response.tokens_in,
            response.tokens_out,
            response.cost,
            response.latency_ms,
            meta,
            time.time(),
        )
        with self._writes.lock:
            if self._no_writes:
                raise CacheError(self._no_writes)
            try:
                conn = self._connect(self._writes, create=True)
                assert conn is not None
                self._execute(
                    conn,
                    f"INSERT OR {conflict} INTO responses VALUES ({', '.join('?' * len(row))})",
                    row,
                )
            except CacheLocked:  # every later write would wait as long: none is made
                self._no_writes = (
                    f"the response cache {self.path} stayed locked by another process for"
                    f" {BUSY_TIMEOUT_S:g} s, so this run wrote no more answers to it (another"
                    " run, or a program with the file open, holds it)"
                )
                raise CacheError(self._no_writes) from None

    def stats(self) -> CacheStats | None:
        """What the cache holds; None when there is no cache file."""
        with self._reads.lock:
            if not self.path.exists():
                return None
            conn = self._connect(self._reads, create=False)
            per_model: dict[tuple[str, str], int] = {}
            entries, oldest, newest = 0, None, None
            if conn is not None:
                [(entries, first, last)] = self._fetch(
                    conn, "SELECT count(*), min(created), max(created) FROM responses"
                )
                oldest, newest = _epoch(first), _epoch(last)
                for connector, model, count in self._fetch(
                    conn,
                    "SELECT connector, model, count(*) FROM responses"
                    " GROUP BY connector, model ORDER BY connector, model",
                ):
                    per_model[(connector, model)] = count
        size = sum(
            p.stat().st_size
            for p in (self.path, self.path.with_name(self.path.name + "-wal"))
            if p.exists()
        )
        return CacheStats(self.path, entries, size, oldest, newest, per_model)

    def clear(self, model: str | None = None, connector: str | None = None) -> int:
        """Remove every entry, or those of one model (the name its connector sends, as
        `stats` lists it), of one connector if given; returns how many were removed."""
        with self._writes.lock:
            conn = self._connect(self._writes, create=False)
            if conn is None:
                return 0
            if model is None:
                cursor = self._execute(conn, "DELETE FROM responses")
            elif connector is None:
                cursor = self._execute(conn, "DELETE FROM responses WHERE model = ?", (model,))
            else:
                cursor = self._execute(
                    conn,
                    "DELETE FROM responses WHERE connector = ? AND model = ?",
                    (connector, model),
                )
            removed = cursor.rowcount
            if removed:
                try:  # give the space back; skipped while another process is using the file
                    conn.execute("PRAGMA busy_timeout = 0")
                    conn.execute("VACUUM")
                except sqlite3.OperationalError:
                    pass
                finally:
                    conn.execute(f"PRAGMA busy_timeout = {int(BUSY_TIMEOUT_S * 1000)}")
            return removed

    def discard(self) -> None:
        """Delete the cache file (with its write-ahead log), readable or not."""
        self.close()
        for suffix in ("", "-wal", "-shm"):
            self.path.with_name(self.path.name + suffix).unlink(missing_ok=True)

    def close(self) -> None:
        for line in (self._reads, self._writes):
            with line.lock:
                if line.conn is not None:
                    line.conn.close()
                    line.conn = None

    # -- the connection

    def _connect(self, line: _Line, *, create: bool) -> sqlite3.Connection | None:
        """The line's open connection; None when reading a cache not there yet (a miss)."""
        if line.conn is not None and line.pid == os.getpid():
            return line.conn
        line.conn = None  # a connection never crosses a fork
        if self.path.is_dir():
            raise CacheError(
                f"the response cache {self.path} is a folder; give the path of a cache file"
            )
        if not create and not self.path.exists():
            return None
        if create:
            self._make_folder()
        addresses = self._addresses(create)
        for address in addresses:
            try:
                conn = sqlite3.connect(
                    address,
                    timeout=0 if line.locked else BUSY_TIMEOUT_S,
                    isolation_level=None,
                    check_same_thread=False,
                    uri=True,
                )
            except sqlite3.Error as exc:
                raise CacheError(f"cannot open the response cache {self.path}: {exc}") from None
            try:
                if not self._ready(conn, create=create):
                    conn.close()
                    return None
            except sqlite3.OperationalError as exc:
                conn.close()
                if address != addresses[-1]:
                    continue  # read-only, and its log's index cannot be made: immutable
                raise self._error(exc) from None
            except sqlite3.DatabaseError as exc:
                conn.close()
                raise self._error(exc) from None
            except BaseException:
                conn.close()
                raise
            break
        line.conn, line.pid = conn, os.getpid()
        return conn

    def _ready(self, conn: sqlite3.Connection, *, create: bool) -> bool:
        """Check the file is our cache, creating the schema in a fresh one when `create`."""
        app_id, version, tables = _header(conn)
        if app_id == 0 and tables == 0:
            if not create:
                return False  # another process is creating it
            _into_wal(conn)
            conn.execute("BEGIN IMMEDIATE")
            try:
                app_id, version, tables = _header(conn)
                if app_id == 0 and tables == 0:
                    for statement in _SCHEMA.split(";"):
                        conn.execute(statement)
                    conn.execute(f"PRAGMA application_id = {APPLICATION_ID}")
                    conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
                    app_id, version = APPLICATION_ID, SCHEMA_VERSION
            finally:
                if conn.in_transaction:
                    conn.execute("COMMIT")
        if app_id != APPLICATION_ID:
            raise self._unusable(
                "an SQLite database, but not a pytest-arena response cache", foreign=True
            )
        if version > SCHEMA_VERSION:
            raise UnreadableCache(
                f"the response cache {self.path} was written by a newer pytest-arena"
                f" (format {version}, this one reads {SCHEMA_VERSION}); upgrade pytest-arena"
                " to use it, or give this version's cache another path: arena never deletes"
                " a newer cache (delete the file yourself if its answers can go)",
                newer=True,
            )
        conn.execute("PRAGMA synchronous = NORMAL")  # WAL stays consistent; fsync at checkpoints
        return True

    def _addresses(self, create: bool) -> list[str]:
        """The file's SQLite URIs to try in turn. Read where nothing can be written (a cache
        shared read-only): read-only, which reads a write-ahead log left beside it (a
        killed run's answers); else, when the log's index cannot be made, as immutable (a
        cache closed cleanly has no log, and no writer can change it)."""
        uri = "file:" + urllib.parse.quote(str(self.path.absolute()))
        writable = os.access(self.path, os.W_OK) and os.access(self.path.parent, os.W_OK)
        return [uri] if create or writable else [f"{uri}?mode=ro", f"{uri}?mode=ro&immutable=1"]

    def _make_folder(self) -> None:
        folder = self.path.parent
        try:
            folder.mkdir(parents=True, exist_ok=True)
            ignore = folder / ".gitignore"
            if folder.name == CACHE_DIR and not ignore.exists():
                ignore.write_text("# written by pytest-arena: never commit the response cache\n*\n")
        except OSError as exc:  # a read-only project: the answer is kept, not cached
            raise CacheError(
                f"the response cache's folder {folder} cannot be written"
                f" ({exc.strerror or exc}); give the cache a place that can be with"
                " --arena-cache-path PATH, or turn it off with --arena-cache off"
            ) from None

    def _execute(
        self, conn: sqlite3.Connection, sql: str, params: tuple[Any, ...] = ()
    ) -> sqlite3.Cursor:
        try:
            return conn.execute(sql, params)
        except sqlite3.DatabaseError as exc:
            if type(exc) not in (sqlite3.DatabaseError, sqlite3.OperationalError):
                raise  # a value that cannot be stored: the caller's mistake, not the file's
            raise self._error(exc) from None

    def _fetch(self, conn: sqlite3.Connection, sql: str, params: tuple[Any, ...] = ()) -> list[Any]:
        """The rows of a query, all read (SQLite reads each as it is fetched, and a text it
        cannot decode fails there)."""
        cursor = self._execute(conn, sql, params)
        try:
            return cursor.fetchall()
        except sqlite3.DatabaseError as exc:
            if type(exc) not in (sqlite3.DatabaseError, sqlite3.OperationalError):
                raise
            raise self._error(exc) from None

    def _error(self, exc: sqlite3.DatabaseError) -> CacheError:
        why = str(exc)
        undecodable = _UNDECODABLE.match(why)
        if undecodable:  # sqlite3 quotes the whole text: a long answer, or worse
            return self._unusable(f"{_NOT_AS_WRITTEN}: its {undecodable[1]} is not UTF-8 text")
        if "locked" in why or "busy" in why:
            return CacheLocked(
                f"the response cache {self.path} is locked by another process"
                f" (waited {BUSY_TIMEOUT_S:g} s){_LOCK_FIX}"
            )
        if isinstance(exc, sqlite3.OperationalError) and "no such" not in why:
            # permissions, a full disk, a missing folder: the file may be fine
            return CacheError(f"the response cache {self.path} cannot be used: {why}")
        return self._unusable(why)

    def _unusable(self, why: str, foreign: bool = False) -> UnreadableCache:
        if foreign:
            fix = "arena leaves another program's database as it is: give the cache another path"
        elif what := not_a_cache(self.path):  # `arena cache clear` deletes only what may be one
            fix = (
                f"it is {what}, which arena never deletes: give the cache another path, or"
                " delete the file if it is a broken cache"
            )
        else:
            fix = f"delete the file or run `arena cache clear --path {self.path}`"
            fix += " to start a new cache"
        return UnreadableCache(
            f"the response cache {self.path} cannot be read ({why}); {fix}", foreign=foreign
        )

    def _same_messages(self, conn: sqlite3.Connection, parts: dict[str, Any]) -> str:
        """How the nearest entry of the call's model with the same messages differs from
        the call ("" when there is none): one indexed look, on a miss only."""
        rows = self._fetch(
            conn,
            "SELECT parts FROM responses"
            " WHERE connector = ? AND model = ? AND messages_digest = ? LIMIT 20",
            (str(parts.get("connector", "")), str(parts.get("model", "")), _messages_digest(parts)),
        )
        found = [key_differences(parts, _key(cached)) for (cached,) in rows]
        # another sample of the same call is a new answer to buy, not a near miss
        found = [[d for d in diffs if d.path != "sample"] for diffs in found]
        if not found or not all(found):
            return ""
        return describe(min(found, key=len))

    def _miss_message(self, conn: sqlite3.Connection | None, parts: dict[str, Any]) -> str:
        head = "no cached response for this call (strict replay): "
        connector, model = str(parts.get("connector", "")), str(parts.get("model", ""))
        rows: list[tuple[str, str]] = []
        if conn is not None:
            rows = self._fetch(
                conn,
                "SELECT parts, base_url FROM responses"
                " WHERE connector = ? AND model = ? AND messages_digest = ?"
                " UNION SELECT * FROM (SELECT parts, base_url FROM responses"
                " WHERE connector = ? AND model = ? ORDER BY created DESC LIMIT ?)",
                (connector, model, _messages_digest(parts), connector, model, NEAREST_CANDIDATES),
            )
        if not rows:
            if conn is None:
                state = "is empty" if self.path.exists() else "does not exist"
                return head + f"the cache {self.path} {state}"
            others = self._fetch(
                conn, "SELECT DISTINCT connector, model FROM responses ORDER BY 1, 2 LIMIT 6"
            )
            held = ", ".join(f"{c}/{m}" for c, m in others[:5]) + (", …" if len(others) > 5 else "")
            return head + (
                f"the cache holds nothing for connector '{connector}', model '{model}'"
                + (f" (it holds {held})" if others else " (it is empty)")
            )
        base_url = str(parts.get("base_url") or "")
        ranked = [
            (other_url != base_url, len(diffs), diffs)
            for cached, other_url in rows
            for diffs in [key_differences(parts, _key(cached))]
        ]
        best = min(rank[:2] for rank in ranked)
        # of entries as far off, the one whose differing texts are most alike: the same
        # case's prompt under a changed template, not another case's
        nearest = _most_alike([diffs for *rank, diffs in ranked if tuple(rank) == best])
        return head + "the nearest cached entry differs in " + describe(nearest)


LIKENESS_CHARS = 2000  # characters of each differing text compared to rank entries as near


def _most_alike(candidates: list[list[Difference]]) -> list[Difference]:
    """The differences whose two sides are most alike. Each is bounded by difflib's quick
    ratio first, and compared closely only while it may win: a miss stays fast though
    thousands of entries differ in one text each."""
    bounded = sorted(
        ((_likeness(diffs, quick=True), -i) for i, diffs in enumerate(candidates)), reverse=True
    )
    best, most = candidates[0], -1.0
    for bound, minus_i in bounded:
        if bound <= most:
            break
        likeness = _likeness(candidates[-minus_i])
        if likeness > most:
            best, most = candidates[-minus_i], likeness
    return best


def _likeness(diffs: list[Difference], quick: bool = False) -> float:
    """How alike the two sides of the differences are, in all (0 to the number of them):
    the similarity of differing texts (difflib's ratio, or with `quick` a bound above it),
    none of other values."""
    total = 0.0
    for d in diffs:
        if isinstance(d.here, str) and isinstance(d.cached, str):
            here, cached = d.here[:LIKENESS_CHARS], d.cached[:LIKENESS_CHARS]
            matcher = difflib.SequenceMatcher(None, here, cached, autojunk=False)
            total += matcher.quick_ratio() if quick else matcher.ratio()
    return total


@dataclass
class _Line:
    """A connection to the cache file, and the lock its users take turns with."""

    lock: threading.Lock = field(default_factory=threading.Lock)
    conn: sqlite3.Connection | None = None
    pid: int = 0  # the process that opened it
    locked: bool = False  # a wait for another process's lock was in vain: try, never wait


# what a message saying the file is locked ends with
_LOCK_FIX = "; let the process holding it (another run, or a program with the file open) finish"


def _wait(line: _Line, *, locked: bool) -> None:
    """Let the line's statements wait for another process's lock (BUSY_TIMEOUT_S), or,
    `locked`, not at all."""
    line.locked = locked
    if line.conn is not None:
        line.conn.execute(f"PRAGMA busy_timeout = {0 if locked else int(BUSY_TIMEOUT_S * 1000)}")


def _into_wal(conn: sqlite3.Connection) -> None:
    """Switch a new file to the write-ahead log. SQLite answers "locked" at once, without
    waiting, while another process makes the same switch: wait for it here."""
    deadline = time.monotonic() + BUSY_TIMEOUT_S
    while True:
        try:
            conn.execute("PRAGMA journal_mode = WAL")
            return
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) or time.monotonic() > deadline:
                raise
            time.sleep(0.005)


def _header(conn: sqlite3.Connection) -> tuple[int, int, int]:
    """The file's application id, format version and number of tables, read at once (one
    statement sees one state of the file, never a schema half made by another process)."""
    row = conn.execute(
        "SELECT (SELECT application_id FROM pragma_application_id),"
        " (SELECT user_version FROM pragma_user_version),"
        " (SELECT count(*) FROM sqlite_master)"
    ).fetchone()
    return int(row[0]), int(row[1]), int(row[2])


def _messages_digest(parts: dict[str, Any]) -> str:
    return digest(canonical_json({"messages": parts.get("messages")}))


def _response(row: tuple[Any, ...]) -> CachedResponse:
    """The response a row holds; _NotAsWritten when a part of it is not as `put` writes it."""
    text, tokens_in, tokens_out, cost, latency_ms, meta, created = row
    return CachedResponse(
        text=_text(text),
        tokens_in=_amount(tokens_in, "tokens_in"),
        tokens_out=_amount(tokens_out, "tokens_out"),
        cost=None if cost is None else _amount(cost, "cost"),
        latency_ms=None if latency_ms is None else _amount(latency_ms, "latency_ms"),
        meta=_object(meta, "meta"),
        created=float(_number(created, "created")),
    )


def _storable(text: str) -> str | bytes:
    """`text` as SQLite can hold it: as it is, or, when UTF-8 cannot encode it (it holds a
    lone surrogate, half of a UTF-16 pair, as a model's JSON may), as a BLOB of its UTF-8
    with each surrogate encoded as any code point is; `_text` reads either back exactly."""
    return text if _utf8(text) else text.encode("utf-8", "surrogatepass")


def _text(value: object) -> str:
    """A row's text, as `_storable` wrote it."""
    if isinstance(value, bytes):
        try:
            return value.decode("utf-8", "surrogatepass")
        except UnicodeDecodeError:
            raise _NotAsWritten("its text is bytes that are not UTF-8") from None
    if not isinstance(value, str):
        raise _NotAsWritten("its text is not text")
    return value


def _number(value: object, column: str) -> Any:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise _NotAsWritten(f"its {column} is not a number")
    return value


def _amount(value: object, column: str) -> Any:
    """A count of tokens, a cost or a latency: a finite number, never negative."""
    number = _number(value, column)
    if not math.isfinite(number):
        raise _NotAsWritten(f"its {column} is not a finite number")
    if number < 0:
        raise _NotAsWritten(f"its {column} is negative ({number!r})")
    return number


def _object(value: object, column: str) -> dict[str, Any]:
    try:
        data = json.loads(value) if isinstance(value, str) else None
    except json.JSONDecodeError:
        data = None
    if not isinstance(data, dict):
        raise _NotAsWritten(f"its {column} is not a JSON object")
    return data


def _key(value: object) -> dict[str, Any]:
    """A row's key parts (its `parts` column)."""
    return _object(value, "key")


def _epoch(value: object) -> float | None:
    """A `created` time that reads as one, or None."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value)


def _utf8(text: str) -> bool:
    """Whether UTF-8 can encode `text` (SQLite holds only such text): it has no lone surrogate."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _json(value: Any, what: str) -> str:
    """`value` as JSON SQLite can hold: a string UTF-8 cannot encode is written with escapes,
    which read back as the same string."""
    try:
        text = json.dumps(value, ensure_ascii=False, allow_nan=False)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{what} is not JSON data, so it cannot be cached ({exc})") from None
    return text if _utf8(text) else json.dumps(value, allow_nan=False)
