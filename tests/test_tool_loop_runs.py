"""The tool loop in whole runs, against the fake OpenAI and Anthropic servers: the project's
tools offered in each API's format, run by arena, their results sent back, every step
recorded and cached, graded by tool_call and trajectory."""

from __future__ import annotations

import json
import sys
from typing import Any

import pytest

from tests.conftest import MakeProject
from tests.fake_llm_server import FakeLLMServer

TOOLS = '''
from pathlib import Path


def lookup_order(order_id: str) -> dict:
    """Look an order up.

    Args:
        order_id: the order number
    """
    if order_id != "1182":
        raise LookupError(f"no order {order_id}")
    return {"order_id": order_id, "status": "shipped", "total": 39.9}


def issue_refund(order_id: str, amount: float, workspace: Path) -> str:
    """Refund an amount on an order."""
    (workspace / "refunds.txt").write_text(f"{order_id} {amount}")
    return f"refunded {amount} on {order_id}"
'''

CALLS = (
    '[[call=lookup_order {"order_id": "1182"}]]'
    ' [[call=issue_refund {"order_id": "1182", "amount": 39.9}]]'
    " [[answer=I refunded 39.90 on order 1182.]]"
)
EXPECTED = """
      tool_calls:
        - {name: lookup_order, arguments: {order_id: "1182"}}
        - {name: issue_refund, arguments: {order_id: "1182", amount: 39.9}}
      answer: I refunded 39.90 on order 1182."""


def project(server: FakeLLMServer, connector: str, max_turns: int = 5) -> str:
    url = server.base_url if connector == "openai" else server.root_url
    return f"""
models:
  default: [remote]
  define:
    remote: {{connector: {connector}, base_url: "{url}", model: served, max_retries: 0}}
tools:
  max_turns: {max_turns}
scoring:
  - {{scorer: tool_call, weight: 2}}
  - {{scorer: trajectory, required: true, params: {{must_call: [issue_refund], max_steps: 3}}}}
tests:
  - id: refund
    input: '{CALLS} Refund order 1182 please.'
    reference:{EXPECTED}
"""


def run(pytester: pytest.Pytester, *args: str) -> tuple[pytest.RunResult, dict[str, Any]]:
    report = pytester.path / "report.json"
    result = pytester.runpytest("-p", "no:cacheprovider", f"--arena-json={report}", *args)
    records = {r["case"]: r for r in json.loads(report.read_text())["records"]}
    return result, records


def tool_results(body: dict[str, Any], connector: str) -> list[dict[str, Any]]:
    """The tool results a request sent back, in its API's format."""
    if connector == "openai":
        return [m for m in body["messages"] if m["role"] == "tool"]
    return [
        block
        for m in body["messages"]
        if m["role"] == "user" and isinstance(m["content"], list)
        for block in m["content"]
        if block.get("type") == "tool_result"
    ]


