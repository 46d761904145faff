"""`--arena-models openai:gpt-4o-mini,anthropic:claude-3-5-haiku-latest`: a provider's model
without any YAML, against the fake server (its base URL from the providers' own variables)."""

from __future__ import annotations

import json

import pytest

from tests.conftest import MakeProject
from tests.fake_llm_server import FakeLLMServer

PROJECT = """
tests:
  - {id: plain, input: "[[answer=Paris]] Capital of France?", reference: Paris}
"""
MODELS = "openai:gpt-4o-mini,anthropic:claude-3-5-haiku-latest"


@pytest.fixture
def provider_env(monkeypatch: pytest.MonkeyPatch, fake_llm: FakeLLMServer) -> FakeLLMServer:
    monkeypatch.setenv("OPENAI_BASE_URL", fake_llm.base_url)
    monkeypatch.setenv("ANTHROPIC_BASE_URL", fake_llm.root_url)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-openai-test")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test")
    return fake_llm


def test_provider_keys_reach_their_apis_with_their_key_and_price(
    pytester: pytest.Pytester, make_project: MakeProject, provider_env: FakeLLMServer
) -> None:
    make_project("mine", PROJECT)
    result = pytester.runpytest("--arena-models", MODELS, "--arena-json", "out.json", "-v")
    assert result.ret == 0, result.stdout.str()
    result.stdout.fnmatch_lines(["*::plain[[]openai:gpt-4o-mini] PASSED*"])
    result.stdout.fnmatch_lines(["*::plain[[]anthropic:claude-3-5-haiku-latest] PASSED*"])
    models = sorted(body["model"] for body in provider_env.bodies)
    assert models == ["claude-3-5-haiku-latest", "gpt-4o-mini"]
    sent = [h.get("Authorization") or h.get("x-api-key") for h in provider_env.headers]
    assert sorted(sent) == ["Bearer sk-openai-test", "sk-ant-test"]
    records = json.loads((pytester.path / "out.json").read_text())["records"]
    assert all(r["cost"] and r["cost"] > 0 for r in records), records  # list prices known


