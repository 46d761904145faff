"""PyCharm's test runner: pytest with teamcity-messages (`--teamcity`), read as PyCharm reads it.

teamcity-messages names a test after its node id (`projects.quiz.arena_yaml.capital(sim_echo)`)
and sends no locationHint (PyCharm's own helper adds one made from that dotted name); the
only file and line it carries is a failure's message, `path:line (domain)` from the item's
location, with pytest's 0-based line.
"""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

import pytest

from tests.clients.teamcity import Message, messages
from tests.clients.workspace import Expected, node_ids, run_pytest, write_workspace

Workspace = tuple[Path, list[Expected]]
TEST_NAME = re.compile(r"\.(\w+)\((\w+)\)$")  # ...<case>(<model>)
TEST_EVENTS = {"testStarted", "testFailed", "testIgnored", "testFinished"}
LOCATION = re.compile(r"^(?P<path>.+):(?P<line>\d+) \((?P<domain>.*)\)$")


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> Workspace:
    root = tmp_path_factory.mktemp("pycharm-project").resolve()
    return root, write_workspace(root)


@pytest.fixture(scope="module")
def full_run(workspace: Workspace) -> list[Message]:
    root, _ = workspace
    result = run_pytest(root, "--teamcity")
    assert result.returncode == 1, result.stdout + result.stderr  # some cases fail
    return messages(result.stdout)


@pytest.fixture(scope="module")
def node_id(workspace: Workspace) -> dict[tuple[str, str], str]:
    root, _ = workspace
    return node_ids(root)


def item(message: Message) -> tuple[str, str]:
    """(case, model) of a test message."""
    match = TEST_NAME.search(message.attrs["name"])
    assert match, message
    return match.group(1), match.group(2)


def events(sent: list[Message]) -> list[tuple[str, tuple[str, str]]]:
    """Each test's start, failure, skip and end as (message, (case, model)), in the order sent."""
    return [(m.name, item(m)) for m in sent if m.name in TEST_EVENTS]


def test_every_case_is_started_then_finished_once(
    workspace: Workspace, full_run: list[Message]
) -> None:
    _, expected = workspace
    (count,) = [m for m in full_run if m.name == "testCount"]
    assert int(count.attrs["count"]) == len(expected)
    sent = events(full_run)
    assert Counter(i for name, i in sent if name == "testStarted") == Counter(
        (case.case, case.model) for case in expected
    )
    for case in expected:
        mine = [name for name, i in sent if i == (case.case, case.model)]
        assert mine == (
            ["testStarted", "testFinished"]
            if case.passes
            else ["testStarted", "testFailed", "testFinished"]
        )


def test_a_failure_carries_the_scorers_reason_and_the_cases_file_and_line(
    workspace: Workspace, full_run: list[Message]
) -> None:
    root, expected = workspace
    failed = {item(m): m for m in full_run if m.name == "testFailed"}
    failing = [case for case in expected if not case.passes]
    assert set(failed) == {(case.case, case.model) for case in failing}
    for case in failing:
        message = failed[case.case, case.model]
        assert case.reason is not None
        assert message.attrs["details"].startswith(case.reason + "\n")
        where = LOCATION.match(message.attrs["message"])
        assert where, message
        assert (root / where["path"], int(where["line"]) + 1) == (case.file, case.line)


@pytest.mark.parametrize(
    ("case_id", "model"),
    [("sum", "sim_echo"), ("c2", "sim_perfect")],
    ids=["inline", "dataset"],
)
def test_running_one_case_by_its_node_id_runs_exactly_that_case(
    workspace: Workspace, node_id: dict[tuple[str, str], str], case_id: str, model: str
) -> None:
    root, expected = workspace
    (case,) = [c for c in expected if (c.case, c.model) == (case_id, model)]
    result = run_pytest(root, "--teamcity", node_id[case_id, model])
    sent = messages(result.stdout)
    assert [m.attrs["count"] for m in sent if m.name == "testCount"] == ["1"]
    tests = events(sent)
    if case.passes:
        assert tests == [("testStarted", (case_id, model)), ("testFinished", (case_id, model))]
    else:
        assert [name for name, _ in tests] == ["testStarted", "testFailed", "testFinished"]
        assert {i for _, i in tests} == {(case_id, model)}
        (failure,) = [m for m in sent if m.name == "testFailed"]
        assert case.reason is not None and case.reason in failure.attrs["details"]