@pytest.mark.parametrize("connector", ["openai", "anthropic"])
def test_a_loop_of_two_tools_and_three_turns_is_run_recorded_cached_and_graded(
    fake_llm: FakeLLMServer, make_project: MakeProject, pytester: pytest.Pytester, connector: str
) -> None:
    make_project("desk", project(fake_llm, connector), {"tools.py": TOOLS})
    result, records = run(pytester, "-v")
    result.assert_outcomes(passed=1)
    assert fake_llm.total == 3
    first, second, third = list(fake_llm.bodies)
    if connector == "openai":
        offered = {t["function"]["name"]: t["function"] for t in first["tools"]}
        assert offered["lookup_order"]["parameters"] == {
            "type": "object",
            "properties": {"order_id": {"type": "string", "description": "the order number"}},
            "required": ["order_id"],
        }
        call = second["messages"][-2]["tool_calls"][0]
        assert (call["id"], json.loads(call["function"]["arguments"])) == (
            "call_1",
            {"order_id": "1182"},
        )
    else:
        offered = {t["name"]: t for t in first["tools"]}
        assert offered["issue_refund"]["input_schema"]["required"] == ["order_id", "amount"]
        assert second["messages"][-2]["content"][0]["type"] == "tool_use"
    assert "workspace" not in json.dumps(first["tools"])  # given by arena, not the model
    assert json.loads(tool_results(second, connector)[0]["content"])["status"] == "shipped"
    assert tool_results(third, connector)[-1]["content"] == "refunded 39.9 on 1182"

    record = records["refund"]
    steps = record["response"]["trajectory"]
    documented = {  # docs/guides/agents.md: every step has every key, the last one too
        "step",
        "message",
        "tool_results",
        "finish_reason",
        "tokens_in",
        "tokens_out",
        "cost",
        "latency_ms",
        "cached",
    }
    assert [set(s) for s in steps] == [documented] * 3
    assert [len(s["message"]["tool_calls"]) for s in steps] == [1, 1, 0]
    assert [len(s["tool_results"]) for s in steps] == [1, 1, 0]
    assert steps[0]["message"]["tool_calls"][0]["arguments"] == {"order_id": "1182"}
    assert steps[1]["tool_results"][0]["content"] == "refunded 39.9 on 1182"
    assert all(s["tokens_in"] > 0 and not s["cached"] for s in steps)
    assert record["output"] == "I refunded 39.90 on order 1182."
    assert record["tokens"]["input"] == sum(s["tokens_in"] for s in steps)
    workspace = record["detail"]["workspace"]
    assert (pytester.path / workspace / "refunds.txt").read_text() == "1182 39.9"

    fake_llm.reset()
    again, records = run(pytester)
    again.assert_outcomes(passed=1)
    assert fake_llm.total == 0  # every turn came from the cache
    assert all(s["cached"] for s in records["refund"]["response"]["trajectory"])


def test_a_loop_partly_answered_by_the_cache_is_said_to_cost_its_live_turns_alone(
    fake_llm: FakeLLMServer, make_project: MakeProject, pytester: pytest.Pytester
) -> None:
    """A rerun whose first two turns came from the cache and whose third was a call said
    all three turns' price as spent: the loop as a whole was not 'cached'."""
    priced = "max_retries: 0, price: {input_per_mtok: 1000000, output_per_mtok: 1000000}"
    yaml = project(fake_llm, "openai", max_turns=2).replace("max_retries: 0", priced)
    make_project("desk", yaml, {"tools.py": TOOLS})
    run(pytester)  # two turns, cached; the loop fails at max_turns
    fake_llm.reset()
    make_project("desk", yaml.replace("max_turns: 2", "max_turns: 5"), {"tools.py": TOOLS})
    result, records = run(pytester)
    assert fake_llm.total == 1  # the third turn alone was asked
    steps = records["refund"]["response"]["trajectory"]
    assert [s["cached"] for s in steps] == [True, True, False]
    live, replayed = steps[2]["cost"], steps[0]["cost"] + steps[1]["cost"]
    result.stdout.fnmatch_lines(
        [
            f"arena: 1 answer graded, turns from the cache (${replayed:.2f} not spent again);"
            f" ${live:.2f} spent on models and judges"
        ]
    )
    spend = json.loads((pytester.path / "report.json").read_text())["spend"]  # and the same
    assert (spend["saved_by_cache"], spend["total"]) == pytest.approx((replayed, live))


HOOKS = """
def pre_request(request, case, context):
    request.tools = [t for t in request.tools if t["name"] != "issue_refund"]
    request.tools[0]["description"] = "Look an order up (read only)."
"""


