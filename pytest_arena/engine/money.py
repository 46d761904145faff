"""Amounts of money as people read them, and how a spent budget is reported."""

BUDGET_SPENT = "budget spent"  # how the reason of an item that a budget stopped begins


def dollars(amount: float) -> str:
    """$1.50, $0.50, $0.0042, $0.000013: cents at least, and as many digits as a smaller
    amount needs (up to six)."""
    if amount >= 1:
        return f"${amount:.2f}"
    whole, _, cents = f"{amount:.6f}".rstrip("0").partition(".")
    return f"${whole}.{cents:0<2}"
