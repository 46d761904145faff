"""VS Code's test explorer, through the extension's own pytest plugin (see tests/clients/vscode.py).

A user sees every case at its line, clicks one and gets that case's result, runs all and
gets every result, a failure showing the scorer's reason.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from tests.clients import vscode
from tests.clients.workspace import Expected, write_workspace

pytestmark = pytest.mark.skipif(
    not hasattr(os, "mkfifo"), reason="the extension talks through a named pipe on Windows"
)
Workspace = tuple[Path, list[Expected]]


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> Workspace:
    root = tmp_path_factory.mktemp("vscode-workspace").resolve()  # the folder VS Code opened
    return root, write_workspace(root)


@pytest.fixture(scope="module")
def discovered(workspace: Workspace) -> vscode.Discovery:
    root, _ = workspace
    return vscode.discover(root)


def shown(discovered: vscode.Discovery, case: Expected) -> dict[str, Any]:
    """The test item the explorer shows for `case`, found by its file and its name."""
    (item,) = [
        t for t in discovered.tests() if Path(t["path"]) == case.file and t["name"] == case.name
    ]
    return item


def verdicts(results: dict[str, dict[str, Any]]) -> dict[str, str]:
    return {run_id: result["outcome"] for run_id, result in results.items()}


def test_discovery_shows_every_case_at_its_file_and_line(
    workspace: Workspace, discovered: vscode.Discovery
) -> None:
    _, expected = workspace
    assert discovered.errors == []
    seen = sorted((Path(t["path"]), int(t["lineno"]), t["name"]) for t in discovered.tests())
    assert seen == sorted((case.file, case.line, case.name) for case in expected)


@pytest.mark.parametrize("kind", ["inline", "dataset"])
def test_a_case_id_is_its_file_then_its_name(
    workspace: Workspace, discovered: vscode.Discovery, kind: str
) -> None:
    """The id the explorer keys the item by and runs it with: pytest's node id made absolute."""
    _, expected = workspace
    cases = [case for case in expected if case.in_dataset == (kind == "dataset")]
    ids = {(case.relative, case.name): shown(discovered, case)["runID"] for case in cases}
    assert ids == {(case.relative, case.name): f"{case.file}::{case.name}" for case in cases}
    for case in cases:
        assert shown(discovered, case)["id_"] == ids[case.relative, case.name]


@pytest.mark.parametrize(
    ("case_id", "model"),
    [("capital", "sim_echo"), ("r2", "sim_perfect")],
    ids=["inline", "dataset"],
)
def test_running_one_case_by_its_id_runs_exactly_that_case(
    workspace: Workspace, discovered: vscode.Discovery, case_id: str, model: str
) -> None:
    root, expected = workspace
    (case,) = [c for c in expected if (c.case, c.model) == (case_id, model)]
    run_id = shown(discovered, case)["runID"]
    run = vscode.run(root, [run_id])
    assert run.errors == [], str(run.exchange)
    assert verdicts(run.results) == {run_id: "success" if case.passes else "failure"}
    if case.reason is not None:
        assert case.reason in run.results[run_id]["message"]


def test_running_all_reports_every_case_with_its_outcome_and_reason(
    workspace: Workspace, discovered: vscode.Discovery
) -> None:
    root, expected = workspace
    items = {case: shown(discovered, case)["runID"] for case in expected}
    run = vscode.run(root, [t["runID"] for t in discovered.tests()])
    assert run.errors == [], str(run.exchange)
    assert verdicts(run.results) == {
        run_id: "success" if case.passes else "failure" for case, run_id in items.items()
    }
    for case, run_id in items.items():
        if case.reason is not None:
            assert case.reason in run.results[run_id]["message"]


def test_running_a_project_folder_reports_each_of_its_cases(
    workspace: Workspace, discovered: vscode.Discovery
) -> None:
    root, expected = workspace
    folder = discovered.node(root / "projects" / "greet")
    run = vscode.run(root, [t["runID"] for t in discovered.tests(folder)])
    assert run.errors == [], str(run.exchange)
    greet = [case for case in expected if case.file.parent.name == "greet"]
    assert verdicts(run.results) == {
        f"{case.file}::{case.name}": "success" if case.passes else "failure" for case in greet
    }
    (failed,) = [case for case in greet if not case.passes]
    assert failed.reason is not None
    assert failed.reason in run.results[f"{failed.file}::{failed.name}"]["message"]