def test_claude_s_thinking_blocks_go_back_with_the_tool_results(
    fake_llm: FakeLLMServer, make_project: MakeProject, pytester: pytest.Pytester
) -> None:
    """With extended thinking on, the API refuses a turn that answers tool calls without
    the thinking block they came with: every case errored after its first step."""
    thinking = "params: {max_tokens: 4096, thinking: {type: enabled, budget_tokens: 2048}},"
    yaml = project(fake_llm, "anthropic").replace(
        "max_retries: 0}", f"max_retries: 0, {thinking}}}"
    )
    make_project("desk", yaml, {"tools.py": TOOLS})
    result, records = run(pytester)
    result.assert_outcomes(passed=1)
    second = list(fake_llm.bodies)[1]["messages"][1]  # the first turn, sent back
    assert second["role"] == "assistant"
    assert [b["type"] for b in second["content"]] == ["thinking", "tool_use"]
    assert second["content"][0]["signature"] == "sig-1"  # as it came, signed
    steps = records["refund"]["response"]["trajectory"]
    assert steps[0]["message"]["thinking_blocks"][0]["thinking"] == "Look it up."


@pytest.mark.parametrize("connector", ["openai", "anthropic"])
def test_pre_request_sees_the_tools_and_the_loop_runs_only_those_it_offers(
    fake_llm: FakeLLMServer, make_project: MakeProject, pytester: pytest.Pytester, connector: str
) -> None:
    make_project("desk", project(fake_llm, connector), {"tools.py": TOOLS, "hooks.py": HOOKS})
    result, records = run(pytester)
    result.assert_outcomes(passed=1)  # the model called what it should; the call failed
    first, _, third = list(fake_llm.bodies)
    tools = first["tools"]
    offered = [t["function"] for t in tools] if connector == "openai" else tools
    assert [(t["name"], t["description"]) for t in offered] == [
        ("lookup_order", "Look an order up (read only).")
    ]
    assert tool_results(third, connector)[-1]["content"] == (
        "error: there is no tool named 'issue_refund'; the tools are: lookup_order"
    )
    steps = records["refund"]["response"]["trajectory"]
    assert steps[1]["tool_results"][0]["is_error"] is True
    assert not list(pytester.path.rglob("refunds.txt"))  # the tool never ran


@pytest.mark.parametrize(
    ("tools", "said"),
    [
        ('"lookup_order"', "a str"),
        ('["lookup_order"]', "a list holding a str"),
        ('[{"description": "no name"}]', "a tool without a name"),
    ],
)
def test_tools_a_hook_leaves_malformed_fail_the_case_naming_the_hook(
    fake_llm: FakeLLMServer,
    make_project: MakeProject,
    pytester: pytest.Pytester,
    tools: str,
    said: str,
) -> None:
    hooks = f"def pre_request(request, case, context):\n    request.tools = {tools}\n"
    make_project("desk", project(fake_llm, "openai"), {"tools.py": TOOLS, "hooks.py": hooks})
    result, records = run(pytester)
    result.assert_outcomes(failed=1)  # as any mistake of a hook: the case's record an error
    result.stdout.fnmatch_lines(
        [
            f"*hooks.py pre_request left request.tools as {said}; give a list of the tools"
            " offered, each {name, description, parameters}, as request.tools held them*"
        ]
    )
    assert fake_llm.total == 0  # nothing was sent
    assert records["refund"]["status"] == "error"


@pytest.mark.parametrize("connector", ["openai", "anthropic"])
def test_a_model_that_never_stops_calling_tools_fails_at_max_turns(
    fake_llm: FakeLLMServer, make_project: MakeProject, pytester: pytest.Pytester, connector: str
) -> None:
    yaml = project(fake_llm, connector, max_turns=3).replace(
        CALLS, '[[loop=lookup_order {"order_id": "1182"}]]'
    )
    make_project("desk", yaml, {"tools.py": TOOLS})
    result, records = run(pytester)
    result.assert_outcomes(failed=1)
    assert fake_llm.total == 3
    result.stdout.fnmatch_lines(
        [
            "*max_turns reached: the model still called tools after 3 turns"
            " (last called: lookup_order); no final answer",
            "*trajectory: 3 steps",
            '*1. lookup_order({"order_id": "1182"}) -> *shipped*',
            "*workspace: *",
        ]
    )
    record = records["refund"]
    assert record["status"] == "failed" and record["score"] == 0.0
    assert len(record["response"]["trajectory"]) == 3


