"""What collection built is frozen out of the garbage collector's scans for the run, and
given back before pytest's session ends."""

from __future__ import annotations

import gc

import pytest

from tests.conftest import MakeProject

SIM_PROJECT = """
models: [sim_perfect]
tests:
  - {id: a, input: 'What is 1 plus 1? [[answer=2]]', reference: '2'}
  - {id: b, input: 'What is 2 plus 2? [[answer=4]]', reference: '4'}
"""

# Writes what the collector sees at each item and at pytest's final gc.collect() passes.
PROBE = """
import gc
import _pytest.unraisableexception as unraisable

def _log(what):
    with open("freeze.log", "a") as f:
        f.write(f"{what} {gc.get_freeze_count()} {int(gc.isenabled())}\\n")

_harder = unraisable.gc_collect_harder

def _logged_harder(iterations):
    unraisable.gc_collect_harder = _harder  # once: the probe leaves no trace
    _log("final-collections")
    _harder(iterations)

unraisable.gc_collect_harder = _logged_harder

def pytest_itemcollected(item):
    _log("collected")

def pytest_runtest_setup(item):
    _log(item.name)
"""


def _log(pytester: pytest.Pytester, collected: bool = False) -> list[tuple[str, int]]:
    """(what, objects frozen) at each probe; with `collected`, (what, collector on) while
    items were collected instead."""
    lines = (pytester.path / "freeze.log").read_text().splitlines()
    rows = [line.split(" ") for line in lines]
    if collected:
        return [(name, int(on)) for name, _, on in rows if name == "collected"]
    return [(name, int(count)) for name, count, _ in rows if name != "collected"]


def test_arena_run_freezes_after_collection_and_unfreezes_at_the_end(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    make_project("p", SIM_PROJECT)
    pytester.makeconftest(PROBE)
    assert gc.get_freeze_count() == 0
    pytester.runpytest("projects").assert_outcomes(passed=2)
    log = _log(pytester)
    assert [name for name, _ in log] == ["a[sim_perfect]", "b[sim_perfect]", "final-collections"]
    # the collected world stays frozen through pytest's final passes, which skip it ...
    assert all(count > 0 for _, count in log)
    # ... and is given back afterwards: nothing stays out of the collector's reach
    assert gc.get_freeze_count() == 0
    # the collector was paused while the cases were collected, and is on again
    assert _log(pytester, collected=True) == [("collected", 0), ("collected", 0)]
    assert gc.isenabled()


def test_the_ini_setting_turns_it_off(pytester: pytest.Pytester, make_project: MakeProject) -> None:
    make_project("p", SIM_PROJECT)
    pytester.makeconftest(PROBE)
    pytester.makeini("[pytest]\narena_gc_freeze = false\n")
    pytester.runpytest("projects").assert_outcomes(passed=2)
    assert all(count == 0 for _, count in _log(pytester))
    assert _log(pytester, collected=True) == [("collected", 1), ("collected", 1)]


def test_a_run_without_arena_cases_is_left_alone(pytester: pytest.Pytester) -> None:
    pytester.makeconftest(PROBE)
    pytester.makepyfile(test_plain="def test_one():\n    pass\n")
    pytester.runpytest().assert_outcomes(passed=1)
    assert all(count == 0 for _, count in _log(pytester))
    assert _log(pytester, collected=True) == [("collected", 1)]


def test_the_collector_is_on_again_when_no_arena_case_is_selected(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    make_project("p", SIM_PROJECT)
    pytester.makeconftest(PROBE)
    pytester.makepyfile(test_plain="import gc\n\ndef test_one():\n    assert gc.isenabled()\n")
    pytester.runpytest("-k", "test_one").assert_outcomes(passed=1, deselected=2)
    assert all(count == 0 for _, count in _log(pytester))
    assert gc.isenabled()


def test_objects_frozen_by_someone_else_stay_theirs(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    make_project("p", SIM_PROJECT)
    pytester.makeconftest(PROBE)
    gc.freeze()
    try:
        frozen = gc.get_freeze_count()
        pytester.runpytest("projects").assert_outcomes(passed=2)
        # the counts only fall, as frozen objects are freed; a freeze of ours would add to them
        assert all(0 < count <= frozen for _, count in _log(pytester))
        assert 0 < gc.get_freeze_count() <= frozen  # and the arena run unfroze nothing
    finally:
        gc.unfreeze()


def test_a_setting_that_is_not_a_boolean_is_a_usage_error_naming_the_file(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    make_project("p", SIM_PROJECT)
    pytester.makeini("[pytest]\narena_gc_freeze = maybe\n")
    result = pytester.runpytest("projects")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        [
            "ERROR: */tox.ini: arena_gc_freeze = 'maybe' is neither true nor false;"
            " write 'arena_gc_freeze = false' to turn the freeze off"
        ]
    )
