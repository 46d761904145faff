"""support_replies/hooks.py: post_process strips a markdown fence, as the guide shows."""

from __future__ import annotations

import json

import pytest

from projects.support_replies import hooks
from pytest_arena import Case
from pytest_arena.scorers import ScoringContext

CASE = Case(id="triage", input="...", reference={"category": "billing"})
CTX = ScoringContext(test_case=CASE)


@pytest.mark.parametrize(
    "output",
    [
        '```json\n{"category": "billing"}\n```',
        '```\n{"category": "billing"}\n```',
        '  ```json\n{"category": "billing"}\n```  \n',
    ],
)
def test_a_fenced_answer_is_unwrapped_for_json_match(output):
    text = hooks.post_process(output, CASE, CTX)
    assert json.loads(text) == {"category": "billing"}


@pytest.mark.parametrize(
    ("output", "expected"),
    [
        ('{"category": "billing"}', '{"category": "billing"}'),
        ("  Please check your inbox.\n", "Please check your inbox."),
        ("Use `code` like ```this```.", "Use `code` like ```this```."),
    ],
)
def test_an_unfenced_answer_is_only_trimmed(output, expected):
    assert hooks.post_process(output, CASE, CTX) == expected
