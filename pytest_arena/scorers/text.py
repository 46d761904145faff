"""Small text helpers shared by the builtin scorers."""

from __future__ import annotations

import json
import re
import unicodedata
from typing import Any

_FENCE = re.compile(r"^\s*```[\w+-]*[ \t]*\n(.*?)\n?```\s*$", re.S)
_PREFIX = re.compile(r"^\s*(?:final answer|answer|the answer is)\s*[:\-]?\s*", re.I)
# control characters (C0, DEL, C1), lone surrogates and noncharacters: what a terminal
# obeys or XML cannot hold; Unicode's format characters (category Cf: bidirectional marks,
# overrides and isolates, zero-width spaces, the BOM, tags) and line and paragraph
# separators: what reorders a line or hides in it ('Par\u200bis' looks like 'Paris').
# Not the zero-width joiners (U+200C, U+200D), which shape words and emoji as they should,
# nor the tags of a flag's emoji (a black flag, tags, a cancel tag: Scotland's), matched first.
_UNPRINTABLE = re.compile(
    "(\U0001f3f4[\U000e0020-\U000e007e]+\U000e007f)|[\x00-\x1f\x7f-\x9f\xad\u0600-\u0605\u061c\u06dd\u070f\u0890\u0891\u08e2\u180e"
    "\u200b\u200e\u200f\u2028-\u202e\u2060-\u2064\u2066-\u206f\ud800-\udfff\ufeff"
    "\ufff9-\ufffb\ufffe\uffff\U000110bd\U000110cd\U00013430-\U0001343f"
    "\U0001bca0-\U0001bca3\U0001d173-\U0001d17a\U000e0001\U000e0020-\U000e007f]"
)
_NAMED = {"\n": "\\n", "\t": "\\t", "\r": "\\r"}


# typographic quotes and apostrophes (U+2018-U+201F) as typed on a keyboard
_QUOTES = str.maketrans(
    {
        **dict.fromkeys("\u2018\u2019\u201a\u201b", "'"),
        **dict.fromkeys("\u201c\u201d\u201e\u201f", '"'),
    }
)


def only_quotes(text: str) -> bool:
    """Whether `text` is typographic quotes alone (U+2019, say): looked for, it is the mark
    itself that is meant, not the words a reader sees."""
    return bool(text.strip()) and all(ch in _QUOTES for ch in map(ord, text.strip()))


def canonical(text: str) -> str:
    """`text` as a reader sees it: in Unicode's composed form (NFC), so an "é" typed as one
    character and as "e" and an accent are one text, and with typographic quotes written
    as a keyboard's (U+2019 as ', U+201C and U+201D as ")."""
    return text if text.isascii() else unicodedata.normalize("NFC", text).translate(_QUOTES)


_EMPHASISED = re.compile(r"(\*\*|__|\*)((?:final\s+)?answer)\1", re.I)  # **Answer**: B
_HEADING = re.compile(r"^#{1,6}[ \t]*((?:final\s+)?answer)[ \t]*:?[ \t]*\n+", re.I | re.M)


def plain_marks(text: str) -> str:
    """`text` with an answer's markdown marks written plainly: "**Answer**: B" and a
    "## Answer" heading over its line are "Answer: B", as the readers of marks expect."""
    if "answer" not in text.lower():
        return text
    return _HEADING.sub(r"\1: ", _EMPHASISED.sub(r"\2", text))


def printable(text: str, *, lines: bool = False) -> str:
    """`text` with what a terminal or an XML file must not be given written as its escape
    (`\\x1b`, `\\u202e`), so that a model's output cannot move the cursor, retitle the
    terminal, reorder a line or break a report; `lines` keeps newlines and tabs."""
    if _UNPRINTABLE.search(text) is None:
        return text

    def escaped(match: re.Match[str]) -> str:
        char = match.group()
        if match.group(1) or (lines and char in "\n\t"):  # a flag, or lines kept
            return char
        code = ord(char)
        if char in _NAMED:
            return _NAMED[char]
        return (
            f"\\x{code:02x}"
            if code < 0x100
            else f"\\u{code:04x}"
            if code < 0x10000
            else f"\\U{code:08x}"
        )

    return _UNPRINTABLE.sub(escaped, text)


