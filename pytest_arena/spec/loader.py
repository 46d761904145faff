"""Loading a project: `arena.yaml`, its inline cases and its datasets."""

from __future__ import annotations

import difflib
import os
import re
import stat
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pytest_arena.scorers.text import printable
from pytest_arena.spec import surrogates
from pytest_arena.spec.case import Case
from pytest_arena.spec.datasets import DELIMITERS, Row, as_written, dataset_format, read_rows
from pytest_arena.spec.errors import Problem, SpecError, did_you_mean
from pytest_arena.spec.files import PROJECT_FILE, resolved
from pytest_arena.spec.images import ImageProblem, image_part
from pytest_arena.spec.schema import (
    CaseSpec,
    DatasetSpec,
    FieldMap,
    ImagePart,
    ProjectSpec,
    TextPart,
)
from pytest_arena.spec.template import compile_template, variables
from pytest_arena.spec.text_files import file_mode, unreadable
from pytest_arena.spec.validation import dotted, validate
from pytest_arena.spec.yamlfile import LineMap, Loc, load_yaml


@dataclass(frozen=True)
class CaseProblem:
    """A case, dataset row or dataset file that could not be loaded."""

    name: str
    problem: Problem
    dataset: str | None = None
    more: tuple[Problem, ...] = ()

    @property
    def problems(self) -> tuple[Problem, ...]:
        return (self.problem, *self.more)


@dataclass
class ProjectFile:
    """A loaded project. Broken cases sit in `problems`; the rest are in `cases`."""

    name: str
    root: Path
    path: Path
    spec: ProjectSpec
    lines: LineMap
    cases: list[Case] = field(default_factory=list)
    problems: list[CaseProblem] = field(default_factory=list)


def load_project(path: Path, *, keep_raw: bool = True) -> ProjectFile:
    """Load `arena.yaml` at `path`. A project-wide problem raises SpecError.

    `keep_raw=False` drops `spec.tests` (the raw entries) and their lines once read into
    `cases`: a run needs only the cases, and the raw entries are several objects per case."""
    path = Path(path)
    data, lines = load_yaml(path)
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise SpecError(
            [
                Problem(
                    path,
                    1,
                    "arena.yaml must be a mapping of keys",
                    hint="start with keys such as 'models:', 'scorers:' and 'tests:'",
                )
            ]
        )
    spec = validate(ProjectSpec, data, lines, path)
    _check_template(spec, lines, path)
    halves = _halves({k: v for k, v in data.items() if k != "tests"}, path, lines=lines)
    if halves:  # a setting the cases are sent with or scored by (prompt.system, tags)
        raise SpecError(halves)
    # the folder it is in, resolved: a symlink to a shared arena.yaml is that folder's
    root = Path(os.path.realpath(path.parent))
    name = printable(spec.name) if spec.name else _folder_name(root)  # as a terminal shows it
    project = ProjectFile(name, root, path, spec, lines)
    seen: dict[str, tuple[Path, int]] = {}
    for index, raw in enumerate(spec.tests):
        loc = ("tests", index)
        line = lines.line(loc) or 1
        name = _name_of(raw, f"tests.{index}")
        if not isinstance(raw, dict):
            project.problems.append(
                CaseProblem(
                    name, Problem(path, line, "a case must be a mapping with 'id' and 'input'")
                )
            )
            continue
        try:
            case_spec = validate(CaseSpec, raw, lines, path, base=loc)
        except SpecError as exc:
            project.problems.append(
                CaseProblem(name, exc.problems[0], None, tuple(exc.problems[1:]))
            )
            continue
        halves = _halves(raw, path, lines=lines, at=loc, shown=loc)
        if halves:
            project.problems.append(CaseProblem(name, halves[0], None, tuple(halves[1:])))
            continue
        field_lines = {
            k: lines.line((*loc, k)) or line
            for k in raw
            if isinstance(k, str) and k not in _PLAIN_FIELDS
        }
        for i, _ in enumerate(raw.get("scoring") or ()):
            field_lines[f"scoring.{i}"] = lines.line((*loc, "scoring", i)) or line
        try:
            case = _case(case_spec, project, path, line, None, field_lines)
        except _BadImage as exc:
            at = lines.line((*loc, "input", exc.index, "content", exc.part)) or line
            project.problems.append(CaseProblem(name, _image_problem(exc, path, at)))
            continue
        _add(project, case, seen)
    if not keep_raw:
        spec.tests = []
        lines.forget_below(("tests",))
    stems = [Path(dataset.path).stem for dataset in spec.datasets]
    for index, dataset in enumerate(spec.datasets):
        written = Path(dataset.path)  # a row without an id is named after its file
        alike = stems.count(written.stem) > 1  # gsm/test.jsonl, mmlu/test.jsonl
        prefix = _id_text(written.with_suffix("").as_posix() if alike else written.stem)
        _load_dataset(project, dataset, ("datasets", index), seen, prefix)
    return project


