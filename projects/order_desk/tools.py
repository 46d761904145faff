"""The support agent's tools. arena offers every public function here to the model, with a
JSON schema read from its signature and docstring, and runs the ones it calls."""

from __future__ import annotations

from pathlib import Path

ORDERS = {
    "1182": {"status": "shipped", "shipped_on": "28 November", "total": 39.90, "charges": 1},
    "1190": {"status": "delivered", "shipped_on": "20 November", "total": 24.50, "charges": 2},
    "1204": {"status": "processing", "shipped_on": None, "total": 112.00, "charges": 1},
}


def lookup_order(order_id: str) -> dict[str, object]:
    """Look an order up: its status, when it shipped, its total and how often it was charged.

    Args:
        order_id: the order number, digits only, e.g. "1182"
    """
    order = ORDERS.get(order_id.strip().lstrip("#"))
    if order is None:
        raise LookupError(f"no order {order_id!r}")
    return {"order_id": order_id, **order}


def issue_refund(order_id: str, amount: float, workspace: Path) -> str:
    """Refund an amount to the card an order was paid with.

    Args:
        order_id: the order number
        amount: the amount to refund, at most the order's total
    """
    order = ORDERS.get(order_id)
    if order is None:
        raise LookupError(f"no order {order_id!r}")
    total = order["total"]
    assert isinstance(total, float)
    if amount > total:
        raise ValueError(f"{amount:.2f} is more than the order's total {total:.2f}")
    with open(workspace / "refunds.txt", "a", encoding="utf-8") as ledger:
        ledger.write(f"{order_id} {amount:.2f}\n")
    return f"refunded {amount:.2f} on order {order_id}"


def cancel_order(order_id: str, reason: str = "") -> str:
    """Cancel an order that has not shipped yet.

    Args:
        order_id: the order number
        reason: why the customer cancels, if they said
    """
    order = ORDERS.get(order_id)
    if order is None:
        raise LookupError(f"no order {order_id!r}")
    if order["status"] != "processing":
        raise ValueError(f"order {order_id} has {order['status']}; it cannot be cancelled")
    return f"order {order_id} cancelled"
