"""The leaderboard printed at the end of a run, checked against hand-computed numbers."""

from __future__ import annotations

import json

import jsonschema
import pytest

from pytest_arena.reports.json_report import schema
from tests.conftest import XDIST, MakeProject
from tests.projects import TABLE_PROJECT, TABLE_SCORER


def test_the_leaderboard_matches_numbers_computed_by_hand(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    make_project("table", TABLE_PROJECT, files={"scorers/table.py": TABLE_SCORER})
    result = pytester.runpytest()
    result.assert_outcomes(passed=2, failed=2)
    # two scored cases say little: Student's t of 1 degree of freedom (12.7) puts the
    # accuracy's interval past 0 and 1, where it is cut, and the difference's past -1 and 1.
    # accuracy is the case-weighted mean score over scored cases:
    #   sim_perfect (1*1.0 + 3*0.5) / 4 = 0.625, pricey (1*0.5 + 3*1.0) / 4 = 0.875
    # pass rate leaves the unscored c3 out: 1 of 2 for both.
    # citation_rate is weighted like accuracy: sim_perfect 0.25, pricey 0.875.
    # tokens per call: input 'abcd' is 1 token + 4 for the message, output 'abcdefgh' 2 tokens;
    # pricey pays $1 per input token and $2 per output token: 3 * (5 + 4) = $27.
    # cost is lower-is-better: per answered case ($9), against the cheapest model (free): 1 and 0.
    #   composite sim_perfect = 0.4*0.625 + 0.4*0.25 + 0.2*1 = 0.55
    #   composite pricey      = 0.4*0.875 + 0.4*0.875 + 0.2*0 = 0.70
    result.stdout.fnmatch_lines(
        [
            "*= arena leaderboard: table =*",
            "  rank        model      composite       accuracy     pass rate    cases    failed    errors    unscored    tokens       cost    latency    citation_rate",
            "---*",
            "    =1       pricey  0.700 ± 0.400  0.875 ± 0.500  50.0% ± 40.5        3         1         0           1        21     $27.00      20 ms    0.875 ± 0.500",
            "    =1  sim_perfect  0.550 ± 0.400  0.625 ± 0.500  50.0% ± 40.5        3         1         0           1        21  $0.000000       0 ms    0.250 ± 0.500",
            "composite = 0.40·accuracy + 0.40·citation_rate + 0.20·cost",
            "against the leader pricey, on the cases both answered (accuracy): sim_perfect -0.250 (95% CI -1.000 to +1.000), p=1.000 sign-flip (exact), 2 cases: not told apart",
            "=N: ranks the data cannot tell apart*",
        ]
    )


def test_a_weight_on_a_metric_nobody_emits_is_said_at_its_line_and_fails_the_run(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    make_project(
        "table",
        TABLE_PROJECT.replace("citation_rate: 0.4", "citaton_rate: 0.4"),
        files={"scorers/table.py": TABLE_SCORER},
    )
    make_project(
        "green",
        "models: [sim_perfect]\nmetrics:\n  weights: {acuracy: 0.8, cost: 0.2}\n"
        "tests:\n  - {id: a, input: x, reference: x}\n",
    )
    said = (
        "projects/table/arena.yaml:11: metrics.weights names 'citaton_rate', which no record has"
        " (did you mean 'citation_rate'?); it is left out of the composite, and the run fails"
    )
    result = pytester.runpytest("projects/table")
    result.stdout.fnmatch_lines(["composite = 0.67·accuracy + 0.33·cost", f"warning: {said}"])
    result = pytester.runpytest("projects/green")  # every case passed: the weight fails it
    result.stdout.fnmatch_lines(
        [
            "arena: the run fails: a leaderboard's settings name what no record has",
            "  projects/green/arena.yaml:3: metrics.weights names 'acuracy', which no record"
            " has (did you mean 'accuracy'?)*",
            "*1 passed*",
        ]
    )
    assert result.ret == pytest.ExitCode.TESTS_FAILED


def test_each_project_gets_its_own_board(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    for name in ("alpha", "beta"):
        make_project(name, "models: [sim_perfect]\ntests:\n  - {id: a, input: x, reference: x}\n")
    result = pytester.runpytest()
    result.stdout.fnmatch_lines(["*arena leaderboard: alpha*", "*arena leaderboard: beta*"])


def test_no_board_without_arena_items(pytester: pytest.Pytester) -> None:
    pytester.makepyfile("def test_plain():\n    assert True\n")
    result = pytester.runpytest()
    result.assert_outcomes(passed=1)
    result.stdout.no_fnmatch_line("*arena leaderboard*")


def test_a_run_stopped_by_x_says_its_boards_hold_only_what_ran(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    tests = "".join(
        f"  - {{id: c{i}, input: x, reference: {'y' if i == 1 else 'x'}}}\n" for i in range(6)
    )
    make_project("p", "models: [sim_echo]\ntests:\n" + tests)
    reports = ("--arena-json", "run.json", "--arena-html", "run.html")
    result = pytester.runpytest("-p", "no:cacheprovider", "-x", *reports)
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(
        [
            "arena: the run stopped early (stopping after 1 failures): the boards hold only the 2"
            " results it got, not the whole benchmark"
        ]
    )
    report = json.loads((pytester.path / "run.json").read_text())
    assert (report["stopped_early"], len(report["records"])) == (True, 2)
    html = (pytester.path / "run.html").read_text()
    assert "the run stopped early (-x or --maxfail): only the cases it ran are here" in html

    whole = pytester.runpytest("-p", "no:cacheprovider", *reports)
    assert "stopped early" not in whole.stdout.str()
    assert json.loads((pytester.path / "run.json").read_text())["stopped_early"] is False
    assert "stopped early" not in (pytester.path / "run.html").read_text()


@pytest.mark.parametrize(("ran", "results"), [(3, "3 results"), (1, "1 result")])
def test_a_run_stopped_by_ctrl_c_says_its_boards_hold_only_what_ran(
    pytester: pytest.Pytester, make_project: MakeProject, ran: int, results: str
) -> None:
    tests = "".join(f"  - {{id: c{i}, input: x, reference: x}}\n" for i in range(6))
    make_project("p", "models: [sim_echo]\ntests:\n" + tests)
    pytester.makeconftest(  # Ctrl-C as the `ran`-th case ends
        "import pytest\n"
        "ended = []\n"
        "def pytest_runtest_logfinish(nodeid):\n"
        "    ended.append(nodeid)\n"
        f"    if len(ended) == {ran}:\n"
        "        raise KeyboardInterrupt\n"
    )
    result = pytester.runpytest(
        "-p", "no:cacheprovider", "--arena-json", "run.json", no_reraise_ctrlc=True
    )
    assert result.ret == pytest.ExitCode.INTERRUPTED
    result.stdout.fnmatch_lines(
        [
            f"arena: the run stopped early (interrupted): the boards hold only the {results} it"
            " got, not the whole benchmark"
        ]
    )
    report = json.loads((pytester.path / "run.json").read_text())
    assert (report["stopped_early"], len(report["records"])) == (True, ran)


def test_a_model_none_of_whose_cases_was_scored_is_not_shown_as_scoring_0(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    """Cases without a reference are unscored: the board showed a composite of 0.000 with
    an accuracy of -, as if the model had got everything wrong."""
    make_project("open", "models: [sim_perfect]\ntests:\n  - {id: a, input: 'Say hi.'}\n")
    result = pytester.runpytest("-p", "no:cacheprovider")
    result.stdout.fnmatch_lines(
        [
            "*arena leaderboard: open*",
            "*no case was scored for any model (each unscored case says why), so there is no"
            " accuracy (-) and the composite counts it as 0: it is not a score*",
        ]
    )


@pytest.mark.parametrize("workers", [[], [*XDIST, "-n", "2"]], ids=["-n0", "-n2"])
def test_a_project_the_budget_kept_from_every_case_still_gets_its_board(
    pytester: pytest.Pytester, make_project: MakeProject, workers: list[str]
) -> None:
    """`--arena-max-cost 0` with an empty cache skips every case: the run printed no board,
    and its JSON report had none, so nothing said per model why nothing was graded."""
    price = "price: {input_per_mtok: 1, output_per_mtok: 1}"
    make_project(
        "p",
        f"""
models:
  default: [cheap, dear]
  define:
    cheap: {{profile: sim_perfect, {price}}}
    dear: {{profile: sim_perfect, {price}}}
tests:
  - {{id: a, input: one, reference: one}}
  - {{id: b, input: two, reference: two}}
  - {{id: c, input: three, reference: three, models: [dear]}}
""",
    )
    result = pytester.runpytest(
        "-p", "no:cacheprovider", "--arena-max-cost", "0", "--arena-json", "run.json", *workers
    )
    result.assert_outcomes(skipped=5)
    said = "no answer was graded: cheap's 2 cases and dear's 3 cases not run: budget spent"
    result.stdout.fnmatch_lines(
        [
            "*= arena leaderboard: p =*",
            f"note: {said}",
            "arena: 0 answers graded; $0.00 spent on models and judges; 5 not run: budget spent",
        ]
    )
    report = json.loads((pytester.path / "run.json").read_text())
    jsonschema.validate(report, schema())
    (board,) = report["leaderboards"]
    assert (board["project"], board["rows"], board["notes"]) == ("p", [], [said])
    assert (report["records"], report["spend"]["budget_skips"]) == ([], 5)