def test_a_misspelt_tool_name_or_a_malformed_expected_call_is_an_error_at_its_line(
    make_project: MakeProject, pytester: pytest.Pytester
) -> None:
    """`must_not_call: [isue_refund]` would hold for every output; a malformed reference
    call would fail every output with a traceback. Each is said once, where it is written.
    A name unlike every tool is kept: a model may call a tool that does not exist."""
    make_project(
        "desk",
        """
models: [sim_small]
scorers:
  options:
    trajectory: {must_not_call: [isue_refund], final_answer: false}
tests:
  - id: shared
    input: x
    eval_type: trajectory
  - id: own
    input: x
    eval_type: trajectory
    options: {must_call: [lookup_ordr]}
  - id: malformed
    input: x
    eval_type: tool_call
    reference: {tool_calls: [{name: lookup_order}, {name: issue_refund, argument: {}}]}
  - id: reference
    input: x
    eval_type: tool_call
    reference: {tool_calls: [{name: lookup_orders}]}
  - id: unlike
    input: x
    eval_type: trajectory
    options: {must_not_call: [rm_rf], final_answer: false}
""",
        {"tools.py": TOOLS},
    )
    result = pytester.runpytest("-p", "no:cacheprovider")
    result.assert_outcomes(passed=1, errors=4)
    result.stdout.fnmatch_lines_random(
        [
            "projects/desk/arena.yaml:4: scorers.options.trajectory: trajectory: must_not_call"
            " names the tool 'isue_refund', which tools.py does not define;"
            " did you mean 'issue_refund'?",
            "projects/desk/arena.yaml:12: trajectory: must_call names the tool 'lookup_ordr',"
            " which tools.py does not define; did you mean 'lookup_order'?",
            "projects/desk/arena.yaml:13: tool_call: reference.tool_calls.1.argument: Extra"
            " inputs are not permitted; each call is {name, arguments, match}",
            "projects/desk/arena.yaml:17: tool_call: reference.tool_calls names the tool"
            " 'lookup_orders', which tools.py does not define; did you mean 'lookup_order'?",
        ]
    )
    # without tools.py the names are not known: nothing to check them against; and no tool
    # loop runs, so the sim's one reply holds no call to grade
    (pytester.path / "projects" / "desk" / "tools.py").unlink()
    outcomes = pytester.runpytest("-p", "no:cacheprovider").parseoutcomes()
    assert outcomes == {"errors": 1, "unscored": 4}


@pytest.mark.parametrize("connector", ["openai", "anthropic"])
def test_a_tool_that_raises_is_reported_to_the_model_as_a_tool_error(
    fake_llm: FakeLLMServer, make_project: MakeProject, pytester: pytest.Pytester, connector: str
) -> None:
    yaml = project(fake_llm, connector).replace(
        CALLS, '[[call=lookup_order {"order_id": "9999"}]] [[answer=There is no such order.]]'
    )
    make_project("desk", yaml, {"tools.py": TOOLS})
    result, records = run(pytester)
    assert fake_llm.total == 2
    sent = tool_results(list(fake_llm.bodies)[-1], connector)[0]
    assert sent["content"] == "error: lookup_order raised LookupError: no order 9999"
    if connector == "anthropic":
        assert sent["is_error"] is True
    step = records["refund"]["response"]["trajectory"][0]
    assert step["tool_results"][0]["is_error"] is True
    result.assert_outcomes(failed=1)  # the model then answered without refunding
    result.stdout.fnmatch_lines(
        [
            '*expected call 1, lookup_order: argument \'order_id\' is "9999", expected "1182"*',
            "*1. lookup_order(*9999*) error *no order 9999*",
        ]
    )


