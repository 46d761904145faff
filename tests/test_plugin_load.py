"""Having pytest-arena installed costs a pytest run without arena projects next to nothing:
the plugin loads no model, scorer, engine or report code, and none of their libraries."""

from __future__ import annotations

import sys

import pytest

# what only an arena run needs: each costs start-up time a plain test suite should not pay
HEAVY = (
    "pydantic",
    "yaml",
    "aiohttp",
    "jinja2",
    "jsonschema",
    "rapidfuzz",
    "sqlite3",
    "asyncio",
    "pytest_arena.spec.schema",
    "pytest_arena.scorers.base",
    "pytest_arena.engine.calls",
    "pytest_arena.plugin.collect",
    "pytest_arena.reports.leaderboard",
    "pytest_arena.reports.gates",
)

SEEN = """
import sys

def pytest_sessionfinish(session):
    (session.config.rootpath / "modules.txt").write_text("\\n".join(sorted(sys.modules)))
"""


@pytest.mark.parametrize("options", [(), ("--junitxml=out.xml",), ("-v",)])
def test_a_run_without_arena_projects_loads_nothing_heavy(
    pytester: pytest.Pytester, options: tuple[str, ...]
) -> None:
    pytester.makeconftest(SEEN)
    pytester.makepyfile(
        test_plain="def test_one():\n    assert 1\n\ndef test_two():\n    assert 0\n"
    )
    # what pytest loads of itself is not ours to save (its pdb imports asyncio on Python 3.14)
    pytester.runpytest_subprocess("-p", "no:arena", *options).assert_outcomes(passed=1, failed=1)
    pytests_own = set((pytester.path / "modules.txt").read_text().split())
    result = pytester.runpytest_subprocess(*options)  # a fresh interpreter: nothing preloaded
    result.assert_outcomes(passed=1, failed=1)
    loaded = set((pytester.path / "modules.txt").read_text().split())
    assert "pytest_arena.plugin" in loaded  # the plugin is there, and answered
    assert sorted(name for name in HEAVY if name in loaded - pytests_own) == []
    ours = [line for line in result.outlines if line.startswith("arena") or "leaderboard" in line]
    assert ours == []  # and said nothing


REWRITTEN = """
import sys

def pytest_sessionfinish(session):
    ours = sorted(
        name
        for name, module in list(sys.modules.items())
        if name.startswith("pytest_arena")
        and type(getattr(module, "__loader__", None)).__name__ == "AssertionRewritingHook"
    )
    (session.config.rootpath / "rewritten.txt").write_text(" ".join(ours))
"""


def test_pytest_compiles_none_of_the_plugin_beyond_its_first_two_modules(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    """pytest rewrites the asserts of every module of a plugin installed with an entry point
    (a wheel: an editable install is not), from source each run where it cannot keep the
    result (PYTHONDONTWRITEBYTECODE): half a second per run. The package takes itself off
    once its own `__init__` runs: only that and what it imports first are rewritten."""
    monkeypatch.setenv("PYTHONDONTWRITEBYTECODE", "1")
    pytester.makeconftest(REWRITTEN)
    pytester.makefile(
        ".yaml",
        **{
            "projects/p/arena": "models: [sim_perfect]\ntests:\n  - {id: sum, input: 2+2, reference: '4'}\n"
        },
    )
    pytester.runpytest_subprocess("projects").assert_outcomes(passed=1)
    rewritten = (pytester.path / "rewritten.txt").read_text().split()
    assert set(rewritten) <= {"pytest_arena", "pytest_arena._lazy"}


class _Hook:
    """Stands in for pytest's AssertionRewritingHook, by the name the package looks for."""

    def __init__(self, **attributes: object) -> None:
        self.__dict__.update(attributes)


_Hook.__name__ = "AssertionRewritingHook"


def test_the_package_leaves_the_other_plugins_marked_and_any_other_hook_alone(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import pytest_arena

    marked = {"pytest_arena", "pytest_arena.plugin", "pytest_arenas", "pytest_other"}
    decided = {"pytest_arena.plugin": True, "pytest_other": True}
    bare = _Hook()  # a pytest whose hook keeps no such set: its modules are rewritten as before
    monkeypatch.setattr(
        sys, "meta_path", [bare, _Hook(_must_rewrite=marked, _marked_for_rewrite_cache=decided)]
    )
    pytest_arena._not_rewritten()
    assert marked == {"pytest_arenas", "pytest_other"}
    assert decided == {}  # decided again, without the package
    assert vars(bare) == {}
