"""Amounts of money as people read them, and how a spent budget is reported."""

BUDGET_SPENT = "budget spent"  # how the reason of an item that a budget stopped begins


def dollars(amount: float) -> str:
    """$1.50, $0.0042, $0.000013: as many digits as a small amount needs (up to six)."""
    text = f"{amount:.6f}".rstrip("0")
    return "$" + (text + "00" if text.endswith(".") else text if amount < 1 else f"{amount:.2f}")
