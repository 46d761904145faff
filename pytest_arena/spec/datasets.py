"""Reading dataset files (YAML, JSONL, CSV) into rows that remember their line."""

from __future__ import annotations

import contextlib
import csv
import io
import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pytest_arena.spec.errors import Problem, SpecError, did_you_mean
from pytest_arena.spec.files import DATASET_FORMATS
from pytest_arena.spec.text_files import (
    UTF8_HINT,
    check_not_wide,
    decode,
    read_bytes,
    wide_encoding,
)
from pytest_arena.spec.yamlfile import MAX_DEPTH, LineMap, load_yaml


@dataclass(frozen=True)
class Row:
    number: int  # 1-based position among the file's rows
    line: int
    values: dict[str, Any]
    lines: LineMap | None = None  # per-key lines, for YAML rows
    loc: tuple[str | int, ...] = ()
    blank: frozenset[str] = frozenset()  # a CSV row's columns whose cell is empty
    text: str = ""  # a JSONL row's line, kept when it holds a float (an id of 1.10 reads as 1.1)
    columns: tuple[str, ...] = ()  # a CSV row's: the header's named columns, in its order


def dataset_format(path: Path, declared: str | None) -> str:
    if declared:
        return declared
    try:
        return DATASET_FORMATS[path.suffix.lower()]
    except KeyError:
        hint = "name it .yaml, .jsonl, .csv or .tsv, or set 'format:' on the dataset"
        if path.suffix.lower() == ".json":
            hint += f"; {JSON_ARRAY}"
        raise SpecError(
            [
                Problem(
                    path,
                    None,
                    f"cannot tell the format of '{path.name}' from its suffix",
                    hint=hint,
                )
            ]
        ) from None


# a JSON array of cases is a YAML list (JSON is YAML): the YAML reader takes it
JSON_ARRAY = "a JSON array of cases reads with 'format: yaml' (JSON is YAML)"


DELIMITERS = {"csv": ",", "tsv": "\t"}  # each format's own, unless `delimiter:` says


def read_rows(path: Path, fmt: str, delimiter: str | None = None) -> Iterator[Row | Problem]:
    """Yield each row, or a Problem for a row that cannot be read; other rows go on."""
    if fmt == "jsonl":
        yield from _jsonl(path)
    elif fmt in DELIMITERS:
        yield from _csv(path, delimiter or DELIMITERS[fmt], given=delimiter is not None)
    else:
        yield from _yaml(path)


def _jsonl(path: Path) -> Iterator[Row | Problem]:
    number = 0
    data = read_bytes(path)
    check_not_wide(path, data)  # the file's problem, not one of each line
    for lineno, raw in enumerate(data.splitlines(), start=1):
        try:
            text = decode(path, raw, lineno)
        except SpecError as exc:  # this row only: the others still load
            yield exc.problems[0]
            continue
        if not text.strip():
            continue
        number += 1
        try:
            value = json.loads(text, object_pairs_hook=_once_each)
        except json.JSONDecodeError as exc:
            yield Problem(
                path,
                lineno,
                f"not valid JSON: {exc.msg} (column {exc.colno})",
                hint="each line of a .jsonl file holds one JSON object",
            )
            continue
        except RecursionError:
            value = None  # said below, as any row nested too deeply
        except _Twice as twice:
            yield Problem(
                path,
                lineno,
                f"key '{twice.key}' is in this row twice",
                hint="remove one of the two; JSON readers would silently keep only the last",
            )
            continue
        if value is None or (
            text.count("[") + text.count("{") > MAX_DEPTH and _depth(value) > MAX_DEPTH
        ):
            yield Problem(
                path,
                lineno,
                f"JSON nested more than {MAX_DEPTH} levels deep",
                hint="flatten the row: far fewer levels hold any case",
            )
            continue
        if not isinstance(value, dict):
            yield Problem(path, lineno, "a JSONL row must be a JSON object {...}")
            continue
        floats = any(type(v) is float for v in value.values())
        yield Row(number, lineno, value, text=text if floats else "")


def _depth(value: Any) -> int:
    """How many mappings and lists deep `value` goes (without recursion: it may be deep)."""
    deepest, stack = 0, [(value, 0)]
    while stack:
        item, level = stack.pop()
        if isinstance(item, dict | list):
            deepest = max(deepest, level + 1)
            stack.extend(
                (v, level + 1) for v in (item.values() if isinstance(item, dict) else item)
            )
    return deepest


def as_written(row: Row, key: str) -> str | None:
    """The text of `row`'s top-level number `key` that JSON reads as a float (`1.10`, `2e3`),
    as written, not as the float says it (`1.1`, `2000.0`); None for any other value."""
    if not row.text or type(row.values.get(key)) is not float:
        return None
    written = json.loads(row.text, parse_float=str, parse_constant=str).get(key)
    return written if isinstance(written, str) else None


class _Twice(ValueError):
    def __init__(self, key: str) -> None:
        super().__init__(key)
        self.key = key


