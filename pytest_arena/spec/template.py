"""Prompt templates (`prompt.template`, and `prompt.system` alike): `{name}` fills in a
variable, `{{` and `}}` write a brace."""

from __future__ import annotations

import copy
import re
from collections.abc import Mapping
from functools import lru_cache
from typing import Any

from pytest_arena.spec.case import Case, as_text

NAME = r"[^\W\d]\w*"  # a variable's name: letters (any script), digits and '_'; not a digit first
_PART = re.compile(rf"\{{\{{|\}}\}}|\{{({NAME})\}}")
# "{input" unclosed: at the end, before spaces and "}" ("{input }"), or with no "}" before
# the next "{"; "{red, green}" and "{return 1;}" are braces written as they are
_UNCLOSED = re.compile(rf"\{{{NAME}(?=\s*\}}|$|[^}}\w][^{{}}]*(?:\{{|$))")
_JINJA = re.compile(rf"\{{\{{\s+({NAME})\s+\}}\}}")  # "{{ input }}", Jinja's way
# Jinja's statements and comments: "{% if x %}", "{# note #}"
_JINJA_TAGS = (
    (
        re.compile(r"\{%.*?%\}", re.S),
        "a Jinja statement is not run here; only variables, as in '{input}', are filled in",
    ),
    (re.compile(r"\{#.*?#\}", re.S), "a Jinja comment is not removed here, so delete it"),
)
# "{ input }", "{input!r}", "{input:>9}", "{0}", "{my-var}": sent as written, braces and all
_ALMOST = (
    (
        re.compile(rf"\{{\s+({NAME})\s*\}}|\{{({NAME})\s+\}}"),
        "has no spaces inside its braces",
    ),
    (
        re.compile(
            rf"\{{({NAME})(?:![rsa](?::[^{{}}\s]*)?|:[<>^=+\-#0-9.,_]*[bcdeEfFgGnosxX%]?)\}}"
        ),
        "is a name alone in braces, without a conversion or format",
    ),
    (re.compile(r"\{()\d+\}"), "is named, not numbered"),
    (re.compile(rf"\{{({NAME}(?:-\w+)+)\}}"), "is named with letters, digits and '_'"),
    (
        re.compile(rf"\{{({NAME})(?:\.\w+|\[[^\]{{}}]*\])+\}}"),
        "is one name, with no field looked up in it",
    ),
)


class Template:
    def __init__(self, text: str) -> None:
        self.text = text
        self.fields = frozenset(m.group(1) for m in _PART.finditer(text) if m.group(1))

    def render(self, values: Mapping[str, Any]) -> str:
        def fill(match: re.Match[str]) -> str:
            token = match.group(0)
            if token == "{{":
                return "{"
            if token == "}}":
                return "}"
            return as_text(values[match.group(1)])

        return _PART.sub(fill, self.text)

    def missing(self, values: Mapping[str, Any]) -> list[str]:
        return sorted(self.fields - set(values))

    def nulls(self, values: Mapping[str, Any]) -> list[str]:
        """The variables it fills in whose value is null (it would send the text "null")."""
        return sorted(name for name in self.fields if name in values and values[name] is None)

    def mistake(self, needs_variable: bool = True) -> str | None:
        """A likely slip in the template's syntax (it would be sent as written), or None.
        `needs_variable`: one that fills in no variable is a slip too (a system prompt need
        not fill any in)."""
        text = _PART.sub("", self.text)
        for pattern, what in _JINJA_TAGS:
            tag = pattern.search(self.text)
            if tag:
                return f"'{tag.group(0)}' is sent as written, braces and all: {what}"
        unclosed = _UNCLOSED.search(text)
        if unclosed:
            return f"'{unclosed.group(0)}' is never closed: write '{unclosed.group(0)}}}'"
        jinja = _JINJA.search(self.text)
        if jinja:
            literal = jinja.group(0)[1:-1]
            return (
                f"'{jinja.group(0)}' is sent as '{literal}', braces and all: a variable is"
                f" written with one brace, '{{{jinja.group(1)}}}'"
            )
        for pattern, rule in _ALMOST:
            almost = pattern.search(text)
            if almost:
                name = next((g for g in almost.groups() if g), "input").replace("-", "_")
                return (
                    f"'{almost.group(0)}' is sent as written, braces and all: a variable"
                    f" {rule}, as in '{{{name}}}'"
                )
        if needs_variable and not self.fields:
            return (
                "the template fills in no variable, so every case would send the same prompt:"
                " put '{input}' where the case's input goes"
            )
        return None


@lru_cache(maxsize=256)
def compile_template(text: str) -> Template:
    return Template(text)


def variables(case: Case) -> dict[str, Any]:
    """The names a template may use for this case: `id` is the case's, whatever its input's
    keys; chat messages give no `input` (their dump, images and all, is no prompt text)."""
    values: dict[str, Any] = {}
    if isinstance(case.input, dict):
        values.update(case.input)
        values.setdefault("input", case.input)  # an "input" key is the one meant
    elif not isinstance(case.input, list):
        values["input"] = case.input
    values["id"] = case.id
    return values


def render_messages(case: Case, template: str | None, system: str | None) -> list[dict[str, str]]:
    """The chat messages sent to a model for this case. The system prompt is a template too,
    filled in with the same variables."""
    values = variables(case)
    if isinstance(case.input, list):  # each request's own, parts too: hooks may change them
        messages = [
            copy.deepcopy(m) if isinstance(m.get("content"), list) else dict(m) for m in case.input
        ]
        # its own system message wins: the system prompt is not filled in (nor checked)
        if system is not None and not any(m["role"] == "system" for m in messages):
            system = compile_template(system).render(values)
            if system:
                messages.insert(0, {"role": "system", "content": system})
        return messages
    if system is not None:
        system = compile_template(system).render(values)
    if template is not None:
        content = compile_template(template).render(values)
    else:
        content = as_text(case.input)
    messages = [{"role": "user", "content": content}]
    if system:
        messages.insert(0, {"role": "system", "content": system})
    return messages
