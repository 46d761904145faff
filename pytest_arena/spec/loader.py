"""Loading a project: `arena.yaml`, its inline cases and its datasets."""

from __future__ import annotations

import difflib
import json
import os
import re
import stat
import unicodedata
from collections import Counter
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Protocol

from pytest_arena.scorers.text import printable
from pytest_arena.spec import surrogates
from pytest_arena.spec.case import Case
from pytest_arena.spec.datasets import (
    DELIMITERS,
    JSON_ARRAY,
    Row,
    as_written,
    dataset_format,
    read_rows,
)
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
    kept, bad = _datasets(data.get("datasets"), lines, path)
    try:
        spec = validate(ProjectSpec, {**data, "datasets": kept} if bad else data, lines, path)
    except SpecError as exc:  # said with the datasets' own problems, in the file's order
        every = [*exc.problems, *(p for _, _, found in bad.values() for p in found)]
        raise SpecError(sorted(every, key=lambda p: p.line or 0)) from None
    _check_template(spec, lines, path)
    halves = _halves({k: v for k, v in data.items() if k != "tests"}, path, lines=lines)
    if halves:  # a setting the cases are sent with or scored by (prompt.system, tags)
        raise SpecError(halves)
    if bad:  # `datasets[i]` of the spec is the (i + skipped)th entry written
        lines = _Renumbered(lines, [i for i in range(len(kept) + len(bad)) if i not in bad])
    # the folder it is in, resolved: a symlink to a shared arena.yaml is that folder's
    root = Path(os.path.realpath(path.parent))
    name = printable(spec.name) if spec.name else _folder_name(root)  # as a terminal shows it
    project = ProjectFile(name, root, path, spec, lines)
    for said, file, found in bad.values():  # that dataset's problem: the rest runs
        project.problems.append(CaseProblem(said, found[0], file, tuple(found[1:])))
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
        _add(project, case, seen, lines, (*loc, "input"))
    if not keep_raw:
        spec.tests = []
        lines.forget_below(("tests",))
    prefixes = _prefixes([dataset.path for dataset in spec.datasets])
    for index, dataset in enumerate(spec.datasets):
        _load_dataset(project, dataset, ("datasets", index), seen, prefixes[index])
    return project


class Scorers(Protocol):
    """What `check_dataset_scorers` asks of a project's scorers (a ScorerSet)."""

    def get(self, name: str) -> object | None: ...

    def unknown(self, name: str) -> str: ...


def check_dataset_scorers(project: ProjectFile, scorers: Scorers) -> None:
    """A scorer that a dataset's `eval_type` or `scoring` in arena.yaml names and `scorers`
    lack is that dataset's problem, said once at its line there, not an error of each of
    its rows; the cases it would grade are not run (a row's own eval_type is its own)."""
    for index, dataset in enumerate(project.spec.datasets):
        named: list[tuple[Loc, str]] = [(("eval_type",), dataset.eval_type or "")]
        named += [
            (("scoring", i, "scorer"), c.scorer or "") for i, c in enumerate(dataset.scoring or ())
        ]
        found = [
            Problem(
                project.path,
                project.lines.line(("datasets", index, *at)),
                scorers.unknown(name),
                key=written_key(project.lines, ("datasets", index, *at)),
            )
            for at, name in named
            if name and scorers.get(name) is None
        ]
        if not found:
            continue
        bad_type = any(p.key.endswith("eval_type") for p in found)
        contract = tuple(dataset.scoring or ()) if len(found) > bad_type else None
        graded = [
            case
            for case in project.cases
            if case.dataset == dataset.path
            and (
                (bad_type and case.scoring is None and case.eval_type == dataset.eval_type)
                or (contract is not None and case.scoring == contract)
            )
        ]
        if graded:
            _drop(project, dataset.path, graded, found)


def drop_dataset(project: ProjectFile, index: int, problems: list[Problem]) -> None:
    """`problems` of `datasets[index]` (its `models:` names no model) said as that dataset's:
    its cases are not run, and the rest of the project is."""
    dataset = project.spec.datasets[index].path
    spec, written = dotted(("datasets", index)), written_key(project.lines, ("datasets", index))
    if spec != written:  # keys made of the spec's index (its callers'): said as written
        problems = [
            replace(p, key=written + p.key[len(spec) :]) if p.key.startswith(spec) else p
            for p in problems
        ]
    _drop(project, dataset, [case for case in project.cases if case.dataset == dataset], problems)


def _drop(project: ProjectFile, dataset: str, cases: list[Case], problems: list[Problem]) -> None:
    dropped = {id(case) for case in cases}
    project.cases[:] = [case for case in project.cases if id(case) not in dropped]
    project.problems.append(CaseProblem(dataset, problems[0], dataset, tuple(problems[1:])))


