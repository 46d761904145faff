"""The support_replies scorers, tested directly: they are plain classes."""

from __future__ import annotations

import pytest

from projects.support_replies.scorers.key_points import KeyPointsScorer
from projects.support_replies.scorers.tone import ToneScorer
from pytest_arena import Case
from pytest_arena.scorers import ScoringContext

ctx = ScoringContext()


def test_a_polite_refusal_still_scores_as_polite():
    result = ToneScorer().score("I'm sorry, please try again.", None, ctx)
    assert result.passed


@pytest.mark.parametrize(
    "output",
    [
        "Please reply with a photo of the damage.",
        "Could you PLEASE tell me which device you use?",
        "If it has not arrived by tonight, please let me know.",
    ],
)
def test_please_anywhere_in_any_case_is_polite(output):
    result = ToneScorer().score(output, None, ctx)
    assert (result.score, result.passed, result.reason) == (1.0, True, "found 'please'")


@pytest.mark.parametrize(
    "output",
    [
        "Cancelled.",
        "I'm sorry your package is late, and I understand how frustrating that is.",
        "As an AI model, I don't have access to that information.",
        "",
    ],
)
def test_a_reply_without_please_fails_saying_please_is_missing(output):
    """It said "no politeness marker" of a reply with "sorry" and "I understand" in it:
    the reason names the one word looked for."""
    result = ToneScorer().score(output, None, ctx)
    assert (result.score, result.passed, result.reason) == (0.0, False, "no 'please' in the reply")


def test_tone_ignores_the_reference():
    result = ToneScorer().score("Done.", "Please check your inbox.", ctx)
    assert result.passed is False


def key_points_context(*points, **options):
    case = Case(id="refund", input="...", metadata={"must_mention": list(points)})
    return ScoringContext(test_case=case, options=options)


REFUND = (
    "I'm sorry about the double charge on order 58213. I have refunded the duplicate"
    " payment of $24.99, and it should be back on your card within 5 business days."
)


def test_a_reply_with_every_key_point_passes():
    context = key_points_context("order 58213", "$24.99", "5 business days")
    result = KeyPointsScorer().score(REFUND, None, context)
    assert (result.score, result.passed) == (1.0, True)
    assert result.reason == "mentions all 3 key points"


def test_key_points_ignore_letter_case_and_line_breaks():
    context = key_points_context("Order 58213", "5 business\n days")
    assert KeyPointsScorer().score(REFUND.replace(" within", "\nwithin"), None, context).passed


@pytest.mark.parametrize(
    ("output", "score", "reason"),
    [
        (
            REFUND.replace("58213", "72822"),
            2 / 3,
            "mentions 2 of 3 key points; missing 'order 58213'",
        ),
        (
            "I'm sorry about the double charge on order 58213.",
            1 / 3,
            "mentions 1 of 3 key points; missing '$24.99', '5 business days'",
        ),
        (
            "Could you clarify what you mean?",
            0.0,
            "mentions 0 of 3 key points; missing 'order 58213', '$24.99', '5 business days'",
        ),
    ],
)
def test_a_reply_missing_key_points_fails_and_names_them(output, score, reason):
    context = key_points_context("order 58213", "$24.99", "5 business days")
    result = KeyPointsScorer().score(output, None, context)
    assert result.score == pytest.approx(score)
    assert result.passed is False
    assert result.reason == reason


def test_pass_share_lets_a_reply_miss_some_key_points():
    context = key_points_context("order 58213", "$24.99", "5 business days", pass_share=0.6)
    result = KeyPointsScorer().score(REFUND.replace("$24.99", "$19.99"), None, context)
    assert result.passed is True
    assert result.reason == "mentions 2 of 3 key points; missing '$24.99'"


@pytest.mark.parametrize(
    "context",
    [ScoringContext(), ScoringContext(test_case=Case(id="bare", input="..."))],
    ids=["no case", "no metadata"],
)
def test_a_case_without_key_points_is_unscored(context):
    result = KeyPointsScorer().score(REFUND, None, context)
    assert result.passed is None
    assert result.reason == "this case lists no key points (metadata: must_mention): unscored"