@pytest.mark.parametrize("connector", ["openai", "anthropic"])
def test_a_reply_of_tool_calls_alone_shows_them_as_its_output(
    fake_llm: FakeLLMServer, make_project: MakeProject, pytester: pytest.Pytester, connector: str
) -> None:
    """Without tools.py arena runs no loop; the model's calls are not dropped: the text
    output shows them and a scorer reads them structured."""
    url = fake_llm.base_url if connector == "openai" else fake_llm.root_url
    make_project(
        "plain",
        f"""
        models:
          default: [remote]
          define:
            remote: {{connector: {connector}, base_url: "{url}", model: served}}
        tests:
          - id: calls
            input: '[[call=lookup_order {{"order_id": "7"}}]] Where is order 7?'
            reference: {{tool_calls: [{{name: lookup_order, arguments: {{order_id: "7"}}}}]}}
            eval_type: tool_call
        """,
    )
    result, records = run(pytester)
    result.assert_outcomes(passed=1)
    record = records["calls"]
    assert record["output"] == 'lookup_order({"order_id": "7"})'
    message = record["response"]["message"]
    assert message["content"] == ""
    assert message["tool_calls"] == [
        {"id": "call_1", "name": "lookup_order", "arguments": {"order_id": "7"}}
    ]
    assert record["response"]["finish_reason"] == (
        "tool_calls" if connector == "openai" else "tool_use"
    )
    assert record["response"]["usage"]["tokens_out"] == 10


def test_a_python_agent_gets_a_workspace_and_its_meta_reaches_the_scorer(
    make_project: MakeProject, pytester: pytest.Pytester
) -> None:
    make_project(
        "agent",
        """
        models:
          default: [mine]
          define:
            mine: {connector: python, callable: "agent:run"}
        scorers:
          default: saw
        tests:
          - {id: one, input: "write it", reference: "done"}
          - {id: two, input: "write it", reference: "other"}
        """,
        {
            "agent.py": (
                "def run(prompt, workspace):\n"
                "    (workspace / 'note.txt').write_text(prompt)\n"
                "    return {'text': 'done', 'meta': {'steps': 3, 'workspace': 'its own',"
                " 'tool_calls': ['search'], 'finish_reason': 'its own'}}\n"
            ),
            "scorers/saw.py": (
                "from pytest_arena import Scorer, ScoreResult\n\n\n"
                "class Saw(Scorer):\n"
                "    name = 'saw'\n\n"
                "    def score(self, output, reference, context):\n"
                "        note = (context.workspace / 'note.txt').read_text()\n"
                "        steps = context.response['meta']['steps']\n"
                "        ok = output == reference\n"
                "        return ScoreResult(float(ok), ok, f'{note}, {steps} steps')\n"
            ),
        },
    )
    result, records = run(pytester)
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(["write it, 3 steps", "  workspace: *agent-two-mine*"])
    one, two = records["one"], records["two"]
    # its meta as it returned it, keys named like arena's too, which keep arena's values
    own = {"steps": 3, "workspace": "its own", "tool_calls": ["search"], "finish_reason": "its own"}
    assert one["response"]["meta"] == own
    assert one["response"]["workspace"] == one["detail"]["workspace"] != "its own"
    assert one["response"]["message"]["tool_calls"] == []
    assert one["response"]["finish_reason"] is None
    assert one["detail"]["workspace"] != two["detail"]["workspace"]  # a fresh folder each


