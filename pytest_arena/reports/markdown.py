"""Text in markdown (the GitHub job summary): shown as written, never read as markup."""

from __future__ import annotations

import html
import re

from pytest_arena.scorers.text import printable

_MARKUP = re.compile(r"([\\`*_\[\]|~#])")
# what makes a line's start a block: a list item's marker (`-`, `+`, `1.`) before a space,
# or a heading's underline (`---`, `===`); `#`, `*` and `>` (as `&gt;`) are escaped anywhere
_BLOCK = re.compile(r"^( *(?:\d{1,9}(?=[.)]))?)(?=[-+.)](?:\s|$)|([-=])\2* *$)")
# where GitHub links bare text: a scheme's `://`, `www.`, an address's or a mention's `@`
_LINKED = re.compile(r"(?<=[a-z]:)(?=//)|(?<=\bwww\.)|(?<=@)(?=\w)", re.IGNORECASE)
# an empty HTML element between the parts: no text holds a link, and none is shown or copied
_BREAK = "<wbr>"


def escape_markdown(text: str) -> str:
    """`text` as one line of markdown that shows it as written, also at a line's start:
    HTML as text (`&lt;`), the characters markdown reads (links, emphasis, code, a table's
    `|`, a heading's `#`, a list item's marker that starts it) escaped with a backslash,
    bare links broken by `<wbr>` (`https:<wbr>//…`: GitHub links a URL, even escaped,
    where it is one text), control characters as their escapes and newlines as spaces."""
    line = " ".join(printable(text, lines=True).split("\n"))
    line = _MARKUP.sub(r"\\\1", html.escape(line, quote=False))
    return _LINKED.sub(_BREAK, _BLOCK.sub(r"\1\\", line, count=1))
