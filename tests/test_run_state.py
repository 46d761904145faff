"""What a run leaves in its processes: the reporter only where it prints, no open ledger files
and no project modules once the run ends."""

from __future__ import annotations

import json

import pytest

from tests.conftest import XDIST, MakeProject

PROJECT = """
models: [sim_large]
scorers:
  default: shout
tests:
""" + "".join(f"  - {{id: c{i}, input: 'say hi {i}', reference: 'hi {i}'}}\n" for i in range(6))

SHOUT = """
from pytest_arena.scorers import Scorer, ScoreResult


class Shout(Scorer):
    name = "shout"

    def score(self, output, reference, context):
        return ScoreResult(1.0, True, "heard")
"""

# Written by every process (controller and workers) when its config ends, after the plugin's
# own pytest_unconfigure; whether the reporter is there is seen while the session ends.
PROBE = """
import json, os, sys
from pathlib import Path

import pytest

REPORTER = {}


def pytest_sessionfinish(session):
    REPORTER["on"] = session.config.pluginmanager.get_plugin("arena-reporter") is not None


@pytest.hookimpl(trylast=True)
def pytest_unconfigure(config):
    name = getattr(config, "workerinput", {}).get("workerid", "controller")
    fds = []
    for fd in os.listdir("/proc/self/fd"):
        try:
            fds.append(os.readlink(f"/proc/self/fd/{fd}"))
        except OSError:
            pass
    Path(f"probe-{name}.json").write_text(json.dumps({
        "reporter": REPORTER["on"],
        "ledgers": [f for f in fds if f.endswith(".spent")],
        "modules": [m for m in sys.modules if m.startswith("_arena_projects")],
    }))
"""


@pytest.fixture
def probed(pytester: pytest.Pytester, make_project: MakeProject) -> pytest.Pytester:
    make_project("p", PROJECT, files={"scorers/shout.py": SHOUT})
    pytester.makeconftest(PROBE)
    return pytester


def probes(pytester: pytest.Pytester) -> dict[str, dict[str, object]]:
    return {
        p.stem.removeprefix("probe-"): json.loads(p.read_text())
        for p in pytester.path.glob("probe-*.json")
    }


@pytest.mark.skipif(not __import__("os").path.isdir("/proc/self/fd"), reason="needs /proc")
def test_workers_keep_no_reporter_no_ledger_file_and_no_project_module(
    probed: pytest.Pytester,
) -> None:
    result = probed.runpytest_subprocess(*XDIST, "-n", "2", "--arena-max-cost", "100")
    result.assert_outcomes(passed=6)
    seen = probes(probed)
    assert sorted(seen) == ["controller", "gw0", "gw1"]
    assert seen["controller"]["reporter"] is True  # it prints the board
    result.stdout.fnmatch_lines(["*arena leaderboard: p*"])
    for worker in ("gw0", "gw1"):
        assert seen[worker]["reporter"] is False
    for name, probe in seen.items():
        assert probe["ledgers"] == [], name
        assert probe["modules"] == [], name


def test_a_run_in_one_process_forgets_the_project_modules(probed: pytest.Pytester) -> None:
    result = probed.runpytest_subprocess()
    result.assert_outcomes(passed=6)
    assert probes(probed)["controller"]["modules"] == []
