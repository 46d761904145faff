"""Grades an extracted money amount: `$1,200.00`, `1200` and `USD 1200` are the same answer.

exact_match fails on surface forms that any accountant would call equal. This scorer
finds the amount in the output (in free text, the last one mentioned), reads its
currency from a symbol or an ISO code, and compares both with the reference, as Decimals.

    scorers:
      options:
        currency:
          default_currency: USD   # the currency of a reference written as a bare number
          tolerance: 0.005        # the largest difference still counted as equal

Amounts are written the English way: `,` groups thousands and `.` starts the cents.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator

from pytest_arena.scorers import Scorer, ScoreResult, ScoringContext

SYMBOLS = {"US$": "USD", "C$": "CAD", "A$": "AUD", "$": "USD", "€": "EUR", "£": "GBP", "¥": "JPY"}
CODES = ("USD", "EUR", "GBP", "JPY", "CHF", "CAD", "AUD")
NAMES = {"DOLLAR": "USD", "DOLLARS": "USD", "EURO": "EUR", "EUROS": "EUR"}
NAMES |= {"POUND": "GBP", "POUNDS": "GBP", "YEN": "JPY"}

_WORDS = "|".join((*CODES, *sorted(NAMES, key=len, reverse=True)))
_CURRENCY = rf"US\$|C\$|A\$|[$€£¥]|(?<![a-z])(?:{_WORDS})(?![a-z])"
_AMOUNT = re.compile(
    # not inside a word, a number, a date ("2024-03-15") or an id ("INV-2041", "#4471")
    r"(?<![\w.,#])(?<!\w[-/:])"
    r"(?P<sign>-)?"
    rf"(?:(?P<pre>{_CURRENCY})\s?)?"
    r"(?P<sign2>-)?"
    r"(?P<num>\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?)"
    # the number ends here, and is not a percentage
    r"(?![.,/:-]?\d)(?!\s?%)"
    rf"(?:\s?(?P<post>{_CURRENCY})|(?![^\W\d]))",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class Amount:
    value: Decimal
    currency: str | None  # None: written as a bare number
    text: str

    def show(self, currency: str | None = None) -> str:
        """`1200.00 USD`: cents always shown, the code last."""
        value = self.value
        cents = value.quantize(Decimal("0.01"))
        if cents == value:
            value = cents
        code = self.currency or currency
        return f"{value:f} {code}" if code else f"{value:f}"


def currency_code(marker: str) -> str:
    """The ISO code for a marker as written: '$' -> 'USD', 'eur' -> 'EUR', 'euros' -> 'EUR'."""
    code = marker.upper()
    return SYMBOLS.get(code) or NAMES.get(code) or code


def find_amounts(text: str) -> list[Amount]:
    """Every amount in `text`, in order."""
    found = []
    for match in _AMOUNT.finditer(text):
        value = Decimal(match["num"].replace(",", ""))
        if match["sign"] or match["sign2"]:
            value = -value
        marker = match["pre"] or match["post"]
        found.append(Amount(value, currency_code(marker) if marker else None, match.group(0)))
    return found


def pick_amount(text: str) -> Amount | None:
    """The last amount that names its currency; failing that, the last bare number."""
    found = find_amounts(text)
    marked = [a for a in found if a.currency]
    return (marked or found or [None])[-1]


class CurrencyOptions(BaseModel):
    model_config = ConfigDict(extra="forbid")

    default_currency: str | None = None
    tolerance: Decimal = Field(Decimal("0.005"), ge=0)

    @field_validator("default_currency")
    @classmethod
    def _known_currency(cls, value: str | None) -> str | None:
        if value is None:
            return None
        code = currency_code(value.strip())
        if code not in CODES:
            raise ValueError(f"unknown currency {value!r}; use one of {', '.join(CODES)}")
        return code


class CurrencyScorer(Scorer):
    """The output states the reference's amount in the reference's currency."""

    name = "currency"
    options_model = CurrencyOptions

    def score(self, output: str, reference: Any, context: ScoringContext) -> ScoreResult:
        if reference is None:
            return ScoreResult(0.0, None, "no reference amount to compare with: unscored")
        opts = CurrencyOptions.model_validate(dict(context.options))
        expected = reference_amount(reference, opts.default_currency)
        found = pick_amount(output)
        if found is None:
            return ScoreResult(
                0.0,
                False,
                f"no amount found in {_quote(output)}",
                detail={"expected": expected.show()},
            )
        currency = found.currency or expected.currency  # a bare number: the reference's
        detail = {"expected": expected.show(), "found": found.show(currency)}
        same_amount = abs(found.value - expected.value) <= opts.tolerance
        same_currency = expected.currency is None or currency == expected.currency
        where = f"in {_quote(output)}"
        if same_amount and same_currency:
            return ScoreResult(1.0, True, f"found {found.show(currency)} {where}", detail=detail)
        if same_amount:
            reason = (
                f"currency differs: expected {expected.currency}, found {currency}"
                f" ({found.show(currency)} {where})"
            )
        else:
            what = "amount differs" if same_currency else "currency and amount differ"
            reason = f"{what}: expected {expected.show()}, found {found.show(currency)} {where}"
        return ScoreResult(0.0, False, reason, detail=detail)


def reference_amount(reference: Any, default_currency: str | None) -> Amount:
    """The reference as an Amount; a bare number is in `default_currency`."""
    if isinstance(reference, int | float | Decimal) and not isinstance(reference, bool):
        return Amount(Decimal(str(reference)), default_currency, str(reference))
    amount = pick_amount(reference) if isinstance(reference, str) else None
    if amount is None:
        raise ValueError(
            f"reference {reference!r} holds no amount; write it like '$1,200.00' or 1200"
        )
    if amount.currency is None:
        return Amount(amount.value, default_currency, amount.text)
    return amount


def _quote(text: str, limit: int = 60) -> str:
    text = text.strip().replace("\n", "\\n")
    if len(text) > limit:
        text = text[: limit - 1] + "…"
    return f"'{text}'"
