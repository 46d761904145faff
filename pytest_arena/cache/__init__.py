"""The response cache: model answers kept by the key of their call, shared by processes.

The engine builds a key with `key_parts(connector, request)`, asks `cache.get(parts)`
before a call and gives a successful response to `cache.put(parts, response)` after it.
"""

from pytest_arena.cache.keys import canonical_json, digest, key_parts
from pytest_arena.cache.location import (
    CACHE_DIR,
    CACHE_FILE,
    DEFAULT_CACHE_PATH,
    default_cache_path,
    find_rootdir,
)
from pytest_arena.cache.store import (
    CachedResponse,
    CacheError,
    CacheMode,
    CacheStats,
    ReplayMiss,
    ResponseCache,
    UnreadableCache,
)

__all__ = [
    "CACHE_DIR",
    "CACHE_FILE",
    "DEFAULT_CACHE_PATH",
    "CacheError",
    "CacheMode",
    "CacheStats",
    "CachedResponse",
    "ReplayMiss",
    "ResponseCache",
    "UnreadableCache",
    "canonical_json",
    "default_cache_path",
    "digest",
    "find_rootdir",
    "key_parts",
]
