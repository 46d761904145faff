"""A case as the rest of pytest-arena sees it."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pytest_arena.spec.schema import ComponentSpec

Input = str | list[dict[str, Any]] | dict[str, Any]


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
    scoring: tuple[ComponentSpec, ...] | None = None  # a weighted scoring contract
    threshold: float | None = None
    repeat: tuple[int, int] | None = None  # (min, max) samples; None: the project's
    min_pass_rate: float | None = None  # None: the dataset's, else the project's
    metadata: Mapping[str, Any] = field(default_factory=dict)
    models: tuple[str, ...] | None = None  # model keys or tags it runs on; None: every model
    project: str = ""
    source: Path = Path("arena.yaml")
    line: int = 1
    dataset: str | None = None
    field_lines: Mapping[str, int] = field(default_factory=dict, repr=False, compare=False)
    group: str | None = None  # cases that share a context (one document): clustered errors

    def line_of(self, name: str) -> int:
        """The line where this case sets `name` (`scoring.0`: a contract's first component),
        else the line of the case's own `scoring` key or, failing that, its first line."""
        return self.field_lines.get(name, self.field_lines.get(name.split(".")[0], self.line))


def as_text(value: Any) -> str:
    """A value as the text a model would write: strings as they are, the rest as JSON."""
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False)
