"""The response cache in whole runs: reruns cost nothing, replay fails on a miss, errors stay out."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from aiohttp import web

from tests.conftest import XDIST, MakeProject, denied_writes
from tests.fake_llm_server import FakeLLMServer

SECRET = "sk-cache-secret-7777"


def quiz(url: str, temperature: float = 0.0) -> str:
    return f"""
models:
  default: [remote]
  define:
    remote:
      connector: openai
      base_url: {url}
      api_key_env: ARENA_CACHE_KEY
      model: served
      params: {{temperature: {temperature}}}
      max_retries: 0
tests:
  - {{id: france, input: "[[answer=Paris]] Capital of France?", reference: Paris}}
  - {{id: italy, input: "[[answer=Rome]] Capital of Italy?", reference: Rome}}
  - {{id: refused, input: "[[fault=400]] Capital of Spain?", reference: Madrid}}
"""


@pytest.fixture
def project(
    fake_llm: FakeLLMServer, make_project: MakeProject, monkeypatch: pytest.MonkeyPatch
) -> FakeLLMServer:
    monkeypatch.setenv("ARENA_CACHE_KEY", SECRET)
    make_project("quiz", quiz(fake_llm.base_url))
    return fake_llm


def run(pytester: pytest.Pytester, *args: str) -> tuple[pytest.RunResult, dict[str, dict]]:
    report = pytester.path / "report.json"
    result = pytester.runpytest("-p", "no:cacheprovider", f"--arena-json={report}", *args)
    records = {r["case"]: r for r in json.loads(report.read_text())["records"]}
    return result, records


def test_a_rerun_is_answered_from_the_cache_and_the_server_sees_no_request(
    project: FakeLLMServer, pytester: pytest.Pytester
) -> None:
    first, before = run(pytester)
    first.assert_outcomes(passed=2, failed=1)
    assert project.total == 3
    project.reset()
    second, after = run(pytester)
    second.assert_outcomes(passed=2, failed=1)
    assert project.count("France") == project.count("Italy") == 0
    assert project.count("Spain") == 1  # a failed call is never cached: it is asked again
    assert (after["france"]["cached"], after["refused"]["cached"]) == (True, False)
    assert after["france"]["cost"] == before["france"]["cost"]
    second.stdout.fnmatch_lines(
        [
            "arena: 2 answers graded, 2 from the response cache (* not spent again, and an unknown amount on 2 of them without a price); *"
        ]
    )
    cache = pytester.path / ".arena-cache" / "responses.sqlite3"
    assert cache.exists() and SECRET.encode() not in cache.read_bytes()
    assert (pytester.path / ".arena-cache" / ".gitignore").read_text().splitlines()[-1] == "*"


def test_refresh_asks_again_and_off_neither_reads_nor_writes(
    project: FakeLLMServer, pytester: pytest.Pytester
) -> None:
    run(pytester, "--arena-cache", "off")
    assert not (pytester.path / ".arena-cache").exists()
    run(pytester)
    project.reset()
    _, records = run(pytester, "--arena-cache", "refresh")
    assert project.total == 3 and not records["france"]["cached"]


def test_strict_replay_fails_a_miss_and_names_the_part_of_the_key_that_differs(
    project: FakeLLMServer, pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    run(pytester)
    make_project("quiz", quiz(project.base_url, temperature=0.7))
    project.reset()
    result, _ = run(pytester, "--arena-cache", "replay")
    result.assert_outcomes(failed=3)
    assert project.total == 0  # replay never calls a model
    result.stdout.fnmatch_lines(
        [
            "*_ quiz::france[[]remote] _*",
            "*strict replay*params.temperature (0.7 here, 0.0 cached)*",
        ]
    )


def test_xdist_workers_share_one_cache(project: FakeLLMServer, pytester: pytest.Pytester) -> None:
    run(pytester, *XDIST, "-n", "2")
    project.reset()
    result, records = run(pytester, *XDIST, "-n", "2")
    result.assert_outcomes(passed=2, failed=1)
    assert project.count("France") == project.count("Italy") == 0
    assert records["italy"]["cached"] is True


def test_a_cache_path_can_be_chosen(project: FakeLLMServer, pytester: pytest.Pytester) -> None:
    path: Path = pytester.path / "elsewhere" / "answers.sqlite3"
    run(pytester, f"--arena-cache-path={path}")
    assert path.exists() and not (pytester.path / ".arena-cache").exists()


def test_a_cache_path_expands_home_and_variables_as_the_report_paths_do(
    project: FakeLLMServer, pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`--arena-cache-path=~/answers.sqlite3` made a folder named `~` in the project (one
    that invites `rm -rf ~`), where `--arena-json ~/…` and `--junitxml ~/…` went home."""
    monkeypatch.setenv("HOME", str(pytester.path / "home"))
    monkeypatch.setenv("ANSWERS", "kept")
    (pytester.path / "home").mkdir()
    run(pytester, "--arena-cache-path=~/$ANSWERS/answers.sqlite3")
    assert (pytester.path / "home" / "kept" / "answers.sqlite3").exists()
    assert not (pytester.path / "~").exists()


