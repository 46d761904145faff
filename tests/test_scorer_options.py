"""A builtin's options are validated once and bound to it; unbound, it reads context.options."""

from __future__ import annotations

from typing import Any

import pydantic
import pytest

from pytest_arena.scorers.builtins import BUILTINS
from pytest_arena.scorers.equality import ExactMatch, ExactMatchOptions
from pytest_arena.scorers.typed import NO_REFERENCE, TypedScorer
from pytest_arena.testing import scoring_context


@pytest.fixture
def validations(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """Every validation of exact_match's options from now on (what was validated)."""
    seen: list[Any] = []
    validate = ExactMatchOptions.model_validate

    def spy(cls: type[ExactMatchOptions], obj: Any, **kwargs: Any) -> ExactMatchOptions:
        seen.append(obj)
        return validate(obj, **kwargs)

    monkeypatch.setattr(ExactMatchOptions, "model_validate", classmethod(spy))
    return seen


def test_every_builtin_grades_with_options_it_can_bind() -> None:
    assert all(issubclass(cls, TypedScorer) for cls in BUILTINS)


def test_a_bound_builtin_validates_its_options_once(validations: list[Any]) -> None:
    scorer = ExactMatch().bind({"ignore_case": True})
    assert validations == [{"ignore_case": True}]
    context = scoring_context(options={"ignore_case": "not even a boolean"})
    results = [scorer.score("PARIS", "Paris", context) for _ in range(20)]
    assert {r.reason for r in results} == {"exact match"}
    assert len(validations) == 1  # the bound options, not the context's, on every call


def test_a_builtin_used_directly_validates_the_context_options_on_each_call(
    validations: list[Any],
) -> None:
    scorer = ExactMatch()
    for _ in range(3):
        assert scorer.score("PARIS", "Paris", scoring_context(options={"ignore_case": True})).passed
    assert len(validations) == 3
    with pytest.raises(pydantic.ValidationError):
        scorer.score("Paris", "Paris", scoring_context(options={"ignorecase": True}))


def test_binding_refuses_bad_options() -> None:
    with pytest.raises(pydantic.ValidationError) as caught:
        ExactMatch().bind({"ignorecase": True})
    assert caught.value.errors()[0]["loc"] == ("ignorecase",)


def test_a_bound_builtin_is_a_new_scorer_and_leaves_the_shared_one_unbound() -> None:
    shared = ExactMatch()
    bound = shared.bind({"ignore_case": True})
    assert (type(bound), shared.options) == (ExactMatch, None)
    assert bound.options == ExactMatchOptions(ignore_case=True)


NEEDING = [cls for cls in BUILTINS if issubclass(cls, TypedScorer) and cls.needs_reference]


def test_the_builtins_that_compare_with_a_reference_say_so() -> None:
    assert sorted(cls.name for cls in NEEDING) == [
        "choice",
        "edit_similarity",
        "exact_match",
        "json_match",
        "numeric_match",
        "token_f1",
    ]


@pytest.mark.parametrize("cls", NEEDING, ids=lambda cls: cls.name)
@pytest.mark.parametrize("bound", [False, True], ids=["unbound", "bound"])
def test_without_a_reference_a_builtin_that_needs_one_is_unscored(
    cls: type[TypedScorer[Any]], bound: bool
) -> None:
    scorer = cls().bind({}) if bound else cls()
    result = scorer.score("anything", None, scoring_context())
    assert (result.score, result.passed, result.reason) == (0.0, None, NO_REFERENCE)


def test_an_unbound_builtin_refuses_a_bad_option_even_without_a_reference() -> None:
    with pytest.raises(pydantic.ValidationError):
        ExactMatch().score("Paris", None, scoring_context(options={"ignorecase": True}))