def _halves(
    value: Any,
    path: Path,
    *,
    lines: LineMap | None = None,
    at: Loc = (),
    line: int | None = None,
    shown: Loc = (),
) -> list[Problem]:
    """A problem for each string of `value`, written at `at` in `path`, that holds a lone
    surrogate: at its line in `lines` (else at `line`), its key said from `shown` on."""
    problems = []
    for inside, half in surrogates.halves(value):
        where = lines.line((*at, *inside)) if lines is not None else line
        key = printable(dotted((*shown, *inside)))  # a key may be what holds it
        problems.append(surrogates.problem(path, where, key, half, yaml=lines is not None))
    return problems


def _folder_name(root: Path) -> str:
    """The project's name from its folder's: bytes the locale could not read (a name in
    Latin-1 under a UTF-8 locale) and what a terminal would obey or hide (ESC, a
    right-to-left mark) written as their escapes, so that the name can be hashed, printed
    and saved."""
    name = root.name.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
    return printable(name)


def _id_text(text: str) -> str:
    """`text` as a case id may hold it: accents dropped, other characters `_`
    (`données` is `donnees`, `qa v2` `qa_v2`, `gsm/test` `gsm.test`)."""
    plain = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
    return re.sub(r"[^A-Za-z0-9_.-]", "_", plain.replace("/", ".")).strip(".") or "row"


_PLAIN_FIELDS = frozenset({"id", "input", "reference", "tags", "weight", "metadata"})
# a case's keys whose line nothing asks for after loading (Case.line_of: scoring, options...)
# a case's keys that only a YAML dataset's row gives as such (other formats' leftover
# fields are metadata); `fields:` maps the others
_CASE_ONLY_FIELDS = (
    "options",
    "scoring",
    "threshold",
    "metadata",
    "group",
    "repeat",
    "min_pass_rate",
)


def _check_template(spec: ProjectSpec, lines: LineMap, path: Path) -> None:
    mistake = compile_template(spec.prompt.template).mistake() if spec.prompt.template else None
    if mistake:
        line = lines.line(("prompt", "template"))
        hint = "{name} fills in a variable; {{ and }} write a literal brace"
        raise SpecError([Problem(path, line, mistake, key="prompt.template", hint=hint)])


def _name_of(raw: Any, fallback: str) -> str:
    """The name of a case's problem item: its id as written, or `fallback` for an id that is
    no text or number, or that a terminal would not show as written (ESC, a newline)."""
    if isinstance(raw, dict):
        value = raw.get("id")
        if isinstance(value, str | int) and not isinstance(value, bool):
            text = str(value)
            return text if printable(text) == text else fallback
    return fallback


def _case(
    spec: CaseSpec,
    project: ProjectFile,
    source: Path,
    line: int,
    dataset: str | None,
    field_lines: dict[str, int] | None = None,
) -> Case:
    return Case(
        id=spec.id,
        input=_input(spec, project.root),
        reference=spec.reference,
        tags=tuple(spec.tags),
        group=spec.group,
        weight=spec.weight,
        eval_type=spec.eval_type,
        scoring=tuple(spec.scoring) if spec.scoring is not None else None,
        threshold=spec.threshold,
        repeat=None if spec.repeat is None else (spec.repeat.min, spec.repeat.max),
        min_pass_rate=spec.min_pass_rate,
        options=spec.options,
        metadata=spec.metadata,
        models=tuple(spec.models) if spec.models is not None else None,
        project=project.name,
        source=source,
        line=line,
        dataset=dataset,
        field_lines=field_lines or {},
    )


class _BadImage(Exception):
    """An image part of message `index`, part `part`, that cannot be sent."""

    def __init__(self, index: int, part: int, problem: ImageProblem) -> None:
        super().__init__(str(problem))
        self.index, self.part, self.problem = index, part, problem


