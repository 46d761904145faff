"""Reading TeamCity service messages, the stream PyCharm builds its test tree from."""

from __future__ import annotations

import re
from dataclasses import dataclass

MESSAGE = re.compile(r"##teamcity\[(\w+)((?:\s+\w+='(?:[^'|]|\|.)*')*)\s*\]")
ATTRIBUTE = re.compile(r"(\w+)='((?:[^'|]|\|.)*)'")
ESCAPES = {"'": "'", "|": "|", "n": "\n", "r": "\r", "[": "[", "]": "]"}


@dataclass(frozen=True)
class Message:
    name: str
    attrs: dict[str, str]


def unescape(value: str) -> str:
    def one(match: re.Match[str]) -> str:
        code = match.group(1)
        if code.startswith("0x"):
            return chr(int(code[2:], 16))
        return ESCAPES[code]

    return re.sub(r"\|(0x[0-9a-fA-F]{4}|.)", one, value)


def messages(output: str) -> list[Message]:
    """Every service message in `output`, wherever on a line it starts."""
    return [
        Message(m.group(1), {k: unescape(v) for k, v in ATTRIBUTE.findall(m.group(2))})
        for m in MESSAGE.finditer(output)
    ]
