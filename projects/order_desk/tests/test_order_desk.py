"""order_desk's own scorer and tools, tested directly: grounded reads the trajectory, and
the tools do what their docstrings say."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

import pytest

from projects.order_desk.scorers.grounded import GroundedScorer
from projects.order_desk.tools import cancel_order, issue_refund, lookup_order
from pytest_arena import scoring_context


def looked_up(order_id: str, answer: str, *more: dict) -> list[dict]:
    """A trajectory: lookup_order(order_id), then the calls in `more`, then `answer`."""
    result = {"name": "lookup_order", "is_error": False}
    try:
        result["content"] = json.dumps(lookup_order(order_id))
    except LookupError as exc:
        result.update(is_error=True, content=f"error: {exc}")
    call = {"id": "c1", "name": "lookup_order", "arguments": {"order_id": order_id}}
    steps = [{"message": {"content": "", "tool_calls": [call]}, "tool_results": [result]}]
    steps += list(more)
    steps.append({"message": {"content": answer}})
    return steps


def score(steps: list[dict]):
    answer = steps[-1]["message"]["content"]
    return GroundedScorer().score(answer, None, scoring_context(trajectory=steps))


def test_an_answer_with_the_order_and_its_status_is_grounded():
    result = score(looked_up("1182", "Order 1182 shipped on 28 November."))
    assert (result.score, result.passed) == (1.0, True)


def test_an_answer_that_leaves_out_the_status_is_not():
    result = score(looked_up("1182", "Order 1182 is on its way."))
    assert not result.passed
    assert result.reason == "the answer does not mention 'shipped'"


def test_a_refund_claimed_without_a_refund_made_is_caught():
    result = score(looked_up("1182", "Order 1182 has shipped and I refunded you."))
    assert result.reason == "the answer says 'refunded' but issue_refund did not succeed"
    refund = {
        "message": {"content": ""},
        "tool_results": [
            {"name": "issue_refund", "is_error": False, "content": "refunded 24.50 on order 1190"}
        ],
    }
    ok = score(looked_up("1190", "Order 1190 was delivered; I refunded 24.50.", refund))
    assert ok.passed


def test_a_refund_or_cancellation_must_be_told_as_the_tool_reported_it():
    refund = {
        "message": {"content": ""},
        "tool_results": [
            {"name": "issue_refund", "is_error": False, "content": "refunded 24.50 on order 1190"}
        ],
    }
    wrong = score(looked_up("1190", "Order 1190 was delivered; I refunded 21.50.", refund))
    assert not wrong.passed and wrong.reason == "the answer does not mention '24.50'"
    cancel = {
        "message": {"content": ""},
        "tool_results": [
            {"name": "cancel_order", "is_error": False, "content": "order 1204 cancelled"}
        ],
    }
    steps = [cancel, {"message": {"content": "Order 1067 is cancelled."}}]
    assert score(steps).reason == "the answer does not mention '1204'"


def test_a_failed_lookup_gives_no_facts_to_check():
    result = score(looked_up("9999", "I could not find that order."))
    assert result.passed and "0 facts" in result.reason


def test_the_tools_refuse_what_support_must_not_do():
    tmp_path = Path(tempfile.mkdtemp())
    with pytest.raises(ValueError, match="more than the order's total"):
        issue_refund("1190", 100.0, tmp_path)
    assert issue_refund("1190", 24.5, tmp_path) == "refunded 24.50 on order 1190"
    assert (tmp_path / "refunds.txt").read_text() == "1190 24.50\n"
    with pytest.raises(ValueError, match="cannot be cancelled"):
        cancel_order("1182")
    with pytest.raises(LookupError):
        lookup_order("1")
