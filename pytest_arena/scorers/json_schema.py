"""The json_schema builtin: the output is JSON valid against a JSON Schema."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, StrictBool, field_validator

from pytest_arena.scorers.base import ScoreResult, ScoringContext
from pytest_arena.scorers.schema_patterns import iter_errors
from pytest_arena.scorers.text import read_json
from pytest_arena.scorers.typed import TypedScorer
from pytest_arena.spec.errors import Problem, SpecError
from pytest_arena.spec.text_files import read_text
from pytest_arena.spec.yamlfile import load_yaml


class JsonSchemaOptions(BaseModel):
    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)

    # a boolean is a schema too: true accepts every document, false none
    schema_: dict[str, Any] | StrictBool | None = Field(None, alias="schema")
    schema_file: str | None = None
    extract: bool = False

    @field_validator("schema_")
    @classmethod
    def _valid_schema(cls, value: dict[str, Any] | bool | None) -> dict[str, Any] | bool | None:
        if value is not None:
            _check(value, "the option schema")
        return value


class JsonSchema(TypedScorer[JsonSchemaOptions]):
    """The output is valid JSON and, when a schema is given, valid against it.

    The schema is the option `schema` (a mapping, or a boolean schema: true
    accepts every document, false none), else the file `schema_file`, else the
    reference when it is a mapping that looks like a schema (it has "type",
    "properties" or "$schema"). Drafts follow "$schema", by default 2020-12.
    Partial credit: 1 - errors / the schema's top-level properties (or 1);
    a document of the wrong type scores 0.
    Options: `schema`, `schema_file` (relative to the project, YAML or JSON),
    `extract` (false: find the JSON inside fences or prose).
    """

    name = "json_schema"
    options_model = JsonSchemaOptions

    def check_file(self, option: str, path: Path) -> None:
        if option == "schema_file":
            load_schema(path, path.name)

    def grade(
        self, output: str, reference: Any, opts: JsonSchemaOptions, context: ScoringContext
    ) -> ScoreResult:
        schema, source = _schema(opts, reference, context.project_root)
        document, problem = read_json(output, opts.extract)
        if problem is not None:
            return ScoreResult(0.0, False, problem, detail={"parse_error": problem})
        if schema is None:  # the docs' "without one, valid JSON"
            why = (
                "no schema and no reference given"
                if reference is None
                else "the reference is not a schema (it has no type, properties or $schema)"
            )
            return ScoreResult(1.0, True, f"valid JSON; {why}, so nothing else is checked")
        errors = iter_errors(_validator(schema), schema, document)
        if not errors:
            return ScoreResult(1.0, True, f"valid against {source}")
        if isinstance(schema, bool):
            return ScoreResult(0.0, False, f"{source} is false: no document is valid against it")
        messages = [f"{error.json_path}: {_short(error.message)}" for error in errors]
        if any(error.validator == "type" and not error.absolute_path for error in errors):
            score = 0.0
        else:
            properties = schema.get("properties")  # a bool schema has failed above
            checked = len(properties) if isinstance(properties, Mapping) and properties else 1
            score = max(0.0, 1 - len(errors) / checked)
        shown = "; ".join(messages[:3])
        more = f" (+{len(messages) - 3} more)" if len(messages) > 3 else ""
        count = f"{len(errors)} error{'s' if len(errors) > 1 else ''}"
        return ScoreResult(
            score, False, f"{count} against {source}: {shown}{more}", {"errors": messages}
        )


def _schema(
    opts: JsonSchemaOptions, reference: Any, project_root: Path
) -> tuple[dict[str, Any] | bool | None, str]:
    if opts.schema_ is not None and opts.schema_file is not None:
        raise ValueError("give the option schema or the option schema_file, not both")
    if opts.schema_ is not None:
        return opts.schema_, "the schema"
    if opts.schema_file is not None:
        return load_schema(project_root / opts.schema_file, opts.schema_file), opts.schema_file
    if isinstance(reference, Mapping) and {"type", "properties", "$schema"} & reference.keys():
        schema = dict(reference)
        _check(schema, "the reference")
        return schema, "the reference schema"
    return None, ""


def load_schema(path: Path, name: str) -> dict[str, Any] | bool:
    """The schema in the file `path` (JSON, or YAML); SpecError naming the file and line if
    it cannot be read, does not parse, or is no valid JSON Schema."""
    text = read_text(path)
    try:
        schema = json.loads(text)
    except json.JSONDecodeError as not_json:
        try:
            schema, _ = load_yaml(path, text)
        except SpecError as exc:
            first = exc.problems[0]
            line, why, hint = first.line, first.message, first.hint
            if path.suffix.lower() == ".json":  # say what JSON found wrong
                line, why, hint = not_json.lineno, f"{not_json.msg} (column {not_json.colno})", ""
            problem = Problem(
                path, line, f"schema_file '{name}' is not valid YAML or JSON: {why}", hint=hint
            )
            raise SpecError([problem]) from None
    if not isinstance(schema, dict | bool):
        problem = Problem(
            path,
            1,
            f"schema_file '{name}' must hold a mapping or a boolean, not {type(schema).__name__}",
        )
        raise SpecError([problem])
    try:
        _check(schema, f"schema_file '{name}'")
    except ValueError as exc:
        raise SpecError([Problem(path, 1, str(exc))]) from None
    return schema


def _validator(schema: dict[str, Any] | bool) -> Any:
    """The validator class the schema asks for (by `$schema`), else Draft 2020-12's.

    jsonschema is imported here, on first use: runs that check no schema never load it."""
    from jsonschema.validators import (  # type: ignore[import-untyped]
        Draft202012Validator,
        validator_for,
    )

    return validator_for(schema, default=Draft202012Validator)


def _check(schema: dict[str, Any] | bool, where: str) -> None:
    from jsonschema.exceptions import SchemaError  # type: ignore[import-untyped]

    try:
        _validator(schema).check_schema(schema)
    except SchemaError as exc:
        raise ValueError(
            f"{where} is not a valid JSON Schema: {exc.json_path}: {_short(exc.message)}"
        ) from exc


def _short(message: str, limit: int = 100) -> str:
    return message if len(message) <= limit else message[: limit - 1] + "…"
