"""Script scorers: programs that read a JSON context and print a score."""

from __future__ import annotations

import json
import shutil
import stat
import sys
import textwrap
from pathlib import Path

import pytest

from pytest_arena.scorers.script import ScriptFailed, ScriptScorer
from pytest_arena.testing import scoring_context
from tests.conftest import ROOT, MakeProject
from tests.fake_llm_server import FakeLLMServer

# The bash scorer from Runloop's custom-scorer guide (shared/seeds/001_...), character for
# character as the guide passes it in `bash_script`: it starts with a newline and is indented.
RUNLOOP_SCRIPT = '\n    #!/bin/bash\n\n    # Parse the test context to get expected length and file path\n    expected_length=$(echo "$RL_SCORER_CONTEXT" | jq -r \'.expected_length\')\n    file_path=$(echo "$RL_SCORER_CONTEXT" | jq -r \'.file_path\')\n\n    # Read the file contents\n    file_contents=$(cat "$file_path")\n\n    # Get the actual length by counting characters in file contents\n    actual_length=$(echo -n "$file_contents" | wc -m)\n\n    # Compare lengths and exit with appropriate code\n    # Calculate difference between actual and expected length\n    diff=$(( actual_length > expected_length ? actual_length - expected_length : expected_length - actual_length ))\n    \n    # Calculate score based on difference (1.0 when equal, decreasing linearly as difference increases)\n    # Use bc for floating point math\n    score=$(echo "scale=2; 1.0 - ($diff / $expected_length)" | bc)\n    \n    # Ensure score doesn\'t go below 0\n    if (( $(echo "$score < 0" | bc -l) )); then\n        echo "0.0"\n    else\n        echo "$score"\n    fi\n    '

needs_jq_and_bc = pytest.mark.skipif(
    not (shutil.which("jq") and shutil.which("bc")), reason="the Runloop script uses jq and bc"
)


def executable(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text).lstrip("\n"))
    path.chmod(path.stat().st_mode | stat.S_IXUSR)


LENGTH_PROJECT = """
models: [sim_perfect]
scorers:
  default: length
  options:
    length:
      expected_length: 10
      file_path: "{output_file}"
tests:
  - {id: exactly_ten, input: "?", reference: "0123456789"}
  - {id: seven, input: "?", reference: "0123456"}
  - {id: far_off, input: "?", reference: "012345678901234567890123456789"}
"""


