"""Budgets: a ceiling on what a run spends, shared through a ledger by its processes."""

from __future__ import annotations

import threading

from pytest_arena.engine.ledger import Ledger
from pytest_arena.engine.money import BUDGET_SPENT, dollars

NOT_STARTED = "call not started"  # how a budget's refusal ends


class Budget:
    """A ceiling on the dollars a run spends; calls not started once it is reached. With a
    ledger, the spending of every process that shares it counts."""

    def __init__(self, max_cost: float | None, source: str, ledger: Ledger | None = None) -> None:
        self.max_cost = max_cost
        self.source = source
        self.ledger = ledger
        self.charged = 0.0  # by this process
        self._lock = threading.Lock()

    @property
    def spent(self) -> float:
        return self.charged if self.ledger is None else self.ledger.total()

    def refusal(self) -> str | None:
        if self.max_cost is None:
            return None
        spent = self.spent
        if spent < self.max_cost:
            return None
        return (
            f"{BUDGET_SPENT}: {dollars(spent)} of {dollars(self.max_cost)} ({self.source});"
            f" {NOT_STARTED}"
        )

    def charge(self, cost: float) -> None:
        with self._lock:
            self.charged += cost
        if self.ledger is not None:
            self.ledger.add(cost)


def uncounted(budgets: tuple[Budget, ...], model: str, billed_by_tokens: bool) -> str | None:
    """Why a call of `model`, billed by its tokens at no known price, is not made under a
    capped budget: its cost could not be counted, so the cap would not hold."""
    if not billed_by_tokens:
        return None
    for budget in budgets:
        if budget.max_cost is not None:
            return (
                f"not made: {budget.source} caps spending at {dollars(budget.max_cost)}, and"
                f" model '{model}' has no price to count its answers by; set price:"
                " {input_per_mtok: ..., output_per_mtok: ...} on it in models.define"
                " (dollars per million tokens), or run without the cap"
            )
    return None


def cut_short(refusal: str, turns: int) -> str:
    """Why a tool loop ended when a budget refused its next turn (`refusal`) after `turns`
    turns ran: its case started, and was cut short rather than not started."""
    spent = refusal.removesuffix(f"; {NOT_STARTED}")
    return (
        f"cut short by the budget after {turns} turn{'' if turns == 1 else 's'} of its tool"
        f" loop: {spent}; no final answer"
    )


def refusal_of(budgets: tuple[Budget, ...]) -> str | None:
    for budget in budgets:
        if budget.max_cost is not None:
            refusal = budget.refusal()
            if refusal is not None:
                return refusal
    return None
