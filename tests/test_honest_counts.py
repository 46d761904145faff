"""Counts and limits that hold: the records' retries are the requests the server saw again,
and a model's limits are its provider's, across every project of the run."""

from __future__ import annotations

import json
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