def test_tool_call_and_trajectory_leave_an_agents_case_unscored_and_say_why(
    make_project: MakeProject, pytester: pytest.Pytester
) -> None:
    """An agent runs its own tools and arena never sees them: `must_not_call: [issue_refund]`
    held, and `allow_extra: false` found no extra call, whatever the agent called."""
    make_project(
        "agent",
        f"""
        models:
          default: [mine, cmd]
          define:
            mine: {{connector: python, callable: "agent:run"}}
            cmd: {{connector: command, command: [{json.dumps(sys.executable)}, cmd_agent.py]}}
        scoring:
          - {{scorer: tool_call, params: {{allow_extra: false}}}}
          - {{scorer: trajectory, params: {{must_not_call: [issue_refund]}}}}
        tests:
          - id: no_refund
            input: I was charged twice for 1182
            reference: {{tool_calls: [], answer: no refund}}
        """,
        {
            "agent.py": (
                "def run(prompt):\n"
                "    call = {'id': '1', 'name': 'issue_refund', 'arguments': {}}\n"
                "    return {'text': 'I refunded you', 'meta': {'tool_calls': [call]}}\n"
            ),
            "cmd_agent.py": "import sys\nsys.stdin.read()\nprint('I refunded you')\n",
            "tools.py": TOOLS,
        },
    )
    report = pytester.path / "report.json"
    result = pytester.runpytest("-p", "no:cacheprovider", f"--arena-json={report}")
    assert result.parseoutcomes() == {"unscored": 2}
    records = json.loads(report.read_text())["records"]
    assert sorted(r["model"] for r in records) == ["cmd", "mine"]
    why = "no tool loop ran and the reply holds no tool call: unscored; fix: run arena's tool loop"
    for record in records:
        assert record["passed"] is None
        components = record["detail"]["components"]
        assert [c["passed"] for c in components] == [None, None]
        assert all(c["reason"].startswith(why) for c in components)
    result.stdout.fnmatch_lines(["2 x no component was graded", f"  tool_call *unscored: {why}*"])


def test_a_python_agent_that_says_its_tool_calls_is_graded_on_them(
    make_project: MakeProject, pytester: pytest.Pytester
) -> None:
    """A python agent returns `tool_calls` with its text: `tool_call` and `trajectory` grade
    the calls it made, in order, and the record keeps them as a trajectory with the tools'
    results; calls that do not fit are the agent's error, naming the call and the fix."""
    make_project(
        "agent",
        """
        models:
          default: [careful, refunder, broken]
          define:
            careful: {connector: python, callable: "agent:careful"}
            refunder: {connector: python, callable: "agent:refunder"}
            broken: {connector: python, callable: "agent:broken"}
        scoring:
          - {scorer: tool_call, params: {allow_extra: false}}
          - {scorer: trajectory, params: {must_not_call: [issue_refund]}}
        tests:
          - id: charged_twice
            input: I was charged twice for 1182
            reference: {tool_calls: [{name: lookup_order, arguments: {order_id: "1182"}}]}
        """,
        {
            "agent.py": (
                "LOOKUP = {'name': 'lookup_order', 'arguments': {'order_id': '1182'},"
                " 'result': {'status': 'shipped'}}\n"
                "def careful(prompt):\n"
                "    return {'text': 'It shipped once.', 'tool_calls': [LOOKUP]}\n"
                "def refunder(prompt):\n"
                "    refund = {'name': 'issue_refund', 'arguments': {'order_id': '1182'}}\n"
                "    return {'text': 'Refunded.', 'tool_calls': [LOOKUP, refund]}\n"
                "def broken(prompt):\n"
                "    return {'text': 'x', 'tool_calls': [LOOKUP, {'tool': 'issue_refund'}]}\n"
            ),
        },
    )
    result, _ = run(pytester)
    outcomes = {
        r["model"]: r for r in json.loads((pytester.path / "report.json").read_text())["records"]
    }
    assert outcomes["careful"]["status"] == "passed"
    assert outcomes["refunder"]["status"] == "failed"
    assert outcomes["broken"]["status"] == "error"
    result.stdout.fnmatch_lines(
        [
            "  trajectory  0.50 x1  failed: issue_refund was called once but must not be",
            "*agent:broken returned tool_calls[[]1[]] = {'tool': 'issue_refund'}; return a list of"
            " the calls the agent made*",
        ]
    )
    steps = outcomes["careful"]["response"]["trajectory"]
    assert [s["message"]["tool_calls"] for s in steps] == [
        [{"id": "call_1", "name": "lookup_order", "arguments": {"order_id": "1182"}}],
        [],
    ]
    assert steps[0]["tool_results"][0]["content"] == '{"status": "shipped"}'
    assert steps[1]["message"]["content"] == "It shipped once."


