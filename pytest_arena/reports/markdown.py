"""Text in markdown (the GitHub job summary): shown as written, never read as markup."""

from __future__ import annotations

import html
import re

from pytest_arena.scorers.text import printable

_MARKUP = re.compile(r"([\\`*\[\]|~])")


def escape_markdown(text: str) -> str:
    """`text` as one line of markdown that shows it as written: HTML as text (`&lt;`), the
    characters markdown reads (links, emphasis, code, a table's `|`) escaped with a
    backslash, control characters as their escapes and newlines as spaces."""
    line = " ".join(printable(text, lines=True).split("\n"))
    return _MARKUP.sub(r"\\\1", html.escape(line, quote=False))
