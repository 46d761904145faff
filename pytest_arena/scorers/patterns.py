"""A project's regular expressions, run by the regex module under a time limit.

`re` holds the interpreter through a search that backtracks without end (`^(a|a)+$` on a
long run of `a`s and a `!`), and no timeout can stop it: the run would hang. The regex
module reads re's syntax and stops a search at its `timeout`."""

from __future__ import annotations

from typing import TYPE_CHECKING

from pytest_arena.scorers.text import excerpt

if TYPE_CHECKING:
    import regex

SEARCH_TIMEOUT = 2.0  # seconds the searches of one output by a project's patterns may take


def compile_pattern(pattern: str, flags: int = 0) -> regex.Pattern[str]:
    """`pattern` compiled by the regex module; ValueError naming it if it is not valid."""
    import regex

    try:
        return regex.compile(pattern, flags)
    except regex.error as exc:
        raise ValueError(f"invalid regex pattern {excerpt(pattern)}: {exc}") from exc


def search(
    pattern: regex.Pattern[str], text: str, timeout: float | None = None
) -> regex.Match[str] | None:
    """`pattern.search(text)`, or ValueError naming the pattern once `timeout` seconds
    (default SEARCH_TIMEOUT) have passed."""
    try:
        return pattern.search(text, timeout=SEARCH_TIMEOUT if timeout is None else timeout)
    except TimeoutError:
        raise ValueError(
            f"pattern {excerpt(pattern.pattern)} took more than {SEARCH_TIMEOUT:g} s on the"
            " output: it backtracks without end on text like this; simplify it (no repeat"
            " inside a repeat, such as (a+)+ or (a|a)*)"
        ) from None
