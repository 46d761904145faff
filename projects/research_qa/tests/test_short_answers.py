"""research_qa's short answers, graded by token_f1 with the project's threshold."""

from __future__ import annotations

from pathlib import Path

import pytest

from projects.research_qa import hooks
from projects.research_qa.scorers.citations import refs
from pytest_arena import scoring_context
from pytest_arena.scorers.similarity import TokenF1
from pytest_arena.spec import load_project

PROJECT = Path(__file__).resolve().parents[1]
SPEC = load_project(PROJECT / "arena.yaml")
SHORT = [case for case in SPEC.cases if case.dataset == "data/short_answers.csv"]
OPTIONS = SPEC.spec.scorers.options["token_f1"]


def f1(output, reference):
    return TokenF1().score(output, reference, scoring_context(reference, options=OPTIONS))


def test_short_answers_load_with_their_scorer_and_cite_their_own_sources():
    assert SPEC.problems == []
    assert len(SHORT) == 8
    for case in SHORT:
        assert case.eval_type == "token_f1"
        assert "short_answer" in case.tags
        sources = hooks.source_ids(case)
        assert refs(case.reference) and set(refs(case.reference)) <= set(sources), case.id
        for doc_id in sources:
            assert (PROJECT / "corpus" / f"{doc_id}.md").is_file(), doc_id


@pytest.mark.parametrize(
    ("output", "reference", "score", "passed"),
    [
        ("the Difference Engine [doc2]", "the Difference Engine [doc2]", 1.0, True),
        ('The answer is "LO" [doc6].', '"LO" [doc6]', 2 / 3, True),
        ("Nobel Prize [doc4]", "the 1956 Nobel Prize in Physics [doc4]", 2 / 3, True),
        ("the Difference Engine", "the Difference Engine [doc2]", 0.8, True),
        ("1961 [doc5]", "1959 [doc5]", 0.5, False),
        # word overlap cannot tell one engine from another: a limit of token_f1
        ("the Analytical Engine [doc2]", "the Difference Engine [doc2]", 2 / 3, True),
        ("The weather today is sunny.", "April 1993 [doc7]", 0.0, False),
    ],
)
def test_word_overlap_gives_partial_credit(output, reference, score, passed):
    result = f1(output, reference)
    assert (result.score, result.passed) == (pytest.approx(score), passed)
