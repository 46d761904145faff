"""Computed numbers against the limits people write: (0.7 + 0.7 + 0.7) / 3 is
0.6999999999999999 in floating point, and must still reach a limit of 0.7."""

from __future__ import annotations

import math
from collections.abc import Callable

_SLACK = 1e-9  # relative; far below any difference a score or a metric can mean


def at_least(value: float, limit: float) -> bool:
    """Whether `value` reaches `limit`, a rounding error short of it included."""
    return value >= limit or math.isclose(value, limit, rel_tol=_SLACK, abs_tol=_SLACK)


def at_most(value: float, limit: float) -> bool:
    """Whether `value` stays within `limit`, a rounding error over it included."""
    return value <= limit or math.isclose(value, limit, rel_tol=_SLACK, abs_tol=_SLACK)


def signed(value: float, spec: str | Callable[[float], str] = ".3f") -> str:
    """A change written with its sign (`+0.125`, `-0.500`), but none when it rounds to 0:
    `0.000`, neither `-0.000` for a change a little below 0 nor `+0.000`. `spec`: a format
    spec, or what writes the change's size (`dollars`: `+$0.50`, `$0.00`)."""
    if isinstance(spec, str):
        text = f"{value:+{spec}}"
    else:
        text = ("-" if math.copysign(1.0, value) < 0 else "+") + spec(abs(value))
    if math.isfinite(value) and not any(c in "123456789" for c in text):
        return text[1:]
    return text
