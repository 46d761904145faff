"""JSON Schema validation whose patterns cannot hang the run.

jsonschema searches `pattern` and `patternProperties` with `re`, which no timeout can
stop (see scorers/patterns.py), on text a model wrote. Here every pattern is searched by
the regex module instead, all of one document's searches within SEARCH_TIMEOUT:
- `pattern` by a keyword function of our own;
- each `patternProperties` pattern is replaced, for the document at hand, by a plain
  pattern naming the document's keys that it matches, so what jsonschema's keywords
  (patternProperties, additionalProperties, unevaluatedProperties) then search with `re`
  is literal text. Their messages name the project's patterns again.
"""

from __future__ import annotations

import functools
import re
import time
from collections.abc import Iterator
from contextvars import ContextVar
from typing import Any

from pytest_arena.scorers import patterns

# keywords whose value is a mapping of names to subschemas (all drafts)
_MAPPING = frozenset(
    {"$defs", "definitions", "dependencies", "dependentSchemas", "patternProperties", "properties"}
)
_VALUES = frozenset({"const", "default", "enum", "examples"})  # data, not schemas


def iter_errors(validator_class: Any, schema: dict[str, Any] | bool, document: Any) -> list[Any]:
    """The ValidationErrors of `document` against `schema`, validated by `validator_class`
    (a jsonschema validator), its patterns searched as this module says. ValueError naming
    a pattern that is not valid, or that takes longer than SEARCH_TIMEOUT."""
    searches = _Searches(time.monotonic() + patterns.SEARCH_TIMEOUT)
    keys = set(_keys(document))
    originals: dict[str, str] = {}
    plain = _replace_patterns(schema, keys, searches, originals) if keys else schema
    token = _SEARCHES.set(searches)
    try:
        errors = list(_timed(validator_class)(plain).iter_errors(document))
    finally:
        _SEARCHES.reset(token)
    for error in errors:
        for stand_in, original in originals.items():
            error.message = error.message.replace(repr(stand_in), repr(original))
    return errors


@functools.cache
def _timed(validator_class: Any) -> Any:
    """`validator_class` with our `pattern` keyword (made once: a class costs 0.7 ms)."""
    from jsonschema.validators import extend  # type: ignore[import-untyped]

    return extend(validator_class, {"pattern": _pattern})


def _pattern(validator: Any, expected: Any, instance: Any, schema: Any) -> Iterator[Any]:
    from jsonschema.exceptions import ValidationError  # type: ignore[import-untyped]

    if (
        validator.is_type(instance, "string")
        and isinstance(expected, str)
        and not _SEARCHES.get().match(expected, instance)
    ):
        yield ValidationError(f"{instance!r} does not match {expected!r}")


class _Searches:
    """Searches by the regex module, all of them before `deadline`."""

    def __init__(self, deadline: float) -> None:
        self.deadline = deadline
        self.compiled: dict[str, Any] = {}

    def match(self, expected: str, text: str) -> bool:
        compiled = self.compiled.get(expected)
        if compiled is None:
            compiled = self.compiled[expected] = patterns.compile_pattern(expected)
        left = max(self.deadline - time.monotonic(), 0.001)
        return patterns.search(compiled, text, timeout=left) is not None


_SEARCHES: ContextVar[_Searches] = ContextVar("arena_schema_searches")  # the document's


def _keys(document: Any) -> Iterator[str]:
    """Every key of every object in the document."""
    if isinstance(document, dict):
        for key, value in document.items():
            if isinstance(key, str):
                yield key
            yield from _keys(value)
    elif isinstance(document, list):
        for item in document:
            yield from _keys(item)


def _replace_patterns(
    schema: Any, keys: set[str], searches: _Searches, originals: dict[str, str]
) -> Any:
    """A copy of `schema` in which each patternProperties pattern is a plain one matching
    exactly the keys in `keys` that it matches; `originals` maps each back. Every part of
    the schema is walked but its data (`const`, `enum`, …): a `$ref` may point anywhere."""
    if isinstance(schema, list):
        return [_replace_patterns(item, keys, searches, originals) for item in schema]
    if not isinstance(schema, dict):
        return schema
    copy = {}
    for keyword, value in schema.items():
        if keyword in _VALUES:
            copy[keyword] = value
        elif keyword in _MAPPING and isinstance(value, dict):
            inner = {k: _replace_patterns(v, keys, searches, originals) for k, v in value.items()}
            if keyword == "patternProperties":
                inner = {
                    _stand_in(expected, keys, searches, originals): subschema
                    for expected, subschema in inner.items()
                }
            copy[keyword] = inner
        else:
            copy[keyword] = _replace_patterns(value, keys, searches, originals)
    return copy


def _stand_in(expected: str, keys: set[str], searches: _Searches, originals: dict[str, str]) -> str:
    matched = sorted(key for key in keys if searches.match(expected, key))
    # numbered, so that two patterns matching the same keys stay two
    alternatives = "|".join(re.escape(key) for key in matched) if matched else "(?!)"
    stand_in = f"(?#{len(originals)})^(?:{alternatives})\\Z"
    originals[stand_in] = expected
    return stand_in