def _datasets(
    written: Any, lines: LineMap, path: Path
) -> tuple[list[Any], dict[int, tuple[str, str | None, list[Problem]]]]:
    """The entries of `datasets:` that are good, and by index each bad one's (name, dataset,
    problems): a mistake in one is that dataset's problem, not the project's. (`datasets:`
    that is no list is left to the project's checks.)"""
    if not isinstance(written, list):
        return written, {}
    kept: list[Any] = []
    bad: dict[int, tuple[str, str | None, list[Problem]]] = {}
    for index, entry in enumerate(written):
        raw = {"path": entry} if isinstance(entry, str) else entry
        loc = ("datasets", index)
        try:
            validate(DatasetSpec, raw, lines, path, base=loc)
        except SpecError as exc:
            file = raw.get("path") if isinstance(raw, dict) else None
            if not isinstance(file, str) or not file.strip() or printable(file) != file:
                file = None  # its problems are arena.yaml's, as `datasets.0`
            found = [_dataset_hint(problem, raw, loc) for problem in exc.problems]
            bad[index] = (file or f"datasets.{index}", file, found)
            continue
        kept.append(entry)
    return kept, bad


def _dataset_hint(problem: Problem, raw: Any, loc: Loc) -> Problem:
    """`problem` of the dataset written `raw` at `loc`, with the fix for the slips made most:
    `fields` written the wrong way round (`question: input`), and `format: json`."""
    if problem.key == dotted((*loc, "format")):
        hint = f"the formats are yaml, jsonl, csv and tsv; {JSON_ARRAY}"
        return Problem(problem.path, problem.line, problem.message, problem.key, hint)
    fields = raw.get("fields") if isinstance(raw, dict) else None
    if not isinstance(fields, dict):
        return problem
    for column, field_name in fields.items():
        if problem.key != dotted((*loc, "fields", column)):
            continue
        if isinstance(field_name, str) and field_name in FieldMap.model_fields:
            hint = (
                "fields maps each part of a case to the file's column that holds it"
                f" (case field: column): write '{field_name}: {column}'"
            )
            return Problem(problem.path, problem.line, problem.message, problem.key, hint)
    return problem


class _Renumbered(LineMap):
    """The lines of arena.yaml for a spec whose `datasets[i]` is the entry written at
    `datasets[written[i]]` (the entries before it that were bad are not in the spec)."""

    def __init__(self, lines: LineMap, written: list[int]) -> None:
        super().__init__(lines.path)
        self._inner, self._written = lines, written

    def set(self, loc: Loc, line: int) -> None:
        self._inner.set(loc, line)

    def forget_below(self, loc: Loc) -> None:
        self._inner.forget_below(loc)

    def line(self, loc: Loc) -> int | None:
        return self._inner.line(self.written(loc))

    def written(self, loc: Loc) -> Loc:
        """`loc` of the spec, as written in arena.yaml."""
        loc = tuple(loc)
        at = loc[1] if len(loc) > 1 and loc[0] == "datasets" else None
        if isinstance(at, int) and at < len(self._written):
            loc = ("datasets", self._written[at], *loc[2:])
        return loc


def written_loc(lines: LineMap, loc: Loc) -> Loc:
    """`loc` of a project's spec (`("datasets", 1, "path")`) as written in its arena.yaml,
    whose `lines` they are: a bad entry of `datasets:` is not in the spec, so `datasets[i]`
    of the spec may be a later entry of the file."""
    return lines.written(loc) if isinstance(lines, _Renumbered) else tuple(loc)


def written_key(lines: LineMap, loc: Loc) -> str:
    """The key of `loc` of a project's spec as written in arena.yaml: `datasets[1].path`."""
    return dotted(written_loc(lines, loc))


def _prefixes(paths: list[str]) -> list[str]:
    """The name of the rows without an id of each dataset file named `paths` (`-3` is added
    to the third row's): its name without its suffix, as an id may hold it; where two files
    would get one name, their folders are added (`data.gsm.test`, `data.mmlu.test`), then
    their suffix (`data.q.jsonl`, `data.q.csv`), then their place in `datasets:`. A file
    named twice is one file, whose rows are the same cases."""
    files = [Path(path.replace("\\", "/")).as_posix() for path in paths]
    first: dict[str, int] = {}
    for index, file in enumerate(files):
        first.setdefault(file, index)

    def named(file: str, level: int) -> str:
        written = Path(file)
        if level == 0:
            return _id_part(written.stem) or "row"
        parts = [_id_part(p) for p in written.with_suffix("").parts if p != written.anchor]
        if level >= 2 and written.suffix:
            parts.append(_id_part(written.suffix))
        if level >= 3:
            parts.append(str(first[file] + 1))
        return ".".join(part for part in parts if part) or "row"

    level = dict.fromkeys(first, 0)
    while True:
        names = {file: named(file, level[file]) for file in first}
        counts = Counter(names.values())
        bump = [file for file in first if counts[names[file]] > 1 and level[file] < 3]
        if not bump:
            return [names[file] for file in files]
        for file in bump:
            level[file] += 1


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


