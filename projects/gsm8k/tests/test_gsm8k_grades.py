"""gsm8k: numeric_match with convention gsm8k grades every answer as GSM8K's own
extract_answer/is_correct does (copied beside this file, in gsm8k_reference.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from projects.gsm8k.tests.gsm8k_reference import extract_answer, is_correct
from pytest_arena import scoring_context
from pytest_arena.scorers.numeric import NumericMatch
from pytest_arena.spec import load_project

PROJECT = Path(__file__).resolve().parents[1]
REFERENCES = {case.id: case.reference for case in load_project(PROJECT / "arena.yaml").cases}
COMPLETIONS = [
    json.loads(line)
    for line in (PROJECT / "data" / "completions.jsonl").read_text(encoding="utf-8").splitlines()
]


def graded(completion: str, reference: str, convention: str) -> bool | None:
    ctx = scoring_context(reference, options={"convention": convention})
    return NumericMatch().score(completion, reference, ctx).passed


def test_every_reference_is_a_worked_solution_ending_in_its_answer():
    assert len(REFERENCES) == 6
    for reference in REFERENCES.values():
        assert extract_answer(reference).isdigit()
        assert graded(reference, reference, "gsm8k") is True


@pytest.mark.parametrize("row", COMPLETIONS, ids=lambda row: row["id"])
def test_numeric_match_grades_as_gsm8k(row):
    completion, reference = row["completion"], REFERENCES[row["id"]]
    assert graded(completion, reference, "gsm8k") is is_correct(completion, {"answer": reference})


def test_the_accuracy_is_the_one_gsm8k_publishes():
    right = [
        row for row in COMPLETIONS if graded(row["completion"], REFERENCES[row["id"]], "gsm8k")
    ]
    assert len(right) == sum(
        is_correct(row["completion"], {"answer": REFERENCES[row["id"]]}) for row in COMPLETIONS
    )
    assert (len(right), len(COMPLETIONS)) == (8, 19)


def test_the_default_reading_differs_where_gsm8k_compares_text():
    """convention auto reads numbers, and answers without "#### N": the reply that only
    reasons, "#### 342.", "####30", "#### 100.0" and "#### $10" are right there; GSM8K
    compares the text after "#### " (with the space) and marks them wrong."""
    differ = [
        row["completion"].rsplit("\n", 1)[-1]
        for row in COMPLETIONS
        if graded(row["completion"], REFERENCES[row["id"]], "auto")
        != graded(row["completion"], REFERENCES[row["id"]], "gsm8k")
    ]
    assert differ == [
        "Maya has 12 + 24 - 9 = 27 apples left.",
        "#### 342.",
        "#### 100.0",
        "####30",
        "#### $10",
    ]
