"""numeric_match: reading the answer's number, tolerances, partial credit and reasons."""

from __future__ import annotations

from typing import Any

import pydantic
import pytest

from pytest_arena import Case
from pytest_arena.scorers import ScoreResult, ScoringContext
from pytest_arena.scorers.numeric import NumericMatch, read_number


def numeric(output: str, reference: Any, **options: Any) -> ScoreResult:
    context = ScoringContext(options=options, test_case=Case("c", "q", reference))
    return NumericMatch().score(output, reference, context)


@pytest.mark.parametrize(
    ("output", "reference", "options", "score", "passed", "reason"),
    [
        ("42", 42, {}, 1.0, True, "found 42, as expected"),
        ("The total is $1,200.00", "1200", {}, 1.0, True, "found 1200, as expected"),
        ("USD 1,200", "$1,200.00", {}, 1.0, True, "found 1200, as expected"),
        ("1300", 1200, {"abs_tol": 0.5}, 0.0, False, "expected 1200 (±0.5), found 1300 in '1300'"),
        ("about 1200.3", 1200, {"abs_tol": 0.5}, 1.0, True, "found 1200.3, within ±0.5 of 1200"),
        ("99", 100, {"rel_tol": 0.02}, 1.0, True, "found 99, within ±2% of 100"),
        ("97", 100, {"rel_tol": 0.02}, 0.0, False, "expected 100 (±2%), found 97 in '97'"),
        ("0.1 + 0.2 = 0.30000000000000004", 0.3, {}, 1.0, True, "found 0.3, as expected"),
        ("First 3 eggs, then 5 more: 8 in all", 8, {}, 1.0, True, "found 8, as expected"),
        (
            "First 3 eggs, then 5 more: 8 in all",
            8,
            {"pick": "first"},
            0.0,
            False,
            "expected 8, found 3 in 'First 3 eggs, then 5 more: 8 in all'",
        ),
        ("Answer: 42. Check: 42 + 1 = 43", 42, {}, 1.0, True, "found 42, as expected"),
        ("the answer is 42, not 43", 42, {}, 1.0, True, "found 42, as expected"),
        (
            "16 - 3 - 4 = 9, 9 * 2 = 18\n#### 18",
            "Janet sells 9 eggs at $2 each.\n#### 18",
            {},
            1.0,
            True,
            "found 18, as expected",
        ),
        (
            "so x = \\boxed{\\frac{3}{4}} for 2 cases",
            0.75,
            {},
            1.0,
            True,
            "found 0.75, as expected",
        ),
        ("It weighs 12 kg", "12", {}, 1.0, True, "found 12, as expected"),
        ("He ran 3.5km", 3.5, {}, 1.0, True, "found 3.5, as expected"),
        ("Growth was 50%", "50%", {}, 1.0, True, "found 50, as expected"),
        ("It fell to -5 degrees", -5, {}, 1.0, True, "found -5, as expected"),
        ("A loss of -$5", "−5", {}, 1.0, True, "found -5, as expected"),
        ("Avogadro: 6.02e23", 6.02e23, {}, 1.0, True, "found 6.02e+23, as expected"),
        ("3/4 of them", "0.75", {}, 1.0, True, "found 0.75, as expected"),
        ("COVID-19", 19, {}, 1.0, True, "found 19, as expected"),
        ("1100", 1000, {"partial_credit": True}, 0.9, False, "expected 1000, found 1100 in '1100'"),
        ("5000", 1000, {"partial_credit": True}, 0.0, False, "expected 1000, found 5000 in '5000'"),
        ("1", 0, {"partial_credit": True}, 0.0, False, "expected 0, found 1 in '1'"),
        ("I am not sure", 7, {}, 0.0, False, "no number found in 'I am not sure'"),
    ],
)
def test_numeric_match(
    output: str, reference: Any, options: dict[str, Any], score: float, passed: bool, reason: str
) -> None:
    result = numeric(output, reference, **options)
    assert result.score == pytest.approx(score)
    assert (result.passed, result.reason) == (passed, reason)


@pytest.mark.parametrize(
    ("text", "number"),
    [
        ("1,234,567.5", 1234567.5),
        ("1,2345", 2345.0),
        ("version 1.2.3", 1.2),
        ("H2O", None),
        ("5-3", 3.0),
        ("1.5E-3 mol", 0.0015),
        ("£12 or €13", 13.0),
        ("Final answer: \\boxed{7}. Earlier I wrote 6", 7.0),
        ("[42]", 42.0),  # a number in brackets alone is no citation
        ("x = [3]", 3.0),
        ("see [1]", 1.0),  # nor is the only number
    ],
)
def test_read_number(text: str, number: float | None) -> None:
    assert read_number(text) == number


@pytest.mark.parametrize(
    ("reference", "message"),
    [
        ("no digits", "reference 'no digits' holds no number"),
        (True, "reference true holds no number"),
    ],
)
def test_numeric_match_names_a_reference_without_a_number(reference: Any, message: str) -> None:
    with pytest.raises(ValueError) as caught:
        numeric("42", reference)
    assert str(caught.value) == message


def test_numeric_match_without_a_reference_is_unscored() -> None:
    result = numeric("42", None)
    assert (result.score, result.passed, result.reason) == (
        0.0,
        None,
        "no reference to compare with: unscored",
    )


@pytest.mark.parametrize(
    ("options", "option"),
    [
        ({"abs_tolerance": 1}, "abs_tolerance"),
        ({"abs_tol": -1}, "abs_tol"),
        ({"pick": "middle"}, "pick"),
    ],
)
def test_numeric_match_refuses_bad_options(options: dict[str, Any], option: str) -> None:
    with pytest.raises(pydantic.ValidationError) as caught:
        numeric("42", 42, **options)
    assert caught.value.errors()[0]["loc"] == (option,)


