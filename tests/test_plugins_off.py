"""The main job runs with any of pytest's builtin plugins (or xdist, randomly) turned off."""

from __future__ import annotations

import json
import shutil
import sys
import tempfile
from pathlib import Path

import pytest

from tests.conftest import ROOT, MakeProject

PROJECTS = sorted(p.parent.name for p in (ROOT / "projects").glob("*/arena.yaml"))


@pytest.mark.parametrize(
    "plugin", ["junitxml", "cacheprovider", "tmpdir", "warnings", "logging", "xdist", "randomly"]
)
def test_the_main_job_runs_with_a_plugin_turned_off(pytester: pytest.Pytester, plugin: str) -> None:
    shutil.copytree(ROOT / "projects", pytester.path / "projects")
    shutil.copy(ROOT / "conftest.py", pytester.path)  # the projects' own tests import projects.*
    result = pytester.runpytest_subprocess(
        "projects", "--arena-models", "sim_small,sim_large", "-p", f"no:{plugin}", timeout=300
    )
    out = result.stdout.str()
    assert "INTERNALERROR" not in out + result.stderr.str(), out[-3000:]
    assert result.ret == 1, out[-3000:]  # sim_small gets some cases wrong, on purpose
    for name in PROJECTS:
        assert f" arena leaderboard: {name} " in out
    result.stdout.re_match_lines([r".* \d+ failed, \d+ passed.*"])
    assert "\nERROR " not in out


def test_without_pytests_tmpdir_plugin_agents_work_in_the_temp_folder(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    """pytest's base temporary folder is reached through a private attribute; without it
    (here with -p no:tmpdir) workspaces go to the system's temp folder, as documented."""
    make_project(
        "agents",
        f"""
        models:
          default: [agent]
          define:
            agent: {{connector: command, command: [{sys.executable!r}, "-c", "print('x')"]}}
        tests:
          - {{id: a, input: "x", reference: "x"}}
        """,
    )
    result = pytester.runpytest("-p", "no:tmpdir", "--arena-json=out.json")
    result.assert_outcomes(passed=1)
    (record,) = json.loads((pytester.path / "out.json").read_text())["records"]
    workspace = Path(record["detail"]["workspace"])
    base = Path(tempfile.gettempdir()).resolve()
    assert workspace.resolve().is_relative_to(base)
    assert workspace.resolve().parts[len(base.parts)].startswith("pytest-arena-of-")


def test_the_main_job_runs_without_pytests_terminal(pytester: pytest.Pytester) -> None:
    """On pytest 8.3, -p no:terminal was an internal error in every run once pytest-arena
    was installed: the progress line asked for the verbosity, which the terminal defines."""
    shutil.copytree(ROOT / "projects", pytester.path / "projects")
    shutil.copy(ROOT / "conftest.py", pytester.path)
    args = ("projects", "--arena-models", "sim_small,sim_large", "-p", "no:terminal")
    result = pytester.runpytest_subprocess(*args, "--arena-json", "out.json", timeout=300)
    out = result.stdout.str() + result.stderr.str()
    assert "INTERNALERROR" not in out, out[-3000:]
    assert result.ret == 1, out[-3000:]  # sim_small gets some cases wrong, on purpose
    report = json.loads((pytester.path / "out.json").read_text())
    assert sorted({r["project"] for r in report["records"]}) == PROJECTS
    assert report["exit_status"] == 1
    # nor does it in a run of Python tests alone
    pytester.makepyfile(test_plain="def test_one():\n    pass\n")
    plain = pytester.runpytest_subprocess("test_plain.py", "-p", "no:terminal")
    assert (plain.ret, plain.stderr.str()) == (0, "")
