"""The JSON-Schema-Test-Suite's draft 2020-12 cases (tests/references/json_schema_test_suite/)
run through json_schema: its verdict is jsonschema's on every case.

Of the 1,299 cases, jsonschema cannot decide 49 offline: 44 $ref a remote schema (the suite's
localhost:1234 server, and no network in tests), 5 use a \\p{…} pattern Python's re cannot
compile; json_schema raises on those too.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from jsonschema.validators import Draft202012Validator, validator_for  # type: ignore[import-untyped]

from pytest_arena import Case
from pytest_arena.scorers import ScoringContext
from pytest_arena.scorers.json_schema import JsonSchema
from tests.conftest import ROOT

SUITE = ROOT / "tests" / "references" / "json_schema_test_suite" / "draft2020-12"


def cases() -> list[Any]:
    found = []
    for path in sorted(SUITE.glob("*.json")):
        for group in json.loads(path.read_text(encoding="utf-8")):
            for test in group["tests"]:
                name = f"{path.stem}: {group['description']}: {test['description']}"
                found.append(pytest.param(group["schema"], test["data"], test["valid"], id=name))
    return found


def jsonschema_verdict(schema: Any, document: Any) -> bool | type[BaseException]:
    """jsonschema's verdict, or the error it raises: a remote $ref it cannot resolve without
    the network, or a pattern Python's re cannot compile (\\p{L})."""
    try:
        return bool(validator_for(schema, default=Draft202012Validator)(schema).is_valid(document))
    except Exception as exc:
        return type(exc)


def test_the_suite_is_here() -> None:
    assert len(list(SUITE.glob("*.json"))) == 46
    assert len(cases()) > 1200


@pytest.mark.parametrize(("schema", "document", "valid"), cases())
def test_json_schema_agrees_with_jsonschema(schema: Any, document: Any, valid: bool) -> None:
    output = json.dumps(document)
    context = ScoringContext(
        options={"schema": schema}, test_case=Case("c", "q", None), project_root=Path.cwd()
    )
    expected = jsonschema_verdict(schema, document)
    if not isinstance(expected, bool):
        # the same error, or ours sooner: the schema refused as invalid (a pattern that is
        # not a regex Python can compile), naming it
        with pytest.raises((expected, ValueError)):
            JsonSchema().score(output, None, context)
        return
    result = JsonSchema().score(output, None, context)
    assert result.passed is expected, result.reason
