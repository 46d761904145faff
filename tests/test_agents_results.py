"""What a tool returns, as the model, the cache and the reports see it: a number JSON has
no word for goes as null, an object's memory address is never part of it, a call with no
result said is not shown as one that returned ''; and an agent's `os.chdir` stays its own."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import MakeProject
from tests.fake_llm_server import FakeLLMServer


def strict_json(text: str) -> Any:
    """`text` read as JSON as the standard has it: no NaN, Infinity or -Infinity."""

    def refuse(word: str) -> None:
        raise ValueError(f"{word} is not JSON")

    return json.loads(text, parse_constant=refuse)


def records(pytester: pytest.Pytester, *args: str) -> tuple[pytest.RunResult, dict[str, Any]]:
    report = pytester.path / "r.json"
    result = pytester.runpytest("-p", "no:cacheprovider", f"--arena-json={report}", *args)
    return result, {r["case"]: r for r in json.loads(report.read_text())["records"]}


def test_a_tool_result_holding_nan_or_infinity_reaches_the_model_as_json(
    fake_llm: FakeLLMServer, make_project: MakeProject, pytester: pytest.Pytester
) -> None:
    """`return float("nan")` was sent as `NaN` and `{"peak": float("inf")}` as
    `{"peak": Infinity}`, which are not JSON; such a number is null, as in the reports."""
    make_project(
        "desk",
        f"""
        models:
          default: [remote]
          define:
            remote: {{connector: openai, base_url: "{fake_llm.base_url}", model: m, max_retries: 0}}
        tests:
          - id: q
            input: '[[call=mean {{}}]] [[call=stats {{}}]] [[answer=none yet]]'
            reference: none yet
        """,
        {
            "tools.py": "def mean() -> float:\n    return float('nan')\n\n\n"
            "def stats() -> dict:\n"
            "    return {'peak': float('inf'), 'low': [float('-inf'), 1.5]}\n"
        },
    )
    result, found = records(pytester)
    result.assert_outcomes(passed=1)
    sent = [m["content"] for m in list(fake_llm.bodies)[-1]["messages"] if m["role"] == "tool"]
    assert [strict_json(text) for text in sent] == [None, {"peak": None, "low": [None, 1.5]}]
    steps = found["q"]["response"]["trajectory"]
    assert [s["tool_results"][0]["content"] for s in steps[:2]] == sent


AGENT = """
class Order:  # neither __str__ nor __repr__ of its own: its repr is its address
    pass


def run(prompt):
    return {
        "text": "done",
        "tool_calls": [
            {"name": "lookup", "arguments": {"id": "7"}, "result": Order()},
            {"name": "rows", "arguments": {}, "result": {"rows": [object(), 2]}},
            {"name": "notify", "arguments": {"to": "ops"}},
        ],
    }
"""


def reporting_agent(make_project: MakeProject, reference: str) -> None:
    """Project p: case q, answered by AGENT, which reports the calls it made."""
    make_project(
        "p",
        f"""
        models:
          default: [mine]
          define:
            mine: {{connector: python, callable: "agent:run"}}
        tests:
          - {{id: q, input: x, reference: {reference}}}
        """,
        {"agent.py": AGENT},
    )


def test_a_python_agents_reported_results_keep_no_memory_address(
    make_project: MakeProject, pytester: pytest.Pytester
) -> None:
    """`"result": Order()` was kept as `<agent.Order object at 0x7f...>`, a text that changed
    each run; what the agent's results say is the same in every run."""
    reporting_agent(make_project, "done")
    result, found = records(pytester)
    result.assert_outcomes(passed=1)
    contents = [
        [r["content"] for r in s["tool_results"]] for s in found["q"]["response"]["trajectory"]
    ]
    expected = [['"<agent.Order object>"'], ['{"rows": ["<object object>", 2]}'], [], []]
    assert contents == expected
    assert " at 0x" not in (pytester.path / "r.json").read_text()


def test_a_reported_call_without_a_result_is_not_shown_as_returning_an_empty_text(
    make_project: MakeProject, pytester: pytest.Pytester
) -> None:
    """A call the agent said without its `result` was shown as `notify({"to": "ops"}) -> ''`,
    as if the tool had returned ''."""
    reporting_agent(make_project, "something else")
    result = pytester.runpytest("-p", "no:cacheprovider")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            '    1. lookup({"id": "7"}) -> \'"<agent.Order object>"\'',
            '    3. notify({"to": "ops"}) (no result reported)',
            "    4. answer: 'done'",
        ]
    )


CHDIR = """
import os
import threading
from pathlib import Path

HOME = Path(__file__).resolve().parents[2]  # the folder the run started in
together = threading.Barrier(3)


def alone(prompt, workspace):
    was = Path.cwd().resolve()
    os.chdir(workspace)
    return "home" if was == HOME else str(was)


def together_(prompt, workspace):
    os.chdir(workspace)
    try:  # the three calls are running at once
        together.wait(timeout=5)
    except threading.BrokenBarrierError:
        pass
    return "home"
"""


@pytest.mark.parametrize("model", ["alone", "together"])
def test_an_agent_that_changes_directory_leaves_the_next_case_and_test_where_they_were(
    make_project: MakeProject, pytester: pytest.Pytester, model: str
) -> None:
    """`os.chdir(workspace)` in an agent moved every later case, and the tests after them,
    into that case's workspace; also when its calls ran at once."""
    make_project(
        "p",
        """
        models:
          define:
            alone: {connector: python, callable: "agent:alone", concurrency: 1}
            together: {connector: python, callable: "agent:together_"}
        tests:
          - {id: one, input: x, reference: home}
          - {id: two, input: x, reference: home}
          - {id: three, input: x, reference: home}
        """,
        {"agent.py": CHDIR},
    )
    start = Path.cwd()
    pytester.makepyfile(  # collected after the project's items
        test_zz_after=f"import os\n\n\ndef test_where():\n    assert os.getcwd() == {str(start)!r}\n"
    )
    result = pytester.runpytest("-p", "no:cacheprovider", "--arena-models", model)
    result.assert_outcomes(passed=4)
