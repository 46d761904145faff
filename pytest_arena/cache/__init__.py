"""The response cache: model answers kept by the key of their call, shared by processes.

The engine builds a key with `key_parts(connector, request)`, asks `cache.get(parts)`
before a call and gives a successful response to `cache.put(parts, response)` after it.
Names are imported when first used, so that the plugin can name the modes cheaply.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pytest_arena._lazy import lazy_names
from pytest_arena.cache.location import (
    CACHE_DIR,
    CACHE_FILE,
    DEFAULT_CACHE_PATH,
    default_cache_path,
    find_rootdir,
)
from pytest_arena.cache.modes import CacheMode

if TYPE_CHECKING:
    from pytest_arena.cache.keys import UncacheableKey, canonical_json, digest, key_parts
    from pytest_arena.cache.store import (
        CachedResponse,
        CacheError,
        CacheStats,
        ReplayMiss,
        ResponseCache,
        UnreadableCache,
    )

_LAZY = {
    **dict.fromkeys(
        ("UncacheableKey", "canonical_json", "digest", "key_parts"), "pytest_arena.cache.keys"
    ),
    **dict.fromkeys(
        (
            "CachedResponse",
            "CacheError",
            "CacheStats",
            "ReplayMiss",
            "ResponseCache",
            "UnreadableCache",
        ),
        "pytest_arena.cache.store",
    ),
}

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
    "UncacheableKey",
    "UnreadableCache",
    "canonical_json",
    "default_cache_path",
    "digest",
    "find_rootdir",
    "key_parts",
]


__getattr__ = lazy_names(__name__, _LAZY)
