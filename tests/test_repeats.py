"""Repeats: one item per case and model holds N samples; its verdict comes of their pass
rate against min_pass_rate, sequentially when asked, and FLAKY when that stays unclear."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from pytest_arena.evaluation.samples import Sampling, combine, interval_verdict, settle
from pytest_arena.record import ERROR, FAILED, FLAKY, PASSED, UNSCORED, Record
from pytest_arena.reports.json_report import schema
from pytest_arena.reports.statistics import wilson_interval
from tests.conftest import XDIST, MakeProject
from tests.reports import cases, output

# a Python agent that answers each case's samples by a fixed pattern: 1 right, 0 wrong
AGENT = """
PATTERNS = {
    "steady": "1",
    "never": "0",
    "coin": "10",
    "mostly": "1111011111",
    "early": "1011111111",
}


def run(prompt, request):
    pattern = PATTERNS[request.case.id]
    return "yes" if pattern[request.sample % len(pattern)] == "1" else "no"
"""


def patterned(extra: str = "", cases: tuple[str, ...] = ("steady", "never", "coin")) -> str:
    own = {"early": ", min_pass_rate: 0.5"}
    tests = "".join(
        f"  - {{id: {c}, input: '{c}?', reference: 'yes'{own.get(c, '')}}}\n" for c in cases
    )
    return (
        "models:\n  default: [agent]\n  define:\n    agent: {connector: python, callable:"
        ' "agent:run"}\n' + extra + "tests:\n" + tests
    )


def report(pytester: pytest.Pytester, name: str = "report.json") -> dict[str, Any]:
    data: dict[str, Any] = json.loads((pytester.path / name).read_text())
    jsonschema.validate(data, schema())
    return data


def records(data: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {f"{r['case']}[{r['model']}]": r for r in data["records"]}


# ---------------------------------------------------------------- the verdict, as functions


def sample(index: int, status: str, score: float | None = None, **more: Any) -> Record:
    if score is None:
        score = 1.0 if status == PASSED else 0.0
    passed = {PASSED: True, FAILED: False}.get(status)
    return Record("p", "c", "m", status, score, passed, f"said {index}", sample=index, **more)


def drawn(pattern: str) -> list[Record]:
    return [sample(i, PASSED if ch == "1" else FAILED) for i, ch in enumerate(pattern)]


def test_one_sample_decides_as_a_case_always_did() -> None:
    one = Sampling()
    assert settle(drawn("1"), one) == PASSED and settle(drawn("0"), one) == FAILED
    alone = sample(0, PASSED)
    assert combine([alone], PASSED, one) is alone  # the record is the sample's, unchanged
    assert alone.samples == [] and alone.sampling == {}


def test_a_fixed_number_of_samples_is_judged_by_its_pass_rate() -> None:
    five = Sampling(5, 5, 0.8)
    assert settle(drawn("1111"), five) is None  # not all drawn yet
    assert settle(drawn("11110"), five) == PASSED  # 80% reaches 80%
    assert settle(drawn("11100"), five) == FAILED
    assert settle(drawn("11110"), Sampling(5, 5)) == FAILED  # default 1.0: every sample


def test_sequential_sampling_stops_once_the_interval_clears_the_threshold() -> None:
    seq = Sampling(3, 30, 0.7)
    assert settle(drawn("000"), seq) == FAILED  # Wilson high of 0 of 3 is 0.56 < 0.7
    assert settle(drawn("111"), seq) is None  # 3 of 3: low 0.44, undecided
    assert wilson_interval(9, 9).low >= 0.7 > wilson_interval(8, 8).low  # type: ignore[operator]
    assert settle(drawn("1" * 8), seq) is None
    assert settle(drawn("1" * 9), seq) == PASSED
    assert settle(drawn("11"), seq) is None  # never before min, whatever the interval


def test_undecided_at_max_is_flaky_only_when_the_samples_disagree() -> None:
    seq = Sampling(3, 10, 0.8)
    assert settle(drawn("1110111101"), seq) == FLAKY  # 8 of 10: [0.49, 0.94] holds 0.8
    # ten passes of ten cannot show 80% at 95% (low 0.72), yet nothing there is flaky
    assert settle(drawn("1" * 10), seq) == PASSED
    assert settle(drawn("1" * 9), seq) is None


def test_every_sample_must_pass_by_default_and_one_failure_decides() -> None:
    seq = Sampling(3, 10)
    assert settle(drawn("110"), seq) == FAILED
    assert settle(drawn("1" * 9), seq) is None
    assert settle(drawn("1" * 10), seq) == PASSED
    assert interval_verdict(5, 5, 1.0) is None and interval_verdict(4, 5, 1.0) is False


def test_an_error_ends_the_case_and_unscored_samples_are_not_counted() -> None:
    seq = Sampling(3, 10, 0.5)
    assert settle([sample(0, PASSED), sample(1, ERROR)], seq) == ERROR
    assert settle([sample(i, UNSCORED) for i in range(10)], seq) == UNSCORED
    fixed = Sampling(3, 3, 0.5)
    assert settle([sample(0, PASSED), sample(1, UNSCORED), sample(2, FAILED)], fixed) == PASSED


def test_the_record_of_a_repeated_case_keeps_every_sample() -> None:
    parts = [
        sample(0, PASSED, 1.0, tokens_in=10, tokens_out=2, cost=0.5, latency_ms=10.0),
        sample(1, FAILED, 0.25, tokens_in=10, tokens_out=3, cost=0.25, latency_ms=30.0),
        sample(2, PASSED, 1.0, tokens_in=10, tokens_out=1, cost=0.25, cached=True),
    ]
    parts[1].metrics = {"recall": 0.5}
    parts[2].metrics = {"recall": 1.0}
    record = combine(parts, FAILED, Sampling(3, 3))
    assert (record.status, record.passed, record.score) == (FAILED, False, 0.75)
    assert record.reason == "passed 2 of 3; needs 100% (sample 1: said 1)"
    assert (record.tokens_in, record.tokens_out, record.cost) == (30, 6, 1.0)
    assert record.latency_ms == 20.0 and record.cached is False
    assert record.metrics == {"recall": 0.75}
    assert [s["sample"] for s in record.samples] == [0, 1, 2]
    assert [s["reason"] for s in record.samples] == ["said 0", "said 1", "said 2"]
    assert record.samples[1]["cost"] == 0.25 and record.samples[2]["cached"] is True
    low, high = record.sampling["interval"]
    assert (low, high) == pytest.approx(
        (wilson_interval(2, 3).low, wilson_interval(2, 3).high)  # type: ignore[arg-type]
    )
    assert record.sampling["shown"] == 1  # the failing sample's output and reason
    assert Record.from_dict(json.loads(json.dumps(record.to_dict()))) == record


# ---------------------------------------------------------------- whole runs


def test_repeats_keep_one_item_per_case_and_model_with_the_same_node_ids(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    make_project("pat", patterned(), files={"agent.py": AGENT})
    once = pytester.runpytest("--collect-only", "-q")
    thrice = pytester.runpytest("--collect-only", "-q", "--arena-repeat", "3")
    ids = [line for line in once.outlines if "::" in line]
    assert ids == [line for line in thrice.outlines if "::" in line]
    assert ids == [f"projects/pat/arena.yaml::{c}[agent]" for c in ("steady", "never", "coin")]
    result = pytester.runpytest("--arena-repeat", "3", "-k", "coin", "-v", "--arena-json=r.json")
    result.assert_outcomes(failed=1, deselected=2)
    result.stdout.fnmatch_lines(
        ["FAILED projects/pat/arena.yaml::coin[[]agent] - passed 2 of 3; needs 100%*"]
    )
    (coin,) = report(pytester, "r.json")["records"]
    assert [s["output"] for s in coin["samples"]] == ["yes", "no", "yes"]
    assert [s["status"] for s in coin["samples"]] == [PASSED, FAILED, PASSED]
    assert coin["score"] == pytest.approx(2 / 3) and coin["sampling"]["drawn"] == 3
    again = pytester.runpytest("--arena-repeat", "3", "--lf", "-q")  # --lf finds it again
    again.assert_outcomes(failed=1)
    again.stdout.fnmatch_lines(["FAILED projects/pat/arena.yaml::coin[[]agent] - *"])


FLAKY_CASES = ("steady", "never", "coin", "mostly", "early")
SEQUENTIAL = "repeat: {min: 3, max: 10}\nmin_pass_rate: 0.8\n"


def test_flaky_is_its_own_outcome_in_the_terminal_junit_json_and_job_summary(
    pytester: pytest.Pytester, make_project: MakeProject, monkeypatch: pytest.MonkeyPatch
) -> None:
    make_project("pat", patterned(SEQUENTIAL, FLAKY_CASES), files={"agent.py": AGENT})
    summary = pytester.path / "summary.md"
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    result = pytester.runpytest("-v", "--junitxml=out.xml", "--arena-json=r.json")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    lines = summary.read_text().splitlines()
    flaky = lines.index("**flaky cases (no clear verdict):**")
    assert lines[flaky + 2 :][:2] == ["- `mostly[agent]`: passed 9 of 10; needs 80%", ""]
    result.stdout.fnmatch_lines(
        [
            "projects/pat/arena.yaml::steady[[]agent] PASSED *",
            "projects/pat/arena.yaml::never[[]agent] FAILED *",
            "projects/pat/arena.yaml::coin[[]agent] FAILED *",
            "projects/pat/arena.yaml::mostly[[]agent] FLAKY *",
            "projects/pat/arena.yaml::early[[]agent] PASSED (7/8) *",  # clear: its rate shown
            "passed 4 of 8; needs 80% (sample 1: expected 'yes', got 'no')",
            "*- arena: flaky cases (no clear verdict) -*",
            "FLAKY pat::mostly[[]agent] - passed 9 of 10; needs 80%",
            "*they fail the run unless arena.yaml says 'flaky: pass'",
            "*= 2 failed, 2 passed, 1 flaky in *",
        ]
    )
    found = records(report(pytester, "r.json"))
    assert {k: (r["status"], r["sampling"]["drawn"]) for k, r in found.items()} == {
        "steady[agent]": (PASSED, 10),  # 10 of 10 cannot show 80% at 95%, nor is it flaky
        "never[agent]": (FAILED, 3),  # 0 of 3: clearly below 80%
        "coin[agent]": (FAILED, 8),  # 4 of 8: the interval's top is 0.785
        "mostly[agent]": (FLAKY, 10),  # 9 of 10: [0.60, 0.98] holds 0.8
        "early[agent]": (PASSED, 8),  # 7 of 8 against 0.5: the interval's bottom is 0.53
    }
    assert found["mostly[agent]"]["reason"].startswith(
        "passed 9 of 10; needs 80%; still undecided after 10 samples (FLAKY) (sample 4: "
    )
    xml = cases(pytester.path / "out.xml")
    mostly = output(xml["mostly[agent]"])
    assert (mostly["status"], mostly["samples"], mostly["pass_rate"]) == ("flaky", "10", "0.9")
    failure = xml["mostly[agent]"].find("failure")
    assert failure is not None
    assert failure.attrib["message"].startswith("passed 9 of 10; needs 80%")
    board = report(pytester, "r.json")["leaderboards"][0]
    assert board["rows"][0]["flaky"] == 1 and board["k"] == 3


def test_flaky_pass_lets_a_flaky_case_pass_the_run(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    settings = SEQUENTIAL + "flaky: pass\n"
    make_project("pat", patterned(settings, ("steady", "mostly")), files={"agent.py": AGENT})
    result = pytester.runpytest()
    assert result.ret == pytest.ExitCode.OK
    result.stdout.fnmatch_lines(
        [
            "FLAKY pat::mostly[[]agent] - passed 9 of 10; needs 80% (flaky: pass)",
            "*1 passed, 1 flaky*",
        ]
    )


def test_per_case_and_per_dataset_settings_win_over_the_project(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    make_project(
        "pat",
        """
        models:
          default: [agent]
          define:
            agent: {connector: python, callable: "agent:run"}
        repeat: 4
        min_pass_rate: 0.5
        tests:
          - {id: coin, input: "?", reference: "yes"}
          - {id: mostly, input: "?", reference: "yes", repeat: 5, min_pass_rate: 0.9}
        datasets:
          - {path: more.jsonl, repeat: 2, min_pass_rate: 1}
        """,
        files={
            "agent.py": AGENT,
            "more.jsonl": '{"id": "steady", "input": "?", "reference": "yes"}\n',
        },
    )
    pytester.runpytest("--arena-json=r.json")
    found = records(report(pytester, "r.json"))
    assert {k: (r["status"], r["sampling"]["drawn"]) for k, r in found.items()} == {
        "coin[agent]": (PASSED, 4),  # 2 of 4 reaches 50%
        "mostly[agent]": (FAILED, 5),  # 4 of 5 falls short of 90%
        "steady[agent]": (PASSED, 2),
    }
    pytester.runpytest("--arena-json=r2.json", "--arena-repeat", "1")  # the option wins
    assert all(not r["samples"] for r in report(pytester, "r2.json")["records"])


@pytest.mark.parametrize(
    ("setting", "line", "says"),
    [
        ("repeat: 0", 5, "repeat: 0 samples draws none of a case; give the samples per case"),
        ("repeat: {min: 5, max: 3}", 5, "repeat: min 5 is above max 3"),
        ("repeat: {min: 3}", 5, "it needs both 'min' and 'max'"),
        ("min_pass_rate: 1.5", 5, "min_pass_rate: 1.5 is the share of a case's samples"),
        ("flaky: maybe", 5, "Input should be 'fail' or 'pass'"),
    ],
)
def test_bad_sampling_settings_are_load_errors_naming_file_line_and_fix(
    pytester: pytest.Pytester, make_project: MakeProject, setting: str, line: int, says: str
) -> None:
    make_project("pat", patterned(setting + "\n"), files={"agent.py": AGENT})
    result = pytester.runpytest()
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines([f"*projects/pat/arena.yaml:{line}*{says}*"])


def test_a_bad_case_setting_is_an_error_of_that_case_alone(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    make_project(
        "pat",
        """
        models:
          default: [agent]
          define:
            agent: {connector: python, callable: "agent:run"}
        tests:
          - {id: steady, input: "?", reference: "yes"}
          - {id: coin, input: "?", reference: "yes", min_pass_rate: 0}
        """,
        files={"agent.py": AGENT},
    )
    result = pytester.runpytest()
    result.assert_outcomes(passed=1, errors=1)
    result.stdout.fnmatch_lines(["*arena.yaml:7*min_pass_rate: 0 is the share*such as 0.8*"])


@pytest.mark.parametrize("value", ["0", "3:2", "x", "2:", "1001"])
def test_a_bad_repeat_option_is_a_usage_error(pytester: pytest.Pytester, value: str) -> None:
    result = pytester.runpytest("--arena-repeat", value)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([f"*--arena-repeat {value}: give the samples per case*"])


def test_the_option_and_the_schema_agree_on_the_most_samples() -> None:
    from pytest_arena.plugin.options import MAX_REPEAT as OPTION
    from pytest_arena.spec.schema import MAX_REPEAT

    assert OPTION == MAX_REPEAT


def test_sim_samples_are_fresh_draws_that_repeat_exactly(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    make_project(
        "sims",
        "models: [sim_small]\nrepeat: 8\ntests:\n"
        + "".join(f"  - {{id: q{i}, input: 'q{i}', reference: 'answer {i}'}}\n" for i in range(6)),
    )
    pytester.runpytest("--arena-json=a.json")
    pytester.runpytest("--arena-json=b.json")
    first, second = report(pytester, "a.json"), report(pytester, "b.json")
    assert first["records"] == second["records"]  # deterministic
    outputs = [s["output"] for r in first["records"] for s in r["samples"]]
    assert len(outputs) == 48
    per_case = [{s["status"] for s in r["samples"]} for r in first["records"]]
    assert any(len(statuses) == 2 for statuses in per_case)  # samples of a case disagree


def test_two_workers_give_the_same_records_and_flaky_counts(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    make_project("pat", patterned(SEQUENTIAL, FLAKY_CASES), files={"agent.py": AGENT})
    one = pytester.runpytest("--arena-json=one.json")
    two = pytester.runpytest(*XDIST, "-n", "2", "--arena-json=two.json")
    assert one.parseoutcomes() == two.parseoutcomes() == {"failed": 2, "passed": 2, "flaky": 1}
    two.stdout.fnmatch_lines(["FLAKY pat::mostly[[]agent] - passed 9 of 10; needs 80%"])

    def comparable(name: str) -> list[dict[str, Any]]:
        found = report(pytester, name)["records"]
        for r in found:
            for part in (r, *r["samples"]):
                part["latency_ms"] = None
                # each run's own: a python agent's workspace folder, the case's duration
                part.get("detail", {}).pop("workspace", None)
            r["response"]["duration_ms"] = None
            r["response"].pop("workspace", None)
        return found

    assert comparable("one.json") == comparable("two.json")


def test_each_sample_is_cached_and_replayed_on_its_own(
    pytester: pytest.Pytester,
    make_project: MakeProject,
    fake_llm: Any,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("ARENA_REPEAT_KEY", "sk-repeat")
    make_project(
        "remote",
        f"""
        models:
          default: [remote]
          define:
            remote:
              connector: openai
              base_url: {fake_llm.base_url}
              api_key_env: ARENA_REPEAT_KEY
              model: served
              max_retries: 0
        repeat: 3
        tests:
          - {{id: france, input: "[[answer=Paris]] Capital of France?", reference: Paris}}
        """,
    )
    first = pytester.runpytest("-p", "no:cacheprovider", "--arena-json=a.json")
    first.assert_outcomes(passed=1)
    assert fake_llm.count("France") == 3  # one call per sample
    fake_llm.reset()
    again = pytester.runpytest(
        "-p", "no:cacheprovider", "--arena-json=b.json", "--arena-cache", "replay"
    )
    again.assert_outcomes(passed=1)
    assert fake_llm.count("France") == 0
    (record,) = report(pytester, "b.json")["records"]
    assert [s["cached"] for s in record["samples"]] == [True, True, True]
    assert record["cached"] is True
    again.stdout.fnmatch_lines(["arena: 3 answers graded, 3 from the response cache*"])
    more = pytester.runpytest(
        "-p", "no:cacheprovider", "--arena-repeat", "4", "--arena-cache", "replay"
    )
    more.assert_outcomes(failed=1)  # sample 3 was never asked: replay has no answer for it
    more.stdout.fnmatch_lines(
        ["*no cached response*the nearest cached entry differs in sample (3 here*"]
    )


def test_a_schema_version_2_report_still_opens_a_version_1_record_shape() -> None:
    # the HTML report reads older reports: records without samples or sampling
    from pytest_arena.reports.html import render

    page = render({"records": [{"project": "p", "case": "c", "model": "m"}], "leaderboards": []})
    assert "<html" in page


def paths(root: Path) -> list[str]:
    return sorted(p.name for p in root.iterdir())


def test_pass_at_k_is_over_the_repeated_cases_only(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    """A case drawn once that erred (an unknown scorer) was counted as a repeated case that
    never passes: pass@3 said 0.5 for a run whose one repeated case passed 3 of 3. A repeated
    case whose samples erred still counts as never passing."""
    agent = (
        "def run(prompt, request):\n"
        "    if request.case.id == 'crash':\n"
        "        raise RuntimeError('the agent fell over')\n"
        "    return 'yes'\n"
    )
    tests = (
        "tests:\n"
        "  - {id: steady, input: 'a?', reference: 'yes', repeat: 3}\n"
        "  - {id: once_ok, input: 'b?', reference: 'yes'}\n"
        "  - {id: once_err, input: 'c?', reference: 'yes', eval_type: no_such_scorer}\n"
    )
    models = (
        "models:\n  default: [agent]\n  define:\n    agent: {connector: python, callable:"
        ' "agent:run"}\n'
    )
    make_project("pk", models + tests, files={"agent.py": agent})
    pytester.runpytest("--arena-json=r.json")
    (row,) = report(pytester, "r.json")["leaderboards"][0]["rows"]
    assert (row["pass_at_k"], row["pass_hat_k"]) == (1.0, 1.0)
    crash = "  - {id: crash, input: 'd?', reference: 'yes', repeat: 3}\n"
    make_project("pk", models + tests + crash, files={"agent.py": agent})
    pytester.runpytest("--arena-json=r.json")
    data = report(pytester, "r.json")
    assert records(data)["crash[agent]"]["status"] == ERROR
    (row,) = data["leaderboards"][0]["rows"]
    assert (row["pass_at_k"], row["pass_hat_k"]) == (0.5, 0.5)


def test_the_spend_line_counts_the_answers_graded_not_the_records(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    """3 samples and 1 answer were said as 5 answers graded: a case whose scorer is unknown
    made no call and graded nothing."""
    agent = "def run(prompt, request):\n    return 'yes'\n"
    make_project(
        "count",
        "models:\n  default: [agent]\n  define:\n    agent: {connector: python, callable:"
        ' "agent:run"}\n'
        "tests:\n"
        "  - {id: steady, input: 'a?', reference: 'yes', repeat: 3}\n"
        "  - {id: once, input: 'b?', reference: 'yes'}\n"
        "  - {id: broken, input: 'c?', reference: 'yes', eval_type: no_such_scorer}\n",
        files={"agent.py": agent},
    )
    result = pytester.runpytest()
    result.stdout.fnmatch_lines(["arena: 4 answers graded; $0.00 spent on models and judges*"])


def test_a_repeated_case_that_ended_in_an_error_has_no_score_as_the_board_counts_it(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    """Its record said `score: 1.0`, the mean of its graded samples, while the board counted
    it 0 (accuracy 0.25 of 0.5 and 0): a case drawn once that errs has no score, and the
    repeated one now has none either; its samples keep theirs."""
    agent = (
        "def run(prompt, request):\n"
        "    said = prompt[request.sample % len(prompt)]\n"
        "    if said == 'x':\n"
        "        raise RuntimeError('the agent fell over')\n"
        "    return 'yes' if said == '1' else 'no'\n"
    )
    tests = (
        "repeat: 4\nmin_pass_rate: 0.5\ntests:\n"
        "  - {id: half, input: '1100', reference: 'yes'}\n"
        "  - {id: crash, input: '11x1', reference: 'yes'}\n"
        "  - {id: once, input: 'x', reference: 'yes', repeat: 1}\n"
    )
    make_project(
        "err",
        "models:\n  default: [agent]\n  define:\n    agent: {connector: python, callable:"
        ' "agent:run"}\n' + tests,
        files={"agent.py": agent},
    )
    pytester.runpytest("-p", "no:cacheprovider", "--arena-json=r.json")
    data = report(pytester, "r.json")
    found = records(data)
    crash, once = found["crash[agent]"], found["once[agent]"]
    assert (crash["status"], crash["score"]) == (ERROR, None)
    assert (once["status"], once["score"]) == (ERROR, None)  # as a case drawn once
    assert [s["score"] for s in crash["samples"]] == [1.0, 1.0, None]
    assert (crash["sampling"]["graded"], crash["sampling"]["passed"]) == (2, 2)
    (row,) = data["leaderboards"][0]["rows"]
    scores = [r["score"] or 0.0 for r in data["records"]]  # an error's counts 0
    assert row["accuracy"] == pytest.approx(sum(scores) / len(scores)) == pytest.approx(0.5 / 3)


@pytest.mark.parametrize("workers", [[], [*XDIST, "-n", "2"]], ids=["-n0", "-n2"])
def test_a_repeated_case_that_ended_in_an_error_counts_no_metric_as_a_case_drawn_once(
    pytester: pytest.Pytester, make_project: MakeProject, workers: list[str]
) -> None:
    """Its record kept the mean of its graded samples' metrics, which the board counted
    (quality 0.600 of the failed case's 0.2 and the errored one's 1.0), while a case drawn
    once that errs has none; the tokens of the answers both got still count."""
    agent = (
        "def run(prompt, request):\n"
        "    said = prompt[request.sample % len(prompt)]\n"
        "    text = {'1': 'yes', '0': 'no', 'x': 'boom'}[said]\n"
        "    return {'text': text, 'tokens_in': 10, 'tokens_out': 5}\n"
    )
    scorer = (
        "from pytest_arena.scorers import Scorer, ScoreResult\n\n\n"
        "class Quality(Scorer):\n"
        "    name = 'quality'\n\n"
        "    def score(self, output, reference, context):\n"
        "        if output == 'boom':\n"
        "            raise RuntimeError('the scorer fell over')\n"
        "        good = output == 'yes'\n"
        "        quality = 1.0 if good else 0.2\n"
        "        return ScoreResult(float(good), good, 'said', metrics={'quality': quality})\n"
    )
    make_project(
        "err",
        "models:\n  default: [agent]\n  define:\n    agent: {connector: python, callable:"
        ' "agent:run"}\n'
        "scorers: {default: quality}\n"
        "tests:\n"
        "  - {id: fine, input: '0', reference: 'yes'}\n"
        "  - {id: crash, input: '11x', reference: 'yes', repeat: 3}\n"
        "  - {id: once, input: 'x', reference: 'yes'}\n",
        files={"agent.py": agent, "scorers/quality.py": scorer},
    )
    result = pytester.runpytest("-p", "no:cacheprovider", "--arena-json=r.json", *workers)
    result.assert_outcomes(failed=3)
    data = report(pytester, "r.json")
    found = records(data)
    crash, once = found["crash[agent]"], found["once[agent]"]
    assert (crash["status"], crash["metrics"]) == (once["status"], once["metrics"]) == (ERROR, {})
    assert [s["metrics"] for s in crash["samples"]] == [{"quality": 1.0}] * 2 + [{}]  # kept
    (row,) = data["leaderboards"][0]["rows"]
    assert row["metrics"] == {"quality": 0.2}  # the failed case's alone
    assert row["tokens"] == 5 * 15  # every answer, the errored cases' too
    result.stdout.fnmatch_lines(["*agent*  75  *0.200"])
