"""The builtins doc_extraction uses, with its own options: regex for document numbers,
json_schema with schemas/line_items.yaml, and json_match for the values."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pytest_arena import scoring_context
from pytest_arena.scorers.equality import JsonMatch
from pytest_arena.scorers.json_schema import JsonSchema
from pytest_arena.scorers.matching import Regex
from pytest_arena.spec import load_project

PROJECT = Path(__file__).resolve().parents[1]
SPEC = load_project(PROJECT / "arena.yaml")
CASES = {case.id: case for case in SPEC.cases}
REGEX = SPEC.spec.scorers.options["regex"]
SCHEMA = {"schema_file": "schemas/line_items.yaml", "extract": True}


def number(output, reference):
    return Regex().score(output, reference, scoring_context(reference, options=REGEX))


@pytest.mark.parametrize(
    ("output", "passed", "reason"),
    [
        ("INV-2041", True, "extracted 'INV-2041', as expected"),
        ("The invoice number is INV-2041.", True, "extracted 'INV-2041', as expected"),
        ("```\nINV-2041\n```", True, "extracted 'INV-2041', as expected"),
        ("INV-2143", False, "expected 'INV-2041', extracted 'INV-2143' from 'INV-2143'"),
        (
            "Invoice 2041",
            False,
            r"no answer found: pattern '\b([A-Z]{2,3}-\d{3,5})\b' did not match 'Invoice 2041'",
        ),
    ],
)
def test_the_document_number_is_extracted_from_the_reply(output, passed, reason):
    result = number(output, "INV-2041")
    assert (result.passed, result.reason) == (passed, reason)


def test_the_first_number_in_the_reply_is_the_answer():
    assert number("CN-3390, which refers to INV-77120", "CN-3390").passed is True
    assert number("INV-77120 (credit note CN-3390)", "CN-3390").passed is False


def test_each_number_case_names_a_number_its_document_holds():
    numbered = [case for case in SPEC.cases if case.eval_type == "regex"]
    assert len(numbered) == 3
    for case in numbered:
        assert case.reference in case.input["document"], case.id
        assert number(case.reference, case.reference).passed, case.id


def test_the_line_item_schema_accepts_each_reference():
    for case_id in ("acme_line_items", "hardware_line_items"):
        reference = CASES[case_id].reference
        ctx = scoring_context(reference, options=SCHEMA, project_root=PROJECT)
        result = JsonSchema().score(json.dumps(reference), reference, ctx)
        assert result.passed, (case_id, result.reason)


@pytest.mark.parametrize(
    ("items", "score", "reason"),
    [
        (
            [{"description": "Desk lamp", "quantity": 2}],
            0.0,
            "1 error against schemas/line_items.yaml: $[0]: 'unit_price' is a required property",
        ),
        (
            [{"description": "Desk lamp", "quantity": "2", "unit_price": 50.0, "sku": "DL-2"}],
            0.0,
            "2 errors against schemas/line_items.yaml: $[0]: Additional properties are not"
            " allowed ('sku' was unexpected); $[0].quantity: '2' is not of type 'integer'",
        ),
        ([], 0.0, "1 error against schemas/line_items.yaml: $: [] should be non-empty"),
    ],
)
def test_the_line_item_schema_names_what_is_wrong(items, score, reason):
    ctx = scoring_context(None, options=SCHEMA, project_root=PROJECT)
    result = JsonSchema().score(json.dumps(items), None, ctx)
    assert (result.score, result.passed, result.reason) == (score, False, reason)


def test_line_item_values_are_matched_in_any_order_with_partial_credit():
    case = CASES["acme_line_items"]
    values = next(c for c in SPEC.spec.tests if c["id"] == case.id)["scoring"][1]["params"]
    ctx = scoring_context(case.reference, options={"extract": True, **values})
    dropped = json.dumps(case.reference[1:])
    result = JsonMatch().score(dropped, case.reference, ctx)
    assert (result.score, result.reason) == (0.5, "3 of 6 values match: $[0] missing")
    swapped = json.dumps(list(reversed(case.reference)))
    assert JsonMatch().score(swapped, case.reference, ctx).passed is True
