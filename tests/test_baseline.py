"""Baselines end to end: --arena-save-baseline writes a stable file, --arena-baseline compares
a later run with it, and a gate fails on a significant regression only."""

from __future__ import annotations

import json
import os
import shutil
from dataclasses import replace
from pathlib import Path

import jsonschema
import pytest

from pytest_arena.record import FAILED, PASSED, UNSCORED, Record
from pytest_arena.reports.baseline import baseline_text, compare_with, read_baseline, uncompared
from pytest_arena.reports.json_report import schema
from tests.conftest import XDIST, MakeProject


def project(accuracy: float, seed: int = 0, gate: str = "") -> str:
    cases = "\n".join(
        f"  - {{id: q{i:02}, input: 'question {i}', reference: 'answer {i}'"
        + (", tags: [critical]" if i == 0 else "")
        + "}"
        for i in range(80)
    )
    return (
        "models:\n  default: [candidate]\n  define:\n"
        f"    candidate: {{accuracy: {accuracy}, format_noise: 0, seed: {seed}}}\n"
        f"{gate}tests:\n{cases}\n"
    )


GATE = "gate:\n  regression: significant\n  critical: no_regression\n"


def saved_baseline(pytester: pytest.Pytester, make_project: MakeProject) -> str:
    """The baseline a run of a 90% candidate on 80 cases saves to base.json."""
    make_project("quiz", project(0.9))
    pytester.runpytest("--arena-save-baseline", "base.json")
    return Path(pytester.path, "base.json").read_text()