AGENT_PROJECT = """
models:
  default: [mine]
  define:
    mine: {connector: python, callable: "agent:answer", cache: true}
tests:
  - {id: a, input: "2+2", reference: "4"}
"""
AGENT = "def answer(prompt):\n    with open({log!r}, 'a') as log:\n        log.write('called\\n')\n    return '4'\n"


def test_a_cache_that_cannot_be_written_keeps_the_answer_and_one_that_is_read_only_replays(
    pytester: pytest.Pytester,
) -> None:
    """A read-only project: the call was made (and paid for), then the case failed with
    "internal error in the arena engine: PermissionError". And a cache shared read-only
    could not even be replayed: "attempt to write a readonly database"."""
    import sys

    root = pytester.path / "repo"
    (root / "bench").mkdir(parents=True)
    (root / "bench" / "arena.yaml").write_text(AGENT_PROJECT)
    calls = pytester.path / "calls.log"  # outside the read-only folder
    (root / "bench" / "agent.py").write_text(AGENT.format(log=str(calls)))
    (root / "pytest.ini").write_text("[pytest]\n")
    pytest_cmd = [*denied_writes(), sys.executable, "-m", "pytest", "-p", "no:cacheprovider"]
    try:
        (root / "bench").chmod(0o555)
        root.chmod(0o555)
        result = pytester.run(*pytest_cmd, str(root / "bench"))
        assert result.ret == 0, result.stdout.str()
        result.stdout.fnmatch_lines(
            [
                "arena: 1 answer not cached: the response cache's folder *.arena-cache cannot"
                " be written (Permission denied); give the cache a place that can be with"
                " --arena-cache-path PATH*"
            ]
        )
        root.chmod(0o755)
        assert pytester.run(*pytest_cmd, str(root / "bench")).ret == 0  # fills the cache
        cache = root / ".arena-cache"
        for path in (cache / "responses.sqlite3", cache):
            path.chmod(0o555)
        root.chmod(0o555)
        replayed = pytester.run(*pytest_cmd, str(root / "bench"), "--arena-cache", "replay")
        assert replayed.ret == 0, replayed.stdout.str()
        assert calls.read_text().count("called") == 2  # the replay made none
    finally:
        for path in root.rglob("*"):
            path.chmod(0o755)
        root.chmod(0o755)


@pytest.mark.parametrize("workers", [0, 2])
def test_answers_bought_again_though_the_cache_holds_their_messages_are_said(
    project: FakeLLMServer,
    pytester: pytest.Pytester,
    make_project: MakeProject,
    workers: int,
) -> None:
    """After an upgrade changed what a call's key holds (or a setting changed), every
    cached answer was bought again without a word."""
    run(pytester)
    make_project("quiz", quiz(project.base_url, temperature=0.5))
    spread = [*XDIST, "-n", str(workers)] if workers else []
    again, _ = run(pytester, *spread)
    again.stdout.fnmatch_lines(
        [
            "arena: 2 answers bought though the cache holds answers to the same messages for"
            " the model; the nearest cached call differs in params.temperature (0.5 here, 0.0"
            " cached): a setting changed, or an upgrade changed what a call's cache key holds"
        ]
    )
    quiet, _ = run(pytester, *spread)  # answered from the cache now: nothing to say
    assert "bought though" not in quiet.stdout.str()


WRITE_AND_DIE = """
import os, sys
from pytest_arena.cache import ResponseCache
from pytest_arena.connectors.base import Response
cache = ResponseCache(sys.argv[1])
cache.put({"connector": "c", "model": "m", "messages": [{"role": "user", "content": "hi"}]},
          Response("kept in the log", tokens_in=1, tokens_out=1))
os._exit(0)  # killed: the answer is in the write-ahead log, not yet in the file
"""
READ = """
import sys
from pytest_arena.cache import ResponseCache
hit = ResponseCache(sys.argv[1], "replay").get(
    {"connector": "c", "model": "m", "messages": [{"role": "user", "content": "hi"}]})
print(hit.text)
"""


