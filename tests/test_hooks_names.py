"""hooks.py: a function that looks like a hook but is not one is named, with the hook it
was meant to be; helpers of other shapes are left alone."""

from __future__ import annotations

from pathlib import Path

import pytest

from pytest_arena.evaluation.project_hooks import load_hooks
from pytest_arena.spec.errors import SpecError
from pytest_arena.spec.python_files import project_package
from tests.conftest import MakeProject


def problem_of(root: Path, source: str) -> tuple[int | None, str] | None:
    (root / "hooks.py").write_text(source)
    try:
        load_hooks(root, project_package(root))
    except SpecError as caught:
        (problem,) = caught.problems
        return problem.line, problem.message
    return None


@pytest.mark.parametrize(
    ("source", "says"),
    [
        pytest.param(
            "def pre_process(request, case, context):\n    return request\n",
            (
                1,
                "'pre_process' is not a hook, so it is never called; its parameters are"
                " pre_request's; did you mean 'pre_request'?",
            ),
            id="near-name-of-another-hook",
        ),
        pytest.param(
            "X = 1\n\n\ndef override(result, output, case, context):\n    return None\n",
            (
                4,
                "'override' is not a hook, so it is never called; its parameters are"
                " override_verdict's; did you mean 'override_verdict'?",
            ),
            id="a-hooks-parameters-under-another-name",
        ),
        pytest.param(
            "def post_proces(output, case, ctx):\n    return output\n",
            (1, "'post_proces' is not a hook, so it is never called; did you mean 'post_process'?"),
            id="misspelt-name-hooks-arity",
        ),
    ],
)
def test_a_function_shaped_like_a_hook_is_named_with_the_hook_it_was_meant_to_be(
    tmp_path: Path, source: str, says: tuple[int, str]
) -> None:
    assert problem_of(tmp_path, source) == says


def test_helpers_of_other_shapes_are_allowed_whatever_their_names(tmp_path: Path) -> None:
    helpers = """
def request(url):
    return url


def post_request(payload, timeout=3):
    return payload


def post_process(output, case, context):
    return post_request(request(output))
"""
    assert problem_of(tmp_path, helpers) is None


def test_a_hook_under_another_name_fails_the_project_at_load(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    make_project(
        "hooked",
        "models: [sim_echo]\ntests:\n  - {id: a, input: x, reference: y}\n",
        files={
            "hooks.py": """
            from pytest_arena.scorers import ScoreResult


            def override(result, output, case, context):
                return ScoreResult(1.0, True, "always")
            """
        },
    )
    result = pytester.runpytest()
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(
        [
            "*projects/hooked/hooks.py:4: 'override' is not a hook, so it is never called;"
            " its parameters are override_verdict's; did you mean 'override_verdict'?*"
        ]
    )
