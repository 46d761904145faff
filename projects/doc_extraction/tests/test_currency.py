"""CurrencyScorer, tested directly: it is a plain class."""

from __future__ import annotations

from decimal import Decimal

import pytest

from projects.doc_extraction.scorers.currency import (
    CurrencyOptions,
    CurrencyScorer,
    find_amounts,
    pick_amount,
)
from pytest_arena import Case
from pytest_arena.scorers import ScoringContext

ctx = ScoringContext()


def score(output, reference, **options):
    return CurrencyScorer().score(output, reference, ScoringContext(options=options))


@pytest.mark.parametrize(
    "output",
    [
        "$1,200.00",
        "1200",
        "USD 1200",
        "1,200",
        "1200.00 USD",
        "US$1,200",
        "usd 1200",
        "USD1200",
        "1,200 dollars",
        "1200.0",
    ],
)
def test_surface_forms_of_the_same_amount_all_pass(output):
    result = CurrencyScorer().score(output, "$1,200.00", ctx)
    assert result.score == 1.0
    assert result.passed is True
    assert result.reason == f"found 1200.00 USD in '{output}'"


@pytest.mark.parametrize(
    "output",
    [
        "The total due is $1,200.00.",
        "Answer: $1,200.00",
        "```\n$1,200.00\n```",
        "Subtotal $1,100.00, tax $100.00, total $1,200.00",
        "Invoice INV-2041 of 2024-03-15: total 1,200",
        "Including 8% tax, you owe $1,200.00",
    ],
)
def test_the_amount_is_found_in_free_text(output):
    result = CurrencyScorer().score(output, "$1,200.00", ctx)
    assert result.passed is True, result.reason
    assert result.detail == {"expected": "1200.00 USD", "found": "1200.00 USD"}


@pytest.mark.parametrize(
    ("output", "found"),
    [
        ("$1,300.00", "1300.00 USD"),
        ("1300", "1300.00 USD"),
        ("USD 1,200.50", "1200.50 USD"),
        ("-$1,200.00", "-1200.00 USD"),
        ("$120.00", "120.00 USD"),
    ],
)
def test_another_amount_fails_and_says_which_was_found(output, found):
    result = CurrencyScorer().score(output, "$1,200.00", ctx)
    assert result.score == 0.0
    assert result.passed is False
    assert result.reason == f"amount differs: expected 1200.00 USD, found {found} in '{output}'"


def test_the_last_amount_mentioned_is_the_answer():
    result = CurrencyScorer().score("It was $1,200.00, now it is $1,300.00.", "$1,200.00", ctx)
    assert result.passed is False
    assert "found 1300.00 USD" in result.reason


def test_an_amount_with_a_currency_wins_over_a_later_bare_number():
    result = CurrencyScorer().score("Total $1,200.00, due in 30 days", "$1,200.00", ctx)
    assert result.passed is True


@pytest.mark.parametrize(
    ("output", "currency"),
    [
        ("EUR 1200", "EUR"),
        ("€1,200.00", "EUR"),
        ("£1,200", "GBP"),
        ("1200 GBP", "GBP"),
        ("1200 euros", "EUR"),
        ("C$1,200", "CAD"),
    ],
)
def test_the_same_number_in_another_currency_fails(output, currency):
    result = CurrencyScorer().score(output, "$1,200.00", ctx)
    assert result.score == 0.0
    assert result.passed is False
    assert result.reason == (
        f"currency differs: expected USD, found {currency} (1200.00 {currency} in '{output}')"
    )


def test_another_amount_in_another_currency_says_both_differ():
    result = CurrencyScorer().score("EUR 1300", "$1,200.00", ctx)
    assert result.passed is False
    assert result.reason == (
        "currency and amount differ: expected 1200.00 USD, found 1300.00 EUR in 'EUR 1300'"
    )


@pytest.mark.parametrize(
    ("reference", "output"),
    [
        ("€89.50", "89.50"),
        ("€89.50", "EUR 89.50"),
        ("£1,045.20", "1045.2"),
        ("EUR 2,310.00", "2,310"),
        ("2,450.00 USD", "$2,450"),
        ("-$45.00", "-45"),
        ("US$350", "USD 350.00"),
    ],
)
def test_a_bare_or_coded_output_takes_the_reference_currency(reference, output):
    result = CurrencyScorer().score(output, reference, ctx)
    assert result.passed is True, result.reason