@pytest.mark.parametrize("killed", [True, False])
def test_a_read_only_cache_replays_what_a_killed_run_left_in_its_log(
    pytester: pytest.Pytester, killed: bool
) -> None:
    """Opened as immutable, a read-only cache ignored its write-ahead log: a killed run's
    answers read as "the cache is empty"."""
    import sys

    folder = pytester.path / ".arena-cache"
    cache = folder / "responses.sqlite3"
    writer = WRITE_AND_DIE if killed else WRITE_AND_DIE.replace("os._exit(0)", "cache.close()")
    assert pytester.run(sys.executable, "-c", writer, str(cache)).ret == 0
    assert (folder / "responses.sqlite3-wal").exists() == killed
    try:
        for path in [*folder.iterdir(), folder]:
            path.chmod(0o555)
        read = pytester.run(*denied_writes(), sys.executable, "-c", READ, str(cache))
    finally:
        for path in [folder, *folder.iterdir()]:
            path.chmod(0o755)
    assert read.ret == 0, read.stderr.str()
    assert read.stdout.lines == ["kept in the log"]


def test_more_samples_of_a_cached_call_are_no_near_miss(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    """A fresh cache and a case drawing its samples one at a time: "3 answers bought though
    the cache holds answers to the same messages … differs in sample (1 here, 0 cached)"."""
    make_project(
        "p",
        """
        models:
          default: [mine]
          define:
            mine: {connector: python, callable: "agent:answer", cache: true}
        repeat: {min: 1, max: 5}
        min_pass_rate: 0.5
        tests:
          - {id: a, input: "Paris", reference: "Paris", eval_type: contains}
        """,
        files={"agent.py": "def answer(prompt):\n    return prompt\n"},
    )
    result = pytester.runpytest("-p", "no:cacheprovider", "--arena-repeat", "3")
    assert result.ret == 0
    again = pytester.runpytest("-p", "no:cacheprovider", "--arena-repeat", "5")
    assert again.ret == 0
    assert "bought though" not in result.stdout.str() + again.stdout.str()


def test_cached_answers_of_models_without_a_price_are_no_zero_saving(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    """A rerun from the cache said "($0.00 not spent again)" for answers of a model without
    a price, whose first run said "an unknown amount"."""
    make_project(
        "c",
        """
        models:
          default: [mine, paid]
          define:
            mine: {connector: python, callable: "agent:answer", cache: true}
            paid: {connector: python, callable: "agent:priced", cache: true}
        tests:
          - {id: q1, input: "Capital of France?", reference: Paris}
        """,
        files={
            "agent.py": "def answer(prompt):\n    return 'Paris'\n\n\n"
            "def priced(prompt):\n    return {'text': 'Paris', 'cost': 0.01}\n"
        },
    )
    pytester.runpytest("-p", "no:cacheprovider")
    again = pytester.runpytest("-p", "no:cacheprovider")
    again.stdout.fnmatch_lines(
        [
            "arena: 2 answers graded, 2 from the response cache ($0.01 not spent again, and an"
            " unknown amount on 1 of them without a price); $0.00 spent on models and judges"
        ]
    )


class CutEmojiServer(FakeLLMServer):
    """Answers every call with text ending in half an emoji: valid JSON, "Here: \\ud83d"."""

    async def _answer(
        self,
        request: web.Request,
        prompt: str,
        last_user: str,
        answer: Any,
        error: Any,
        seen: int,
        turns: int = 0,
    ) -> web.StreamResponse:
        return web.json_response(answer("Here: \ud83d", 3, 2))


def test_an_answer_holding_a_lone_surrogate_is_graded_and_replayed_exactly(
    pytester: pytest.Pytester, make_project: MakeProject, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The cache could not store it (SQLite holds UTF-8): the paid answer was lost, its case
    failed with "internal error in the arena engine: UnicodeEncodeError"."""
    monkeypatch.setenv("ARENA_CACHE_KEY", SECRET)
    with CutEmojiServer() as server:
        make_project(
            "p",
            f"""
            models:
              default: [surr]
              define:
                surr: {{connector: openai, base_url: "{server.base_url}", api_key_env: ARENA_CACHE_KEY, model: m, max_retries: 0}}
            tests:
              - {{id: a, input: "Show me an emoji.", reference: "Here", eval_type: contains}}
            """,
        )
        first, asked = run(pytester)
        again, replayed = run(pytester, "--arena-cache", "replay")
    first.assert_outcomes(passed=1)
    again.assert_outcomes(passed=1)
    assert server.total == 1
    assert (asked["a"]["cached"], replayed["a"]["cached"]) == (False, True)
    assert asked["a"]["output"] == replayed["a"]["output"] == "Here: \ud83d"


@pytest.mark.parametrize(
    ("change", "said"),
    [
        ("meta = 'not json'", "its meta is not a JSON object"),
        ("text = x'ff00'", "its text is bytes that are not UTF-8"),
        # the run said "tokens -14999997" and "cost $-14.999997"
        ("tokens_in = -5000000, cost = -15", "its tokens_in is negative (-5000000)"),
    ],
)
def test_a_cached_row_changed_by_hand_fails_its_case_naming_the_cache_and_the_fix(
    pytester: pytest.Pytester, make_project: MakeProject, change: str, said: str
) -> None:
    """It failed as "internal error in the arena engine: JSONDecodeError" (the cache not
    named), or a bytes text reached the scorer and ended the run in INTERNALERROR."""
    make_project(
        "p",
        """
        models:
          default: [loc]
          define:
            loc: {connector: python, callable: "agent:answer", cache: true}
        tests:
          - {id: a, input: "2+2", reference: "4"}
        """,
        files={"agent.py": "def answer(prompt):\n    return '4'\n"},
    )
    run(pytester)[0].assert_outcomes(passed=1)
    cache = pytester.path / ".arena-cache" / "responses.sqlite3"
    conn = sqlite3.connect(cache)
    with conn:
        conn.execute(f"UPDATE responses SET {change}")
    conn.close()
    result, records = run(pytester)
    result.assert_outcomes(failed=1)
    reason = (
        f"model 'loc' call failed: the response cache {cache} cannot be read (a cached"
        f" response is not as arena wrote it: {said}); delete the file or run `arena cache"
        f" clear --path {cache}` to start a new cache"
    )
    assert (records["a"]["status"], records["a"]["reason"]) == ("error", reason)
    result.stdout.fnmatch_lines([reason])


def test_an_answer_whose_meta_the_cache_cannot_hold_is_graded_and_said_not_cached(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    """A cached model's answer with meta JSON cannot hold (a set) was lost: 'internal error in
    the arena engine: ValueError: response meta is not JSON data'."""
    make_project(
        "p",
        "models:\n  default: [ag]\n  define:\n"
        "    ag: {connector: python, callable: 'agent:answer', cache: true}\n"
        "tests:\n  - {id: a, input: x, reference: x}\n",
        files={
            "agent.py": "from pytest_arena.connectors import Response\n\n\n"
            "def answer(prompt):\n    return Response(text='x', meta={'when': {1, 2}})\n"
        },
    )
    result = pytester.runpytest("-p", "no:cacheprovider")
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(
        ["arena: 1 answer not cached: response meta is not JSON data, so it cannot be cached*"]
    )


def test_cases_that_send_the_same_call_make_it_once_and_replay_it_alike(
    fake_llm: FakeLLMServer,
    make_project: MakeProject,
    pytester: pytest.Pytester,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Two cases that sent the same messages made a call each, but the cache kept one of the
    answers: at temperature 1, a rerun graded the second case with the first's answer, and
    its verdict flipped with nothing changed."""
    monkeypatch.setenv("ARENA_CACHE_KEY", SECRET)
    same = "[[latency=300]] Name a colour."
    tests = f"  - {{id: a, input: '{same}', reference: x}}\n  - {{id: b, input: '{same}', reference: y}}\n"
    make_project("quiz", quiz(fake_llm.base_url, 1.0).split("tests:")[0] + "tests:\n" + tests)
    first, before = run(pytester)
    assert fake_llm.total == 1  # the same call, once
    first.stdout.fnmatch_lines(["arena: 2 answers graded, 1 from the response cache *"])
    assert before["a"]["output"] == before["b"]["output"]
    fake_llm.reset()
    _, after = run(pytester)
    assert fake_llm.total == 0
    assert [after[c]["output"] for c in "ab"] == [before[c]["output"] for c in "ab"]
