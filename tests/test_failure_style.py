"""Failed arena cases in the terminal: pytest's failure blocks for a few, one line each for
many (or as `--arena-failures` and the `arena_failures` ini value say), while the user's own
Python tests keep pytest's output and the final counts stay pytest's."""

from __future__ import annotations

import pytest

from tests.conftest import XDIST, MakeProject


def cases(failing: int, passing: int = 1) -> str:
    """A project on sim_echo (it repeats the prompt): `failing` cases fail, `passing` pass."""
    tests = [f"  - {{id: wrong{i}, input: 'q{i}', reference: 'a{i}'}}" for i in range(failing)]
    tests += [f"  - {{id: right{i}, input: 'r{i}', reference: 'r{i}'}}" for i in range(passing)]
    return "models: [sim_echo]\ntests:\n" + "\n".join(tests) + "\n"


def one_line_each(failing: int, project: str = "p") -> list[str]:
    return [f"*= arena failures: {failing} cases, one line each =*"] + [
        f"FAILED projects/{project}/arena.yaml::wrong{i}[sim_echo] - expected 'a{i}', got 'q{i}'"
        for i in range(failing)
    ]


def test_more_than_twenty_failed_cases_are_one_line_each_above_the_leaderboard(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    make_project("p", cases(21))
    result = pytester.runpytest("-p", "no:cacheprovider")
    assert result.ret == 1
    result.stdout.fnmatch_lines(
        [
            *one_line_each(21),
            "(more than 20 failed, so compact: --arena-failures=full prints each case in full;",
            " --arena-html PATH writes a page to read every case in)",
            "*= arena leaderboard: p =*",
            "*= 21 failed, 1 passed in *",
        ]
    )
    out = result.stdout.str()
    assert "= FAILURES =" not in out
    assert "short test summary info" not in out
    assert out.count("wrong7[sim_echo]") == 1  # neither a block nor a second summary line


def test_twenty_failed_cases_keep_pytests_failure_blocks(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    make_project("p", cases(20))
    result = pytester.runpytest("-p", "no:cacheprovider")
    result.stdout.fnmatch_lines(
        [
            "*= FAILURES =*",
            "*_ p::wrong0?sim_echo? _*",
            "expected 'a0', got 'q0'",
            "  output:    'q0'",
            "*= arena leaderboard: p =*",
            "*short test summary info*",
            "FAILED projects/p/arena.yaml::wrong19[sim_echo] - expected 'a19', got 'q19'",
            "*= 20 failed, 1 passed in *",
        ]
    )
    assert "arena failures:" not in result.stdout.str()


@pytest.mark.parametrize(
    ("args", "ini", "compact"),
    [
        (["--arena-failures=full"], "", False),
        ([], "arena_failures = full", False),
        (["--arena-failures=compact"], "arena_failures = full", True),  # the command line wins
    ],
)
def test_the_style_is_chosen_on_the_command_line_or_in_the_ini_file(
    pytester: pytest.Pytester,
    make_project: MakeProject,
    args: list[str],
    ini: str,
    compact: bool,
) -> None:
    make_project("p", cases(25))
    pytester.makeini(f"[pytest]\n{ini}\n")
    result = pytester.runpytest("-p", "no:cacheprovider", *args)
    out = result.stdout.str()
    assert ("= FAILURES =" in out) is not compact
    assert ("arena failures: 25 cases, one line each" in out) is compact
    assert "so compact" not in out  # asked for, not chosen by size
    result.stdout.fnmatch_lines(["*= 25 failed, 1 passed in *"])


def test_compact_asked_for_prints_even_one_failure_in_a_line(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    make_project("p", cases(1))
    pytester.makeini("[pytest]\narena_failures = compact\n")
    result = pytester.runpytest("-p", "no:cacheprovider")
    result.stdout.fnmatch_lines(
        [
            "*= arena failures: 1 case, one line each =*",
            "FAILED projects/p/arena.yaml::wrong0[sim_echo] - expected 'a0', got 'q0'",
            "(--arena-failures=full prints each case in full;",
        ]
    )
    assert "= FAILURES =" not in result.stdout.str()


def test_a_style_the_ini_file_misspells_is_a_usage_error_naming_the_file(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    make_project("p", cases(1))
    ini = pytester.makeini("[pytest]\narena_failures = brief\n")
    result = pytester.runpytest("-p", "no:cacheprovider")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        [f"ERROR: {ini}: arena_failures = 'brief': give one of auto, compact, full"]
    )
    # a value given with -o is said as the -o's, not the ini file's (which said "compact")
    ini.write_text("[pytest]\narena_failures = compact\n")
    result = pytester.runpytest("-p", "no:cacheprovider", "-o", "arena_failures=bogus")
    result.stderr.fnmatch_lines(
        ["ERROR: -o: arena_failures = 'bogus': give one of auto, compact, full"]
    )
    # and --help still helps: the mistake is said when the run runs
    ini.write_text("[pytest]\narena_failures = brief\n")
    for shown in ("--help", "--fixtures", "--fixtures-per-test", "--markers"):
        result = pytester.runpytest(shown)
        assert result.ret == pytest.ExitCode.OK, (shown, result.stderr.str())
    result.stdout.fnmatch_lines(["@pytest.mark.arena(project, model, tag): an arena case*"])


def test_a_style_the_command_line_misspells_is_refused_with_the_choices(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    make_project("p", cases(1))
    result = pytester.runpytest("--arena-failures=brief")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--arena-failures: invalid choice: 'brief'*"])


def test_the_users_own_failing_tests_keep_pytests_blocks_beside_compact_cases(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    make_project("p", cases(30))
    pytester.makepyfile(
        test_mine="""
        def test_mine():
            expected = 2
            assert 1 == expected
        """
    )
    result = pytester.runpytest("-p", "no:cacheprovider")
    result.stdout.fnmatch_lines(
        [
            "*= FAILURES =*",
            "*_ test_mine _*",
            ">       assert 1 == expected",
            "E       assert 1 == 2",
            *one_line_each(30),
            "*= arena leaderboard: p =*",
            "*short test summary info*",
            "FAILED test_mine.py::test_mine - assert 1 == 2",
            "*= 31 failed, 1 passed in *",
        ]
    )
    out = result.stdout.str()
    assert out.count("wrong3[sim_echo]") == 1
    assert out.count("FAILED ") == 31  # each failure once: 30 arena lines and pytest's own


def test_a_projects_load_error_keeps_its_block_beside_compact_cases(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    make_project("p", cases(25))
    make_project("broken", "models: [sim_echo]\ntests:\n  - {id: x, inptu: a}\n")
    result = pytester.runpytest("-p", "no:cacheprovider")
    result.stdout.fnmatch_lines(
        [
            "*= ERRORS =*",
            "*ERROR at setup of broken::x*",
            "projects/broken/arena.yaml:3: tests?0?.inptu: unknown key 'inptu'",
            "  fix: did you mean 'input'? *",
            *one_line_each(25),
            "*short test summary info*",
            "ERROR projects/broken/arena.yaml::x*",  # pytest 8.3 adds no message here
        ]
    )
    assert result.ret != 0


def test_under_xdist_the_controller_prints_every_case_once(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    make_project("p", cases(24))
    result = pytester.runpytest("-p", "no:cacheprovider", *XDIST, "-n", "2")
    result.stdout.fnmatch_lines(["*= arena failures: 24 cases, one line each =*"])
    out = result.stdout.str()
    for i in range(24):
        assert out.count(f"::wrong{i}[sim_echo] - expected 'a{i}', got 'q{i}'") == 1
    assert "= FAILURES =" not in out
    result.stdout.fnmatch_lines(["*= 24 failed, 1 passed in *"])


def test_a_reason_many_cases_share_is_said_once(
    pytester: pytest.Pytester, make_project: MakeProject, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("ARENA_UNSET_KEY", raising=False)
    tests = "\n".join(f"  - {{id: c{i}, input: q{i}, reference: a}}" for i in range(25))
    make_project(
        "keys",
        "models:\n  default: [keyless]\n  define:\n"
        "    keyless: {connector: openai, base_url: 'http://127.0.0.1:9/v1',"
        " api_key_env: ARENA_UNSET_KEY}\n"
        f"tests:\n{tests}\n",
    )
    result = pytester.runpytest("-p", "no:cacheprovider")
    said = (
        "model 'keyless' call failed: the API key variable ARENA_UNSET_KEY is not set;"
        " export ARENA_UNSET_KEY=... (or set api_key_env to the variable that holds it)"
    )
    first = "projects/keys/arena.yaml::c0[keyless]"
    result.stdout.fnmatch_lines(
        [
            "*= arena failures: 25 cases, one line each =*",
            f"FAILED {first} - {said}",
            f"FAILED projects/keys/arena.yaml::c1[keyless] - the same reason as {first}",
        ]
    )
    assert result.stdout.str().count(said) == 1
    assert result.stdout.str().count(f"the same reason as {first}") == 24


def test_thousands_of_failing_cases_leave_the_users_own_tests_their_blocks(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    make_project("p", cases(2000))
    pytester.makepyfile(
        test_mine="""
        def test_mine():
            assert "arena" == "pytest"
        """
    )
    result = pytester.runpytest("-p", "no:cacheprovider")
    result.stdout.fnmatch_lines(
        [
            "*= FAILURES =*",
            "*_ test_mine _*",
            "E       AssertionError: assert 'arena' == 'pytest'",
            "*= arena failures: 2000 cases, one line each =*",
            "FAILED projects/p/arena.yaml::wrong1999?sim_echo? - expected 'a1999', got 'q1999'",
            "*short test summary info*",
            "FAILED test_mine.py::test_mine - AssertionError: assert 'arena' == 'pytest'",
            "*= 2001 failed, 1 passed in *",
        ]
    )
    assert result.stdout.str().count("FAILED ") == 2001


def test_compact_lines_name_the_case_from_where_pytest_runs(
    pytester: pytest.Pytester, make_project: MakeProject, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Run from a project's folder, the compact lines said rootdir-relative node ids
    (`projects/echo/arena.yaml::a[sim_echo]`), which pytest could not find when pasted back;
    pytest's own lines say `arena.yaml::a[sim_echo]` there."""
    pytester.makeini("[pytest]\n")
    make_project("echo", "models: [sim_echo]\ntests:\n  - {id: a, input: 'x?', reference: x}\n")
    monkeypatch.chdir(pytester.path / "projects" / "echo")
    result = pytester.runpytest("--arena-failures=compact", "-p", "no:cacheprovider")
    result.stdout.fnmatch_lines(["FAILED arena.yaml::a[[]sim_echo] - expected 'x', got 'x?'"])
    again = pytester.runpytest("arena.yaml::a[sim_echo]", "-p", "no:cacheprovider")
    again.assert_outcomes(failed=1)


def test_a_contracts_reason_is_one_line_with_its_components_apart(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    """A contract's reason, one line per component, ran into one line with the next
    component's name in mid-sentence."""
    make_project(
        "p",
        """
        models: [sim_echo]
        tests:
          - id: c
            input: say q
            reference: a
            scoring:
              - {name: exact, scorer: exact_match}
              - {name: has_q, scorer: contains, params: {values: [q]}}
        """,
    )
    result = pytester.runpytest("-p", "no:cacheprovider", "--arena-failures=compact")
    result.stdout.fnmatch_lines(
        [
            "FAILED projects/p/arena.yaml::c[[]sim_echo] - 1 of 2 components passed;"
            " exact 0.00 x1 failed: expected 'a', got 'say q';"
            " has_q 1.00 x1 passed: *"
        ]
    )


def test_the_compact_footer_names_the_page_asked_for(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    """It told a user who had given --arena-html that --arena-html PATH writes a page."""
    make_project("p", cases(1))
    result = pytester.runpytest(
        "-p", "no:cacheprovider", "--arena-failures=compact", "--arena-html", "out/run.html"
    )
    result.stdout.fnmatch_lines(
        [
            "(--arena-failures=full prints each case in full;",
            " every case is in the page --arena-html writes, out/run.html)",
        ]
    )
    assert "--arena-html PATH" not in result.stdout.str()


def test_a_near_identical_answer_is_never_said_to_score_1_00(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    """An edit similarity of 0.99537 was said as "edit similarity 1.00 ..., below 0.999":
    identical, and failed."""
    reference = "x" * 215 + "y"  # sim_echo answers with x * 216: one edit in 216
    make_project(
        "p",
        f"""
        models: [sim_echo]
        scorers: {{default: edit_similarity, options: {{edit_similarity: {{threshold: 0.999}}}}}}
        tests:
          - {{id: c, input: {"x" * 216}, reference: {reference}}}
        """,
    )
    result = pytester.runpytest("-p", "no:cacheprovider", "--arena-failures=compact")
    result.stdout.fnmatch_lines(["FAILED *::c[[]sim_echo] - edit similarity 0.995 to *"])
    assert "edit similarity 1.00" not in result.stdout.str()


@pytest.mark.parametrize("reason", ["", "   "])
def test_a_compact_line_of_a_scorer_that_gave_no_reason_says_so(
    pytester: pytest.Pytester, make_project: MakeProject, reason: str
) -> None:
    """It said only 'failed', or nothing after the dash."""
    make_project(
        "nr",
        "models: [sim_perfect]\nscorers: {default: strict}\ntests:\n  - {id: a, input: a, reference: a}\n",
        files={
            "scorers/strict.py": "from pytest_arena.scorers import Scorer, ScoreResult\n\n\n"
            "class Strict(Scorer):\n    name = 'strict'\n\n"
            "    def score(self, output, reference, context):\n"
            f"        return ScoreResult(score=0.0, passed=False, reason={reason!r})\n"
        },
    )
    result = pytester.runpytest("-p", "no:cacheprovider", "--arena-failures=compact")
    result.stdout.fnmatch_lines(
        [
            "FAILED projects/nr/arena.yaml::a[sim_perfect] - scorer 'strict' failed the output"
            " without a reason"
        ]
    )
