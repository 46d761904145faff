"""Where two cache keys differ, told the way a person reads it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pytest_arena.cache.keys import join
from pytest_arena.connectors.base import shown_url
from pytest_arena.scorers.text import said_together

SHOWN_DIFFERENCES = 5  # more are counted, not listed
SNIPPET = 60  # characters of a long string shown around its first difference


class _Absent:
    def __repr__(self) -> str:
        return "absent"


ABSENT: Any = _Absent()


@dataclass(frozen=True)
class Difference:
    path: str  # e.g. params.temperature, messages[1].content
    here: Any  # ABSENT when this call lacks the path
    cached: Any  # ABSENT when the cached entry lacks it


# the order a reader wants a key's parts in: who answered, then how, then what was asked
PART_ORDER = ("connector", "base_url", "model", "params", "sample", "messages")


def key_differences(here: dict[str, Any], cached: dict[str, Any]) -> list[Difference]:
    """The differences of two cache keys, their parts in PART_ORDER, then the others."""
    keys = sorted(
        {*here, *cached},
        key=lambda k: (PART_ORDER.index(k) if k in PART_ORDER else len(PART_ORDER), k),
    )
    out: list[Difference] = []
    for key in keys:
        out += differences(here.get(key, ABSENT), cached.get(key, ABSENT), key)
    return out


def differences(here: Any, cached: Any, path: str = "") -> list[Difference]:
    """The paths where `here` and `cached` differ; a subtree one side lacks is one difference."""
    if isinstance(here, dict) and isinstance(cached, dict):
        out: list[Difference] = []
        for key in sorted({*here, *cached}):
            out += differences(here.get(key, ABSENT), cached.get(key, ABSENT), join(path, key))
        return out
    if isinstance(here, list) and isinstance(cached, list):
        out = []
        for index in range(max(len(here), len(cached))):
            out += differences(
                here[index] if index < len(here) else ABSENT,
                cached[index] if index < len(cached) else ABSENT,
                join(path, index),
            )
        return out
    # 0 and 0.0, or 1 and true, are different keys: compare types as well as values
    if type(here) is type(cached) and here == cached:
        return []
    return [Difference(path, here, cached)]


def describe(diffs: list[Difference]) -> str:
    """`params.temperature (0.2 here, 0.0 cached) and messages[1].content ('a' here, 'b' cached)`"""
    shown = []
    for d in diffs[:SHOWN_DIFFERENCES]:
        here, cached = d.here, d.cached
        if d.path == "base_url":  # an entry of an older key may hold a URL's credential
            here, cached = (shown_url(v) if isinstance(v, str) else v for v in (here, cached))
            if here == cached:
                shown.append(f"{d.path} (a credential in it: not shown)")
                continue
        shown.append(f"{d.path} ({_show(here, cached)} here, {_show(cached, here)} cached)")
    if len(diffs) > SHOWN_DIFFERENCES:
        shown.append(f"{len(diffs) - SHOWN_DIFFERENCES} more")
    return said_together(shown)


def _show(value: Any, other: Any) -> str:
    if isinstance(value, str) and len(value) > SNIPPET:
        return repr(_snippet(value, other))
    text = repr(value)
    if len(text) > SNIPPET:
        return text[: SNIPPET - 1] + "…"
    return text


def _snippet(text: str, other: Any) -> str:
    """The part of a long string around where it first differs from `other`."""
    start = 0
    if isinstance(other, str):
        limit = min(len(text), len(other))
        first = next((i for i in range(limit) if text[i] != other[i]), limit)
        start = max(0, first - SNIPPET // 3)
    end = start + SNIPPET
    return ("…" if start else "") + text[start:end] + ("…" if end < len(text) else "")
