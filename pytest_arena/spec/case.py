"""A case as the rest of pytest-arena sees it."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

Input = str | list[dict[str, str]] | dict[str, Any]


@dataclass(frozen=True)
class Case:
    """One test case: what is asked, what is expected, and where it was written."""

    id: str
    input: Input
    reference: Any = None
    tags: tuple[str, ...] = ()
    weight: float = 1.0
    eval_type: str | None = None
    options: Mapping[str, Any] = field(default_factory=dict)
    metadata: Mapping[str, Any] = field(default_factory=dict)
    project: str = ""
    source: Path = Path("arena.yaml")
    line: int = 1
    dataset: str | None = None
    field_lines: Mapping[str, int] = field(default_factory=dict, repr=False, compare=False)

    def line_of(self, name: str) -> int:
        """The line where this case sets `name`, else the case's first line."""
        return self.field_lines.get(name, self.line)


def as_text(value: Any) -> str:
    """A value as the text a model would write: strings as they are, the rest as JSON."""
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False)