def _input(spec: CaseSpec, root: Path) -> Any:
    """The case's input; chat messages with their content parts in OpenAI's form, image
    files read and inlined. _BadImage for a file that cannot be."""
    if not isinstance(spec.input, list):
        return spec.input
    messages: list[dict[str, Any]] = []
    for index, message in enumerate(spec.input):
        if isinstance(message.content, str):
            messages.append({"role": message.role, "content": message.content})
            continue
        parts: list[dict[str, Any]] = []
        for number, part in enumerate(message.content):
            if isinstance(part, TextPart):
                parts.append({"type": "text", "text": part.text})
                continue
            if isinstance(part, ImagePart):
                source, detail = part.image, part.detail
            else:
                source, detail = part.image_url.url, part.image_url.detail
            try:
                parts.append(image_part(source, root, part.alt, detail))
            except ImageProblem as exc:
                raise _BadImage(index, number, exc) from None
        messages.append({"role": message.role, "content": parts})
    return messages


def _image_problem(exc: _BadImage, path: Path, line: int | None) -> Problem:
    key = f"input[{exc.index}].content[{exc.part}]"
    return Problem(path, line, str(exc.problem), key=key, hint=exc.problem.hint)


def _add(project: ProjectFile, case: Case, seen: dict[str, tuple[Path, int]]) -> None:
    template = project.spec.prompt.template
    if template and not isinstance(case.input, list):
        missing = compile_template(template).missing(variables(case))
        if missing:
            project.problems.append(
                CaseProblem(
                    case.id,
                    Problem(
                        case.source,
                        case.line,
                        f"prompt.template uses {{{missing[0]}}}, which this case's input lacks",
                        hint="give the case an input mapping with that key, or change the template",
                    ),
                    case.dataset,
                )
            )
            return
    if case.id in seen:
        first_path, first_line = seen[case.id]
        where = (
            f"line {first_line}" if first_path == case.source else f"{first_path.name}:{first_line}"
        )
        project.problems.append(
            CaseProblem(
                f"{case.id}@line{case.line}",
                Problem(
                    case.source,
                    case.line,
                    f"duplicate case id '{case.id}' (first at {where})",
                    hint="give every case in a project its own id",
                ),
                case.dataset,
            )
        )
        return
    seen[case.id] = (case.source, case.line)
    project.cases.append(case)


def _load_dataset(
    project: ProjectFile,
    dataset: DatasetSpec,
    loc: tuple[str | int, ...],
    seen: dict[str, tuple[Path, int]],
    prefix: str,
) -> None:
    file = resolved(project.root / dataset.path)
    rel = dataset.path
    line = project.lines.line((*loc, "path")) or project.lines.line(loc)
    try:
        mode = file_mode(file)
    except OSError as exc:  # a folder on its way that cannot be entered: not "no such file"
        project.problems.append(CaseProblem(rel, unreadable(file, exc), rel))
        return
    if mode is None or not stat.S_ISREG(mode):
        folder = mode is not None and stat.S_ISDIR(mode)
        message = (
            f"dataset path '{rel}' names a folder, not a file"
            if folder
            else f"dataset file '{rel}' does not exist (looked in {project.root})"
        )
        hint = "name a file in it, such as data/cases.jsonl" if folder else ""
        project.problems.append(
            CaseProblem(
                rel,
                Problem(
                    project.path,
                    line,
                    message,
                    key=dotted((*loc, "path")),
                    hint=hint or "paths are relative to the folder holding arena.yaml",
                ),
                rel,
            )
        )
        return
    if file.name == PROJECT_FILE:  # the project's own file, or another project's
        at = Problem(
            project.path,
            line,
            f"dataset path '{rel}' names a project file ({PROJECT_FILE}), not a dataset file",
            dotted((*loc, "path")),
            "list files that hold cases alone here (JSONL, CSV or YAML, such as"
            " data/cases.jsonl); a project's own cases are under its tests:",
        )
        project.problems.append(CaseProblem(rel, at, rel))
        return
    try:
        fmt = dataset_format(file, dataset.format)
    except SpecError as exc:  # said where the dataset (and its `format:`) is written
        problem = exc.problems[0]
        at = Problem(project.path, line, problem.message, dotted((*loc, "path")), problem.hint)
        project.problems.append(CaseProblem(rel, at, rel))
        return
    if dataset.delimiter is not None and fmt not in DELIMITERS:
        at = Problem(
            project.path,
            project.lines.line((*loc, "delimiter")) or line,
            f"'delimiter' is for CSV files; {rel} is read as {fmt}",
            dotted((*loc, "delimiter")),
            "take 'delimiter' out, or set 'format: csv' if the file is CSV",
        )
        project.problems.append(CaseProblem(rel, at, rel))
        return
    try:
        rows = list(read_rows(file, fmt, dataset.delimiter))
    except SpecError as exc:
        project.problems.append(CaseProblem(rel, exc.problems[0], rel))
        return
    except (OSError, UnicodeDecodeError) as exc:
        project.problems.append(CaseProblem(rel, Problem(file, None, f"cannot read: {exc}"), rel))
        return
    absent = _absent_columns(project, dataset, loc, rows, fmt in DELIMITERS)
    if absent:  # every row would lack what `fields:` maps there: none is run
        project.problems.append(CaseProblem(rel, absent[0], rel, tuple(absent[1:])))
        return
    whole_cases = fmt == "yaml"  # "a list of cases": a row may say all a case says
    for row in rows:
        if isinstance(row, Problem):
            project.problems.append(CaseProblem(f"line{row.line}", row, rel))
            continue
        _load_row(project, dataset, file, rel, row, seen, prefix, whole_cases)