def _id_part(text: str) -> str:
    """A part of a file's path as a case id may hold it (ASCII: the rules of ids): accents
    dropped and other characters `_` (`données` is `donnees`, `qa v2` `qa_v2`); a name
    with no Latin letter or digit (`数学`) in Punycode, as web addresses write such names
    (`xn--48s96u`), so that two such names stay two."""
    plain = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
    if not re.search(r"[A-Za-z0-9]", plain) and not text.isascii():
        plain = "xn--" + text.encode("punycode").decode("ascii")
    return re.sub(r"[^A-Za-z0-9_.-]", "_", plain).strip(".")


_PLAIN_FIELDS = frozenset({"id", "input", "reference", "tags", "weight", "metadata"})
# a case's keys whose line nothing asks for after loading (Case.line_of: scoring, options...)
# the keys of a case that a dataset row gives under their own names (options, scoring,
# group, repeat...); `fields:` maps the others. A row's other keys are its metadata.
_OWN_KEYS = tuple(name for name in CaseSpec.model_fields if name not in FieldMap.model_fields)
# what a CSV cell of these case keys holds is read as JSON: {"negate": true}, 3
_JSON_CELLS = ("options", "scoring", "metadata", "repeat", "min_pass_rate")


def _check_template(spec: ProjectSpec, lines: LineMap, path: Path) -> None:
    """prompt.template and prompt.system are templates alike; only the template must fill
    in a variable (`template: ""` too: an empty one would send every case the same)."""
    hint = "{name} fills in a variable; {{ and }} write a literal brace"
    for key in ("template", "system"):
        text = getattr(spec.prompt, key)
        mistake = None if text is None else compile_template(text).mistake(key == "template")
        if mistake:
            line = lines.line(("prompt", key))
            raise SpecError([Problem(path, line, mistake, key=f"prompt.{key}", hint=hint)])


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


