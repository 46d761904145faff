"""Text in markdown (the GitHub job summary): shown as written, never read as markup."""

from __future__ import annotations

import html
import re

from pytest_arena.scorers.text import printable

_MARKUP = re.compile(r"([\\`*_\[\]|~])")
# where GitHub links bare text: a scheme's `://`, `www.`, an address's or a mention's `@`
_LINKED = re.compile(r"(?<=[a-z]:)(?=//)|(?<=\bwww\.)|(?<=@)(?=\w)", re.IGNORECASE)
# an empty HTML element between the parts: no text holds a link, and none is shown or copied
_BREAK = "<wbr>"


def escape_markdown(text: str) -> str:
    """`text` as one line of markdown that shows it as written: HTML as text (`&lt;`), the
    characters markdown reads (links, emphasis, code, a table's `|`) escaped with a
    backslash, bare links broken by `<wbr>` (`https:<wbr>//…`: GitHub links a URL, even
    escaped, where it is one text), control characters as their escapes and newlines as
    spaces."""
    line = " ".join(printable(text, lines=True).split("\n"))
    return _LINKED.sub(_BREAK, _MARKUP.sub(r"\\\1", html.escape(line, quote=False)))
