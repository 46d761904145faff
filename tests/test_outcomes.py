"""Verdicts become pytest outcomes; the scorer's reason is the failure text."""

from __future__ import annotations

import json
import textwrap

import pytest

from tests.conftest import MakeProject
from tests.projects import PATTERNED_AGENT, PATTERNED_PROJECT

TONE_SCORER = """
from pytest_arena.scorers import Scorer, ScoreResult


class ToneScorer(Scorer):
    name = "tone"

    def score(self, output, reference, context):
        polite = "please" in output.lower()
        return ScoreResult(
            score=1.0 if polite else 0.0,
            passed=polite,
            reason="found 'please'" if polite else "no politeness marker",
        )
"""

SUPPORT = """
models: [sim_perfect]
scorers:
  default: tone
tests:
  - id: polite
    input: "My parcel is late."
    reference: "Sorry about that, please send us your order number."
  - id: curt
    input: "My parcel is late."
    reference: "Send the order number."
"""


def test_a_failed_verdict_shows_the_reason_not_a_traceback(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    make_project("support", SUPPORT, files={"scorers/tone.py": TONE_SCORER})
    result = pytester.runpytest("-rA")
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(
        [
            "*_ support::curt[[]sim_perfect] _*",
            "no politeness marker",
            "  scorer:    tone (score 0.00)",
            "  output:    'Send the order number.'",
            "  reference: 'Send the order number.'",
        ]
    )
    result.stdout.fnmatch_lines(
        ["FAILED projects/support/arena.yaml::curt[[]sim_perfect] - no politeness marker"]
    )
    result.stdout.no_fnmatch_line("*Traceback*")
    result.stdout.no_fnmatch_line("*CaseFailed*")


def test_a_long_output_is_cut_to_an_excerpt(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    long = "word " * 200
    make_project(
        "support",
        f"""
        models: [sim_perfect]
        scorers: {{default: tone}}
        tests:
          - id: rambling
            input: "?"
            reference: "{long}"
        """,
        files={"scorers/tone.py": TONE_SCORER},
    )
    result = pytester.runpytest()
    result.assert_outcomes(failed=1)
    output_line = next(line for line in result.stdout.lines if line.startswith("  output:"))
    assert output_line.endswith("…'")
    assert len(output_line) < 230


# the tone scorer's `score` with a body that goes wrong in one of the ways below
BROKEN_TONE = """
from pytest_arena.scorers import Scorer, ScoreResult


class ToneScorer(Scorer):
    name = "tone"

    def score(self, output, reference, context):
{body}
"""


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        pytest.param(
            """
            words = output.split()
            return words[99]
            """,
            [
                [
                    "scorer 'tone' raised IndexError: list index out of range",
                    "",
                    "Traceback (most recent call last):",
                    '*File "*projects/support/scorers/tone.py", line 9, in score',
                    "*return words[[]99]*",
                    "IndexError: list index out of range",
                ]
            ],
            id="raises",
        ),
        pytest.param(
            """
            if "please" in output:
                return ScoreResult(score=1.5, passed=True)
            return ScoreResult(score=0.0, passed=False, metrics={"politeness": "low"})
            """,
            [
                [
                    "*scorer 'tone' raised ScoreResultError: ScoreResult.score must be between 0 and 1, got 1.5"
                ],
                [
                    "*scorer 'tone' raised ScoreResultError: metric 'politeness' must be a finite number, got str 'low'"
                ],
            ],
            id="invalid-score-result",
        ),
        pytest.param(
            """
            return 1.0
            """,
            [["scorer 'tone' returned float; it must return a ScoreResult"]],
            id="returns-something-else",
        ),
        pytest.param(  # set after it was built: 2.5 reached the board as the accuracy
            """
            result = ScoreResult(score=0.0, passed=False, reason="checked")
            if "please" in output:
                result.score, result.passed = 2.5, "no"
            else:
                result.metrics["citation_rate"] = float("inf")  # crashed the run's end
            return result
            """,
            [
                [
                    "*scorer 'tone' returned a ScoreResult changed after it was built:"
                    " ScoreResult.score must be between 0 and 1, got 2.5"
                ],
                [
                    "*scorer 'tone' returned a ScoreResult changed after it was built:"
                    " metric 'citation_rate' must be a finite number, got float inf"
                ],
            ],
            id="changed-after-it-was-built",
        ),
        pytest.param(
            """
            result = ScoreResult(score=1.0, passed=True)
            result.detail = "see the log"
            return result
            """,
            [
                [
                    "*scorer 'tone' returned a ScoreResult changed after it was built:"
                    " ScoreResult.detail must be a dict, got 'see the log'"
                ]
            ],
            id="detail-changed-after-it-was-built",
        ),
    ],
)
def test_a_scorer_that_goes_wrong_fails_the_case_naming_the_scorer(
    pytester: pytest.Pytester, make_project: MakeProject, body: str, expected: list[list[str]]
) -> None:
    scorer = BROKEN_TONE.format(body=textwrap.indent(textwrap.dedent(body).strip(), " " * 8))
    make_project("support", SUPPORT, files={"scorers/tone.py": scorer})
    result = pytester.runpytest()
    result.assert_outcomes(failed=2)
    for lines in expected:
        result.stdout.fnmatch_lines(lines)
    result.stdout.no_fnmatch_line("*pytest_arena/evaluation*")  # the scorer's frames only