def _once_each(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """A JSON object's pairs as a dict; _Twice if a key is in it twice."""
    found = dict(pairs)
    if len(found) < len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise _Twice(key)
            seen.add(key)
    return found


MAX_CSV_FIELD = 64 * 1024 * 1024  # Python's csv module stops at 128 KiB by default


def _csv(path: Path, delimiter: str, given: bool) -> Iterator[Row | Problem]:
    """The rows of a CSV (or TSV) file; `given`: the delimiter is the dataset's `delimiter:`."""
    data = read_bytes(path)
    text, lines = _csv_text(path, data)
    read = [""]  # the line the reader read last
    # strict: a quote never closed is an error at its row, not the rest of the file in one cell
    reader = csv.reader(_lines(text, read), delimiter=delimiter, strict=True)
    number = 0
    with _field_limit(MAX_CSV_FIELD):
        head = 1  # the header's line: blank lines (or of spaces) before it are skipped
        try:
            top = next(reader, None)
            while top is not None and not any(cell.strip() for cell in top):
                head = reader.line_num + 1
                top = next(reader, None)
        except csv.Error as exc:
            yield _csv_problem(path, head, str(exc))
            return
        if lines is not None and top is not None and _not_utf8(top):
            yield _where_not_utf8(path, lines, head, reader.line_num)
            return  # (the rows' columns are not known)
        header = [name.strip() for name in top or []]
        named = tuple(name for name in header if name)  # a spreadsheet's empty columns: none
        other = _other_delimiter(named, delimiter)
        if other is not None and not given:  # one column named `id;input;reference`
            shown = "\\t" if other == "\t" else other
            yield Problem(
                path,
                head,
                f"the header is one column, '{named[0]}': the file looks separated by"
                f" {_said(other)}, not by {_said(delimiter)}",
                hint=f"set 'delimiter: \"{shown}\"' on the dataset in arena.yaml (as"
                " spreadsheets in some languages export CSV); rows are not read until then",
            )
            return
        twice = [name for i, name in enumerate(named) if name in named[:i]]
        if twice:
            first, second = (i + 1 for i, name in enumerate(header) if name == twice[0])
            yield Problem(
                path,
                head,
                f"column '{twice[0]}' is in the header twice (columns {first} and {second})",
                hint="give every column its own name; rows are not read until then",
            )
            return
        while True:
            start = reader.line_num + 1  # blank lines are rows of no cells: counted here
            try:
                cells = next(reader)
            except StopIteration:
                return
            except csv.Error as exc:
                yield _csv_problem(path, start, str(exc))
                if _STRAY_QUOTE in str(exc):
                    continue  # the reader goes on at the next line: one row lost, not all
                return
            if not cells or (reader.line_num == start and not read[0].strip()):
                continue  # a blank line, or one of spaces or tabs; a quoted "  " is a value
            number += 1
            if lines is not None and _not_utf8(cells):  # this row only: the others still load
                yield _where_not_utf8(path, lines, start, reader.line_num)
            elif len(cells) > len(header) and any(cells[len(header) :]):
                yield Problem(
                    path,
                    start,
                    "this row has more cells than the header has columns",
                    hint=f"quote cells that contain {_said(delimiter)}",
                )
            elif len(cells) < len(header):
                yield Problem(
                    path,
                    start,
                    f"this row has {len(cells)} cells and the header {len(header)} columns",
                    hint="give every column a cell; leave one empty with nothing between"
                    " commas (a,,c)",
                )
            elif unnamed := [i for i, name in enumerate(header) if cells[i] and not name]:
                column = unnamed[0]
                yield Problem(
                    path,
                    start,
                    f"this row has a value in column {column + 1}, which the header does not name",
                    hint="name the column in the header, or leave its cells empty",
                )
            else:
                # a quoted cell keeps its line breaks as written: \r\n too, where the
                # other formats (and the rows' own ends) read every line break as \n
                pairs = [(name, _lf(cells[i])) for i, name in enumerate(header) if name]
                values = {name: cell for name, cell in pairs if cell}
                blank = frozenset(name for name, cell in pairs if not cell)
                yield Row(number, start, values, blank=blank, columns=named)


def _lines(text: str, read: list[str]) -> Iterator[str]:
    """The lines of `text` as csv reads them, each kept in `read` as it is read."""
    for line in io.StringIO(text, newline=""):
        read[0] = line
        yield line


_STRAY_QUOTE = "expected after '\"'"  # a quote in a cell not quoted: `"12" screen`


def _csv_text(path: Path, data: bytes) -> tuple[str, list[bytes] | None]:
    """The text of a CSV file (`data`, read from `path`), and None; or, where some of its
    bytes are not UTF-8, its text with each such byte read as a lone surrogate (which no
    UTF-8 text holds) and its lines as bytes: the rows that hold one are errors of their
    own, as a JSONL file's lines are. SpecError for the file, if it is UTF-16 or binary."""
    try:
        return decode(path, data), None
    except SpecError:
        if b"\0" in data or wide_encoding(data) is not None:
            raise
    return data.decode("utf-8-sig", errors="surrogateescape"), data.splitlines(keepends=True)


def _not_utf8(cells: list[str]) -> bool:
    """Whether a record of a file read with surrogateescape holds a byte that is not UTF-8."""
    return any(_ESCAPED.search(cell) for cell in cells)


_ESCAPED = re.compile("[\udc80-\udcff]")  # a byte that is not UTF-8, as surrogateescape reads it


def _where_not_utf8(path: Path, lines: list[bytes], start: int, end: int) -> Problem:
    """The problem of the record on lines `start` to `end` (a quoted cell may hold line
    breaks) that holds a byte that is not UTF-8: at that byte's line and column."""
    try:
        decode(path, b"".join(lines[start - 1 : end]), start)
    except SpecError as exc:
        return exc.problems[0]
    return Problem(path, start, "not UTF-8 text", hint=UTF8_HINT)  # (its lines, as csv counts)


def _lf(cell: str) -> str:
    """`cell` with each line break (\r\n, or a lone \r) written \n."""
    return cell.replace("\r\n", "\n").replace("\r", "\n") if "\r" in cell else cell


def _other_delimiter(named: tuple[str, ...], delimiter: str) -> str | None:
    """The delimiter a header read as one column seems to be written with, or None."""
    if len(named) != 1:
        return None
    return next((d for d in (";", "\t", "|", ",") if d != delimiter and d in named[0]), None)


def _said(delimiter: str) -> str:
    return "tabs" if delimiter == "\t" else ("commas" if delimiter == "," else repr(delimiter))


def _csv_problem(path: Path, line: int, error: str) -> Problem:
    if error == "unexpected end of data":  # the file ended inside a quoted cell
        return Problem(
            path,
            line,
            "a quote opened in this row is never closed, so the rest of the file would be one"
            " cell; rows after it are not read",
            hint='close the quote; write a quote inside a quoted cell as two: ""',
        )
    if _STRAY_QUOTE in error:
        return Problem(
            path,
            line,
            f"this row cannot be read as CSV: {error} (a quote inside a cell that is not quoted)",
            hint='quote the cell and double the quote inside it: """12"" screen"',
        )
    return Problem(
        path,
        line,
        f"this row cannot be read as CSV: {error}",
        hint=f"a cell may hold up to {MAX_CSV_FIELD // 2**20} MiB; check the quotes"
        ' around this row (a quote inside a quoted cell is written "")'
        " (rows after it are not read)",
    )


@contextlib.contextmanager
def _field_limit(limit: int) -> Iterator[None]:
    """csv's field size limit is the interpreter's: raised while a dataset is read, then put
    back (collection reads datasets on the main thread only)."""
    before = csv.field_size_limit(limit)
    try:
        yield
    finally:
        csv.field_size_limit(before)


# a dataset's settings in arena.yaml, which a YAML dataset file might hold beside `tests:`
DATASET_SETTINGS = frozenset(
    {"tags", "eval_type", "scoring", "threshold", "models", "repeat", "min_pass_rate"}
)


def _yaml(path: Path) -> Iterator[Row | Problem]:
    data, lines = load_yaml(path)
    base: tuple[str | int, ...] = ()
    if isinstance(data, dict) and "tests" in data:
        _only_tests(path, data, lines)
        data, base = data["tests"], ("tests",)
    if data is None:  # an empty file (or `tests:` of nothing): no rows, as an empty JSONL
        return
    if not isinstance(data, list):
        top = [str(key) for key in data] if isinstance(data, dict) and not base else []
        close = next(filter(None, (did_you_mean(key, ["tests"]) for key in top)), "")
        hint = "write one '- id: ...' per case, or put the list under 'tests:'"
        yield Problem(
            path,
            1,
            "a YAML dataset must be a list of cases",
            hint=f"{close} {hint}" if close else hint,
        )
        return
    for index, value in enumerate(data):
        loc = (*base, index)
        line = lines.line(loc) or 1
        if not isinstance(value, dict):
            yield Problem(path, line, "each case must be a mapping of keys")
            continue
        yield Row(index + 1, line, value, lines, loc)


def _only_tests(path: Path, data: dict[Any, Any], lines: LineMap) -> None:
    """SpecError for the keys beside `tests:` at the top of a YAML dataset: they would be
    ignored (an `eval_type:` there grades no case), so its cases are not loaded."""
    problems = []
    for key in data:
        if key == "tests":
            continue
        name = str(key)
        if name in DATASET_SETTINGS:
            hint = (
                f"a dataset file holds cases alone: set '{name}' on this dataset in"
                f" arena.yaml (datasets: [{{path: ..., {name}: ...}}]) or on each case"
            )
        elif name in ("options", "group", "metadata"):
            hint = f"a dataset file holds cases alone: give each case its '{name}'"
        else:
            close = did_you_mean(name, ["tests"])
            hint = f"{close + ' ' if close else ''}a YAML dataset holds 'tests:' alone"
        message = f"unknown key '{name}' beside 'tests:' (its cases are not loaded)"
        problems.append(Problem(path, lines.line((key,)), message, key=name, hint=hint))
    if problems:
        raise SpecError(problems)