def test_a_provider_key_is_overridden_in_models_define(
    pytester: pytest.Pytester,
    make_project: MakeProject,
    provider_env: FakeLLMServer,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("MY_KEY", "sk-mine")
    make_project(
        "mine",
        f"""
        models:
          define:
            "openai:gpt-4o-mini":
              base_url: {provider_env.base_url}
              api_key_env: MY_KEY
              price: {{input_per_mtok: 1000000, output_per_mtok: 0}}
        tests:
          - {{id: plain, input: "[[answer=Paris]] Capital of France?", reference: Paris}}
        """,
    )
    result = pytester.runpytest("--arena-models", "openai:gpt-4o-mini", "--arena-json", "o.json")
    assert result.ret == 0, result.stdout.str()
    assert provider_env.last_headers.get("Authorization") == "Bearer sk-mine"
    (record,) = json.loads((pytester.path / "o.json").read_text())["records"]
    assert record["cost"] == record["tokens"]["input"]  # a dollar a token in, as written


def test_an_unknown_provider_model_is_refused_with_the_fix(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    make_project("mine", PROJECT)
    result = pytester.runpytest("--arena-models", "gpt-4o-mini")
    assert result.ret != 0
    result.stdout.fnmatch_lines(["*model 'gpt-4o-mini'*", "*did you mean 'openai:gpt-4o-mini'?*"])


def test_a_model_without_a_price_costs_unknown_never_zero(
    pytester: pytest.Pytester, make_project: MakeProject, provider_env: FakeLLMServer
) -> None:
    make_project("mine", PROJECT)
    result = pytester.runpytest(
        "--arena-models", "openai:brand-new-model,sim_perfect", "--arena-json", "out.json"
    )
    assert result.ret == 0, result.stdout.str()
    result.stdout.fnmatch_lines(
        [
            "*openai:brand-new-model*1.000*100.0%*1*0*0*\u2013*",  # cost: an en dash
            "*sim_perfect*$0.000000*",  # a free sim stays free
            "*an unknown amount on 1 answer of models without a price*",
        ]
    )
    report = json.loads((pytester.path / "out.json").read_text())
    costs = {r["model"]: r["cost"] for r in report["records"]}
    assert costs == {"openai:brand-new-model": None, "sim_perfect": 0.0}
    rows = {r["model"]: r["cost"] for r in report["leaderboards"][0]["rows"]}
    assert rows == {"openai:brand-new-model": None, "sim_perfect": 0.0}


def test_a_judge_without_a_price_costs_unknown_never_zero(
    pytester: pytest.Pytester, make_project: MakeProject, provider_env: FakeLLMServer
) -> None:
    make_project(
        "judged",
        """
        models: [sim_perfect]
        judge: {model: "openai:brand-new-judge"}
        scoring: [{scorer: llm_judge}]
        tests:
          - {id: capital, input: "[[answer=PASS]] Capital of France?", reference: Paris}
        """,
    )
    result = pytester.runpytest("--arena-json", "out.json", "--arena-html", "out.html")
    assert result.ret == 0, result.stdout.str()
    result.stdout.fnmatch_lines(
        [
            "*rank*model*cost*judge cost*latency*",
            "*sim_perfect*$0.000000*–*",  # judge cost: an en dash, not $0
            "*$0.00 spent on models and judges, and an unknown amount on judging 1 answer by a"
            " judge without a price (set its price:)",
        ]
    )
    report = json.loads((pytester.path / "out.json").read_text())
    assert report["records"][0]["judge"]["cost"] is None
    assert report["leaderboards"][0]["rows"][0]["judge_cost"] is None
    assert "<th>judge cost</th>" in (pytester.path / "out.html").read_text()


def test_verdicts_from_the_response_cache_are_not_counted_as_spent(
    pytester: pytest.Pytester, make_project: MakeProject, provider_env: FakeLLMServer
) -> None:
    """A judge's verdict replayed from the cache was added to "spent" all the same: $2 said
    for the one call the server was paid for, and $2 again on a rerun that made no call."""
    make_project(
        "judged",
        """
        models:
          default: [sim_perfect]
          define:
            jd: {connector: openai, model: judge-x, price: {input_per_mtok: 1000000, output_per_mtok: 0}}
        judge: {model: jd}
        scoring: [{scorer: llm_judge}]
        tests:
          - {id: a, input: "[[answer=PASS]] Capital of France?", reference: Paris}
          - {id: b, input: "[[answer=PASS]] Capital of France?", reference: Paris}
        """,
    )
    first = pytester.runpytest("-p", "no:randomly", "--arena-json", "one.json")
    assert provider_env.total == 1  # b's verdict, the same prompt, came from the cache
    records = json.loads((pytester.path / "one.json").read_text())["records"]
    paid = records[0]["judge"]["cost"]
    assert paid > 0 and records[1]["judge"] == {**records[0]["judge"], "cached_cost": paid}
    first.stdout.fnmatch_lines(
        [f"arena: 2 answers graded, verdicts from the cache (${paid:.2f} not spent again);"
         f" ${paid:.2f} spent on models and judges"]
    )  # fmt: skip
    provider_env.reset()
    again = pytester.runpytest("-p", "no:randomly")
    assert provider_env.total == 0
    again.stdout.fnmatch_lines(
        [f"arena: 2 answers graded, verdicts from the cache (${2 * paid:.2f} not spent again);"
         " $0.00 spent on models and judges"]
    )  # fmt: skip


def test_cached_answers_are_marked_and_their_latency_is_not_averaged_as_live(
    pytester: pytest.Pytester, make_project: MakeProject, provider_env: FakeLLMServer
) -> None:
    make_project(
        "mine",
        """
        tests:
          - {id: slow, input: "[[answer=Paris]] [[latency=300]] Capital?", reference: Paris}
        """,
    )
    live = pytester.runpytest("--arena-models", "openai:gpt-4o-mini", "--arena-json", "a.json")
    assert live.ret == 0, live.stdout.str()
    (first,) = json.loads((pytester.path / "a.json").read_text())["records"]
    assert not first["cached"] and first["latency_ms"] >= 300
    again = pytester.runpytest("--arena-models", "openai:gpt-4o-mini", "--arena-json", "b.json")
    assert again.ret == 0, again.stdout.str()
    report = json.loads((pytester.path / "b.json").read_text())
    (second,) = report["records"]
    assert second["cached"] and second["latency_ms"] == first["latency_ms"]  # as it was
    (row,) = report["leaderboards"][0]["rows"]
    assert row["latency_ms"] is None  # no live call this run: nothing to average
    again.stdout.fnmatch_lines(["*1 from the response cache*"])