@pytest.mark.parametrize(
    ("output", "reference"),
    [
        # MATH writes thousands as 10,\!000; 1{,}000 and 1\,000 are the same number
        ("so there are $\\boxed{10,\\!000}$ ways", 10000),
        ("\\boxed{1{,}000}", 1000),
        ("\\boxed{1\\,000}", 1000),
        # an answer line's number is its result, after the last "="
        ("Answer: 5 + 7 = 12", 12),
        ("Answer: 48/2 = 24 clips..., so 48 + 24 = 72 in total.", 72),
        # fractions without braces, and \dfrac
        ("\\boxed{\\frac12}", 0.5),
        ("\\boxed{\\dfrac14}", 0.25),
        ("\\boxed{\\left(\\frac{3}{4}\\right)}", 0.75),
        ("\\boxed{5\\text{ cm}}", 5),
        ("\\boxed{12.5\\%}", 12.5),
        # the first "#### N", as GSM8K and lm-evaluation-harness read it: a base model
        # that runs on into the next question writes a second one
        ("3 + 4 = 7\n#### 7\n\nQuestion: Tom has 2 apples...\n#### 9", 7),
    ],
)
def test_numeric_match_reads_what_the_benchmarks_write(output: str, reference: float) -> None:
    result = numeric(output, reference)
    assert result.passed, result.reason


GSM8K_REFERENCE = "Natalia sold 48/2 = <<48/2=24>>24 clips in May.\n#### 72"


@pytest.mark.parametrize(
    ("output", "convention", "passed", "reason"),
    [
        (
            "48 + 24 = 72\n#### 72",
            "gsm8k",
            True,
            "found '72', as expected by GSM8K's extract_answer (the first '#### N')",
        ),
        (
            "#### 72.0",
            "gsm8k",
            False,
            "expected '72', found '72.0' by GSM8K's extract_answer (the first '#### N')",
        ),
        (
            "So 72 in total.",
            "gsm8k",
            False,
            "no answer found by GSM8K's extract_answer (the first '#### N') in 'So 72 in total.'",
        ),
        ("#### 72.", "lm_eval_strict", True, None),
        ("#### $72", "lm_eval_strict", False, None),
        ("So she sold 72 clips.", "lm_eval_flexible", True, None),
        ("So she sold 72 clips, 3 more.", "lm_eval_flexible", False, None),
    ],
)
def test_numeric_match_grades_as_gsm8k_and_lm_eval(
    output: str, convention: str, passed: bool, reason: str | None
) -> None:
    result = numeric(output, GSM8K_REFERENCE, convention=convention)
    assert result.passed is passed
    if reason is not None:
        assert result.reason == reason


@pytest.mark.parametrize(
    ("output", "reference", "passed"),
    [
        ("so $\\boxed{\\dfrac{1}{2}}$", "$\\boxed{\\frac12}$", True),
        ("\\boxed{0.5}", "\\boxed{\\frac{1}{2}}", True),
        ("\\boxed{10,\\!000}", "\\boxed{10,000}", True),
        # MATH compares text: 10000 is not "10,000"
        ("\\boxed{10000}", "\\boxed{10,\\!000}", False),
        ("\\boxed{x^2+1}", "x^2 + 1", True),
        ("the answer is 3", "3", False),
    ],
)
def test_numeric_match_grades_as_math(output: str, reference: str, passed: bool) -> None:
    assert numeric(output, reference, convention="math").passed is passed


def test_a_benchmark_convention_refuses_tolerances() -> None:
    with pytest.raises(pydantic.ValidationError) as caught:
        numeric("#### 72", 72, convention="gsm8k", abs_tol=1)
    assert "convention gsm8k compares the answer as its benchmark's grader does" in str(
        caught.value
    )


@pytest.mark.parametrize(
    ("output", "reference"),
    [
        ("**Answer**: 42\n\nI multiplied the 7 boxes by 6 eggs, in 1 step.", 42),
        ("## Answer\n42\n\nbecause 7 times 6", 42),
        ("Answer: 10\u202f000", 10000),
        ("Answer: 10\u00a0000 m", 10000),
        ("It is 6.02 \u00d7 10^23.", 6.02e23),
        ("\\boxed{6.02 \\times 10^{23}}", 6.02e23),
        ("Answer: 7", [7, 11]),
        ("Answer: 11", [7, 11]),
        ("Paris has about 2.1 million people [1].", 2.1),
        ("Paris has about 2.1 million people.[1][2]", 2.1),
        ("It boils at 100 degrees[^3]", 100),
        ("The sum is 12 [1, 2]", 12),
        ("The sum is 12 [3\u20135]", 12),
        ("3 apples and 2 pears. Answer: [5]", 5),  # an answer in brackets is no citation
        ("3 + 4 = [7]", 7),
        ("Growth reached 12%[2].", 12),
        ("The unemployment rate was 4.5% [3].", 4.5),
        ("The value is **42**[1]", 42),
        ("It is 100\u00b0[4]", 100),
    ],
)
def test_numbers_as_models_write_them(output: str, reference: Any) -> None:
    """A bold "Answer" was missed (the last number of the explanation won); thousands
    parted by a no-break space read as 10; "times 10^23" as 23; a list reference as its last
    number, so its first could never pass; a citation mark ("[1]") as the answer."""
    result = numeric(output, reference)
    assert result.passed is True, result.reason