def _add(
    project: ProjectFile,
    case: Case,
    seen: dict[str, tuple[Path, int]],
    lines: LineMap | None = None,
    at: Loc = (),
) -> None:
    """Add `case` to `project`, or its problem: a variable its prompt uses that its input
    lacks or holds null (said at the null's line, `at` in `lines`, where they have it), or
    an id taken."""
    prompt = project.spec.prompt
    chat = case.input if isinstance(case.input, list) else None
    own_system = chat is not None and any(
        isinstance(m, dict) and m.get("role") == "system" for m in chat
    )
    used = {  # the templates this case is sent with: chat messages keep their own system
        "template": None if chat is not None else prompt.template,
        "system": None if own_system else prompt.system,
    }
    values = variables(case)
    for key, text in used.items():
        template = compile_template(text) if text else None
        missing = template.missing(values) if template else []
        nulls = template.nulls(values) if template else []
        if not missing and not nulls:
            continue
        line = case.line
        if not missing:  # null would be sent as the text "null"
            said = f"prompt.{key} uses {{{nulls[0]}}}, whose value in this case's input is null"
            hint = (
                f"write its text ('' for an empty one), or take {{{nulls[0]}}} out of prompt.{key}"
            )
            if lines is not None:
                line = lines.line((*at, nulls[0])) or line
        elif missing == ["input"] and chat is not None:  # a chat is not text to put in one
            said = (
                f"prompt.{key} uses {{input}}, but this case's input is a chat (a list of"
                " messages), which a prompt cannot hold"
            )
            hint = f"give the chat its own system message, or take {{input}} out of prompt.{key}"
        else:
            said = f"prompt.{key} uses {{{missing[0]}}}, which this case's input lacks"
            hint = (
                f"give the case an input mapping with that key, or change the {key}"
                " (write {{ and }} for a literal brace)"
            )
        problem = Problem(case.source, line, said, hint=hint)
        project.problems.append(CaseProblem(case.id, problem, case.dataset))
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
                    key=written_key(project.lines, (*loc, "path")),
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
            written_key(project.lines, (*loc, "path")),
            "list files that hold cases alone here (JSONL, CSV or YAML, such as"
            " data/cases.jsonl); a project's own cases are under its tests:",
        )
        project.problems.append(CaseProblem(rel, at, rel))
        return
    try:
        fmt = dataset_format(file, dataset.format)
    except SpecError as exc:  # said where the dataset (and its `format:`) is written
        problem = exc.problems[0]
        at = Problem(
            project.path,
            line,
            problem.message,
            written_key(project.lines, (*loc, "path")),
            problem.hint,
        )
        project.problems.append(CaseProblem(rel, at, rel))
        return
    if dataset.delimiter is not None and fmt not in DELIMITERS:
        at = Problem(
            project.path,
            project.lines.line((*loc, "delimiter")) or line,
            f"'delimiter' is for CSV files; {rel} is read as {fmt}",
            written_key(project.lines, (*loc, "delimiter")),
            "take 'delimiter' out, or set 'format: csv' if the file is CSV",
        )
        project.problems.append(CaseProblem(rel, at, rel))
        return
    try:
        rows = list(read_rows(file, fmt, dataset.delimiter))
    except SpecError as exc:
        project.problems.append(CaseProblem(rel, exc.problems[0], rel, tuple(exc.problems[1:])))
        return
    except (OSError, UnicodeDecodeError) as exc:
        project.problems.append(CaseProblem(rel, Problem(file, None, f"cannot read: {exc}"), rel))
        return
    absent = _absent_columns(project, dataset, loc, rows, fmt in DELIMITERS)
    if absent:  # every row would lack what `fields:` maps there: none is run
        project.problems.append(CaseProblem(rel, absent[0], rel, tuple(absent[1:])))
        return
    for row in rows:
        if isinstance(row, Problem):
            project.problems.append(CaseProblem(f"line{row.line}", row, rel))
            continue
        _load_row(project, dataset, file, rel, row, seen, prefix)


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
                key=written_key(project.lines, where),
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
    for field_name in _OWN_KEYS:  # a row says all a case in arena.yaml says
        take(field_name, field_name)
    # a key spelt like a case key the row lacks is said before the dataset's settings fill
    # those in (`eval_typ` beside the dataset's eval_type is a slip all the same)
    problem = (
        _misspelt(file, row, values, raw, fields)
        or _no_input(file, row, raw, column_of, fields)
        or _json_cells(file, row, raw, column_of)
    )
    if problem is not None:
        project.problems.append(CaseProblem(name, problem, rel))
        return
    if "id" not in raw:
        raw["id"] = name
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
    own = raw.get("metadata")  # the row's own, merged; else its checks say what is wrong
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
    _add(project, case, seen, row.lines, (*row.loc, column_of.get("input", "input")))


def _misspelt(
    file: Path, row: Row, left: dict[str, Any], taken: dict[str, Any], fields: FieldMap
) -> Problem | None:
    """The problem of a key of `row` that is no case key but is spelt like the column of
    one the row lacks (`refrence` for `reference`, `option` for `options`), or like the
    field a column is mapped to (`refrence` where `fields: {reference: answer}`). The row's
    other keys are metadata."""
    found = _misspelt_field(left, taken, fields)
    if found is None:
        return None
    key, meant, field_name = found
    line = row.lines.line((*row.loc, key)) if row.lines is not None else None
    message = f"unknown key '{key}' (did you mean '{meant}'?); the case would have no {field_name}"
    if meant != field_name:
        message += f" (fields maps {field_name} to '{meant}')"
    hint = f"rename it to '{meant}'; a row's other keys are kept as the case's metadata"
    return Problem(file, line or row.line, message, key=key, hint=hint)


def _misspelt_field(
    left: dict[str, Any], taken: dict[str, Any], fields: FieldMap
) -> tuple[str, str, str] | None:
    """(key, column, field) of a key in `left` that is spelt like the column of a case field
    not in `taken`, or like that field's own name: its case's letters (`ID`, `Input`, as
    spreadsheets write headers), two letters swapped (`tgas`), or a close spelling."""
    meant: dict[str, tuple[str, str]] = {}  # a spelling to look for -> (column, field)
    for name in (*FieldMap.model_fields, *_OWN_KEYS):
        column = getattr(fields, name) if name in FieldMap.model_fields else name
        if name == "id" and column is None:
            column = "id"
        if isinstance(column, str) and name not in taken:
            meant[column] = (column, name)
            meant.setdefault(name, (column, name))  # the field's own name, mapped elsewhere
    folded = {spelling.lower(): spelling for spelling in meant}
    # a row without an id is named after its place: `idx` or `uid` beside it is data
    fuzzy = [spelling for spelling, (_, name) in meant.items() if name != "id"]
    # data columns may be named like the other keys (`option_a` of a multiple-choice file,
    # `mode`): only a closer spelling of those is a slip
    loose = [spelling for spelling in fuzzy if meant[spelling][1] in _SPELT_LOOSELY]
    strict = [spelling for spelling in fuzzy if spelling not in loose]
    for key in left:
        text = str(key)
        close = [folded[text.strip().lower()]] if text.strip().lower() in folded else []
        close = close or [spelling for spelling in fuzzy if _swapped(text, spelling)]
        close = close or difflib.get_close_matches(text, loose, 1, 0.8)
        close = close or difflib.get_close_matches(text, strict, 1, 0.85)
        if close:
            return (text, *meant[close[0]])
    return None


