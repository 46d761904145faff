"""Other packages add scorers and connectors through pluggy hooks, without changes here."""

from __future__ import annotations

import pytest

from tests.conftest import MakeProject

SCORER = """
from pytest_arena.scorers import Scorer, ScoreResult


class ShoutScorer(Scorer):
    name = "shouted"

    def score(self, output, reference, context):
        loud = output.isupper()
        return ScoreResult(float(loud), loud, "all capitals" if loud else "not shouted")


def pytest_arena_scorers():
    return [ShoutScorer]
"""

PLUGIN = (
    SCORER
    + """
from pytest_arena.connectors.base import Connector, Response
from pydantic import BaseModel


class UpperSettings(BaseModel):
    suffix: str = "!"


class UpperConnector(Connector):
    name = "upper"
    settings_model = UpperSettings

    def complete(self, request):
        return Response(request.prompt.upper() + self.settings.suffix, tokens_in=1, tokens_out=1)


def pytest_arena_connectors():
    return [UpperConnector]
"""
)

PROJECT = """
models:
  default: [loud]
  define:
    loud: {connector: upper, suffix: "!!"}
scorers:
  default: shouted
tests:
  - {id: hello, input: "hello", reference: "HELLO!!"}
  - {id: exact, input: "bye", reference: "BYE!!", eval_type: exact_match}
"""


def test_a_plugin_adds_a_scorer_and_a_connector(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    pytester.makepyfile(arena_shout=PLUGIN)
    pytester.syspathinsert()
    make_project("ext", PROJECT)
    result = pytester.runpytest("-p", "arena_shout", "-v")
    result.assert_outcomes(passed=2)
    result.stdout.fnmatch_lines(["*::hello[[]loud] PASSED*", "*::exact[[]loud] PASSED*"])


def test_without_the_plugin_its_names_are_unknown(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    make_project("ext", PROJECT)
    result = pytester.runpytest()
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(["*models.define.loud.connector: unknown connector 'upper'*"])


def test_a_plugin_scorer_may_not_take_a_builtin_name(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    pytester.makepyfile(arena_shout=PLUGIN.replace('name = "shouted"', 'name = "exact_match"'))
    pytester.syspathinsert()
    make_project("ext", PROJECT.replace("scorers:\n  default: shouted\n", ""))
    result = pytester.runpytest("-p", "arena_shout")
    result.stdout.fnmatch_lines(
        [
            "arena_shout*: plugin arena_shout offers scorer 'exact_match', a name already taken by a builtin"
        ]
    )


def test_the_arena_context_fixture_builds_a_context_in_one_line(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        """
        from pytest_arena.scorers.equality import ExactMatch


        def test_ignore_case(arena_context):
            ctx = arena_context("Paris", options={"ignore_case": True}, tags=["geo"])
            assert ctx.test_case.tags == ("geo",)
            assert ExactMatch().score("paris", ctx.test_case.reference, ctx).passed
        """
    )
    pytester.runpytest().assert_outcomes(passed=1)


def test_a_plugin_scorer_grades_like_any_other(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    pytester.makepyfile(arena_shout=PLUGIN)
    pytester.syspathinsert()
    make_project(
        "ext",
        """
        models: [sim_echo]
        scorers: {default: shouted}
        tests:
          - {id: loud, input: "HELLO THERE"}
          - {id: quiet, input: "hello there"}
        """,
    )
    result = pytester.runpytest("-p", "arena_shout", "-rA")
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(["PASSED projects/ext/arena.yaml::loud[[]sim_echo]"])
    result.stdout.fnmatch_lines(
        [
            "*_ ext::quiet[[]sim_echo] _*",
            "not shouted",
            "  scorer:    shouted (score 0.00)",
        ]
    )


def test_a_connector_that_can_answer_in_neither_way_is_refused_where_it_is_written() -> None:
    from pydantic import BaseModel

    from pytest_arena.connectors.base import Connector

    with pytest.raises(TypeError, match=r"connector Mute must implement complete .* or acomplete"):

        class Mute(Connector):
            name = "mute"
            settings_model = BaseModel


def test_a_conftest_offers_its_scorers_to_the_projects_below_it_whichever_is_collected_first(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    uses_it = """
        models: [sim_echo]
        scorers: {default: shouted}
        tests:
          - {id: loud, input: "HELLO THERE"}
        """
    make_project(
        "a_plain", "models: [sim_echo]\ntests:\n  - {id: same, input: hi, reference: hi}\n"
    )
    make_project("b_loud", uses_it)
    make_project("c_outside", uses_it)
    pytester.path.joinpath("projects", "b_loud", "conftest.py").write_text(SCORER)
    result = pytester.runpytest("-rA")
    # a_plain is collected first: b_loud's conftest, loaded after it, still offers its scorer
    result.stdout.fnmatch_lines(["PASSED projects/a_plain/arena.yaml::same[[]sim_echo]"])
    result.stdout.fnmatch_lines(["PASSED projects/b_loud/arena.yaml::loud[[]sim_echo]"])
    # and only to the projects below it
    result.stdout.fnmatch_lines(
        ["projects/c_outside/arena.yaml:2: scorers.default: no scorer is named 'shouted'*"]
    )
    result.assert_outcomes(passed=2, errors=1)
