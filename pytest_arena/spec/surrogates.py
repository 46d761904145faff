"""Lone surrogates: halves of a character (`\\ud800`), which a JSON escape can write but UTF-8
cannot encode, so that no model, agent or report could be given them; found where they are
written, with the fix; and text that may still hold one (a hook's, an agent's, a model's)
made into what UTF-8 can carry."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from pytest_arena.spec.errors import Problem

Loc = tuple[str | int, ...]

_HALF = re.compile("[\ud800-\udfff]")
_PAIR = re.compile("([\ud800-\udbff])([\udc00-\udfff])")  # a high half before a low one
JSON_HINT = "write the whole pair (\\ud83d\\ude00) or remove it"


def halves(value: Any, loc: Loc = ()) -> Iterator[tuple[Loc, str]]:
    """(location, its first surrogate and the character after it) of each string in `value`
    (JSON data, keys too) that holds a lone surrogate; a key's location is the one it names."""
    if isinstance(value, str):
        found = None if value.isascii() else _HALF.search(value)
        if found is not None:
            yield loc, value[found.start() : found.start() + 2]
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from halves(key, (*loc, key))
            yield from halves(item, (*loc, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from halves(item, (*loc, index))


def problem(path: Path, line: int | None, key: str, half: str, yaml: bool = False) -> Problem:
    """The problem of the value at `key` of `path` that holds the surrogate `half` (and what
    follows it); `yaml`: the fix a YAML file takes, else a JSON file's."""
    return Problem(
        path, line, f"holds {said(half)}", key=key, hint=yaml_hint(half) if yaml else JSON_HINT
    )


def said(half: str) -> str:
    """The surrogate that `half` starts with, said: "an unpaired surrogate (\\ud800), ..."."""
    return f"an unpaired surrogate (\\u{ord(half[0]):04x}), half of a character"


def yaml_hint(half: str) -> str:
    """The fix in YAML of the surrogate `half` starts with. YAML joins no pair of escapes
    (`"\\ud83d\\ude00"` is two halves): the character they make is one, `"\\U0001f600"`."""
    pair = _PAIR.match(half)
    if pair is None:
        return 'write the whole character, as itself or as one escape ("\\U0001f600"), or remove it'
    high, low = (ord(c) for c in pair.groups())
    joined = 0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00)
    return f'write the character the pair makes as one escape, "\\U{joined:08x}", or remove it'


def json_text(data: Any) -> str:
    """`data` as JSON that UTF-8 can encode: with a lone surrogate in it, every character past
    ASCII as JSON's escape (`\\ud800`), which a JSON reader reads back as the same string."""
    text = json.dumps(data, ensure_ascii=False)
    try:
        text.encode()
    except UnicodeEncodeError:
        return json.dumps(data)
    return text


def replaced(text: str) -> str:
    """`text` with each lone surrogate as U+FFFD, the replacement character (two halves that
    make a character, as that character): what UTF-8 can encode."""
    try:
        text.encode()
    except UnicodeEncodeError:
        return text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
    return text