# the case fields whose near misses are slips at difflib's 0.8 (others need 0.85)
_SPELT_LOOSELY = frozenset({"input", "reference", "tags", "weight", "eval_type"})


def _swapped(text: str, spelling: str) -> bool:
    """Whether `text` is `spelling` with two letters side by side swapped (`tgas`)."""
    if len(text) != len(spelling) or text == spelling:
        return False
    at = [i for i, (a, b) in enumerate(zip(text, spelling, strict=True)) if a != b]
    return (
        len(at) == 2
        and at[1] == at[0] + 1
        and (text[at[0]], text[at[1]]) == (spelling[at[1]], spelling[at[0]])
    )


def _no_input(
    file: Path, row: Row, raw: dict[str, Any], column_of: dict[str, str], fields: FieldMap
) -> Problem | None:
    """The problem of a row without its input: the field absent, null or an empty cell."""
    if "input" in raw:
        return None
    column = column_of.get("input") or (fields.input if isinstance(fields.input, str) else "input")
    if column in row.blank:
        message = f"the '{column}' cell is empty, so the case would have no input"
        hint = "write the case's input into it, or take the row out"
    elif column in row.values and isinstance(fields.input, list):
        # the row has its other columns: the one variable is what it lacks, not its input
        message = (
            f"'{column}' is null in this row; fields.input builds the case's input from"
            f" {', '.join(fields.input)}"
        )
        hint = (
            f"give the row its {column} (a text, '' for an empty one), or take {column}"
            f" out of fields.input (and {{{column}}} out of the prompt)"
        )
    elif column in row.values:
        message = f"'{column}' is null, so the case would have no input"
        hint = "give the row its input, or take the row out"
    elif isinstance(fields.input, list):
        message = (
            f"row has no '{column}' field; fields.input builds the case's input from"
            f" {', '.join(fields.input)} (the row has {_field_names(row)})"
        )
        hint = (
            f"add '{column}' to the row, or take {column} out of fields.input (and"
            f" {{{column}}} out of the prompt)"
        )
    else:
        message = f"row has no '{column}' field for the case input (it has {_field_names(row)})"
        hint = f"add '{column}' to the row, or map another field with 'fields: {{input: ...}}'"
    return Problem(file, row.line, message, hint=hint)


def _field_names(row: Row, most: int = 8) -> str:
    """The names of a row's fields, as said in a message: "id, question, reference"."""
    names = list(row.values)
    if not names:
        return "none"
    shown = ", ".join(names[:most])
    return shown + (f" and {len(names) - most} more" if len(names) > most else "")


def _json_cells(
    file: Path, row: Row, raw: dict[str, Any], column_of: dict[str, str]
) -> Problem | None:
    """A CSV row's cells of the case keys that hold more than text (`options`, `scoring`,
    `metadata`, `repeat`, `min_pass_rate`) read as JSON, in `raw`; the problem of one that
    is not JSON."""
    if not row.columns:  # not a CSV row: its values are what they are
        return None
    for key in _JSON_CELLS:
        cell = raw.get(key)
        if not isinstance(cell, str):
            continue
        try:
            raw[key] = json.loads(cell)
        except json.JSONDecodeError as exc:
            return Problem(
                file,
                row.line,
                f"not JSON: {exc.msg} (column {exc.colno} of the cell)",
                key=column_of[key],
                hint="a CSV cell of options, scoring, metadata or repeat holds JSON, quoted"
                ' and its quotes doubled: "{""negate"": true}"; or a number: 3',
            )
    return None


def _in_column(problem: Problem, column_of: dict[str, str]) -> Problem:
    """Name the dataset's own column rather than the case field it maps to, and keep where
    in it (`question[0].name`, not `question`)."""
    head = problem.key.split(".")[0].split("[")[0]
    if head not in column_of:
        return problem
    key = column_of[head] + problem.key[len(head) :]
    return Problem(problem.path, problem.line, problem.message, key, problem.hint)
