"""CitationsScorer, tested directly: it is a plain class."""

from __future__ import annotations

import pytest

from projects.research_qa.scorers.citations import CitationsScorer, refs, sentences
from pytest_arena import Case
from pytest_arena.scorers import ScoringContext

ANSWER = (
    "Ada Lovelace published it in her notes of 1843 [doc1]. "
    "It was written for Charles Babbage's Analytical Engine [doc1][doc2]."
)


def context(sources="doc1;doc2", facts="Ada Lovelace;1843;Analytical Engine", **options):
    metadata = {}
    if sources is not None:
        metadata["sources"] = sources
    if facts is not None:
        metadata["facts"] = facts
    case = Case(id="first_algorithm", input="...", reference=ANSWER, metadata=metadata)
    return ScoringContext(test_case=case, options=options)


def score(output, **kwargs):
    return CitationsScorer().score(output, ANSWER, context(**kwargs))


def test_a_fully_cited_answer_with_every_fact_passes():
    result = score(ANSWER)
    assert (result.score, result.passed) == (1.0, True)
    assert result.reason == "2 of 2 sentences cited; 3 of 3 facts present"
    assert result.metrics == {"citation_rate": 1.0, "hallucinated_refs": 0.0}


@pytest.mark.parametrize(
    "output",
    [
        "The answer is " + ANSWER,
        "Answer: " + ANSWER,
        "```\n" + ANSWER + "\n```",
        ANSWER.replace(" [doc1].", ". [doc1]"),
        ANSWER.replace("[doc1][doc2]", "[doc1, doc2]"),
        ANSWER.replace("[doc1][doc2]", "[DOC2]"),
    ],
    ids=["sentence", "prefix", "fence", "after_period", "comma_list", "upper_case"],
)
def test_other_surface_forms_of_a_cited_answer_pass(output):
    result = score(output)
    assert result.passed is True, result.reason
    assert result.metrics["citation_rate"] == 1.0


def test_an_uncited_sentence_lowers_the_citation_rate_below_the_floor():
    output = ANSWER + " She is often called the first programmer."
    result = score(output)
    assert result.score == pytest.approx(2 / 3)
    assert result.passed is False
    assert result.reason == (
        "2 of 3 sentences cited (0.67, below the floor 0.80); 3 of 3 facts present"
    )
    assert result.metrics["citation_rate"] == pytest.approx(2 / 3)
    assert result.detail["uncited"] == ["She is often called the first programmer."]


def test_the_floor_comes_from_the_options():
    output = ANSWER + " She is often called the first programmer."
    assert score(output, floor=0.6).passed is True
    assert score(ANSWER, floor=1.0).passed is True


@pytest.mark.parametrize(
    ("output", "share", "reason"),
    [
        (
            ANSWER.replace("1843", "1612"),
            2 / 3,
            "missing fact '1843'; 2 of 2 sentences cited",
        ),
        (
            "Ada Lovelace published it in her notes of 1843 [doc1].",
            2 / 3,
            "missing fact 'Analytical Engine'; 1 of 1 sentence cited",
        ),
        (
            "Charles Babbage wrote it [doc2].",
            0.0,
            "missing facts 'Ada Lovelace', '1843', 'Analytical Engine'; 1 of 1 sentence cited",
        ),
    ],
    ids=["changed_number", "truncated", "wrong_person"],
)
def test_a_missing_fact_fails_even_when_every_sentence_is_cited(output, share, reason):
    result = score(output)
    assert result.score == pytest.approx(share)
    assert result.passed is False
    assert result.reason == reason


def test_a_reply_without_citations_scores_zero():
    result = score("I'm sorry, I can't help with that request.")
    assert (result.score, result.passed) == (0.0, False)
    assert result.reason.startswith("missing facts 'Ada Lovelace', '1843', 'Analytical Engine'; ")
    assert result.reason.endswith("0 of 1 sentence cited (0.00, below the floor 0.80)")
    assert result.metrics == {"citation_rate": 0.0, "hallucinated_refs": 0.0}


def test_citing_a_source_not_given_is_a_hallucinated_ref():
    output = ANSWER.replace("[doc1][doc2]", "[doc2][doc7]") + " It ran on steam [doc9]."
    result = score(output)
    assert result.score == 0.0
    assert result.passed is False
    assert result.reason == (
        "cites doc7, doc9, not among the sources doc1, doc2;"
        " 3 of 3 sentences cited; 3 of 3 facts present"
    )
    assert result.metrics == {"citation_rate": 1.0, "hallucinated_refs": 2.0}


def test_a_hallucinated_ref_counts_once_however_often_it_is_cited():
    output = "Ada Lovelace wrote it in 1843 [doc5]. It was for the Analytical Engine [doc5]."
    assert score(output).metrics["hallucinated_refs"] == 1.0


def test_sources_may_be_a_list():
    assert score(ANSWER, sources=["doc1", "doc2"]).passed is True
    assert score(ANSWER, sources=["doc1"]).metrics["hallucinated_refs"] == 1.0


def test_without_sources_or_facts_only_citations_are_checked():
    result = score("Something unrelated [doc42].", sources=None, facts=None)
    assert result.passed is True
    assert result.reason == "1 of 1 sentence cited"


def test_an_empty_answer_has_no_sentences():
    result = score("")
    assert (result.score, result.passed) == (0.0, False)
    assert (
        result.reason
        == "missing facts 'Ada Lovelace', '1843', 'Analytical Engine'; the answer has no sentences"
    )


def test_without_a_case_the_scorer_still_grades_citations():
    result = CitationsScorer().score(ANSWER, ANSWER, ScoringContext())
    assert result.passed is True


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("One [doc1]. Two [doc2]", ["One [doc1].", "Two [doc2]"]),
        ("One. [doc1] Two.", ["One. [doc1]", "Two."]),
        ("It cost 3.5 million [doc1]. Then?", ["It cost 3.5 million [doc1].", "Then?"]),
        ("First line\nSecond line", ["First line", "Second line"]),
        ("```\nOnly this.\n```", ["Only this."]),
    ],
)
def test_sentences(text, expected):
    assert sentences(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("a [doc1] b [doc2][doc3]", ["doc1", "doc2", "doc3"]),
        ("a [doc1, doc4; src2]", ["doc1", "doc4", "src2"]),
        ("a [sic] b [1] c [see above]", []),
    ],
)
def test_refs(text, expected):
    assert refs(text) == expected