@needs_jq_and_bc
def test_the_runloop_guide_script_runs_unchanged(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    root = make_project("files", LENGTH_PROJECT)
    (root / "scorers").mkdir()
    (root / "scorers" / "length.sh").write_text(RUNLOOP_SCRIPT)
    result = pytester.runpytest("-rA")
    result.assert_outcomes(passed=1, failed=2)
    # 1 - |7 - 10| / 10 = .70 (bc prints no leading zero); 30 characters score below 0: 0.0
    result.stdout.fnmatch_lines(
        ["script scorers/length.sh scored 0.7", "  scorer:    length (score 0.70)"]
    )
    result.stdout.fnmatch_lines(
        ["script scorers/length.sh scored 0", "  scorer:    length (score 0.00)"]
    )


# The seed's scenario: "my scorer", weight 1.0, scorer_params passed as the component's params.
SEED_SCENARIO = """
models: [sim_perfect]
scoring:
  - name: my scorer
    scorer: length
    weight: 1.0
    params: {expected_length: 10, file_path: "{output_file}"}
tests:
  - {id: exactly_ten, input: "Write 10 characters.", reference: "0123456789"}
  - {id: seven, input: "Write 10 characters.", reference: "0123456"}
  - {id: far_off, input: "Write 10 characters.", reference: "012345678901234567890123456789"}
"""


@needs_jq_and_bc
def test_the_runloop_guide_script_runs_verbatim_with_the_seed_params(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    root = make_project("seed", SEED_SCENARIO)
    (root / "scorers").mkdir()
    (root / "scorers" / "length.sh").write_text(RUNLOOP_SCRIPT)
    result = pytester.runpytest("-rA")
    result.assert_outcomes(passed=1, failed=2)
    result.stdout.fnmatch_lines(["PASSED projects/seed/arena.yaml::exactly_ten[[]sim_perfect]"])
    result.stdout.fnmatch_lines(
        [
            "*_ seed::seven[[]sim_perfect] _*",
            "0 of 1 components passed",
            "  my scorer  0.70 x1  failed: script scorers/length.sh scored 0.7",
        ]
    )
    result.stdout.fnmatch_lines(
        [
            "*_ seed::far_off[[]sim_perfect] _*",
            "0 of 1 components passed",
            "  my scorer  0.00 x1  failed: script scorers/length.sh scored 0",
        ]
    )
    # accuracy: (1.0 + 0.7 + 0.0) / 3
    result.stdout.re_match_lines(
        [r"\s+1\s+sim_perfect\s+0\.567 ± 0\.500\s+0\.567 ± 0\.500\s+33\.3% ± 36\.5\s+3\s+2\s+0\s"]
    )


@needs_jq_and_bc
def test_the_example_project_ships_the_runloop_script() -> None:
    shipped = ROOT / "projects" / "support_replies" / "scorers" / "length.sh"
    assert (
        shipped.read_text()
        == "#!/bin/bash\n" + textwrap.dedent(RUNLOOP_SCRIPT).split("#!/bin/bash\n", 1)[1]
    )
    assert shipped.stat().st_mode & stat.S_IXUSR
    scorer = ScriptScorer("length", [str(shipped)], "script scorers/length.sh")
    ctx = scoring_context(options={"expected_length": 4, "file_path": "{output_file}"})
    assert scorer.score("abcd", None, ctx).score == 1.0
    assert scorer.score("abc", None, ctx).score == 0.75


def test_the_script_sees_the_case_output_and_params_in_its_context(
    pytester: pytest.Pytester, make_project: MakeProject, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = make_project(
        "ctx",
        """
        models: [sim_perfect]
        tests:
          - id: seen
            input: "the question"
            reference: "the answer"
            tags: [t1]
            scoring:
              - scorer: inspect
                params: {where: "{project_root}/data", nested: {file: "{output_file}"}}
        """,
    )
    executable(
        root / "scorers" / "inspect",
        f"""
        #!{__import__("sys").executable}
        import json, os, pathlib
        ctx = json.loads(os.environ["ARENA_SCORER_CONTEXT"])
        assert os.environ["RL_SCORER_CONTEXT"] == os.environ["ARENA_SCORER_CONTEXT"]
        pathlib.Path(os.environ["DUMP"]).write_text(json.dumps(ctx))
        print(json.dumps({{"score": 0.5, "passed": True, "reason": "looked", "metrics": {{"checks": 3}}}}))
        """,
    )
    dump = pytester.path / "context.json"
    monkeypatch.setenv("DUMP", str(dump))
    result = pytester.runpytest()
    result.assert_outcomes(passed=1)
    ctx = json.loads(dump.read_text())
    assert ctx["case"] == {
        "id": "seen",
        "input": "the question",
        "reference": "the answer",
        "tags": ["t1"],
        "metadata": {},
    }
    assert ctx["output"] == "the answer"
    assert ctx["model"] == "sim_perfect"
    assert ctx["where"] == f"{root}/data"
    assert ctx["project_root"] == str(root)
    assert Path(ctx["nested"]["file"]).name == "output.txt"
    assert ctx["output_file"] == ctx["nested"]["file"]
    result.stdout.re_match_lines([r".*\s0\.500\s.*\s3\.000$"])


def test_broken_scripts_fail_their_case_with_the_reason_and_the_rest_runs(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    """A broken script is an error of its case, as a Python scorer that raises is (it was a
    failure of the model's, and an `errors: {max: 0}` gate held over two broken scorers)."""
    root = make_project(
        "broken",
        """
        models: [sim_perfect]
        tests:
          - {id: slow, input: "?", reference: x, eval_type: sleepy}
          - {id: crash, input: "?", reference: x, eval_type: crashes}
          - {id: garbage, input: "?", reference: x, eval_type: chatty}
          - {id: too_high, input: "?", reference: x, eval_type: generous}
          - {id: fine, input: "?", reference: x}
        scorers:
          options:
            sleepy: {timeout: 0.5}
        """,
    )
    executable(root / "scorers" / "sleepy.sh", "#!/bin/bash\necho starting >&2\nsleep 5\necho 1\n")
    executable(
        root / "scorers" / "crashes.sh", "#!/bin/bash\necho 'jq: command not found' >&2\nexit 3\n"
    )
    executable(root / "scorers" / "chatty.sh", "#!/bin/bash\necho 'the score is'\necho 'great!'\n")
    executable(root / "scorers" / "generous.sh", "#!/bin/bash\necho 1.7\n")
    result = pytester.runpytest("-rA", "--arena-json=r.json")
    result.assert_outcomes(passed=1, failed=4)
    found = {r["case"]: r["status"] for r in json.loads(Path("r.json").read_text())["records"]}
    assert found == {"slow": "error", "crash": "error", "garbage": "error"} | {
        "too_high": "error",
        "fine": "passed",
    }
    result.stdout.fnmatch_lines(["*sim_perfect*5*0*4*"])  # cases, failed, errors
    result.stdout.fnmatch_lines(
        ["script scorers/sleepy.sh timed out after 0.5 s; end of stderr: 'starting'"]
    )
    result.stdout.fnmatch_lines(
        ["script scorers/crashes.sh exited with status 3; end of stderr: 'jq: command not found'"]
    )
    result.stdout.fnmatch_lines(
        [
            "script scorers/chatty.sh printed 'great!' as its last line, which is not a score"
            " (a number from 0 to 1, or a JSON object with 'score')"
        ]
    )
    result.stdout.fnmatch_lines(["script scorers/generous.sh printed 1.7, which is outside 0-1"])
    result.stdout.fnmatch_lines(["PASSED projects/broken/arena.yaml::fine[[]sim_perfect]"])


def test_a_command_component_runs_any_program(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    make_project(
        "cmd",
        f"""
        models: [sim_perfect]
        tests:
          - id: checked
            input: "?"
            reference: "hello world"
            scoring:
              - name: words
                command: ["{__import__("sys").executable}", "check.py"]
                params: {{min_words: 2}}
        """,
        files={
            "check.py": """
            import json, os
            ctx = json.loads(os.environ["ARENA_SCORER_CONTEXT"])
            words = len(open(ctx["output_file"]).read().split())
            print(1.0 if words >= ctx["min_words"] else 0.0)
            """
        },
    )
    result = pytester.runpytest("-v")
    result.assert_outcomes(passed=1)


@needs_jq_and_bc
def test_the_output_never_reaches_a_shell(tmp_path: Path) -> None:
    marker = tmp_path / "pwned"
    script = tmp_path / "echo.sh"
    executable(
        script,
        '#!/bin/bash\ncat "$(echo "$ARENA_SCORER_CONTEXT" | jq -r .output_file)" >/dev/null\necho 1\n',
    )
    scorer = ScriptScorer("echo", [str(script)], "script echo.sh")
    hostile = f"$(touch {marker}); `touch {marker}`; rm -rf /"
    result = scorer.score(hostile, None, scoring_context(project_root=tmp_path))
    assert result.score == 1.0
    assert not marker.exists()


@needs_jq_and_bc
def test_params_may_name_the_workspace_and_the_project_root(tmp_path: Path) -> None:
    script = tmp_path / "where.sh"
    executable(
        script,
        '#!/bin/bash\nf=$(echo "$ARENA_SCORER_CONTEXT" | jq -r .report)\n'
        'r=$(echo "$RL_SCORER_CONTEXT" | jq -r .root)\n'
        'test -f "$f" && test -d "$r/data" && echo 1 || echo 0\n',
    )
    workspace = tmp_path / "agent"
    (workspace).mkdir()
    (workspace / "report.md").write_text("done")
    (tmp_path / "data").mkdir()
    ctx = scoring_context(
        options={"report": "{workspace}/report.md", "root": "{project_root}"},
        project_root=tmp_path,
        workspace=workspace,
    )
    scorer = ScriptScorer("where", [str(script)], "script where.sh")
    assert scorer.score("out", None, ctx).score == 1.0
    (workspace / "report.md").unlink()
    assert scorer.score("out", None, ctx).score == 0.0


@needs_jq_and_bc
def test_a_very_long_output_still_reaches_the_script_in_full(tmp_path: Path) -> None:
    script = tmp_path / "count.sh"
    executable(
        script,
        '#!/bin/bash\nf=$(echo "$ARENA_SCORER_CONTEXT" | jq -r .output_file)\n'
        'test "$(wc -c < "$f")" -eq 500000 && echo 1 || echo 0\n',
    )
    scorer = ScriptScorer("count", [str(script)], "script count.sh")
    assert scorer.score("x" * 500_000, None, scoring_context(project_root=tmp_path)).score == 1.0


@pytest.mark.parametrize(
    ("printed", "score", "passed", "reason"),
    [
        ("1", 1.0, True, "script s scored 1"),
        ("0.25", 0.25, False, "script s scored 0.25"),
        (".70", 0.7, False, "script s scored 0.7"),
        ('{"score": 0.4, "passed": true, "reason": "close enough"}', 0.4, True, "close enough"),
        ('{"score": 0.9}', 0.9, False, "script s scored 0.9"),
        ('{"score": 1, "passed": null}', 1.0, None, "script s scored 1"),
        (
            '{"score": "high"}',
            0.0,
            False,
            "script s printed '{\"score\": \"high\"}', whose 'score' is not a number",
        ),
        ("-0.1", 0.0, False, "script s printed -0.1, which is outside 0-1"),
        # a rounding error outside 0-1 (0.1 + 0.2 of 0.3) is 0 or 1; more is still refused
        ("1.0000000000000002", 1.0, True, "script s scored 1"),
        ('{"score": 1.0000000000000002}', 1.0, True, "script s scored 1"),
        ('{"score": -1e-17, "passed": null}', 0.0, None, "script s scored 0"),
        ("1.000001", 0.0, False, "script s printed 1.000001, which is outside 0-1"),
        (
            '{"score": -0.000001}',
            0.0,
            False,
            "script s printed a score of -1e-06, which is outside 0-1",
        ),
        ("nan", 0.0, False, "script s printed nan, which is outside 0-1"),
        (
            '{"score": 1, "metrics": {"n": "x"}}',
            0.0,
            False,
            "script s printed metrics that are not all finite numbers: ['n']",
        ),
        (
            '{"score": 1, "metrics": {"n": NaN, "m": 2}}',
            0.0,
            False,
            "script s printed metrics that are not all finite numbers: ['n']",
        ),
        # an integer of more digits than Python reads (4,300) was "raised ValueError"
        (
            '{"score": 1' + "0" * 5000 + "}",
            0.0,
            False,
            'script s printed \'{"score": 1' + "0" * 48 + "…', whose 'score' is an integer of"
            " 5,001 digits, not a number arena can read; print a number from 0 to 1, such as"
            ' {"score": 0.8}',
        ),
        (
            "-1" + "0" * 5000,
            0.0,
            False,
            "script s printed '-1" + "0" * 57 + "…' as its last line, an integer of 5,001"
            " digits, not a score arena can read; print a number from 0 to 1, or a JSON object"
            " with 'score'",
        ),
        (
            '{"score": 1, "metrics": {"n": 1' + "0" * 5000 + "}}",
            0.0,
            False,
            "script s printed metrics that are not all finite numbers: ['n']",
        ),
        ('{"score": 1, "detail": {"n": 1' + "0" * 5000 + "}}", 1.0, True, "script s scored 1"),
        # a number of 5,000 digits, infinite as a float: said in full, 5,000 digits long
        (
            "1" * 5000 + ".5",
            0.0,
            False,
            "script s printed '" + "1" * 59 + "…', which is outside 0-1",
        ),
        (
            '{"score": 1, "metrics": [1, 2]}',
            0.0,
            False,
            "script s printed 'metrics': '[1, 2]'; it must be an object of numbers,"
            ' such as {"words": 12}',
        ),
    ],
)
def test_what_a_script_prints_is_read_as_a_score(
    tmp_path: Path, printed: str, score: float, passed: bool | None, reason: str
) -> None:
    script = tmp_path / "s.sh"
    executable(script, f"#!/bin/bash\necho 'noise first'\ncat <<'EOF'\n{printed}\nEOF\n")
    scorer = ScriptScorer("s", [str(script)], "script s")
    if score == 0.0 and passed is False:  # no score it could print: the scorer failed
        with pytest.raises(ScriptFailed) as failed:
            scorer.score("out", None, scoring_context(project_root=tmp_path))
        assert str(failed.value) == reason
        return
    result = scorer.score("out", None, scoring_context(project_root=tmp_path))
    assert (result.score, result.passed, result.reason) == (pytest.approx(score), passed, reason)


def test_a_file_with_a_shebang_that_is_not_executable_is_a_problem(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    make_project(
        "perm",
        "models: [sim_perfect]\ntests:\n  - {id: a, input: x, reference: x}\n",
        files={"scorers/check.py3": "#!/usr/bin/env python3\nprint(1)\n"},
    )
    result = pytester.runpytest()
    result.assert_outcomes(passed=1, errors=1)
    result.stdout.fnmatch_lines(
        [
            "projects/perm/scorers/check.py3:1: scorers/check.py3 starts with '#!' but is not executable",
            "  fix: make it a script scorer with: chmod +x scorers/check.py3",
        ]
    )


def test_a_context_too_big_for_a_variable_is_whole_in_context_file(tmp_path: Path) -> None:
    script = tmp_path / "whole.py"
    script.write_text(
        "import json, os\n"
        "told = json.loads(os.environ['ARENA_SCORER_CONTEXT'])\n"
        "whole = json.load(open(told['context_file']))\n"
        "pages = len(whole['trajectory'])\n"
        "print(json.dumps({'score': 1, 'reason': f\"{pages} steps, cut: {told.get('cut')}\"}))\n"
    )
    scorer = ScriptScorer("whole", [sys.executable, str(script)], "script whole.py")
    page = "x" * 19_000  # four tool results of 19,000 characters: over Linux's 128 KiB
    steps = [{"message": {"content": ""}, "tool_results": [{"content": page}]} for _ in range(8)]
    ctx = scoring_context(trajectory=steps, response={"trajectory": steps})
    result = scorer.score("done", None, ctx)
    assert result.passed, result.reason  # before: "could not be started: Argument list too long"
    assert result.reason.endswith("8 steps, cut: ['trajectory', 'response']")


@pytest.mark.parametrize("where", ["input", "metadata"])
def test_a_long_case_leaves_the_scorers_params_in_the_variable(tmp_path: Path, where: str) -> None:
    """A 112 kB document as the input (or in the metadata) left the variable only where
    things are: the seed's script read `.expected_length` as null and failed every case."""
    script = tmp_path / "params.py"
    script.write_text(
        "import json, os\n"
        "told = json.loads(os.environ['ARENA_SCORER_CONTEXT'])\n"
        "whole = json.load(open(told['context_file']))\n"
        "size = len(json.dumps(whole['case']))\n"
        "print(json.dumps({'score': 1, 'reason':"
        " f\"{told['expected_length']} {told['case']['id']} {size > 100_000} {told['cut']}\"}))\n"
    )
    scorer = ScriptScorer("params", [sys.executable, str(script)], "script params.py")
    document = "word " * 22_400
    ctx = scoring_context(
        "0123456789",
        case_id="long_doc",
        options={"expected_length": 10},
        **({"input": document} if where == "input" else {"metadata": {"doc": document}}),
    )
    result = scorer.score("0123456789", "0123456789", ctx)
    assert result.reason == f"10 long_doc True ['trajectory', 'response', 'case.{where}']"


INHERITED = {  # variables the run inherits, each holding a key a script may print
    "OPENAI_API_KEY": "sk-proj-INHERITEDopenai0001",  # a provider's
    "GITHUB_TOKEN": "ghp_INHERITEDgithub0002",  # named as a credential
    "GATEWAY_LLM": "gw-INHERITEDgateway0003",  # named by a model's api_key_env alone
}


def test_keys_a_script_inherits_are_kept_out_of_its_reasons_and_the_report(
    pytester: pytest.Pytester,
    make_project: MakeProject,
    monkeypatch: pytest.MonkeyPatch,
    fake_llm: FakeLLMServer,
) -> None:
    """A script scorer that called a judge itself and failed said so on stderr with the key it
    sent: the end of its stderr is quoted in the reason, which went whole into the terminal
    and the JSON report; so did a last line of stdout that was no score, and a reason."""
    for name, value in INHERITED.items():
        monkeypatch.setenv(name, value)
    root = make_project(
        "leaky",
        f"""
        models:
          default: [sim_perfect, gateway]
          define:
            gateway:
              connector: openai
              base_url: "{fake_llm.base_url}"
              api_key_env: GATEWAY_LLM
              cache: false
        tests:
          - {{id: on_stderr, input: x, reference: x, eval_type: on_stderr}}
          - {{id: on_stdout, input: x, reference: x, eval_type: on_stdout}}
          - {{id: in_reason, input: x, reference: x, eval_type: in_reason}}
        """,
    )
    sent = "sent $OPENAI_API_KEY, $GITHUB_TOKEN, $GATEWAY_LLM"
    executable(root / "scorers" / "on_stderr.sh", f'#!/bin/bash\necho "{sent}" >&2\nexit 2\n')
    executable(root / "scorers" / "on_stdout.sh", f'#!/bin/bash\necho "{sent}"\n')
    executable(
        root / "scorers" / "in_reason.sh",
        f'#!/bin/bash\necho "{{\\"score\\": 1, \\"reason\\": \\"{sent}\\"}}"\n',
    )
    result = pytester.runpytest("-p", "no:cacheprovider", "-rA", "--arena-json", "r.json")
    result.assert_outcomes(passed=2, failed=4)
    report = Path("r.json").read_text()
    for said in (result.stdout.str(), report):
        assert not [value for value in INHERITED.values() if value in said]
    result.stdout.fnmatch_lines(
        [
            "script scorers/on_stderr.sh exited with status 2; end of stderr: 'sent ***, ***, ***'",
            "script scorers/on_stdout.sh printed 'sent ***, ***, ***' as its last line, which is"
            " not a score*",
        ]
    )
    reasons = {(r["case"], r["model"]): r["reason"] for r in json.loads(report)["records"]}
    assert reasons[("in_reason", "gateway")] == reasons[("in_reason", "sim_perfect")]
    assert reasons[("in_reason", "gateway")] == "sent ***, ***, ***"


def test_a_script_printing_more_than_arena_reads_fails_its_case_rather_than_grade_a_cut_score(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    """Arena reads 16 MiB of stdout: a script that printed more was graded on a line from
    the middle of its output (`1`), and its case passed though its last line was `0`."""
    root = make_project(
        "p",
        """
        models: [sim_perfect]
        tests:
          - {id: cut, input: a, reference: a, eval_type: verbose}
          - {id: fine, input: a, reference: a}
        """,
    )
    executable(root / "scorers" / "verbose.sh", "#!/bin/sh\nyes 1 | head -n 9000000\necho 0\n")
    result = pytester.runpytest("-p", "no:cacheprovider", "--arena-json=r.json")
    result.assert_outcomes(passed=1, failed=1)
    found = {r["case"]: r["status"] for r in json.loads(Path("r.json").read_text())["records"]}
    assert found == {"cut": "error", "fine": "passed"}
    result.stdout.fnmatch_lines(
        [
            "script scorers/verbose.sh printed more than 16 MiB to stdout, more than arena"
            " reads, so its output was cut and is not graded; print the score (a number, or a"
            " JSON object) alone as the last line, and the rest to stderr or to a file"
        ]
    )


def test_the_end_of_a_stderr_longer_than_arena_keeps_is_quoted(tmp_path: Path) -> None:
    """arena kept the first 16 MiB of stderr and said it was cut; the reason a script
    gives comes last, so the end is kept and quoted."""
    script = tmp_path / "noisy.py"
    script.write_text(
        "import sys\n"
        "sys.stderr.write('step\\n' * 4_000_000)\n"  # 20 MB before the reason
        "sys.stderr.write('the real reason\\n')\n"
        "sys.exit(2)\n"
    )
    scorer = ScriptScorer("noisy", [sys.executable, str(script)], "script noisy.py")
    with pytest.raises(ScriptFailed) as failed:
        scorer.score("out", None, scoring_context(project_root=tmp_path))
    said = str(failed.value)
    assert said.startswith("script noisy.py exited with status 2; end of stderr: '")
    assert said.endswith("step\\nthe real reason'")


# a script that keeps what it was given, as bytes, and scores the output's length
KEEPER = """
import json, os, pathlib, sys
told = os.environb[b"ARENA_SCORER_CONTEXT"]
context = json.loads(told)
kept = pathlib.Path(os.environ["KEPT"])
kept.joinpath("variable.json").write_bytes(told)
kept.joinpath("context.json").write_bytes(pathlib.Path(context["context_file"]).read_bytes())
kept.joinpath("output.txt").write_bytes(pathlib.Path(context["output_file"]).read_bytes())
print(1 if len(context["output"]) == 7 else 0)
"""


def test_an_output_holding_a_lone_surrogate_reaches_the_script_as_utf_8(
    pytester: pytest.Pytester, make_project: MakeProject, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A model's answer ending in half an emoji (valid JSON from a server: "Here: \\ud83d")
    failed its case with arena's own traceback: output.txt could not be written."""
    root = make_project(
        "p",
        """
        models:
          default: [surr]
          define:
            surr: {connector: python, callable: "agent:answer"}
        tests:
          - {id: cut_emoji, input: a, reference: a, eval_type: length}
        """,
        files={"agent.py": "def answer(prompt):\n    return 'Here: \\ud83d'\n"},
    )
    executable(root / "scorers" / "length", f"#!{sys.executable}\n{KEEPER}")
    kept = pytester.path / "kept"
    kept.mkdir()
    monkeypatch.setenv("KEPT", str(kept))
    result = pytester.runpytest("-p", "no:cacheprovider")
    result.assert_outcomes(passed=1)
    assert (kept / "output.txt").read_text(encoding="utf-8") == "Here: \ufffd"
    for told in ("variable.json", "context.json"):
        assert json.loads((kept / told).read_text(encoding="utf-8"))["output"] == "Here: \ud83d"


def test_a_case_holding_lone_surrogates_reaches_the_script_exactly(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A case's input, reference or metadata, or a param, holding half a UTF-16 pair failed
    its case with arena's own traceback: context.json could not be written."""
    script = tmp_path / "keeper.py"
    script.write_text(KEEPER.replace("== 7", "== 3"))
    scorer = ScriptScorer("keeper", [sys.executable, str(script)], "script keeper.py")
    case = {"input": "in \ud800", "metadata": {"note": "\udfff"}}
    ctx = scoring_context("ref \udc80", **case, options={"hint": "\udbff!"})
    monkeypatch.setenv("KEPT", str(tmp_path))
    assert scorer.score("out", "ref \udc80", ctx).passed
    for told in ("variable.json", "context.json"):
        context = json.loads((tmp_path / told).read_text(encoding="utf-8"))
        assert context["case"]["input"] == "in \ud800"
        assert context["case"]["reference"] == "ref \udc80"
        assert context["case"]["metadata"] == {"note": "\udfff"}
        assert context["hint"] == "\udbff!"
