"""Counts and limits that hold: the records' retries are the requests the server saw again,
and a model's limits are its provider's, across every project of the run."""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import MakeProject
from tests.fake_llm_server import FakeLLMServer


def openai_model(key: str, server: FakeLLMServer, **settings: Any) -> str:
    """A `models: define:` entry for `key` served by the fake server."""
    lines = [f"    {key}:", "      connector: openai", f"      base_url: {server.base_url}"]
    lines += [f"      {name}: {json.dumps(value)}" for name, value in settings.items()]
    return "\n".join(lines)


def arena_yaml(models: str, default: list[str], cases: list[tuple[str, str]]) -> str:
    tests = "\n".join(
        f"  - {{id: {cid}, input: {json.dumps(text)}, reference: ok}}" for cid, text in cases
    )
    return f"models:\n  default: {json.dumps(default)}\n  define:\n{models}\ntests:\n{tests}\n"


def records(path: Path) -> list[dict[str, Any]]:
    return list(json.loads(path.read_text())["records"])


def test_a_call_that_failed_after_retrying_records_its_retries(
    fake_llm: FakeLLMServer, pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    model = openai_model("m", fake_llm, max_retries=2, backoff=0.01, cache=False)
    cases = [
        ("down", "[[fault=500]] a"),
        ("dropped", "[[fault=reset]] b"),
        ("bad", "[[fault=400]] c"),
    ]
    make_project("p", arena_yaml(model, ["m"], cases))
    result = pytester.runpytest("-p", "no:cacheprovider", "--arena-json=out.json")
    result.assert_outcomes(failed=3)
    result.stdout.fnmatch_lines(["*HTTP 500: fake failure 500 after 3 tries*"])
    retries = {r["case"]: r["retries"] for r in records(pytester.path / "out.json")}
    assert retries == {"down": 2, "dropped": 2, "bad": 0}
    assert [fake_llm.count(text) for _, text in cases] == [3, 3, 1]


def test_two_projects_with_one_provider_share_its_concurrency(
    fake_llm: FakeLLMServer, pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    # two projects, each with its own key for one model at one server: the provider's
    # limits are the run's, so 2 calls in flight at most, not 2 a project
    for name, key in (("first", "gpt"), ("second", "gpt-again")):
        model = openai_model(key, fake_llm, model="gpt", concurrency=2, cache=False)
        cases = [(f"c{i}", f"[[latency=100]] {name} {i}") for i in range(6)]
        make_project(name, arena_yaml(model, [key], cases))
    # another project gives the same provider a lower limit: the lowest holds, from the
    # first call that brings it (here the first call of the run: its project comes first)
    model = openai_model("slow", fake_llm, model="gpt", concurrency=1, cache=False)
    make_project("a-low", arena_yaml(model, ["slow"], [("c", "[[latency=100]] low")]))
    result = pytester.runpytest("-p", "no:cacheprovider", "projects/first", "projects/second")
    result.assert_outcomes(failed=12)  # the echoed prompt is not the reference
    assert (fake_llm.total, fake_llm.peak) == (12, 2)
    fake_llm.reset()
    result = pytester.runpytest("-p", "no:cacheprovider")
    result.assert_outcomes(failed=13)
    assert (fake_llm.total, fake_llm.peak) == (13, 1)


def test_a_providers_lane_keeps_the_lowest_limits_and_each_process_its_share() -> None:
    from pytest_arena.connectors import build_connector
    from pytest_arena.engine.calls import Engine
    from pytest_arena.engine.limits import Limits
    from pytest_arena.spec.schema import ModelDef

    def connector(key: str, root: str, **settings: Any) -> Any:
        settings = {"connector": "openai", "base_url": "http://127.0.0.1:9/v1", **settings}
        defined = {key: ModelDef.model_validate(settings)}
        return build_connector(key, defined, Path(root) / "arena.yaml")

    engine = Engine(processes=2)
    gpt = connector("gpt", "a")
    same = connector("other-key", "b", model="gpt", params={"temperature": 1})
    lane = engine._lane(gpt, Limits(concurrency=8, rpm=600))
    assert engine._lane(same, Limits(concurrency=4, tpm=6000)) is lane
    assert lane.gate.capacity == 2  # 4 / 2 workers
    assert lane.rpm is not None and lane.rpm.interval == 0.2  # 300 a minute each
    assert lane.tpm is not None and lane.tpm.interval == 0.02  # 3000 tokens a minute each
    engine._lane(gpt, Limits(concurrency=16))
    assert lane.gate.capacity == 2  # a higher limit loosens nothing
    # another model, server or key variable is another provider
    for other in (
        connector("gpt-mini", "a"),
        connector("gpt", "a", base_url="http://127.0.0.1:10/v1"),
        connector("gpt", "a", api_key_env="OTHER_KEY"),
    ):
        assert engine._lane(other, Limits()) is not lane


def test_a_gate_lets_in_up_to_its_capacity_first_come_first_served() -> None:
    from pytest_arena.engine.limits import Gate

    async def scenario() -> list[str]:
        gate, order = Gate(2), []

        async def call(name: str, hold: float) -> None:
            async with gate:
                order.append(name)
                await asyncio.sleep(hold)

        tasks = [asyncio.create_task(call(n, 0.05)) for n in "abcde"]
        await asyncio.sleep(0.01)
        assert (gate.held, order) == (2, ["a", "b"])
        gate.lower(1)  # those in flight finish; then one at a time
        tasks[2].cancel()  # a waiting call that is cancelled takes no place
        await asyncio.sleep(0.07)
        assert (gate.held, order) == (1, ["a", "b", "d"])
        await asyncio.gather(*tasks, return_exceptions=True)
        assert gate.held == 0
        return order

    assert asyncio.run(scenario()) == ["a", "b", "d", "e"]


# Faults a case asks the fake server for, with the share of cases that ask: each either
# passes after its retries or fails with the reason of its last try.
FAULT_MIX = [
    ("", 55),
    ("[[fault=429 retry_after=0 times=1]]", 6),
    ("[[fault=429 times=3]]", 4),
    ("[[fault=500 times=1]]", 5),
    ("[[fault=503 times=2]]", 4),
    ("[[fault=529]]", 3),  # never answers: fails after its last retry
    ("[[fault=reset times=1]]", 5),
    ("[[fault=reset times=2]]", 3),
    ("[[fault=truncated times=1]]", 4),
    ("[[fault=hang times=1]]", 2),  # answers its retry, after the model's timeout
    ("[[fault=malformed]]", 3),  # not retried
    ("[[fault=missing]]", 2),
    ("[[fault=400]]", 4),
]
FAULT_CALLS = 1200


def test_under_faults_the_records_count_every_request_the_server_saw_again(
    fake_llm: FakeLLMServer, pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    import random

    rng = random.Random(12)
    faults = rng.choices([f for f, _ in FAULT_MIX], [w for _, w in FAULT_MIX], k=FAULT_CALLS)
    cases = [(f"c{i}", f"{fault} [[answer=ok]] case {i}") for i, fault in enumerate(faults)]
    # a timeout long enough that only the hangs reach it: a try timed out before the server
    # read it would be a retry the server never saw
    settings = {"max_retries": 3, "backoff": 0.01, "timeout": 3, "concurrency": 32}
    make_project("faults", arena_yaml(openai_model("m", fake_llm, **settings), ["m"], cases))
    started = time.monotonic()
    result = pytester.runpytest("-p", "no:cacheprovider", "--arena-json=out.json")
    took = time.monotonic() - started
    found = records(pytester.path / "out.json")
    assert len(found) == FAULT_CALLS  # no record lost
    failing = ("[[fault=529]]", "[[fault=malformed]]", "[[fault=missing]]", "[[fault=400]]")
    expected_failures = sum(f in failing for f in faults)
    result.assert_outcomes(passed=FAULT_CALLS - expected_failures, failed=expected_failures)
    seen_again = sum(n - 1 for n in fake_llm.per_prompt.values())
    recorded = sum(r["retries"] for r in found)
    assert (len(fake_llm.per_prompt), recorded) == (FAULT_CALLS, seen_again)
    print(f"{FAULT_CALLS} calls, {fake_llm.total} requests in {took:.1f} s: {seen_again} retries")
    assert seen_again > FAULT_CALLS // 4  # the faults were there
