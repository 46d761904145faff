"""Reading dataset files (YAML, JSONL, CSV) into rows that remember their line."""

from __future__ import annotations

import csv
import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pytest_arena.spec.errors import Problem, SpecError
from pytest_arena.spec.files import DATASET_FORMATS
from pytest_arena.spec.yamlfile import LineMap, load_yaml


@dataclass(frozen=True)
class Row:
    number: int  # 1-based position among the file's rows
    line: int
    values: dict[str, Any]
    lines: LineMap | None = None  # per-key lines, for YAML rows
    loc: tuple[str | int, ...] = ()


def dataset_format(path: Path, declared: str | None) -> str:
    if declared:
        return declared
    try:
        return DATASET_FORMATS[path.suffix.lower()]
    except KeyError:
        raise SpecError(
            [
                Problem(
                    path,
                    None,
                    f"cannot tell the format of '{path.name}' from its suffix",
                    hint="name it .yaml, .jsonl or .csv, or set 'format:' on the dataset",
                )
            ]
        ) from None


def read_rows(path: Path, fmt: str) -> Iterator[Row | Problem]:
    """Yield each row, or a Problem for a row that cannot be read; other rows go on."""
    if fmt == "jsonl":
        yield from _jsonl(path)
    elif fmt == "csv":
        yield from _csv(path)
    else:
        yield from _yaml(path)


def _jsonl(path: Path) -> Iterator[Row | Problem]:
    number = 0
    with path.open(encoding="utf-8") as handle:
        for lineno, text in enumerate(handle, start=1):
            if not text.strip():
                continue
            number += 1
            try:
                value = json.loads(text.rstrip("\r\n"))
            except json.JSONDecodeError as exc:
                yield Problem(
                    path,
                    lineno,
                    f"not valid JSON: {exc.msg} (column {exc.colno})",
                    hint="each line of a .jsonl file holds one JSON object",
                )
                continue
            if not isinstance(value, dict):
                yield Problem(path, lineno, "a JSONL row must be a JSON object {...}")
                continue
            yield Row(number, lineno, value)


def _csv(path: Path) -> Iterator[Row | Problem]:
    with path.open(encoding="utf-8", newline="") as handle:
        reader = csv.DictReader(handle)
        start = 2
        for number, record in enumerate(reader, start=1):
            if None in record:
                yield Problem(
                    path,
                    start,
                    "this row has more cells than the header has columns",
                    hint="quote cells that contain commas",
                )
            else:
                values = {k: v for k, v in record.items() if v not in (None, "")}
                yield Row(number, start, values)
            start = reader.line_num + 1


def _yaml(path: Path) -> Iterator[Row | Problem]:
    data, lines = load_yaml(path)
    base: tuple[str | int, ...] = ()
    if isinstance(data, dict) and "tests" in data:
        data, base = data["tests"], ("tests",)
    if not isinstance(data, list):
        yield Problem(
            path, 1, "a YAML dataset must be a list of cases", hint="write one '- id: ...' per case"
        )
        return
    for index, value in enumerate(data):
        loc = (*base, index)
        line = lines.line(loc) or 1
        if not isinstance(value, dict):
            yield Problem(path, line, "each case must be a mapping of keys")
            continue
        yield Row(index + 1, line, value, lines, loc)