def test_a_saved_baseline_is_sorted_one_case_a_line_without_a_timestamp(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    first = saved_baseline(pytester, make_project)
    lines = first.splitlines()
    assert lines[0] == '{"format": 1, "cases": ['
    assert len(lines) == 80 + 2
    assert lines[1].startswith('  {"project": "quiz", "model": "candidate", "case": "q00"')
    assert [json.loads(line.rstrip(","))["case"] for line in lines[1:-1]] == sorted(
        f"q{i:02}" for i in range(80)
    )
    assert "created" not in first and "202" not in first
    # the same run under pytest-xdist writes the same bytes
    pytester.runpytest(*XDIST, "-n", "2", "--arena-save-baseline", "spread.json")
    assert Path(pytester.path, "spread.json").read_text() == first


def test_listing_or_selecting_nothing_leaves_a_saved_baseline_as_it_was(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    """`--co` (or a -k that matches no case) with the baseline in addopts emptied it."""
    first = saved_baseline(pytester, make_project)
    save = ("--arena-save-baseline", "base.json", "--arena-json", "run.json")
    listed = pytester.runpytest("--co", "-q", *save)
    assert listed.ret == pytest.ExitCode.OK
    assert "baseline" not in listed.stdout.str()
    nothing = pytester.runpytest("-k", "no_such_case", *save)
    nothing.stdout.fnmatch_lines(
        ["arena: --arena-save-baseline: no case ran, so the baseline file was left as it was"]
    )
    assert Path(pytester.path, "base.json").read_text() == first


@pytest.mark.skipif(os.name != "posix", reason="a file size limit (RLIMIT_FSIZE) is POSIX")
def test_a_baseline_that_cannot_be_written_whole_leaves_the_last_one_as_it_was(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    saved = saved_baseline(pytester, make_project)
    assert len(saved) > 8000
    # the disk fills up halfway through the next one (files may grow to 6,000 bytes)
    pytester.makeconftest(
        """
        import resource, signal
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (6000, 6000))
        """
    )
    result = pytester.runpytest_subprocess(
        "-p", "no:cacheprovider", "-q", "--tb=no", "--arena-save-baseline", "base.json"
    )
    result.stdout.fnmatch_lines(["*the --arena-save-baseline file was not written: *"])
    assert Path(pytester.path, "base.json").read_text() == saved
    assert sorted(p.name for p in Path(pytester.path).glob("base.json*")) == ["base.json"]


def test_a_worse_sim_is_a_significant_regression_with_both_reasons(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    make_project("quiz", project(0.9, gate=GATE))
    pytester.runpytest("--arena-save-baseline", "base.json", "--no-arena-gate")
    make_project("quiz", project(0.5, gate=GATE))
    result = pytester.runpytest("--arena-baseline", "base.json", "--arena-json", "out.json")
    assert result.ret == 1
    result.stdout.fnmatch_lines(
        [
            "*- arena baseline: *base.json -*",
            "quiz candidate: accuracy 0.9* -> 0.5*, change -0.*(95% CI *), p<0.001 McNemar*; *"
            " regressed, * fixed, 0 new, 0 gone",
            "  regressed q*: was 'exact match', now 'expected 'answer *', got *'",
            "*- arena gate: quiz -*",
            "*failed  candidate accuracy change against the baseline -0.* a significant"
            " regression at level 0.05",
        ]
    )
    report = json.loads(Path(pytester.path, "out.json").read_text())
    (compared,) = report["baseline"]
    assert compared["regressed"] and compared["p_value"] < 0.001
    assert compared["regressed"][0]["then"] and compared["regressed"][0]["now"]
    # the JSON and the HTML page say the rule's verdict as the terminal does (they said
    # "regression (limit ):")
    from pytest_arena.reports.html import check_line

    (gate,) = report["gates"]
    said = [check_line(check) for check in gate["checks"]]
    assert said[0].startswith(
        "failed: candidate accuracy change against the baseline -0."
    ) and said[0].endswith("a significant regression at level 0.05")
    assert said[1] == "held: candidate no case tagged critical regressed"


def test_a_baseline_replayed_from_the_cache_is_exact_and_free(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    cached = project(0.7, gate=GATE).replace("format_noise: 0,", "format_noise: 0, cache: true,")
    make_project("quiz", cached)
    pytester.runpytest("--arena-save-baseline", "base.json", "--no-arena-gate")
    for spread in ([], [*XDIST, "-n", "2"]):
        result = pytester.runpytest(
            *spread, "--arena-cache", "replay", "--arena-baseline", "base.json"
        )
        result.stdout.fnmatch_lines(
            [
                "arena: 80 answers graded, 80 from the response cache (*); $0.00 spent on*",
                # no case moved: the interval still allows the share of cases 80 cannot rule
                # out to move, not a width of 0
                "quiz candidate: accuracy 0.688 -> 0.688, change 0.000 (95% CI -0.046 to"
                " +0.046), p=1.000 McNemar (exact), 80 cases; 0 regressed, 0 fixed, 0 new, 0 gone",
                "*held    candidate accuracy change against the baseline 0.000 (p=1)*",
            ]
        )
        assert result.ret == 0  # the gate holds, and decides for its project


def test_noise_passes_the_regression_gate(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    make_project("quiz", project(0.9, gate="gate:\n  regression: significant\n"))
    pytester.runpytest("--arena-save-baseline", "base.json", "--no-arena-gate")
    # the same model drawn afresh: other cases fail, none of it significant
    make_project("quiz", project(0.9, seed=3, gate="gate:\n  regression: significant\n"))
    result = pytester.runpytest("--arena-baseline", "base.json")
    result.stdout.fnmatch_lines(
        ["*regressed q*", "*held    candidate * not a significant regression at level 0.05"]
    )
    assert result.ret == 0
    result.stdout.no_fnmatch_line("*passed*failed*0 failed*")


def test_a_regression_gate_without_a_baseline_fails_rather_than_pass_by_accident(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    make_project("quiz", project(0.5, gate="gate:\n  regression: significant\n"))
    result = pytester.runpytest()
    assert result.ret == 1
    result.stdout.fnmatch_lines(["*failed  every model gate regression compares with a baseline*"])


def test_a_missing_baseline_is_a_usage_error(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    make_project("quiz", project(0.9))
    result = pytester.runpytest("--arena-baseline", "nowhere.json")
    assert result.ret == 4
    result.stderr.fnmatch_lines(["*--arena-baseline *nowhere.json: cannot be read*"])


@pytest.mark.parametrize(
    ("content", "said"),
    [
        ('{"format": 1, "cases": []}'.encode("utf-16"), "*base.json: not UTF-8 text (byte 0: *"),
        (b"[" * 200_000, "*base.json: not a baseline (nested too deeply)*"),
        (
            b'{"format": 1, "cases": [\n{"project": "p", "model": "m", "case": "c",'
            b' "status": "passed", "score": 1, "reason": "", "tags": 5, "weight": 1}]}',
            "*base.json:2: a case's score is a number from 0 to 1 or null, its tags a list*",
        ),
        (  # was read as a score of 0: a rerun of the same answers changed accuracy
            b'{"format": 1, "cases": [\n{"project": "p", "model": "m", "case": "c",'
            b' "status": "passed", "score": null, "reason": "", "tags": [], "weight": 1}]}',
            "*base.json:2: the score of a passed case is a number from 0 to 1, not null*",
        ),
    ],
    ids=["utf-16", "deep", "tags", "null-score"],
)
def test_a_baseline_of_another_shape_is_a_usage_error_saying_why(
    pytester: pytest.Pytester, make_project: MakeProject, content: bytes, said: str
) -> None:
    make_project("quiz", project(0.9))
    (pytester.path / "base.json").write_bytes(content)
    result = pytester.runpytest("--arena-baseline", "base.json")
    assert result.ret == 4
    result.stderr.fnmatch_lines([said])
    assert "Traceback" not in result.stderr.str() + result.stdout.str()


def record(case: str, passed: bool, reason: str, tags: tuple[str, ...] = ()) -> Record:
    status = PASSED if passed else FAILED
    return Record("p", case, "m", status, float(passed), passed, reason, tags=list(tags))


def test_comparison_names_regressed_fixed_new_gone_and_critical() -> None:
    then = [record("a", True, "ok"), record("b", False, "bad"), record("c", True, "ok")]
    then.append(record("gone", True, "ok"))
    now = [record("a", False, "worse", ("critical",)), record("b", True, "good")]
    now += [record("c", True, "ok"), record("new", True, "ok")]
    saved = read_baseline(baseline_text(then), "base.json")
    (c,) = compare_with(now, saved)
    assert [(x.case, x.then, x.now, x.critical) for x in c.regressed] == [
        ("a", "ok", "worse", True)
    ]
    assert [(x.case, x.then, x.now) for x in c.fixed] == [("b", "bad", "good")]
    assert (c.new, c.gone) == (["new"], ["gone"])
    assert c.comparison.difference.n == 3
    assert not c.significant()


def test_a_file_that_is_no_baseline_says_where_and_how_to_fix() -> None:
    with pytest.raises(ValueError, match=r"base.json:1: not a baseline .*--arena-save-baseline"):
        read_baseline("{oops", "base.json")
    with pytest.raises(ValueError, match=r"base.json: not a baseline of format 1"):
        read_baseline('{"cases": []}', "base.json")


def _row(**changed: object) -> str:
    row = {"project": "p", "model": "m", "case": "a", "status": "passed", "score": 1.0}
    row |= {"reason": "", "tags": [], "weight": 1.0, **changed}
    return json.dumps(row)


@pytest.mark.parametrize(
    ("cases", "said"),
    [
        # a NaN score took the model's whole comparison down to "0 cases in common" and the
        # regression gate held
        (
            f"[{_row()},\n{_row(case='b', score=float('nan'))}]",
            r"base.json:3: a case's score is a number from 0 to 1",
        ),
        (f"[{_row(score=1.5)}]", r"base.json:2: a case's score is a number from 0 to 1"),
        (f"[{_row(weight=float('inf'))}]", r"base.json:2: .* its weight a finite number"),
        (
            f"[{_row()},\n{_row(case='b', status='failed', score=None)}]",
            r"base.json:3: the score of a failed case is a number from 0 to 1, not null",
        ),
        ("{}", r"base.json: 'cases' is not a list"),  # was read as a baseline of no case
        (f"[{_row(status='great')}]", r"base.json:2: a case's status is one of .*not 'great'"),
        (f"[{_row(status=['passed'])}]", r"base.json:2: a case's status is one of"),
        (
            f"[{_row()},\n{_row(score=0.0)}]",
            r"base.json:3: case a of model m in project p is listed twice \(first at line 2\)",
        ),
    ],
    ids=[
        "nan-score",
        "score-above-1",
        "infinite-weight",
        "null-score",
        "cases-not-a-list",
        "status",
        "status-list",
        "twice",
    ],
)
def test_a_hand_edited_baseline_that_no_run_wrote_is_refused_at_its_line(
    cases: str, said: str
) -> None:
    with pytest.raises(ValueError, match=said + ".*--arena-save-baseline"):
        read_baseline(f'{{"format": 1, "cases": {cases}}}', "base.json")


def test_a_score_of_null_is_read_for_an_unscored_case_and_an_error() -> None:
    cases = (
        f"[{_row(status='unscored', score=None)},\n{_row(case='b', status='error', score=None)}]"
    )
    read = read_baseline(f'{{"format": 2, "cases": {cases}}}', "base.json")
    assert [(r.status, r.score) for r in read] == [("unscored", None), ("error", None)]


@pytest.mark.parametrize("workers", [0, 2])
def test_cases_the_run_left_out_are_not_run_not_gone(
    pytester: pytest.Pytester, make_project: MakeProject, workers: int
) -> None:
    """`-k geo` against a committed baseline listed every other case as gone, as if the
    benchmark had lost them; a case taken out of arena.yaml is gone."""
    cases = "".join(
        f"  - {{id: {c}, input: '{c}', reference: '{c}'}}\n" for c in ("geo", "sum", "pi")
    )
    make_project("quiz", f"models: [sim_perfect]\ntests:\n{cases}")
    pytester.runpytest("--arena-save-baseline", "base.json")
    make_project("quiz", f"models: [sim_perfect]\ntests:\n{cases.replace('  - {id: pi', '#')}")
    spread = [*XDIST, "-n", str(workers)] if workers else []
    result = pytester.runpytest(
        "-k", "geo", "--arena-baseline", "base.json", "--arena-json", "out.json", *spread
    )
    result.stdout.fnmatch_lines(
        [
            "quiz sim_perfect: *; 0 regressed, 0 fixed, 0 new, 1 gone, 1 not run (deselected,"
            " skipped or stopped before)",
            "  gone: pi",
        ]
    )
    (compared,) = json.loads(Path(pytester.path, "out.json").read_text())["baseline"]
    assert (compared["gone"], compared["not_run"]) == (["pi"], ["sum"])


VERDICT_SCORER = """
from pytest_arena.scorers import Scorer, ScoreResult


class VerdictScorer(Scorer):
    name = "verdict"

    def score(self, output, reference, context):
        said = context.test_case.metadata["verdict"]
        passed = {"pass": True, "fail": False, "none": None}[said]
        return ScoreResult(float(passed is True), passed, f"said {said}")
"""


def verdict_project(**verdicts: str) -> str:
    """A project whose cases' verdicts are given: pass, fail or none (unscored)."""
    cases = "".join(
        f"  - {{id: {case}, input: x, reference: x, metadata: {{verdict: {said}}}}}\n"
        for case, said in verdicts.items()
    )
    return f"models: [sim_perfect]\nscorers:\n  default: verdict\ntests:\n{cases}"


def test_a_case_unscored_in_one_run_is_said_so_not_new_gone_or_not_run(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    """A case graded then and unscored now was "not run (deselected, skipped or stopped
    before)", and one unscored then and graded now was "new": the baseline left out every
    unscored case, though both ran."""
    files = {"scorers/verdict.py": VERDICT_SCORER}
    make_project("quiz", verdict_project(a="pass", b="pass", c="none", d="fail"), files=files)
    pytester.runpytest("--arena-save-baseline", "base.json")
    saved = Path(pytester.path, "base.json").read_text().splitlines()
    assert saved[0] == '{"format": 2, "cases": ['  # older releases refuse an unscored case
    row = json.loads(saved[3].rstrip(","))
    assert (row["case"], row["status"], row["score"]) == ("c", "unscored", None)
    now = verdict_project(a="pass", b="none", c="pass", d="fail", e="pass")
    make_project("quiz", now, files=files)
    result = pytester.runpytest("--arena-baseline", "base.json", "--arena-json", "out.json")
    result.stdout.fnmatch_lines(
        [
            "quiz sim_perfect: *, 2 cases; 0 regressed, 0 fixed, 1 new, 0 gone, 1 unscored"
            " now, 1 unscored then",
            "  unscored now b: was 'said pass', now 'said none'",
            "  unscored then c: was 'said none', now 'said pass'",
            "  new: e",
        ]
    )
    result.stdout.no_fnmatch_line("*not run*")
    report = json.loads(Path(pytester.path, "out.json").read_text())
    jsonschema.validate(report, schema())  # its two lists are in the report's schema
    (compared,) = report["baseline"]
    assert (compared["new"], compared["gone"], compared["not_run"]) == (["e"], [], [])
    assert [c["case"] for c in compared["unscored_now"]] == ["b"]
    assert [c["case"] for c in compared["unscored_then"]] == ["c"]
    # the paired test stays on the cases graded in both runs (a, d), and so do the
    # accuracies then and now, which differ by its change
    assert compared["cases"] == 2
    assert (compared["accuracy_then"], compared["accuracy_now"]) == (0.5, 0.5)


def test_a_case_unscored_now_is_in_both_runs_so_its_project_was_not_renamed() -> None:
    """With the only case kept from the baseline unscored now and the other renamed, the
    run read as one whose cases were all renamed (its gate failed); and a model whose
    cases were all unscored now was listed as not compared."""
    then = [record("a", True, "ok"), record("b", True, "ok")]
    saved = read_baseline(baseline_text(then), "base.json")
    now = [Record("p", "a", "m", UNSCORED, reason="no reference"), record("c", True, "ok")]
    (c,) = compare_with(now, saved, {"p": ["a", "c"]})
    assert ([x.case for x in c.unscored_now], c.gone, c.new) == (["a"], ["b"], ["c"])
    assert not c.renamed
    assert uncompared([Record("p", "a", "m", UNSCORED)], saved) == []


def test_a_rerun_of_fractional_scores_is_no_change_against_its_own_baseline() -> None:
    """Six cases scored 2/3 were saved as 0.666667 and compared with 0.6666666…: "change
    -0.000, p=0.031", a significant regression of a run against itself."""
    now = [
        Record("p", f"c{i}", "m", PASSED, 2 / 3, True, "two of three", weight=1.0) for i in range(6)
    ]
    (c,) = compare_with(now, read_baseline(baseline_text(now), "base.json"))
    assert c.comparison.difference.estimate == 0
    assert not c.significant(0.5)


def test_a_baseline_whose_cases_were_all_renamed_fails_the_gate_that_compares_with_it(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    """Ids saved as 1, 2… (read as numbers by an older release) matched none of the cases:
    "0 case(s) in common", yet both baseline rules held and the run exited 0."""
    cases = "".join(f"  - {{id: q{i}, input: 'q{i}', reference: 'q{i}'}}\n" for i in range(4))
    make_project("quiz", f"models: [sim_perfect]\ntests:\n{cases}")
    pytester.runpytest("--arena-save-baseline", "base.json")
    renamed = cases.replace("id: q", "id: case")
    gate = "gate:\n  regression: significant\n  critical: no_regression\n"
    make_project("quiz", f"models: [sim_perfect]\n{gate}tests:\n{renamed}")
    result = pytester.runpytest("--arena-baseline", "base.json")
    result.stdout.fnmatch_lines(
        [
            "quiz sim_perfect: no case in common with the baseline, whose cases are all gone"
            " from the project: were they renamed? *; 0 regressed, 0 fixed, 4 new, 4 gone",
            "  failed  sim_perfect compared nothing: no case is in both runs*",
            "  failed  sim_perfect compared nothing: no case is in both runs*",
        ]
    )
    assert result.ret == 1
    # cases left out by -k are not run, not renamed, even beside one taken out of the project
    kept = "".join(f"  - {{id: q{i}, input: 'q{i}', reference: 'q{i}'}}\n" for i in range(3))
    make_project("quiz", f"models: [sim_perfect]\n{gate}tests:\n{kept}{renamed}")
    result = pytester.runpytest("--arena-baseline", "base.json", "-k", "case")
    result.stdout.fnmatch_lines(["  held    sim_perfect no case tagged critical regressed"])
    assert result.ret == 0


def test_a_baseline_project_that_graded_nothing_in_this_run_is_said(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    """A baseline whose project no longer loads showed its header and nothing under it."""
    make_project("quiz", "models: [sim_perfect]\ntests:\n  - {id: a, input: x, reference: x}\n")
    make_project("maths", "models: [sim_perfect]\ntests:\n  - {id: b, input: y, reference: y}\n")
    pytester.runpytest("--arena-save-baseline", "base.json")
    make_project("maths", "models: [sim_perfect]\ntests: oops\n")
    result = pytester.runpytest("--arena-baseline", "base.json")
    result.stdout.fnmatch_lines(
        [
            "*arena baseline: *base.json*",
            "quiz sim_perfect: *",
            "not compared, as no case of theirs ran in this run (a project that did not"
            " load, a model not asked for): maths sim_perfect",
        ]
    )


def test_a_renamed_project_fails_the_gate_that_compares_it_with_the_baseline(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    """A project renamed after its baseline was saved compared nothing ("0 case(s) in
    common"), listed the old name as not compared, and both baseline rules held: exit 0."""
    cases = "".join(f"  - {{id: q{i}, input: 'q{i}', reference: 'q{i}'}}\n" for i in range(4))
    gate = "gate:\n  regression: significant\n  critical: no_regression\n"
    make_project("quiz", f"models: [sim_perfect]\n{gate}tests:\n{cases}")
    pytester.runpytest("--arena-save-baseline", "base.json")
    make_project("quiz", f"name: trivia\nmodels: [sim_perfect]\n{gate}tests:\n{cases}")
    result = pytester.runpytest("--arena-baseline", "base.json", "--arena-json", "out.json")
    result.stdout.fnmatch_lines(
        [
            "trivia sim_perfect: the baseline holds no case of this project, and none of its"
            " project quiz was graded in this run: was it renamed? *; 0 regressed, 0 fixed,"
            " 4 new, 0 gone",
            "  failed  sim_perfect compared nothing: the baseline holds no case of this"
            " project (renamed from quiz?)*",
            "  failed  sim_perfect compared nothing: the baseline holds no case of this"
            " project (renamed from quiz?)*",
        ]
    )
    assert result.ret == 1
    (compared,) = json.loads(Path(pytester.path, "out.json").read_text())["baseline"]
    assert compared["renamed_from"] == ["quiz"]
    # a project added beside the baseline's, which still runs (or which -k left out), is
    # new: nothing to compare, and the rules hold
    make_project("quiz", f"models: [sim_perfect]\n{gate}tests:\n{cases}")
    make_project("maths", f"models: [sim_perfect]\n{gate}tests:\n{cases}")
    for selection in ([], ["-k", "maths"], ["projects/maths"]):
        result = pytester.runpytest("--arena-baseline", "base.json", *selection)
        result.stdout.fnmatch_lines(
            [
                "maths sim_perfect: the baseline holds no case of this project and model:"
                " nothing to compare; 0 regressed, 0 fixed, 4 new, 0 gone",
                "  held    sim_perfect compared nothing: the baseline holds no case of this"
                " project and model (new)",
            ]
        )
        assert result.ret == 0
    # nor when the run was narrowed without paths (--ignore, or started below the rootdir)
    result = pytester.runpytest("--arena-baseline", "base.json", "--ignore", "projects/quiz")
    result.stdout.fnmatch_lines(["  held    sim_perfect compared nothing: *(new)"])
    pytester.makeini("[pytest]\n")  # the rootdir, above the folder the run starts in
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(pytester.path / "projects" / "maths")
        below = pytester.runpytest("--arena-baseline", str(pytester.path / "base.json"))
    below.stdout.fnmatch_lines(["  held    sim_perfect compared nothing: *(new)"])
    # nor is it renamed from a baseline project that cannot be loaded now, by its folder's
    # name or the name: it gives
    for broken in ("models: [sim_perfect\n", "name: quiz\nmodels: [sim_perfect\n"):
        make_project("quiz" if "name" not in broken else "elsewhere", broken)
        if "name" in broken:
            shutil.rmtree(pytester.path / "projects" / "quiz")
        result = pytester.runpytest("--arena-baseline", "base.json")
        result.stdout.fnmatch_lines(["  held    sim_perfect compared nothing: *(new)"])


def test_a_critical_case_that_passed_then_and_is_unscored_now_fails_the_critical_gate(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    """It was listed as "unscored now" and `critical: no_regression` held: the one check
    the gate makes of that case was gone, and the run passed. One that failed then and is
    unscored now lost no pass, and a case not tagged critical is not the gate's."""
    files = {"scorers/verdict.py": VERDICT_SCORER}
    gate = "gate:\n  critical: no_regression\n"

    def tagged(text: str) -> str:
        text = text.replace("{id: a,", "{id: a, tags: [critical],")
        return text.replace("{id: d,", "{id: d, tags: [critical],")

    make_project("quiz", gate + tagged(verdict_project(a="pass", b="pass", d="fail")), files=files)
    pytester.runpytest("--arena-save-baseline", "base.json", "--no-arena-gate")
    now = gate + tagged(verdict_project(a="none", b="none", d="none"))
    make_project("quiz", now, files=files)
    result = pytester.runpytest("--arena-baseline", "base.json")
    assert result.ret == 1
    result.stdout.fnmatch_lines(
        ["*failed  sim_perfect critical cases regressed: a (unscored now)*"]
    )
    make_project("quiz", gate + tagged(verdict_project(a="pass", b="none", d="none")), files=files)
    held = pytester.runpytest("--arena-baseline", "base.json")
    assert held.ret == 0
    held.stdout.fnmatch_lines(["*held *sim_perfect no case tagged critical regressed*"])


EIGHT = {f"q{i}": "fail" if i in (2, 5) else "pass" for i in range(1, 9)}  # q2, q5 fail
CTRL_C_AT_TWO = (  # Ctrl-C as the second case ends
    "import pytest\n"
    "ended = []\n"
    "def pytest_runtest_logfinish(nodeid):\n"
    "    ended.append(nodeid)\n"
    "    if len(ended) == 2:\n"
    "        raise KeyboardInterrupt\n"
)


@pytest.mark.parametrize(
    ("args", "why"),
    [
        (["-x"], "the run stopped early (stopping after 1 failures)"),
        (["--maxfail=1"], "the run stopped early (stopping after 1 failures)"),
        (["--sw"], "the run stopped early (Test failed, continuing from this test next run.)"),
        (["--lf"], "--lf ran what the last run left, not every case"),
        ([], "the run stopped early (interrupted)"),  # Ctrl-C
    ],
    ids=["x", "maxfail", "sw", "lf", "ctrl-c"],
)
def test_a_run_that_ran_part_of_its_cases_leaves_the_saved_baseline_and_says_so(
    pytester: pytest.Pytester, make_project: MakeProject, args: list[str], why: str
) -> None:
    """-x (or --maxfail, --sw, --lf, Ctrl-C) with --arena-save-baseline replaced a baseline
    of 8 cases with one of the 2 that ran, saying nothing: the next --arena-baseline took
    the other 6 for new cases."""
    make_project("quiz", verdict_project(**EIGHT), files={"scorers/verdict.py": VERDICT_SCORER})
    pytester.runpytest("--arena-save-baseline", "base.json")  # (--lf: q2 and q5 failed)
    whole = Path(pytester.path, "base.json").read_text()
    assert len(read_baseline(whole, "base.json")) == 8
    if not args:
        pytester.makeconftest(CTRL_C_AT_TWO)
    result = pytester.runpytest(*args, "--arena-save-baseline", "base.json", no_reraise_ctrlc=True)
    result.stdout.fnmatch_lines(
        [
            f"arena: --arena-save-baseline: {why}, so the baseline file was left as it was (it"
            " would have lost the cases not run); save a baseline from a run of every case you"
            " select"
        ]
    )
    assert Path(pytester.path, "base.json").read_text() == whole


def test_a_baseline_saved_from_a_narrower_selection_says_how_many_cases_it_lost(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    """-k (-m, --deselect, paths) chooses the cases on purpose, so the file is written, but
    a file that held more cases said nothing of the ones it lost."""
    make_project("quiz", verdict_project(**EIGHT), files={"scorers/verdict.py": VERDICT_SCORER})
    pytester.runpytest("--arena-save-baseline", "base.json")
    result = pytester.runpytest("-k", "q1 or q2", "--arena-save-baseline", "base.json")
    result.stdout.fnmatch_lines(
        [
            "arena: --arena-save-baseline base.json holds 2 cases now; it held 8, and 6 of them"
            " did not run (-k, -m, --deselect or the paths given left them out, or they are"
            " gone): a run of every case saves them all"
        ]
    )
    assert len(read_baseline(Path(pytester.path, "base.json").read_text(), "base.json")) == 2
    again = pytester.runpytest("-k", "q1 or q2", "--arena-save-baseline", "base.json")
    again.stdout.no_fnmatch_line("*--arena-save-baseline*")  # none lost this time


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="/dev/full is Linux's")
def test_a_baseline_that_cannot_be_written_fails_the_run_as_any_report(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    """--arena-save-baseline=/dev/full exited 0, --arena-json=/dev/full 1."""
    make_project("quiz", "models: [sim_perfect]\ntests:\n  - {id: a, input: x, reference: x}\n")
    result = pytester.runpytest("--arena-save-baseline=/dev/full")
    result.stdout.fnmatch_lines(
        ["arena: the --arena-save-baseline file was not written: *No space left on device*"]
    )
    assert result.ret == pytest.ExitCode.TESTS_FAILED


def test_an_empty_baseline_path_is_a_usage_error(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    """`--arena-baseline=$BASELINE`, the variable unset, was ignored: the regression gate
    failed saying no baseline was given, and without a gate nothing was compared."""
    make_project("quiz", project(0.9, gate="gate:\n  regression: significant\n"))
    result = pytester.runpytest("--arena-baseline=")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        [
            "*--arena-baseline is empty: give the path of a file --arena-save-baseline wrote,"
            " such as --arena-baseline baseline.json (or leave the option out)"
        ]
    )


def test_the_accuracy_then_is_of_the_cases_both_runs_graded(
    pytester: pytest.Pytester, make_project: MakeProject, tmp_path: Path
) -> None:
    """-k q2 or q5 against a baseline of 8 cases said "accuracy 0.750 -> 0.000, change
    +0.000": then over the 8, now over the 2 that ran, which failed in both runs."""
    make_project("quiz", verdict_project(**EIGHT), files={"scorers/verdict.py": VERDICT_SCORER})
    pytester.runpytest("--arena-save-baseline", "base.json")
    summary = tmp_path / "summary.md"
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("GITHUB_STEP_SUMMARY", str(summary))
        result = pytester.runpytest(
            "-k", "q2 or q5", "--arena-baseline", "base.json", "--arena-json", "out.json"
        )
    said = "quiz sim_perfect: accuracy 0.000 -> 0.000, change 0.000 (95% CI *), *, 2 cases;"
    result.stdout.fnmatch_lines([f"{said} 0 regressed, 0 fixed, 0 new, 0 gone, 6 not run *"])
    (compared,) = json.loads(Path(pytester.path, "out.json").read_text())["baseline"]
    assert (compared["accuracy_then"], compared["accuracy_now"], compared["cases"]) == (0, 0, 2)
    assert "accuracy 0.000 -&gt; 0.000, change 0.000" in summary.read_text()  # (markdown)


def test_the_accuracies_then_and_now_differ_by_the_change_said() -> None:
    """New cases, cases not run, unscored cases and weights: now - then is the paired change
    on the cases both runs graded."""
    then = [record("a", True, "ok"), record("b", False, "no"), record("c", True, "ok")]
    then += [record("d", True, "ok"), record("e", True, "ok")]
    now = [record("a", False, "no"), record("b", True, "ok"), record("f", True, "ok")]
    now += [replace(record("c", True, "ok"), weight=3.0), Record("p", "d", "m", UNSCORED)]
    (c,) = compare_with(now, read_baseline(baseline_text(then), "base.json"), {"p": list("abcdef")})
    assert (c.accuracy_then, c.accuracy_now) == (pytest.approx(4 / 5), pytest.approx(4 / 5))
    assert c.comparison.difference.estimate == pytest.approx(c.accuracy_now - c.accuracy_then)
    (worse,) = compare_with(now[:1], read_baseline(baseline_text(then), "base.json"))
    assert (worse.accuracy_then, worse.accuracy_now) == (1, 0)
    assert worse.comparison.difference.estimate == -1
