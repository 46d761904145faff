"""Having pytest-arena installed costs a pytest run without arena projects next to nothing:
the plugin loads no model, scorer, engine or report code, and none of their libraries."""

from __future__ import annotations

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
