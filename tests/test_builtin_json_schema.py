"""json_schema: where the schema comes from, validity, partial credit and bad schemas."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pydantic
import pytest

from pytest_arena import Case
from pytest_arena.scorers import ScoreResult, ScoringContext, patterns
from pytest_arena.scorers.json_schema import JsonSchema
from pytest_arena.spec.errors import SpecError
from tests.conftest import MakeProject, run_ends_with_one_failed

PERSON = {
    "type": "object",
    "properties": {
        "name": {"type": "string"},
        "age": {"type": "integer", "minimum": 0},
        "email": {"type": "string"},
    },
    "required": ["name", "age", "email"],
}
ANN = '{"name": "Ann", "age": 3, "email": "ann@example.com"}'


def json_schema(
    output: str, reference: Any = None, root: Path | None = None, **options: Any
) -> ScoreResult:
    context = ScoringContext(
        options=options,
        test_case=Case("c", "q", reference),
        project_root=root or Path.cwd(),
    )
    return JsonSchema().score(output, reference, context)


@pytest.mark.parametrize(
    ("output", "reference", "options", "score", "passed", "reason"),
    [
        (ANN, None, {"schema": PERSON}, 1.0, True, "valid against the schema"),
        (ANN, PERSON, {}, 1.0, True, "valid against the reference schema"),
        (
            '{"name": "Ann", "age": -3, "email": "a@b"}',
            None,
            {"schema": PERSON},
            2 / 3,
            False,
            "1 error against the schema: $.age: -3 is less than the minimum of 0",
        ),
        (
            '{"name": 5, "age": "x"}',
            None,
            {"schema": PERSON},
            0.0,
            False,
            "3 errors against the schema: $.name: 5 is not of type 'string'; $.age: 'x' is not of type 'integer'; $: 'email' is a required property",
        ),
        (
            '{"name": "Ann"}',
            PERSON,
            {},
            1 / 3,
            False,
            "2 errors against the reference schema: $: 'age' is a required property; $: 'email' is a required property",
        ),
        (
            "[1, 2]",
            None,
            {"schema": PERSON},
            0.0,
            False,
            "1 error against the schema: $: [1, 2] is not of type 'object'",
        ),
        (
            '{"tags": ["a", 1, 2, 3]}',
            {
                "$schema": "https://json-schema.org/draft/2020-12/schema",
                "properties": {"tags": {"items": {"type": "string"}}},
            },
            {},
            0.0,
            False,
            "3 errors against the reference schema: $.tags[1]: 1 is not of type 'string'; $.tags[2]: 2 is not of type 'string'; $.tags[3]: 3 is not of type 'string'",
        ),
        (
            '{"a": 1, "b": 2, "c": 3, "d": 4}',
            {
                "type": "object",
                "maxProperties": 1,
                "minProperties": 5,
                "required": ["e"],
                "properties": {},
                "not": {},
            },
            {},
            0.0,
            False,
            "4 errors against the reference schema: $: {'a': 1, 'b': 2, 'c': 3, 'd': 4} has too many properties; $: {'a': 1, 'b': 2, 'c': 3, 'd': 4} does not have enough properties; $: 'e' is a required property (+1 more)",
        ),
        (
            '{"name": "Ann", ',
            None,
            {"schema": PERSON},
            0.0,
            False,
            'output is not valid JSON (Expecting property name enclosed in double quotes at line 1 column 17): \'{"name": "Ann", \'',
        ),
        (
            f"```json\n{ANN}\n```",
            None,
            {"schema": PERSON},
            0.0,
            False,
            'output is not valid JSON (Expecting value at line 1 column 1): \'```json\\n{"name": "Ann", "age": 3, "email": "ann@example.co…\'; it is wrapped in a markdown fence: strip it in hooks.py post_process or set extract: true',
        ),
        (
            f"```json\n{ANN}\n```",
            None,
            {"schema": PERSON, "extract": True},
            1.0,
            True,
            "valid against the schema",
        ),
        (
            f"Here it is: {ANN}. Anything else?",
            PERSON,
            {"extract": True},
            1.0,
            True,
            "valid against the reference schema",
        ),
        (
            '{"a": 1}',
            {"a": 1},
            {},
            1.0,
            True,
            "valid JSON; the reference is not a schema (it has no type, properties or $schema), so nothing else is checked",
        ),
    ],
)
def test_json_schema(
    output: str, reference: Any, options: dict[str, Any], score: float, passed: bool, reason: str
) -> None:
    result = json_schema(output, reference, **options)
    assert result.score == pytest.approx(score)
    assert (result.passed, result.reason) == (passed, reason)


@pytest.mark.parametrize(
    ("name", "text"),
    [
        ("person.yaml", "type: object\nproperties: {name: {type: string}}\nrequired: [name]\n"),
        (
            "person.json",
            '{"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}',
        ),
    ],
)
def test_json_schema_reads_a_schema_file_in_the_project(
    tmp_path: Path, name: str, text: str
) -> None:
    (tmp_path / "schemas").mkdir()
    (tmp_path / "schemas" / name).write_text(text)
    option = f"schemas/{name}"
    assert json_schema('{"name": "Ann"}', root=tmp_path, schema_file=option).reason == (
        f"valid against {option}"
    )
    missing = json_schema('{"nom": "Ann"}', root=tmp_path, schema_file=option)
    assert (missing.score, missing.reason) == (
        0.0,
        f"1 error against {option}: $: 'name' is a required property",
    )


@pytest.mark.parametrize(
    ("files", "options", "reference", "message"),
    [
        (
            {},
            {},
            {"type": 3},
            "the reference is not a valid JSON Schema: $.type: 3 is not valid under any of the given schemas",
        ),
        (
            {"s.yaml": "type: object"},
            {"schema_file": "s.yaml", "schema": {"type": "object"}},
            None,
            "give the option schema or the option schema_file, not both",
        ),
    ],
)
def test_json_schema_names_a_schema_it_cannot_use(
    tmp_path: Path, files: dict[str, str], options: dict[str, Any], reference: Any, message: str
) -> None:
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    with pytest.raises(ValueError) as caught:
        json_schema("{}", reference, root=tmp_path, **options)
    assert str(caught.value).startswith(message.format(root=tmp_path))


@pytest.mark.parametrize(
    ("text", "line", "message"),
    [
        (None, None, "cannot read the file: No such file or directory"),
        ("type: [object", 2, "schema_file 's.yaml' is not valid YAML or JSON: YAML syntax error"),
        ("- object", 1, "schema_file 's.yaml' must hold a mapping or a boolean, not list"),
        (
            "type: objec",
            1,
            "schema_file 's.yaml' is not a valid JSON Schema: $.type: 'objec' is not valid under"
            " any of the given schemas",
        ),
        ("type: object\nx: caf\xe9\n", 2, "not UTF-8 text: byte 0xe9 at column 7"),
    ],
)
def test_a_schema_file_it_cannot_use_is_named_with_its_line(
    tmp_path: Path, text: str | None, line: int | None, message: str
) -> None:
    if text is not None:
        (tmp_path / "s.yaml").write_bytes(text.encode("latin-1"))
    with pytest.raises(SpecError) as caught:
        json_schema("{}", None, root=tmp_path, schema_file="s.yaml")
    (problem,) = caught.value.problems
    assert (problem.path, problem.line) == (tmp_path / "s.yaml", line)
    assert problem.message.startswith(message)


def test_a_json_schema_file_is_said_in_jsons_words(tmp_path: Path) -> None:
    (tmp_path / "s.json").write_text('{"type": "object",\n  "properties": {\n}')
    with pytest.raises(SpecError) as caught:
        json_schema("{}", None, root=tmp_path, schema_file="s.json")
    (problem,) = caught.value.problems
    assert problem.line == 3
    assert problem.message.startswith("schema_file 's.json' is not valid YAML or JSON: Expecting")


def test_an_invalid_schema_option_is_refused_by_the_options_model() -> None:
    with pytest.raises(pydantic.ValidationError) as caught:
        json_schema("{}", schema={"type": "objec"})
    error = caught.value.errors()[0]
    assert error["loc"] == ("schema",)
    assert "the option schema is not a valid JSON Schema: $.type: 'objec'" in error["msg"]


def test_json_schema_without_a_schema_or_reference_checks_for_valid_json() -> None:
    """It said every output unscored, so a "valid JSON?" check never failed (the docs: "without
    one, valid JSON")."""
    result = json_schema("{}")
    assert (result.score, result.passed, result.reason) == (
        1.0,
        True,
        "valid JSON; no schema and no reference given, so nothing else is checked",
    )
    prose = json_schema("Sure! Ann is 30 years old.")
    assert (prose.score, prose.passed) == (0.0, False)


def test_json_schema_refuses_a_misspelt_option() -> None:
    with pytest.raises(pydantic.ValidationError) as caught:
        json_schema("{}", schemma=PERSON)
    assert caught.value.errors()[0]["loc"] == ("schemma",)


@pytest.mark.parametrize(("schema", "passed"), [(True, True), (False, False)])
def test_json_schema_takes_a_boolean_schema(schema: bool, passed: bool) -> None:
    result = json_schema('{"a": 1}', None, schema=schema)
    assert result.passed is passed
    if not passed:
        assert result.reason == "the schema is false: no document is valid against it"


def test_json_schema_takes_a_boolean_schema_file(tmp_path: Path) -> None:
    (tmp_path / "never.json").write_text("false")
    result = json_schema("{}", None, root=tmp_path, schema_file="never.json")
    assert (result.passed, result.reason) == (
        False,
        "never.json is false: no document is valid against it",
    )


ENDLESS = "^(a|a)+$"  # for re, 2**n ways to fail on n a's and a '!'
ENDLESS_TEXT = "a" * 26 + "!"  # re takes seconds to give up; regex stops at its time limit


def endless_message(limit: float) -> str:
    return (
        f"pattern '{ENDLESS}' took more than {limit:g} s on the output: it backtracks without"
        " end on text like this; simplify it (no repeat inside a repeat, such as (a+)+ or"
        " (a|a)*)"
    )


@pytest.mark.parametrize(
    "schema",
    [
        {"type": "object", "properties": {"name": {"type": "string", "pattern": ENDLESS}}},
        {"type": "object", "patternProperties": {ENDLESS: {"type": "integer"}}},
        {"type": "object", "propertyNames": {"pattern": ENDLESS}},
        {
            "type": "object",
            "properties": {"name": {"type": "string"}},
            "patternProperties": {ENDLESS: True},
            "additionalProperties": False,
        },
        {  # the pattern behind a $ref, reached by unevaluatedProperties
            "$defs": {"named": {"patternProperties": {ENDLESS: True}}},
            "$ref": "#/$defs/named",
            "unevaluatedProperties": False,
        },
        {  # a $ref may point anywhere in the schema, not only at its keywords
            "x-shapes": {"named": {"patternProperties": {ENDLESS: {"type": "integer"}}}},
            "$ref": "#/x-shapes/named",
        },
    ],
    ids=["pattern", "patternProperties", "propertyNames", "additional", "unevaluated", "ref"],
)
def test_a_schema_pattern_that_backtracks_without_end_is_an_error_within_its_time_limit(
    monkeypatch: pytest.MonkeyPatch, schema: dict[str, Any]
) -> None:
    monkeypatch.setattr(patterns, "SEARCH_TIMEOUT", 0.2)
    output = json.dumps({"name": ENDLESS_TEXT, ENDLESS_TEXT: 1})
    started = time.monotonic()
    with pytest.raises(ValueError) as caught:
        json_schema(output, schema=schema)
    assert time.monotonic() - started < 3.0  # untimed, regex takes 5 s and more here (loaded: 15)
    assert str(caught.value) == endless_message(0.2)


@pytest.mark.parametrize(
    ("schema", "output", "passed", "reason"),
    [
        (
            {"patternProperties": {"^x_": {"type": "integer"}}, "additionalProperties": False},
            '{"x_a": 1, "y": 2, "z": 3}',
            False,
            "1 error against the schema: $: 'y', 'z' do not match any of the regexes: '^x_'",
        ),
        (
            {"patternProperties": {"^x_": {"type": "integer"}, "^x": {"type": "string"}}},
            '{"x_a": 1}',
            False,
            "1 error against the schema: $.x_a: 1 is not of type 'string'",
        ),
        (  # two patterns that match the same keys stay two
            {"patternProperties": {"^x": {"minimum": 0}, "x$": {"maximum": 5}}},
            '{"x": 9, "y": 1}',
            False,
            "1 error against the schema: $.x: 9 is greater than the maximum of 5",
        ),
        (
            {"properties": {"tag": {"pattern": "^[a-z]+$"}}, "patternProperties": {"^x": {}}},
            '{"tag": "Ab", "x\\n": 1}',
            False,
            "1 error against the schema: $.tag: 'Ab' does not match '^[a-z]+$'",
        ),
        (
            {
                "$defs": {"d": {"patternProperties": {"^x": True}}},
                "$ref": "#/$defs/d",
                "unevaluatedProperties": False,
            },
            '{"xa": 1, "xb": 2}',
            True,
            "valid against the schema",
        ),
        (  # data is data: a const holding the word patternProperties is left as it is
            {"const": {"patternProperties": {"^a": 1}}},
            '{"patternProperties": {"^a": 1}}',
            True,
            "valid against the schema",
        ),
    ],
)
def test_schema_patterns_keep_their_meaning_and_their_names(
    schema: dict[str, Any], output: str, passed: bool, reason: str
) -> None:
    result = json_schema(output, schema=schema)
    assert (result.passed, result.reason) == (passed, reason)


def test_a_run_with_a_schema_pattern_that_backtracks_without_end_ends_with_that_case_failed(
    make_project: MakeProject, pytester: pytest.Pytester
) -> None:
    make_project(
        "s",
        """
        models: [sim_perfect]
        scoring:
          - scorer: json_schema
            params: {schema: {properties: {name: {pattern: '^(a|aa)+$'}}}}
        tests:
          - {id: endless, input: x, reference: '{"name": "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa!"}'}
          - {id: fine, input: x, reference: '{"name": "aaaa"}'}
        """,
    )
    run_ends_with_one_failed(
        pytester,
        [
            "*_ s::endless[[]sim_perfect[]] _*",
            "scorer 'json_schema' raised ValueError: pattern '^(a|aa)+$' took more than 2 s*",
        ],
    )


def test_nan_and_infinity_are_not_json() -> None:
    """`{"a": NaN}` passed as valid JSON: Python's json reads it, JSON has no such value."""
    result = json_schema('{"a": NaN}')
    assert result.passed is False
    assert result.reason.startswith("output is not valid JSON (NaN is no JSON value)")
    assert json_schema('{"a": 1.5}').passed is True
