"""The example projects under projects/: together they use every builtin, a weighted
contract and a script scorer, and each of their cases is right about its own reference."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from pytest_arena.evaluation.project import Plan, load
from pytest_arena.scorers.builtins import BUILTINS
from pytest_arena.scorers.script import ScriptScorer
from tests.conftest import ROOT

PROJECTS = sorted((ROOT / "projects").glob("*/arena.yaml"))


def plans() -> list[tuple[str, str, Plan]]:
    found = []
    for path in PROJECTS:
        project = load(path)
        assert project.file.problems == [], path
        found += [(project.name, case.id, project.plan(case)) for case in project.file.cases]
    return found


def test_the_examples_use_every_builtin_a_contract_and_a_script_scorer() -> None:
    every = plans()
    used = {c.scorer for _, _, plan in every for c in plan.components}
    assert set(BUILTINS) <= used, sorted(set(BUILTINS) - used)
    contracts = [(p, c) for p, c, plan in every if plan.contract and len(plan.components) > 1]
    assert {p for p, _ in contracts} >= {"doc_extraction", "support_replies"}
    scripts = [
        (p, c)
        for p, c, plan in every
        for part in plan.components
        if isinstance(part.entry.scorer, ScriptScorer)
    ]
    assert scripts, "no example case is graded by a script scorer"


@pytest.mark.skipif(
    not (shutil.which("jq") and shutil.which("bc")),
    reason="support_replies/scorers/length.sh, the Runloop guide's script, uses jq and bc",
)
def test_every_example_case_passes_when_the_answer_is_its_reference() -> None:
    cases = sum(len(load(path).file.cases) for path in PROJECTS)
    env = {**os.environ, "PYTEST_ADDOPTS": "-p no:cacheprovider -p no:hypothesispytest"}
    args = [str(p.relative_to(ROOT)) for p in PROJECTS]
    result = subprocess.run(
        [sys.executable, "-m", "pytest", *args, "--arena-models", "sim_perfect", "-q"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    assert result.returncode == 0, result.stdout[-3000:]
    assert re.search(rf"\b{cases} passed\b", result.stdout), result.stdout[-3000:]


@pytest.mark.parametrize("path", PROJECTS, ids=lambda p: p.parent.name)
def test_each_example_project_has_tests_of_its_own(path: Path) -> None:
    assert list((path.parent / "tests").glob("test_*.py")), path.parent.name
