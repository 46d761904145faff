"""A builtin's options are validated once and bound to it; unbound, it reads context.options."""

from __future__ import annotations

from typing import Any

import pydantic
import pytest

from pytest_arena.evaluation.project import load
from pytest_arena.scorers.builtins import builtin_classes
from pytest_arena.scorers.equality import ExactMatch, ExactMatchOptions
from pytest_arena.scorers.similarity import TokenF1, TokenF1Options
from pytest_arena.scorers.typed import NO_REFERENCE, TypedScorer
from pytest_arena.testing import scoring_context
from tests.conftest import MakeProject


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
    assert all(issubclass(cls, TypedScorer) for cls in builtin_classes())


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


@pytest.mark.parametrize(
    ("name", "options"),
    [
        ("edit_similarity", {"threshold": float("nan")}),
        ("token_f1", {"threshold": float("nan")}),
        ("numeric_match", {"rel_tol": float("inf")}),
    ],
)
def test_a_builtin_refuses_an_option_that_is_not_a_finite_number(
    name: str, options: dict[str, Any]
) -> None:
    from pytest_arena.scorers.builtins import builtin

    with pytest.raises(pydantic.ValidationError) as caught:
        builtin(name)().bind(options)
    assert caught.value.errors()[0]["msg"] == "Input should be a finite number"


def test_a_bound_builtin_is_a_new_scorer_and_leaves_the_shared_one_unbound() -> None:
    shared = ExactMatch()
    bound = shared.bind({"ignore_case": True})
    assert (type(bound), shared.options) == (ExactMatch, None)
    assert bound.options == ExactMatchOptions(ignore_case=True)


NEEDING = [cls for cls in builtin_classes() if issubclass(cls, TypedScorer) and cls.needs_reference]


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


def test_a_run_validates_a_builtins_options_once_per_option_set_not_once_per_item(
    pytester: pytest.Pytester, make_project: MakeProject, validations: list[Any]
) -> None:
    cases = "".join(
        f"\n  - {{id: case{i}, input: 'say {i}', reference: 'Answer {i}'}}" for i in range(19)
    )
    make_project(
        "bound",
        """
models: [sim_perfect, sim_echo]
scorers:
  options:
    exact_match: {ignore_case: true}
tests:
  - {id: spaced, input: 'say', reference: 'Answer  it', options: {normalize_whitespace: true}}"""
        + cases,
    )
    result = pytester.runpytest()
    result.assert_outcomes(passed=20, failed=20)
    # one validation per plan: the 19 cases without options of their own share one plan,
    # the case with its own options has its own; before plans were shared, each case
    # validated again (20), and before options were bound, each item's scoring (20 + 40)
    assert len(validations) == 2
    assert validations.count({"ignore_case": True}) == 1
    assert {"ignore_case": True, "normalize_whitespace": True} in validations


def test_a_plan_binds_each_components_options_to_a_scorer_of_its_own(
    make_project: MakeProject,
) -> None:
    root = make_project(
        "bound",
        """
        models: [sim_perfect]
        scorers:
          options:
            exact_match: {ignore_case: true}
        scoring:
          - {scorer: exact_match}
          - {scorer: token_f1, params: {threshold: 0.9}}
        tests:
          - {id: one, input: "1", reference: "1"}
        """,
    )
    project = load(root / "arena.yaml")
    case = project.file.cases[0]
    exact, f1 = project.plan(case).components
    assert isinstance(exact.grader, ExactMatch)
    assert exact.grader.options == ExactMatchOptions(ignore_case=True)
    assert isinstance(f1.grader, TokenF1)
    assert f1.grader.options == TokenF1Options(threshold=0.9)
    assert project.scorers.entries["exact_match"].scorer.options is None  # the shared one


def test_a_bad_option_is_still_one_error_at_setup_naming_its_line(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    make_project(
        "bad",
        """
        models: [sim_perfect]
        tests:
          - {id: ok, input: "1", reference: "1"}
          - id: typo
            input: "2"
            reference: "2"
            options: {ignorecase: true}
          - id: contract
            input: "3"
            reference: "3"
            scoring:
              - {scorer: exact_match}
              - {scorer: token_f1, params: {threshold: 2}}
        """,
    )
    result = pytester.runpytest("-rE")
    result.assert_outcomes(passed=1, errors=2)
    result.stdout.fnmatch_lines(
        [
            "*_ ERROR at setup of bad::typo[[]sim_perfect[]] _*",
            "projects/bad/arena.yaml:7: scorer 'exact_match': unknown option 'ignorecase'"
            " (valid options: ignore_case, normalize_whitespace)",
            "*_ ERROR at setup of bad::contract[[]sim_perfect[]] _*",
            "projects/bad/arena.yaml:13: scorer 'token_f1': option 'threshold':"
            " Input should be less than or equal to 1 (valid options: threshold, normalize)",
        ]
    )


def test_a_benchmark_convention_with_a_tolerance_is_an_error_naming_its_line(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    make_project(
        "gsm",
        """
        models: [sim_perfect]
        scorers:
          default: numeric_match
          options:
            numeric_match: {convention: gsm8k, abs_tol: 1}
        tests:
          - {id: a, input: q, reference: "Half of 48 is 24.\\n#### 24"}
        """,
    )
    result = pytester.runpytest("-rE")
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(
        [
            "projects/gsm/arena.yaml:5: scorers.options.numeric_match: scorer 'numeric_match':"
            " option 'convention': *convention gsm8k compares the answer as its benchmark's"
            " grader does, so abs_tol cannot apply: remove it, or use convention auto*",
        ]
    )