def test_unscored_cases_are_their_own_category_and_never_fail(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    make_project(
        "notes",
        """
        models: [sim_perfect]
        scorers: {default: length}
        tests:
          - {id: short, input: "a", reference: "ok"}
          - {id: long, input: "b", reference: "a longer reply"}
          - {id: exact, input: "c", reference: "c", eval_type: exact_match}
        """,
        files={
            "scorers/length.py": """
            from pytest_arena.scorers import Scorer, ScoreResult


            class LengthScorer(Scorer):
                name = "length"

                def score(self, output, reference, context):
                    return ScoreResult(
                        score=0.0, passed=None, reason="recorded only", metrics={"chars": len(output)}
                    )
            """
        },
    )
    result = pytester.runpytest("-v")
    assert result.ret == 0
    outcomes = result.parseoutcomes()
    assert outcomes["passed"] == 1
    assert outcomes["unscored"] == 2
    assert "failed" not in outcomes
    result.stdout.fnmatch_lines(["projects/notes/arena.yaml::short[[]sim_perfect] UNSCORED*"])
    # their reason, which no failure block shows, is said once; they are not counted graded
    result.stdout.fnmatch_lines(
        ["*arena: unscored cases (no verdict), by reason*", "2 x recorded only"]
    )
    result.stdout.fnmatch_lines(["arena: 1 answer graded (2 more unscored);*"])
    # the pass rate counts only the scored case; the metric is the mean of 2 and 14 characters
    result.stdout.re_match_lines(
        [
            r"\s+1\s+sim_perfect\s+1\.000\s+1\.000\s+100\.0% ± 39\.7\s+3\s+0\s+0\s+2\s"
            r".*\s8\.000 ± 76\.237$"
        ]
    )


COIN = (
    PATTERNED_PROJECT
    + """tests:
  - {id: coin, input: "coin", reference: "yes"}
  - {id: mostly, input: "mostly", reference: "yes"}
  - {id: early, input: "early", reference: "yes", min_pass_rate: 0.5}
"""
)


@pytest.mark.parametrize("strict", [False, True])
def test_an_xfail_mark_keeps_pytests_verdict_and_the_reports_say_it(
    pytester: pytest.Pytester,
    make_project: MakeProject,
    strict: bool,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A case marked xfail is counted as pytest counts it (not FLAKY or "PASSED (7/8)"),
    and its record in the JSON report says what pytest made of it."""
    gate = "gate: {all: {accuracy: {min: 0}}}\n"  # holds: what fails the run is said
    make_project("coin", COIN + gate, files={"agent.py": PATTERNED_AGENT})
    pytester.makeconftest(
        "import pytest\n"
        "def pytest_collection_modifyitems(items):\n"
        "    for item in items:\n"
        f"        item.add_marker(pytest.mark.xfail(reason='known', strict={strict}))\n"
    )
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(pytester.path / "summary.md"))
    result = pytester.runpytest(
        "-v", "-rxX", "--arena-json", "run.json", "--arena-html", "run.html"
    )
    result.stdout.no_fnmatch_line("*FLAKY*")
    result.stdout.no_fnmatch_line("*PASSED (7/8)*")
    records = {
        r["case"]: r for r in json.loads((pytester.path / "run.json").read_text())["records"]
    }
    if strict:  # early passed: a strict xfail that passes fails the run
        result.assert_outcomes(xfailed=2, failed=1)
        result.stdout.fnmatch_lines(["*early[[]patterned] FAILED*", "[[]XPASS(strict)] known"])
        assert records["early"]["xfail"] == "xpassed_strict"
        result.stdout.fnmatch_lines(
            ["the gates held, but 1 failure(s) outside any gate*strict xfails that passed*"]
        )
        assert result.ret == pytest.ExitCode.TESTS_FAILED
    else:
        result.assert_outcomes(xfailed=2, xpassed=1)
        result.stdout.fnmatch_lines(["XFAIL *mostly*known*", "XPASS *early*known*"])
        assert records["early"]["xfail"] == "xpassed"
        assert result.ret == pytest.ExitCode.OK
    # the status stays the scorer's verdict, beside pytest's outcome
    assert (records["coin"]["status"], records["coin"]["xfail"]) == ("failed", "xfailed")
    assert (records["mostly"]["status"], records["mostly"]["xfail"]) == ("flaky", "xfailed")
    assert records["early"]["status"] == "passed"
    summary = (pytester.path / "summary.md").read_text()
    assert "flaky cases" not in summary  # xfailed, as pytest says
    assert "arena leaderboard" in summary
    page = (pytester.path / "run.html").read_text()
    said = "xpassed (strict)" if strict else "xpassed"
    assert '<span class="badge xfail">2 xfailed</span>' in page
    assert f'<span class="badge xfail">1 {said}</span>' in page


def test_a_case_a_setup_hook_skips_had_its_call_made_and_the_spend_line_says_so(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    """Calls start ahead of the run, before setup hooks: a case skipped there was paid for
    (the docs say to mark cases in pytest_collection_modifyitems instead)."""
    make_project(
        "q",
        """
models:
  default: [priced]
  define:
    priced:
      profile: sim_perfect
      latency_ms: 20  # a call of its own, started ahead (an instant sim answers inline)
      price: {input_per_mtok: 100000.0, output_per_mtok: 0}
tests:
  - {id: c1, input: "one", reference: "one"}
  - {id: c2, input: "two", reference: "two"}
""",
    )
    pytester.makeconftest(
        "import pytest\n"
        "def pytest_runtest_setup(item):\n"
        "    if 'c1' in item.name:\n"
        "        pytest.skip('no key for this case')\n"
    )
    result = pytester.runpytest("-q", "--arena-cache=off")
    result.assert_outcomes(passed=1, skipped=1)
    result.stdout.fnmatch_lines(
        [
            "arena: 1 answer graded; $0.* on answers no case was graded by (of cases the run"
            " stopped, skipped, cut short or ran again)"
        ]
    )


@pytest.mark.parametrize("workers", [0, 2])
def test_the_short_test_summary_lists_flaky_and_unscored_cases(
    pytester: pytest.Pytester, make_project: MakeProject, workers: int
) -> None:
    """-rA and -rf listed no FLAKY case, though it fails the run, nor an UNSCORED one:
    pytest's short summary lists its own categories only."""
    unscored = '  - {id: open, input: "steady"}\n'
    make_project("coin", COIN + unscored, files={"agent.py": PATTERNED_AGENT})
    spread = ["-p", "xdist.plugin", "-n", str(workers)] if workers else []
    result = pytester.runpytest("-rA", *spread)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    summary = result.stdout.str().split("short test summary info")[-1]
    assert [line.split(" - ")[0] for line in summary.splitlines()[1:-1]] == [
        "PASSED (7/8) projects/coin/arena.yaml::early[patterned]",
        "UNSCORED projects/coin/arena.yaml::open[patterned]",
        "FAILED projects/coin/arena.yaml::coin[patterned]",
        "FLAKY projects/coin/arena.yaml::mostly[patterned]",
    ]
    result.stdout.fnmatch_lines(["FLAKY *mostly* - passed 9 of 10; *"])
    # pytest's counts keep each in its own category
    assert result.parseoutcomes() == {"failed": 1, "passed": 1, "flaky": 1, "unscored": 1}
    # -rf: what failed the run; compact failures are said above, FLAKY ones here still
    failed = pytester.runpytest("-rf", "--arena-failures=compact", *spread)
    summary = failed.stdout.str().split("short test summary info")[-1]
    assert [line.split(" - ")[0] for line in summary.splitlines()[1:-1]] == [
        "FLAKY projects/coin/arena.yaml::mostly[patterned]"
    ]
    failed.stdout.fnmatch_lines(["FAILED projects/coin/arena.yaml::coin[[]patterned] - *"])
    assert failed.parseoutcomes() == {"failed": 1, "passed": 1, "flaky": 1, "unscored": 1}


def test_tb_line_shows_the_reason_of_a_case_that_could_not_be_run(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    """Under --tb=line an error's block was empty: the reason (and its fix) was nowhere but
    in the short summary's line, cut to the terminal's width."""
    make_project(
        "p",
        """
        models: [sim_echo]
        tests:
          - {id: broken, input: x, reference: x, eval_type: no_such_scorer}
          - {id: wrong, input: x, reference: y}
        """,
    )
    result = pytester.runpytest("--tb=line")
    result.stdout.fnmatch_lines(
        [
            "*ERROR at setup of p::broken[[]sim_echo]*",
            "projects/p/arena.yaml:3: eval_type: no scorer is named 'no_such_scorer'; known"
            " scorers: *, trajectory",
            "*= FAILURES =*",
            "projects/p/arena.yaml:4: *",  # a failure: its line alone, as before
            "*arena leaderboard: p*",
        ]
    )
