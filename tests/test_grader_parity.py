"""Each named convention grades exactly as the benchmark's own grader (copied in
tests/references/) on every generated output: token_f1 as SQuAD v1.1 and v2.0,
numeric_match as GSM8K, lm-evaluation-harness and MATH, choice as inspect_ai."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, assume, example, given, settings
from hypothesis import strategies as st

from pytest_arena.scorers import graders
from tests import grader_corpora as corpora
from tests.grader_corpora import math_ref

PARITY = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@pytest.mark.parametrize("normalize", ["squad_v1", "squad_v2"])
@PARITY
@given(pair=corpora.squad_pair())
@example(pair=("“Paris”", ["Paris"]))
@example(pair=("", [""]))
@example(pair=("", ["the"]))
@example(pair=("", ["the", "Paris"]))
@example(pair=("Paris …", ["Paris"]))
def test_token_f1_is_squad(normalize: str, pair: tuple[str, list[str]]) -> None:
    output, references = pair
    ours = corpora.ours_token_f1(output, references, normalize)
    assert ours == corpora.reference_token_f1(output, references, normalize)


@pytest.mark.parametrize("convention", ["gsm8k", "lm_eval_strict", "lm_eval_flexible"])
@PARITY
@given(output=corpora.gsm8k_output, reference=corpora.gsm8k_reference())
@example(output="#### 72\nQuestion: next\n#### 9", reference="x\n#### 72")
@example(output="#### 72.", reference="x\n#### 72")
@example(output="#### 1,000", reference="x\n#### 1000")
@example(output="#### $72", reference="x\n#### 72")
@example(output="So 72 clips.", reference="x\n#### 72")
def test_numeric_match_is_gsm8k_and_lm_eval(convention: str, output: str, reference: str) -> None:
    ours = corpora.ours_numeric(output, reference, convention)
    assert ours is corpora.reference_numeric(output, reference, convention)


@PARITY
@given(output=corpora.math_output, reference=corpora.math_reference)
@example(output="\\boxed{10,\\!000}", reference="\\boxed{10,\\!000}")
@example(output="\\boxed{10000}", reference="\\boxed{10,\\!000}")
@example(output="\\boxed{\\dfrac12}", reference="\\boxed{0.5}")
@example(output="\\boxed{\\frac}", reference="\\frac")
def test_numeric_match_is_math(output: str, reference: str) -> None:
    assume(corpora.math_reference_has_answer(reference))
    ours = corpora.ours_numeric(output, reference, "math")
    assert ours is corpora.reference_numeric(output, reference, "math")


@settings(max_examples=1000, deadline=None)
@given(
    text=st.one_of(
        corpora.math_output, st.text(alphabet="\\frac{}sqrt/.= 0123texbod!%$", max_size=20)
    )
)
def test_math_strip_is_strip_string(text: str) -> None:
    try:
        expected: str | None = math_ref._strip_string(text)
    except Exception:
        expected = None
    try:
        ours: str | None = graders.math_strip(text)
    except (AssertionError, IndexError, ValueError):
        ours = None
    assert ours == expected
    assert graders.last_boxed(text) == math_ref.last_boxed_only_string(text)


@pytest.mark.parametrize("expected", ["A", "B"])
@PARITY
@given(output=corpora.choice_output())
@example(output="Let us check whether the answer is B. It is not.\nANSWER: A")
@example(output="ANSWER: $A$")
@example(output="ANSWER: a.")
@example(output="ANSWER: A,")
def test_choice_is_inspect_ai(expected: str, output: str) -> None:
    assert corpora.ours_choice(output, expected, "inspect") is corpora.reference_choice(
        output, expected
    )