def _absent_columns(
    project: ProjectFile,
    dataset: DatasetSpec,
    loc: Loc,
    rows: list[Row | Problem],
    table: bool,
) -> list[Problem]:
    """A problem at each column that `fields:` names and the file lacks: not in a CSV
    file's header (`table`), or in no row of another format's. (A column some rows lack is
    each such row's own problem.)"""
    read = [row for row in rows if isinstance(row, Row)]
    if not read:
        return []
    columns = list(read[0].columns) or list(
        dict.fromkeys(str(key) for row in read for key in row.values)
    )
    problems = []
    for at, column in _mapped(dataset.fields):
        if column in columns:
            continue
        where = (*loc, "fields", *at)
        field = at[0]
        if table:
            message = f"column '{column}' is not in {dataset.path} (its columns: "
        else:
            message = f"no row of {dataset.path} has the field '{column}' (its rows' fields: "
        close = did_you_mean(column, columns)
        hint = f"map {field} to one of its {'columns' if table else 'fields'}"
        problems.append(
            Problem(
                project.path,
                project.lines.line(where),
                message + _listed(columns) + ")",
                key=dotted(where),
                hint=f"{close} {hint}" if close else f"{hint}, or take {field} out of fields",
            )
        )
    return problems


def _mapped(fields: FieldMap) -> list[tuple[Loc, str]]:
    """(where under `fields:`, column) of each column that `fields:` itself names."""
    found: list[tuple[Loc, str]] = []
    for name in FieldMap.model_fields:
        column = getattr(fields, name)
        if name not in fields.model_fields_set or column is None:
            continue
        if isinstance(column, str):
            found.append(((name,), column))
        else:
            found.extend(((name, index), each) for index, each in enumerate(column))
    return found


def _listed(names: list[str], most: int = 20) -> str:
    """`names`, comma-separated, the first `most` of them."""
    shown = ", ".join(names[:most])
    return shown + (f" and {len(names) - most} more" if len(names) > most else "")