_PART_ESCAPE = re.compile(r"\\(?:x[0-9a-f]?|u[0-9a-f]{0,3}|U[0-9a-f]{0,7})?\Z")


def said_together(items: list[str]) -> str:
    """`a`, `a and b`, `a, b and c`: items as a sentence lists them."""
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def excerpt(value: Any, limit: int = 60) -> str:
    """A short excerpt of a value for reasons: text quoted, other values as JSON."""
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    text = printable(text)
    if len(text) > limit:  # cut before an escape the limit would split (`\U…`)
        text = _PART_ESCAPE.sub("", text[: limit - 1]) + "…"
    return f"'{text}'" if isinstance(value, str) else text


def strip_fence(text: str) -> str | None:
    """The inside of a markdown code fence, or None when `text` is not fenced."""
    match = _FENCE.match(text)
    return match.group(1) if match else None


_JSON_START = re.compile(r"[\[{]")


_FENCES = re.compile(r"```[\w+-]*[ \t]*\n(.*?)\n?```", re.S)


def extract_json(text: str) -> str | None:
    """The JSON in free text: the first markdown fence that holds JSON (the only fence's
    inside, JSON or not, for the error to show), else the longest JSON object or array in
    the prose (a record, not the citation "[1]" before it); None when there is none."""
    for fence in _FENCES.finditer(text):
        try:
            json.loads(fence.group(1))
        except ValueError:
            continue
        return fence.group(1)
    inner = strip_fence(text)
    if inner is not None:
        return inner
    decoder = json.JSONDecoder()
    found: str | None = None
    match = _JSON_START.search(text)
    while match is not None:
        try:
            _, end = decoder.raw_decode(text, match.start())
        except json.JSONDecodeError:
            match = _JSON_START.search(text, match.start() + 1)
            continue
        if found is None or end - match.start() > len(found):
            found = text[match.start() : end]
        match = _JSON_START.search(text, end)  # what lies inside it is no other candidate
    return found


def read_json(output: str, extract: bool = False) -> tuple[Any, str | None]:
    """The JSON document in `output` (the first one in it, with `extract`), or why not."""
    text = (extract_json(output) or output) if extract else output
    try:
        return json.loads(text, parse_constant=_not_json), None
    except _NotJson as exc:
        return None, f"output is not valid JSON ({exc} is no JSON value): {excerpt(output)}"
    except json.JSONDecodeError as exc:
        where = f"line {exc.lineno} column {exc.colno}"
        reason = f"output is not valid JSON ({exc.msg} at {where}): {excerpt(output)}"
        if strip_fence(output) is not None:
            reason += (
                "; it is wrapped in a markdown fence:"
                " strip it in hooks.py post_process or set extract: true"
            )
        return None, reason


class _NotJson(ValueError):
    pass


def _not_json(constant: str) -> Any:
    """NaN and Infinity, which Python's json reads and JSON has not."""
    raise _NotJson(constant)


def surface_hint(output: str, expected: str) -> str:
    """Say why an output that differs from `expected` might still be the same answer."""
    inner = strip_fence(output)
    if inner is not None and inner.strip() == expected.strip():
        return "it matches once the markdown fence is removed: strip it in hooks.py post_process"
    prefix = _PREFIX.match(output)
    if prefix and prefix.end() > 0:
        rest = output[prefix.end() :].strip()
        if rest.rstrip(".") == expected.strip() or rest == expected.strip():
            said = prefix.group(0).strip()
            return f"it matches once '{said}' is removed: strip it in hooks.py post_process"
    got, want = _number(output), _number(expected)
    if got is not None and got == want:
        return "it is the same number written another way: normalise it in hooks.py post_process"
    if output.strip().lower() == expected.strip().lower():
        return "it differs only in letter case: set the option ignore_case: true"
    if " ".join(output.split()) == " ".join(expected.split()):
        return "it differs only in whitespace: set the option normalize_whitespace: true"
    return ""


_NUMERIC = re.compile(r"^[-+]?\d[\d,]*(\.\d+)?$")


def _number(text: str) -> float | None:
    text = text.strip()
    if not _NUMERIC.match(text):
        return None
    try:
        return float(text.replace(",", ""))
    except ValueError:
        return None
