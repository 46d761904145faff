"""pytest-html's report (`--html=report.html --self-contained-html`), read from its data blob.

The page draws its table from the JSON in `data-jsonblob` on `#data-container`: one entry
per test, keyed by node id, with the result and the log, escaped for HTML, that a row
opens to.
"""

from __future__ import annotations

import html
import json
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest

from tests.clients.workspace import Expected, node_ids, run_pytest, write_workspace

Workspace = tuple[Path, list[Expected]]


class DataBlob(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.blobs: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = dict(attrs)
        if found.get("id") == "data-container" and found.get("data-jsonblob") is not None:
            self.blobs.append(str(found["data-jsonblob"]))


def report_data(path: Path) -> dict[str, Any]:
    parser = DataBlob()
    parser.feed(path.read_text(encoding="utf-8"))
    (blob,) = parser.blobs
    data: dict[str, Any] = json.loads(blob)
    return data


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> Workspace:
    root = tmp_path_factory.mktemp("html-project").resolve()
    return root, write_workspace(root)


@pytest.fixture(scope="module")
def node_id(workspace: Workspace) -> dict[tuple[str, str], str]:
    root, _ = workspace
    return node_ids(root)


@pytest.mark.parametrize("workers", [[], ["-n", "2"]], ids=["one-process", "xdist"])
def test_the_report_lists_every_case_with_its_outcome_and_reason(
    workspace: Workspace, node_id: dict[tuple[str, str], str], workers: list[str]
) -> None:
    root, expected = workspace
    report = root / f"report-{len(workers)}.html"
    result = run_pytest(root, f"--html={report}", "--self-contained-html", *workers)
    assert result.returncode == 1, result.stdout + result.stderr  # some cases fail
    tests = report_data(report)["tests"]
    assert sorted(tests) == sorted(node_id.values())
    for case in expected:
        (entry,) = tests[node_id[case.case, case.model]]
        assert entry["testId"] == node_id[case.case, case.model]
        assert entry["result"] == ("Passed" if case.passes else "Failed")
        if case.reason is not None:
            # a line of its own (xdist puts the worker's name first)
            assert case.reason in html.unescape(entry["log"]).splitlines()