def _load_row(
    project: ProjectFile,
    dataset: DatasetSpec,
    file: Path,
    rel: str,
    row: Row,
    seen: dict[str, tuple[Path, int]],
    prefix: str,
    whole_cases: bool = False,
) -> None:
    fields = dataset.fields
    values = dict(row.values)
    column_of: dict[str, str] = {}
    raw: dict[str, Any] = {}
    name = f"{prefix}-{row.number}"

    def take(field_name: str, column: str | None) -> None:
        if column is not None and column in values:
            value = values.pop(column)
            if value is not None:  # null, as exports write an empty field: not given
                raw[field_name] = value
                column_of[field_name] = column

    take("id", fields.id if fields.id is not None else "id")
    written = as_written(row, column_of["id"]) if "id" in column_of else None
    if written is not None:  # `1.10` is the id 1.10, not the float's 1.1
        raw["id"] = written
    if "id" in raw:
        name = _name_of(raw, name)
    else:
        raw["id"] = name
    # a row's every value reaches its case (the columns not mapped, as its metadata)
    halves = _halves(row.values, file, lines=row.lines, at=row.loc, line=row.line)
    if halves:
        project.problems.append(CaseProblem(name, halves[0], rel, tuple(halves[1:])))
        return
    if isinstance(fields.input, list):
        # a field that is null is one not given, as anywhere (not the text "null")
        absent = [c for c in fields.input if values.get(c) is None and c not in row.blank]
        if absent:
            raw_input: Any = None
            column_of["input"] = absent[0]
        else:  # a CSV cell left empty is an empty text for the template
            raw_input = {c: values.pop(c, "") for c in fields.input}
        if raw_input is not None:
            raw["input"] = raw_input
    else:
        take("input", fields.input)
    for field_name in ("reference", "tags", "weight", "eval_type", "models"):
        take(field_name, getattr(fields, field_name))
    if whole_cases:  # a YAML row's other case keys are its own, as in arena.yaml's tests
        for field_name in _CASE_ONLY_FIELDS:
            take(field_name, field_name)
    if "input" not in raw:
        column = column_of.get("input") or (
            fields.input if isinstance(fields.input, str) else "input"
        )
        project.problems.append(
            CaseProblem(
                name,
                Problem(
                    file,
                    row.line,
                    f"row has no '{column}' field for the case input",
                    hint=f"add '{column}' to the row,"
                    " or map another field with 'fields: {input: ...}'",
                ),
                rel,
            )
        )
        return
    tags = raw.get("tags", [])
    if isinstance(tags, str):
        tags = [t for t in tags.replace(";", ",").replace("|", ",").split(",") if t.strip()]
        tags = [t.strip() for t in tags]
    if isinstance(tags, list):
        raw["tags"] = [*dataset.tags, *tags]
    raw.setdefault("eval_type", dataset.eval_type)
    if dataset.models is not None:
        raw.setdefault("models", dataset.models)
    if dataset.scoring is not None and "eval_type" not in column_of and "scoring" not in raw:
        raw["scoring"] = [c.model_dump(exclude_unset=True) for c in dataset.scoring]
    if dataset.threshold is not None:
        raw.setdefault("threshold", dataset.threshold)
    if dataset.repeat is not None:
        raw.setdefault("repeat", dataset.repeat)
    if dataset.min_pass_rate is not None:
        raw.setdefault("min_pass_rate", dataset.min_pass_rate)
    given = raw if "id" in column_of else {k: v for k, v in raw.items() if k != "id"}
    misspelt = _misspelt_field(values, given, fields)  # (an id made of the row's place: none)
    if misspelt:
        key, meant, field = misspelt
        line = row.lines.line((*row.loc, key)) if row.lines is not None else None
        message = f"unknown key '{key}' (did you mean '{meant}'?); the case would have no {field}"
        if meant != field:
            message += f" (fields maps {field} to '{meant}')"
        hint = f"rename it to '{meant}'; a row's other keys are kept as the case's metadata"
        problem = Problem(file, line or row.line, message, key=key, hint=hint)
        project.problems.append(CaseProblem(name, problem, rel))
        return
    own = raw.get("metadata")  # a YAML row's own; else its checks say what is wrong with it
    if values and (own is None or isinstance(own, dict)):
        raw["metadata"] = {**values, **(own or {})}
    try:
        case_spec = validate(CaseSpec, raw, None, file, line=row.line)
    except SpecError as exc:
        found = [_in_column(problem, column_of) for problem in exc.problems]
        project.problems.append(CaseProblem(name, found[0], rel, tuple(found[1:])))
        return
    try:
        case = _case(case_spec, project, file, row.line, rel)
    except _BadImage as exc:
        at = row.line
        if row.lines is not None:
            at = row.lines.line((*row.loc, "input", exc.index, "content", exc.part)) or at
        project.problems.append(CaseProblem(name, _image_problem(exc, file, at), rel))
        return
    _add(project, case, seen)


def _misspelt_field(
    left: dict[str, Any], taken: dict[str, Any], fields: FieldMap
) -> tuple[str, str, str] | None:
    """A key of a row that is not a case field but is spelt like the column of one the row
    lacks (`refrence` for `reference`), or like the field a column is mapped to (`refrence`
    where `fields: {reference: answer}`): (key, column, field). The row's other keys are
    metadata."""
    meant: dict[str, tuple[str, str]] = {}  # a spelling to look for -> (column, field)
    for name in ("id", "input", "reference", "tags", "weight", "eval_type"):
        column = getattr(fields, name) or (name if name == "id" else None)
        if isinstance(column, str) and name not in taken:
            meant[column] = (column, name)
            meant.setdefault(name, (column, name))  # the field's own name, mapped elsewhere
    folded = {spelling.lower(): spelling for spelling in meant}  # `ID`, a spreadsheet's
    # a row without an id is named after its place: `idx` or `uid` beside it is data
    fuzzy = [spelling for spelling, (_, name) in meant.items() if name != "id"]
    for key in left:
        same = folded.get(str(key).strip().lower())
        close = [same] if same else difflib.get_close_matches(str(key), fuzzy, 1, 0.8)
        if close:
            return (str(key), *meant[close[0]])
    return None


def _in_column(problem: Problem, column_of: dict[str, str]) -> Problem:
    """Name the dataset's own column rather than the case field it maps to."""
    head = problem.key.split(".")[0].split("[")[0]
    if head not in column_of:
        return problem
    return Problem(problem.path, problem.line, problem.message, column_of[head], problem.hint)
