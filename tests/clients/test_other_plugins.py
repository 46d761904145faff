"""Arena items beside the plugins and marks a pytest user already runs: pytest-rerunfailures,
pytest-timeout, strict xfail and skip marks. Each keeps pytest's verdict, and the board, the
JSON report and the gates agree with it."""

from __future__ import annotations

import json
import time

import pytest

from tests.conftest import MakeProject
from tests.fake_llm_server import FakeLLMServer
from tests.projects import local_openai

GATED = """
models: [sim_perfect]
scorers: {default: SCORER}
gate:
  all: {accuracy: {min: 0.9}}
tests:
  - {id: a, input: "Capital of France?", reference: Paris}
  - {id: b, input: "2+2?", reference: "4"}
"""

FIRST_TRY_FAILS = """
from pathlib import Path

from pytest_arena.scorers import Scorer, ScoreResult


class Flip(Scorer):
    '''Fails the first time it grades a reference, passes after: a flaky grader.'''

    name = "flip"

    def score(self, output, reference, context):
        seen = context.project_root / f".seen_{reference}"
        if seen.exists():
            return ScoreResult(1.0, True, "right on the second try")
        seen.write_text("")
        return ScoreResult(0.0, False, "wrong on the first try")
"""


STRICT_XFAIL = """
import pytest


def pytest_collection_modifyitems(items):
    for item in items:
        item.add_marker(pytest.mark.xfail(reason="known bad", strict=True))
"""


def records(pytester: pytest.Pytester) -> dict[str, dict]:
    report = json.loads((pytester.path / "run.json").read_text())
    return {r["case"]: r for r in report["records"]}