def test_a_loop_whose_second_turn_fails_keeps_what_its_first_turn_took_and_cost(
    fake_llm: FakeLLMServer, make_project: MakeProject, pytester: pytest.Pytester
) -> None:
    """A server error on the second turn kept the first turn in the trajectory, but its
    tokens and cost were dropped: the case said $0 and the spend line "not graded"."""
    failing = TOOLS.replace('"status": "shipped"', '"status": "[[fault=500]]"')
    priced = "max_retries: 0, price: {input_per_mtok: 1000000, output_per_mtok: 1000000}"
    yaml = project(fake_llm, "openai").replace("max_retries: 0", priced)
    make_project("desk", yaml, {"tools.py": failing})
    result, records = run(pytester)
    result.assert_outcomes(failed=1)
    assert fake_llm.total == 2
    record = records["refund"]
    assert record["status"] == "error" and "fake failure 500" in record["reason"]
    (step,) = record["response"]["trajectory"]
    assert step["tokens_in"] > 0 and step["cost"] > 0
    assert record["tokens"] == {"input": step["tokens_in"], "output": step["tokens_out"]}
    assert record["cost"] == pytest.approx(step["cost"])
    result.stdout.fnmatch_lines([f"arena: 0 answers graded; ${step['cost']:.2f} spent on*"])
    result.stdout.no_fnmatch_line("*no case was graded by*")


def test_a_key_a_tool_returns_or_raises_reaches_no_output(
    make_project: MakeProject, pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A tool that read a key from the environment (or quoted it in its error) had it printed
    in the failure, and written to the JSON, HTML and JUnit reports, where a python or a
    command agent's results had it written `***`."""
    key = "sk-tool-5f3c9a1e7b2d4c6a8e0f"
    monkeypatch.setenv("OPENAI_API_KEY", key)
    tools = '''
import os


def read_config(name: str) -> str:
    """Read a setting of the service's environment."""
    if name == "BROKEN":
        raise RuntimeError(f"cannot parse {os.environ['OPENAI_API_KEY']}")
    return os.environ.get(name, "unset")
'''
    make_project(
        "leak",
        """
        models: [sim_perfect]
        scoring:
          - {scorer: trajectory, params: {max_steps: 1}}
        tests:
          - id: read
            input: Which API key is configured?
            reference:
              tool_calls: [{name: read_config, arguments: {name: OPENAI_API_KEY}}]
              answer: It is configured.
          - id: raised
            input: Which API key is configured?
            reference:
              tool_calls: [{name: read_config, arguments: {name: BROKEN}}]
              answer: It is configured.
        """,
        {"tools.py": tools},
    )
    result = pytester.runpytest(
        "-p", "no:cacheprovider", "--arena-json=r.json", "--arena-html=r.html", "--junitxml=r.xml"
    )
    result.assert_outcomes(failed=2)  # two steps each, over max_steps
    result.stdout.fnmatch_lines(['*read_config({"name": "OPENAI_API_KEY"}) -> \'***\'*'])
    result.stdout.fnmatch_lines(['*read_config({"name": "BROKEN"}) error *: cannot parse ***\''])
    assert key not in result.stdout.str()
    for name in ("r.json", "r.html", "r.xml"):
        assert key not in (pytester.path / name).read_text(), name