@pytest.mark.parametrize("output", ["", "I could not find a total.", "Due 2024-03-15", "Tax 8%"])
def test_no_amount_found_is_its_own_reason(output):
    result = CurrencyScorer().score(output, "$1,200.00", ctx)
    assert result.score == 0.0
    assert result.passed is False
    assert result.reason == f"no amount found in '{output}'"


def test_a_long_output_is_shortened_in_the_reason():
    output = "I looked everywhere in this document but there is no total line at all, sorry."
    result = CurrencyScorer().score(output, "$1,200.00", ctx)
    assert result.reason == f"no amount found in '{output[:59]}…'"


def test_a_bare_reference_number_takes_the_default_currency_option():
    assert score("EUR 640.00", 640, default_currency="EUR").passed is True
    result = score("$640.00", 640, default_currency="EUR")
    assert result.passed is False
    assert result.reason == "currency differs: expected EUR, found USD (640.00 USD in '$640.00')"


def test_a_bare_reference_without_a_default_currency_checks_the_amount_only():
    assert score("EUR 640", "640").passed is True
    assert score("$640", 640).passed is True
    reason = score("$641", 640).reason
    assert reason == "amount differs: expected 640.00, found 641.00 USD in '$641'"


def test_the_default_currency_option_accepts_a_symbol():
    assert score("£20", 20, default_currency="£").passed is True


def test_options_come_from_the_case_through_the_context():
    case = Case(id="berlin", input="...", reference=640, options={"default_currency": "EUR"})
    context = ScoringContext(test_case=case, options=case.options)
    assert CurrencyScorer().score("640 EUR", 640, context).passed is True


@pytest.mark.parametrize(
    ("output", "tolerance", "passed"),
    [
        ("$1,200.004", None, True),
        ("$1,200.01", None, False),
        ("$1,200.01", 0.01, True),
        ("$1,201", 1, True),
        ("$1,200.001", 0, False),
    ],
)
def test_tolerance(output, tolerance, passed):
    options = {} if tolerance is None else {"tolerance": tolerance}
    assert score(output, "$1,200.00", **options).passed is passed


def test_amounts_are_compared_as_decimals_not_floats():
    # 0.1 + 0.2 != 0.3 in floats; with tolerance 0 only exact Decimals match
    assert score("$0.30", "$0.3", tolerance=0).passed is True


def test_a_missing_reference_is_unscored():
    result = CurrencyScorer().score("$5", None, ctx)
    assert result.passed is None
    assert result.reason == "no reference amount to compare with: unscored"


def test_a_reference_without_an_amount_is_a_mistake_in_the_case():
    with pytest.raises(ValueError, match="reference 'about twelve hundred' holds no amount"):
        CurrencyScorer().score("$1,200", "about twelve hundred", ctx)


def test_misspelt_or_unknown_options_are_rejected():
    with pytest.raises(ValueError, match="default_curency"):
        CurrencyOptions.model_validate({"default_curency": "USD"})
    with pytest.raises(ValueError, match="unknown currency 'XYZ'"):
        CurrencyOptions.model_validate({"default_currency": "XYZ"})
    with pytest.raises(ValueError, match="greater than or equal to 0"):
        CurrencyOptions.model_validate({"tolerance": -1})


def test_the_scorer_is_named_currency():
    assert CurrencyScorer.name == "currency"


@pytest.mark.parametrize(
    ("text", "amounts"),
    [
        ("$1,100 + $100 = $1,200.00", [("1100", "USD"), ("100", "USD"), ("1200.00", "USD")]),
        ("Invoice #4471, ref INV-2041, 10:30, 2024-03-15", []),
        ("3 x 24.99", [("3", None), ("24.99", None)]),
        ("EUR 2,310.00 / £5", [("2310.00", "EUR"), ("5", "GBP")]),
    ],
)
def test_find_amounts(text, amounts):
    assert [(str(a.value), a.currency) for a in find_amounts(text)] == amounts


def test_pick_amount_gives_none_without_a_number():
    assert pick_amount("nothing here") is None
    assert pick_amount("USD 7").value == Decimal("7")