def test_a_rerun_case_counts_by_its_last_try_as_pytest_does(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    """The board, the JSON and the gate kept the first, discarded try: 0% accuracy, a failed
    gate and exit 1 for a run pytest calls '2 passed, 2 rerun'."""
    make_project(
        "flip", GATED.replace("SCORER", "flip"), files={"scorers/flip.py": FIRST_TRY_FAILS}
    )
    result = pytester.runpytest(
        "-p", "pytest_rerunfailures", "--reruns", "1", "-p", "no:cacheprovider",
        "--arena-json", "run.json",
    )  # fmt: skip
    assert result.parseoutcomes() == {"passed": 2, "rerun": 2}
    assert result.ret == pytest.ExitCode.OK
    result.stdout.fnmatch_lines(["*1  sim_perfect  1.000 ± 0.329*", "gate held: *"])
    assert {case: r["status"] for case, r in records(pytester).items()} == {
        "a": "passed",
        "b": "passed",
    }


def test_a_rerun_asks_the_model_again_rather_than_replay_its_cached_answer(
    pytester: pytest.Pytester, make_project: MakeProject, fake_llm: FakeLLMServer
) -> None:
    """Each rerun regraded the first try's answer from the response cache (one request for
    '1 failed, 2 rerun'): for a model that answers differently each time, --reruns could
    never pass. The last try's answer is the one cached."""
    make_project("p", local_openai(fake_llm.base_url, reference="y"))
    rerun = ("-p", "pytest_rerunfailures", "--reruns", "2", "-p", "no:cacheprovider")
    result = pytester.runpytest(*rerun)
    assert result.parseoutcomes() == {"failed": 1, "rerun": 2}
    assert fake_llm.total == 3
    result.stdout.fnmatch_lines(["arena: 1 answer graded;*"])
    again = pytester.runpytest("-p", "no:cacheprovider")  # no rerun: the cache answers
    again.stdout.fnmatch_lines(["arena: 1 answer graded, 1 from the response cache*"])
    assert fake_llm.total == 3


def test_a_strict_xfail_that_passes_fails_the_run_with_pytests_message(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    """The gate held the failure as its own (exit 0) and the message became the scorer's
    'exact match'."""
    make_project("quiz", GATED.replace("SCORER", "exact_match"))
    pytester.makeconftest(STRICT_XFAIL)
    result = pytester.runpytest("-p", "no:cacheprovider", "--junitxml", "out.xml", "-rf")
    result.assert_outcomes(failed=2)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(  # (pytest before 9 gives the summary line no message)
        [
            "*_ quiz::a[[]sim_perfect] _*",
            "[[]XPASS(strict)] known bad",
            "the gates held, but 2 failure(s) outside any gate*",
            "FAILED projects/quiz/arena.yaml::a[[]sim_perfect]*",
        ]
    )
    assert 'message="[XPASS(strict)] known bad"' in (pytester.path / "out.xml").read_text()


SLOW_ON_B = """
import time

from pytest_arena.scorers import Scorer, ScoreResult


class Slow(Scorer):
    name = "slow"

    def score(self, output, reference, context):
        if reference == "4":
            time.sleep(4)
        return ScoreResult(1.0, True, "fine")
"""


def test_a_case_stopped_by_pytest_timeout_is_an_error_and_the_next_cases_run(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    """The scorer's thread stayed stuck in b, so c and d queued behind it and timed out too;
    and b, stopped before it was graded, was missing from the board."""
    cases = "".join(
        f"  - {{id: {c}, input: x, reference: '{r}'}}\n"
        for c, r in zip("abcd", "1468", strict=True)
    )
    make_project(
        "slow",
        "models: [sim_perfect]\nscorers: {default: slow}\ntests:\n" + cases,
        files={"scorers/slow.py": SLOW_ON_B},
    )
    started = time.monotonic()
    result = pytester.runpytest(
        "-p", "pytest_timeout", "-o", "timeout=1", "-p", "no:cacheprovider",
        "--arena-json", "run.json",
    )  # fmt: skip
    result.assert_outcomes(passed=3, failed=1)
    result.stdout.fnmatch_lines(
        ["FAILED projects/slow/arena.yaml::b[[]sim_perfect] - Failed: Time*"]
    )
    found = records(pytester)
    assert found["b"]["status"] == "error" and found["b"]["reason"].startswith("Failed: Timeout")
    assert [found[c]["status"] for c in "acd"] == ["passed"] * 3
    result.stdout.fnmatch_lines(["*sim_perfect*0.750*4*0*1*"])  # 4 cases, 0 failed, 1 error
    assert time.monotonic() - started < 30


def test_a_case_marked_to_be_skipped_makes_no_call(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    """The calls of every case started ahead of the run, skip marks or not: three calls
    paid for cases that never ran."""
    make_project(
        "priced",
        """
models:
  default: [pricey]
  define:
    pricey: {profile: sim_perfect, latency_ms: 10,
             price: {input_per_mtok: 1000000, output_per_mtok: 1000000}}
tests:
  - {id: a, input: "Capital of France?", reference: Paris}
  - {id: b, input: "2+2?", reference: "4"}
  - {id: c, input: "3+3?", reference: "6"}
  - {id: d, input: "4+4?", reference: "8"}
""",
    )
    pytester.makeconftest(
        """
        import pytest

        def pytest_collection_modifyitems(items):
            for item in items:
                if item.name.startswith("b["):
                    item.add_marker(pytest.mark.skip(reason="not today"))
                elif item.name.startswith("c["):
                    item.add_marker(pytest.mark.skipif(True, reason="not here"))
                elif item.name.startswith("d["):
                    item.add_marker(pytest.mark.xfail(run=False, reason="known"))
        """
    )
    result = pytester.runpytest("-p", "no:cacheprovider")
    result.assert_outcomes(passed=1, skipped=2, xfailed=1)
    result.stdout.fnmatch_lines(["arena: 1 answer graded; $11.00 spent on models and judges"])
    result.stdout.no_fnmatch_line("*no case was graded by*")


STOPPED = """
models: [sim_perfect, sim_echo]
gate:
  models:
    sim_perfect: {accuracy: {min: 0.9}}
tests:
  - {id: capital, input: "Capital of France?", reference: Paris}
  - {id: sum, input: "2+2?", reference: "4"}
"""


def test_a_run_stopped_by_x_with_reruns_keeps_pytests_status(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    """Each try's end was counted as an item's: the tries made up the items -x left out, so
    the run was "not stopped early" and the gate turned exit 1 into 0."""
    make_project("quiz", STOPPED)
    result = pytester.runpytest(
        "-x", "-p", "pytest_rerunfailures", "--reruns", "2", "-p", "no:cacheprovider",
        "--arena-json", "run.json",
    )  # fmt: skip
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    assert json.loads((pytester.path / "run.json").read_text())["stopped_early"] is True
    result.stdout.fnmatch_lines(["arena: the run stopped early*"])


FAILS_ON_ITS_OWN = """
import pytest


@pytest.hookimpl(wrapper=True)
def pytest_runtestloop(session):
    result = yield
    session.testsfailed += 1  # as pytest-cov's --cov-fail-under fails a run
    return result
"""


@pytest.mark.parametrize("cause", ["a plugin's own failure", "a collection error"])
def test_a_failure_no_case_reported_is_not_turned_green_by_a_gate(
    pytester: pytest.Pytester, make_project: MakeProject, cause: str
) -> None:
    """pytest-cov's `--cov-fail-under` and a Python file that failed to import (with
    --continue-on-collection-errors) failed the run; the gate that held made it exit 0."""
    make_project("quiz", GATED.replace("SCORER", "exact_match"))
    args = ["-p", "no:cacheprovider"]
    if cause == "a collection error":
        pytester.makepyfile(test_broken="import no_such_module_xyz\n")
        args.append("--continue-on-collection-errors")
    else:
        pytester.makeconftest(FAILS_ON_ITS_OWN)
    result = pytester.runpytest(*args)
    result.stdout.fnmatch_lines(["the gates held, but 1 failure(s) outside any gate*"])
    assert result.ret == pytest.ExitCode.TESTS_FAILED


PAID = """
models:
  default: [mine]
  define:
    mine: {connector: python, callable: "agent:answer"}
tests:
  - {id: a, input: "a", reference: ok}
  - {id: b, input: "b", reference: ok}
"""
LOGGED = (
    "def answer(prompt):\n"
    "    with open({log!r}, 'a') as log:\n"
    "        log.write(prompt + '\\n')\n"
    "    return 'ok'\n"
)


@pytest.mark.parametrize("option", ["--setup-plan", "--setup-only"])
@pytest.mark.parametrize("workers", [0, 2])
def test_setup_plan_and_setup_only_call_no_model(
    pytester: pytest.Pytester, make_project: MakeProject, option: str, workers: int
) -> None:
    """pytest's dry runs made every case's (paid) call ahead of a test they never run."""
    calls = pytester.path / "calls.log"
    make_project("paid", PAID, files={"agent.py": LOGGED.format(log=str(calls))})
    spread = ["-p", "xdist", "-n", str(workers)] if workers else []
    result = pytester.runpytest(option, "-p", "no:cacheprovider", *spread)
    assert result.ret == pytest.ExitCode.OK
    assert not calls.exists()


SLOW_FIRST_CALLS = """
import time
from pathlib import Path


def answer(prompt):
    log = Path({log!r})
    with log.open("a") as f:
        f.write("call\\n")
    if len(log.read_text().splitlines()) <= 3:
        time.sleep(4)
    return "ok"
"""


def test_a_rerun_of_a_repeated_case_stopped_by_a_timeout_draws_its_own_samples(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    """The rerun graded the stopped try's calls: samples [1, 2, 2], sample 0 lost."""
    calls = pytester.path / "calls.log"
    make_project(
        "rp",
        PAID.replace("tests:", "repeat: 3\ntests:").split("  - {id: b")[0],
        files={"agent.py": SLOW_FIRST_CALLS.format(log=str(calls))},
    )
    result = pytester.runpytest(
        "-p", "pytest_timeout", "-o", "timeout=1", "-p", "pytest_rerunfailures",
        "--reruns", "1", "-p", "no:cacheprovider", "--arena-json", "run.json",
    )  # fmt: skip
    assert result.parseoutcomes() == {"passed": 1, "rerun": 1}
    assert [s["sample"] for s in records(pytester)["a"]["samples"]] == [0, 1, 2]


TWO_FACED = """
from pytest_arena.scorers import Scorer


class TwoFaced(Scorer):
    name = "twofaced"
    calls = 0

    def score(self, output, reference, context):
        TwoFaced.calls += 1
        if TwoFaced.calls == 1:
            raise KeyError("first_try_problem")
        raise ValueError("second_try_problem")
"""


def test_a_rerun_shows_its_own_traceback(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    """The last try's error came with the first try's traceback."""
    make_project(
        "tb",
        "models: [sim_perfect]\nscorers: {default: twofaced}\ntests:\n  - {id: a, input: a}\n",
        files={"scorers/twofaced.py": TWO_FACED},
    )
    result = pytester.runpytest(
        "-p", "pytest_rerunfailures", "--reruns", "1", "-p", "no:cacheprovider"
    )
    result.stdout.fnmatch_lines(["*ValueError: second_try_problem*"])
    assert "first_try_problem" not in result.stdout.str()


MAYBE = """
from pytest_arena.scorers import Scorer, ScoreResult


class Maybe(Scorer):
    name = "maybe"

    def score(self, output, reference, context):
        if context.test_case.id == "vague":
            return ScoreResult(score=0.5, passed=None, reason="cannot tell")
        return ScoreResult(score=1.0, passed=True, reason="exact match")
"""


@pytest.mark.parametrize("style", ["full", "compact"])
def test_a_strict_xfail_that_passes_says_xpass_for_an_unscored_case_and_in_compact_lines(
    pytester: pytest.Pytester, make_project: MakeProject, style: str
) -> None:
    """An unscored case's XPASS(strict) showed as "unscored" (yet exit 1), with the
    scorer's "cannot tell" as its JUnit message; compact lines gave the scorer's "exact
    match" as the reason of a failure pytest made."""
    make_project(
        "quiz",
        "models: [sim_perfect]\nscorers: {default: maybe}\ntests:\n"
        "  - {id: capital, input: 'Capital of France?', reference: Paris}\n"
        "  - {id: vague, input: 'Say something', reference: something}\n",
        files={"scorers/maybe.py": MAYBE},
    )
    pytester.makeconftest(STRICT_XFAIL)
    result = pytester.runpytest(
        "-p", "no:cacheprovider", "--junitxml", "out.xml", f"--arena-failures={style}", "-rf"
    )
    result.assert_outcomes(failed=2)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    assert "exact match" not in result.stdout.str() and "cannot tell" not in result.stdout.str()
    result.stdout.fnmatch_lines(["FAILED projects/quiz/arena.yaml::vague[[]sim_perfect]*"])
    junit = (pytester.path / "out.xml").read_text()
    assert junit.count('message="[XPASS(strict)] known bad"') == 2


def test_a_case_stopped_by_pytest_timeout_has_its_properties_in_xunit1(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    """Under xunit1 the stopped case's testcase had only its <failure>, no properties."""
    import xml.etree.ElementTree as ET

    make_project(
        "slow",
        "models: [sim_perfect]\nscorers: {default: slow}\ntests:\n"
        "  - {id: a, input: x, reference: '1'}\n  - {id: b, input: x, reference: '4'}\n",
        files={"scorers/slow.py": SLOW_ON_B},
    )
    pytester.runpytest(
        "-p", "pytest_timeout", "-o", "timeout=1", "-p", "no:cacheprovider",
        "--junitxml", "out.xml", "-o", "junit_family=xunit1",
    )  # fmt: skip
    cases = {c.get("name"): c for c in ET.parse(pytester.path / "out.xml").iter("testcase")}
    said = {
        name: {p.get("name"): p.get("value") for p in case.iter("property")}
        for name, case in cases.items()
    }
    assert said["a[sim_perfect]"]["status"] == "passed"
    assert said["b[sim_perfect]"]["status"] == "error"
    assert said["b[sim_perfect]"]["case"] == "b"


def test_a_strict_xfail_on_a_flaky_case_that_passes_fails_with_xpass_outside_the_gate(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    """A flaky case that `flaky: pass` lets pass, marked xfail(strict): shown as FLAKY, its
    JUnit message the sampling's, and a gate that held turned the run green."""
    make_project(
        "p",
        """
        models:
          default: [coin]
          define:
            coin: {connector: python, callable: "agent:answer"}
        repeat: {min: 2, max: 3}
        min_pass_rate: 0.75
        flaky: pass
        gate:
          all: {accuracy: {min: 0.1}}
        tests:
          - {id: a, input: "one", reference: "ONE", eval_type: exact_match}
        """,
        files={
            "agent.py": "import itertools\n_n = itertools.count()\n\n\ndef answer(prompt):\n"
            "    return prompt.upper() if next(_n) % 2 == 0 else 'nope'\n"
        },
    )
    pytester.makeconftest(STRICT_XFAIL)
    result = pytester.runpytest("-p", "no:cacheprovider", "--junitxml", "out.xml", "-rf")
    result.assert_outcomes(failed=1)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(["the gates held, but 1 failure(s) outside any gate*"])
    assert 'message="[XPASS(strict)] known bad"' in (pytester.path / "out.xml").read_text()


FLIP_OR_NEVER = FIRST_TRY_FAILS.replace(
    "        seen = context",
    "        if reference == 'never':\n"
    "            return ScoreResult(0.0, False, 'never right')\n        seen = context",
)


def test_a_case_that_passed_on_a_rerun_keeps_fail_on_flaky_beside_a_gate_that_held(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    """pytest-rerunfailures' --fail-on-flaky gives exit 7 only to a run that was green before
    the gates decided: a gate that held a failed case turned exit 1 into 0, and the case that
    passed on its rerun went unsaid."""
    project = GATED.replace("SCORER", "flip").replace("min: 0.9", "min: 0.5")
    make_project(
        "flip",
        project.replace('reference: "4"', "reference: never"),
        files={"scorers/flip.py": FLIP_OR_NEVER},
    )
    reruns = ["-p", "pytest_rerunfailures", "--reruns", "1", "-p", "no:cacheprovider"]
    result = pytester.runpytest(*reruns, "--fail-on-flaky")
    assert result.parseoutcomes() == {"failed": 1, "passed": 1, "rerun": 2}
    assert result.ret == 7
    result.stdout.fnmatch_lines(
        [
            "gate held: *",
            "exit status 7 (not 1): the gates held, and 1 test(s) passed only on a rerun"
            " (--fail-on-flaky)",
        ]
    )
    for path in pytester.path.rglob(".seen_*"):
        path.unlink()
    assert pytester.runpytest(*reruns).ret == pytest.ExitCode.OK  # without it: the gate's


@pytest.mark.parametrize("first", ["arena", "rerunfailures"])
def test_a_gate_that_failed_beside_a_case_that_passed_on_a_rerun_fails_the_run(
    pytester: pytest.Pytester,
    make_project: MakeProject,
    monkeypatch: pytest.MonkeyPatch,
    first: str,
) -> None:
    """--fail-on-flaky's exit 7 says a green run had a test that passed only on a rerun;
    a gate that failed makes the run red, so its exit is 1, as without reruns (whichever
    plugin pytest loads first)."""
    gated = GATED.replace("SCORER", "flip").replace("accuracy: {min: 0.9}", "cost: {max: 0}")
    project = gated.replace("[sim_perfect]", "[sim_small]")  # priced; flip grades alone
    make_project("flip", project, files={"scorers/flip.py": FIRST_TRY_FAILS})
    plugins = ["pytest_arena.plugin", "pytest_rerunfailures"]
    if first == "rerunfailures":
        plugins.reverse()
    monkeypatch.setenv("PYTEST_PLUGINS", ",".join(plugins))
    result = pytester.runpytest("--reruns", "1", "-p", "no:cacheprovider", "--fail-on-flaky")
    assert result.parseoutcomes() == {"passed": 2, "rerun": 2}
    result.stdout.fnmatch_lines(["gate failed: 1 of 1 checks outside their limits"])
    assert result.ret == pytest.ExitCode.TESTS_FAILED
