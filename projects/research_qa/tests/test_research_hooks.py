"""research_qa/hooks.py: pre_request puts the case's source documents into the prompt."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from projects.research_qa import hooks
from projects.research_qa.scorers.citations import refs
from pytest_arena import Case
from pytest_arena.connectors import Request
from pytest_arena.scorers import ScoringContext

PROJECT = Path(__file__).resolve().parents[1]


def request_for(sources):
    case = Case(id="q", input="When was ENIAC announced?", metadata={"sources": sources})
    request = Request("sim_small", [{"role": "user", "content": "Question: ..."}], case)
    return request, case, ScoringContext(test_case=case, project_root=PROJECT)


def test_each_source_is_appended_under_its_id():
    request, case, context = request_for("doc3;doc4")
    returned = hooks.pre_request(request, case, context)
    assert returned is request
    content = request.messages[-1]["content"]
    assert content.startswith("Question: ...\n\nSources:\n\n[doc3]\n# ENIAC\n")
    assert "\n\n[doc4]\n# The transistor\n" in content


def test_a_case_without_sources_is_sent_as_it_is():
    request, case, context = request_for("")
    hooks.pre_request(request, case, context)
    assert request.messages[-1]["content"] == "Question: ..."


def test_a_missing_document_names_the_case_and_the_file():
    request, case, context = request_for("doc1;doc99")
    with pytest.raises(FileNotFoundError, match=r"case 'q' names source doc99, but .*doc99\.md"):
        hooks.pre_request(request, case, context)


def test_every_reference_answer_cites_only_its_own_sources_and_they_exist():
    with (PROJECT / "data" / "questions.csv").open(encoding="utf-8", newline="") as handle:
        rows = list(csv.DictReader(handle))
    assert 8 <= len(rows) <= 15
    for row in rows:
        case = Case(id=row["id"], input=row["question"], metadata={"sources": row["sources"]})
        sources = hooks.source_ids(case)
        assert sources, row["id"]
        for doc_id in sources:
            assert (PROJECT / "corpus" / f"{doc_id}.md").is_file(), doc_id
        assert refs(row["answer"]), row["id"]
        assert set(refs(row["answer"])) <= set(sources), row["id"]
