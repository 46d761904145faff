"""A computed number that equals its limit reaches it, whatever floating point does on the
way: (0.7 + 0.7 + 0.7) / 3 is 0.6999999999999999, and a gate of `min: 0.7` holds."""

from __future__ import annotations

import pytest

from pytest_arena.numbers import at_least, at_most, signed
from pytest_arena.scorers.similarity import TokenF1
from pytest_arena.testing import scoring_context
from tests.conftest import MakeProject


def test_a_rounding_error_short_of_a_limit_reaches_it_and_a_real_difference_does_not() -> None:
    mean = (0.7 + 0.7 + 0.7) / 3
    assert mean < 0.7  # what floating point gives
    assert at_least(mean, 0.7) and at_most(0.1 + 0.2, 0.3)
    assert not at_least(0.6999, 0.7) and not at_most(0.3001, 0.3)


def test_a_gate_at_exactly_the_accuracy_reached_holds(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    case = "  - {id: t%d, input: 'a b c d e f g', reference: x}\n"
    make_project(
        "g",
        "models: [sim_echo]\n"
        "scorers: {default: contains, options: {contains: {values: [a, b, c, d, e, f, g, h, i, j]}}}\n"
        "gate: {all: {accuracy: {min: 0.7}}}\n"
        "tests:\n" + "".join(case % i for i in range(3)),
    )
    result = pytester.runpytest("-p", "no:cacheprovider")
    result.stdout.fnmatch_lines(["*held*sim_echo accuracy 0.7 within min 0.7*"])
    assert result.ret == 0  # before: "outside min 0.7 (short by 1.11e-16)", exit 1


def test_token_f1_at_exactly_its_threshold_passes() -> None:
    context = scoring_context(options={"threshold": 0.75})
    result = TokenF1().score("alpha beta gamma", "alpha beta gamma delta epsilon", context)
    assert result.score == pytest.approx(0.75)
    assert result.passed  # 2 * 1 * 0.6 / 1.6 is 0.7499999999999999 in floating point


@pytest.mark.parametrize(
    ("value", "spec", "written"),
    [
        (0.125, ".3f", "+0.125"),
        (-0.5, ".3f", "-0.500"),
        (-0.0001, ".3f", "0.000"),  # was "-0.000": a change below 0 that rounds to none
        (0.0, ".3f", "0.000"),
        (-0.2, ".0f", "0"),  # "-0 ms"
        (-0.04, ".1f", "0.0"),  # "-0.0 pts"
        (-1e-9, ".1f", "0.0"),
        (float("-inf"), ".3f", "-inf"),
    ],
)
def test_a_change_that_rounds_to_0_is_written_without_a_sign(
    value: float, spec: str, written: str
) -> None:
    assert signed(value, spec) == written
