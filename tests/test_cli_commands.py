"""`arena init`, `arena report`, `arena compare` and `arena models`, run as the command is."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tests.conftest import ARENA, XDIST, MakeProject

PROJECT = """
models: [sim_small]
tests:
  - {id: q1, input: "2 + 2?", reference: "4"}
  - {id: q2, input: "Capital of Italy?", reference: "Rome"}
  - {id: q3, input: "3 * 7?", reference: "21"}
  - {id: q4, input: "Largest planet?", reference: "Jupiter"}
  - {id: q5, input: "10 - 4?", reference: "6"}
  - {id: q6, input: "Capital of Spain?", reference: "Madrid"}
"""


def run_json(pytester: pytest.Pytester, name: str, *args: str) -> dict:
    pytester.runpytest_subprocess("projects", "--arena-json", name, "-q", *args)
    data: dict = json.loads((pytester.path / name).read_text())
    return data


@pytest.mark.parametrize("command", ["evaluate", "init", "report", "compare", "models", "cache"])
def test_every_command_has_help_with_an_example(pytester: pytest.Pytester, command: str) -> None:
    result = pytester.run(*ARENA, command, "--help")
    assert result.ret == 0
    result.stdout.fnmatch_lines([f"usage: arena {command}*", "example:", f"  arena {command}*"])


def test_init_writes_a_project_that_runs_green_at_once(pytester: pytest.Pytester) -> None:
    made = pytester.run(*ARENA, "init", "projects/faq")
    assert made.ret == 0, made.stderr.str()
    root = pytester.path / "projects" / "faq"
    assert (root / "arena.yaml").is_file()
    assert (root / "scorers" / "keywords.py").is_file()
    assert (root / "tests" / "test_faq_keywords.py").is_file()
    made.stdout.fnmatch_lines(["*arena evaluate --project projects/faq"])
    run = pytester.run(*ARENA, "evaluate", "--project", "projects/faq", "-v")
    assert run.ret == 0, run.stdout.str()
    run.stdout.fnmatch_lines(
        [
            "*arena.yaml::capital_of_france[[]sim_perfect] PASSED*",
            "*arena.yaml::boiling_point[[]sim_perfect] PASSED*",
            "*test_faq_keywords.py::test_an_answer_with_the_key_words_passes PASSED*",
            "*test_faq_keywords.py::test_an_answer_without_them_fails_and_says_what_is_missing*",
            "*test_faq_keywords.py::test_a_reference_without_words_is_unscored PASSED*",
            "*arena leaderboard: faq*",
            "*5 passed*",
        ]
    )
    # the custom scorer grades: a model that gets cases wrong fails them with its reason
    echo = pytester.run(*ARENA, "evaluate", "--project", "projects/faq", "--models", "sim_echo")
    assert echo.ret == 1
    echo.stdout.fnmatch_lines(["*key words; missing:*"])


def test_init_refuses_a_folder_with_files_and_a_bad_name(pytester: pytest.Pytester) -> None:
    (pytester.path / "taken").mkdir()
    (pytester.path / "taken" / "notes.txt").write_text("mine")
    taken = pytester.run(*ARENA, "init", "taken")
    assert taken.ret == 4
    taken.stderr.fnmatch_lines(["arena init: taken exists and is not an empty folder*"])
    assert (pytester.path / "taken" / "notes.txt").read_text() == "mine"
    bad = pytester.run(*ARENA, "init", "my project")
    assert bad.ret == 4
    bad.stderr.fnmatch_lines(["arena init: 'my project' cannot name a project*"])
    hyphened = pytester.run(*ARENA, "init", "projects/faq-bot")  # a name pytest runs as well
    assert hyphened.ret == 0, hyphened.stderr.str()
    assert (pytester.path / "projects/faq-bot/tests/test_faq_bot_keywords.py").exists()
    ran = pytester.runpytest_subprocess("projects/faq-bot")
    ran.assert_outcomes(passed=5)  # as a project named my_project: its cases and tests
    (pytester.path / "afile").write_text("")
    inside = pytester.run(*ARENA, "init", "afile/sub")  # a file where a folder should be
    assert inside.ret == 4
    inside.stderr.fnmatch_lines(
        ["arena init: cannot write afile/sub/arena.yaml: Not a directory;*"]
    )
    assert "Traceback" not in inside.stderr.str()


def test_report_renders_the_html_of_a_json_report(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    make_project("mine", PROJECT)
    run_json(pytester, "run.json")
    pytester.runpytest_subprocess("projects", "--arena-html", "direct.html", "-q")
    result = pytester.run(*ARENA, "report", "run.json", "--html", "out/report.html")
    assert result.ret == 0, result.stderr.str()
    result.stdout.fnmatch_lines(["wrote out/report.html (6 records)"])
    page = (pytester.path / "out" / "report.html").read_text()
    direct = (pytester.path / "direct.html").read_text()
    assert "<h2>mine</h2>" in page and "sim_small" in page

    def data(text: str) -> object:
        block = re.search(r'<script type="application/json"[^>]*>(.*?)</script>', text, re.S)
        assert block
        return json.loads(block.group(1))

    assert data(page) == data(direct)  # the same records as --arena-html gives


def test_report_and_compare_refuse_what_is_not_a_report(pytester: pytest.Pytester) -> None:
    (pytester.path / "broken.json").write_text('{"records": [\n')
    (pytester.path / "other.json").write_text('{"name": "package.json"}')
    broken = pytester.run(*ARENA, "report", "broken.json", "--html", "x.html")
    assert broken.ret == 4
    broken.stderr.fnmatch_lines(["arena report: broken.json:2: not JSON*"])
    other = pytester.run(*ARENA, "compare", "other.json", "other.json")
    assert other.ret == 4
    other.stderr.fnmatch_lines(["arena compare: other.json is not an --arena-json report*"])
    missing = pytester.run(*ARENA, "report", "nowhere.json", "--html", "x.html")
    assert missing.ret == 4
    missing.stderr.fnmatch_lines(["arena report: cannot read nowhere.json*"])
    assert not (pytester.path / "x.html").exists()


def test_a_page_that_cannot_be_written_is_an_error_naming_it(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    make_project("mine", PROJECT)
    run_json(pytester, "run.json")
    (pytester.path / "taken").mkdir()  # where the page should go, a folder is
    report = pytester.run(*ARENA, "report", "run.json", "--html", "taken")
    compare = pytester.run(*ARENA, "compare", "run.json", "run.json", "--html", "taken")
    for command, result in (("report", report), ("compare", compare)):
        assert result.ret == 4
        result.stderr.fnmatch_lines([f"arena {command}: taken was not written: *"])
        assert "Traceback" not in result.stderr.str()
    assert sorted(p.name for p in pytester.path.glob("taken*")) == ["taken"]


def test_compare_names_the_cases_that_changed_with_both_reasons(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    make_project("mine", PROJECT)
    before = run_json(pytester, "a.json", "--arena-models", "sim_perfect")
    make_project("mine", PROJECT.replace("Madrid", "Madrid <b>x</b>"))
    after = run_json(pytester, "b.json", "--arena-models", "sim_perfect")
    # the same model key in both runs; a changed reference makes q6 fail in B
    assert {r["status"] for r in before["records"]} == {"passed"}
    b_records = {r["case"]: r for r in after["records"]}
    assert b_records["q6"]["status"] == "passed"  # sim_perfect answers the new reference
    # so compare sim_perfect in A against sim_echo in B under one name
    after = run_json(pytester, "b.json", "--arena-models", "sim_echo")
    for record in after["records"]:
        record["model"] = "sim_perfect"
    for board in after["leaderboards"]:
        for row in board["rows"]:
            row["model"] = "sim_perfect"
    (pytester.path / "b.json").write_text(json.dumps(after))
    result = pytester.run(*ARENA, "compare", "a.json", "b.json", "--html", "cmp.html")
    assert result.ret == 1  # a case that passed in A fails in B
    result.stdout.fnmatch_lines(
        [
            "== mine / sim_perfect ==",
            "accuracy*1.000*0.000*-1.000",
            "mean score change -1.000 over 6 paired cases*p=0.0312 McNemar (exact)",
            "6 case(s) changed verdict: 6 regressed, 0 fixed",
            "  regression: q1: passed -> failed",
            "    A: *",
            "    B: expected '4', got '2 + 2?'",
        ]
    )
    page = (pytester.path / "cmp.html").read_text()
    assert "regression" in page and "expected &#39;4&#39;, got &#39;2 + 2?&#39;" in page
    assert "<b>x</b>" not in page  # record text is escaped
    # the changes past --limit: in the page if one is written, else where to see them
    for html, where in ((["--html", "cmp.html"], "the HTML has them all"), ([], "--limit N or *")):
        cut = pytester.run(*ARENA, "compare", "a.json", "b.json", "--limit", "1", *html)
        cut.stdout.fnmatch_lines(["  regression: q1: *", f"  ... and 5 more ({where})"])
    same = pytester.run(*ARENA, "compare", "a.json", "a.json")
    assert same.ret == 0
    same.stdout.fnmatch_lines(["no case changed verdict"])
    assert "stopped early" not in same.stdout.str()

    cut_report = run_json(pytester, "cut.json", "--arena-models", "sim_echo", "-x")
    for record in cut_report["records"]:
        record["model"] = "sim_perfect"
    (pytester.path / "cut.json").write_text(json.dumps(cut_report))
    cut = pytester.run(*ARENA, "compare", "a.json", "cut.json", "--html", "cut.html")
    cut.stdout.fnmatch_lines(
        [
            "run B stopped early (-x or --maxfail): the cases it did not run are only in the"
            " other run, not compared",
            "*5 case(s) only in A*",
        ]
    )
    page = (pytester.path / "cut.html").read_text()  # the page says it too
    assert "run B stopped early (-x or --maxfail)" in page


def test_compare_uses_the_paired_difference_of_the_same_cases(tmp_path: Path) -> None:
    from pytest_arena.reports.comparison import compare

    def rec(case: str, status: str, score: float) -> dict:
        return {"project": "p", "case": case, "model": "m", "status": status, "score": score}

    a = {"records": [rec("x", "passed", 1.0), rec("y", "failed", 0.0), rec("z", "passed", 1)]}
    b = {"records": [rec("x", "failed", 0.0), rec("y", "passed", 1.0), rec("w", "passed", 1)]}
    (item,) = compare(a, b)
    assert (item.common, item.only_before, item.only_after) == (2, 1, 1)
    assert [c.kind for c in item.changes] == ["regression", "fix"]
    assert item.score_change is not None and item.score_change.estimate == 0.0
    assert item.mcnemar_p == 1.0


def test_compare_counts_a_case_gone_flaky_as_a_regression(tmp_path: Path) -> None:
    from pytest_arena.reports.comparison import compare, regressed

    def rec(case: str, status: str, score: float) -> dict:
        return {"project": "p", "case": case, "model": "m", "status": status, "score": score}

    a = {"records": [rec("mostly", "passed", 1.0), rec("sure", "passed", 1.0)]}
    b = {"records": [rec("mostly", "flaky", 0.9), rec("sure", "passed", 1.0)]}
    (item,) = compare(a, b)
    assert [(c.case, c.kind) for c in item.changes] == [("mostly", "regression")]
    assert regressed([item])  # `arena compare` exits 1 (it said 0 regressed)
    assert item.common == 2  # the flaky case is paired, not dropped
    assert item.score_change is not None
    assert item.score_change.estimate == pytest.approx(-0.05)


def test_models_lists_builtins_defined_and_provider_keys_never_a_key(
    pytester: pytest.Pytester, make_project: MakeProject, monkeypatch: pytest.MonkeyPatch
) -> None:
    make_project(
        "mine",
        """
        models:
          define:
            local:
              connector: openai
              base_url: http://127.0.0.1:9/v1
              model: llama3
              api_key_env: LOCAL_KEY
              rpm: 30
            router: {connector: openai, base_url: "http://127.0.0.1:8/v1", model: llama}
            openai:gpt-4o-mini: {price: {input_per_mtok: 1, output_per_mtok: 2, cached_input_per_mtok: 0.5}}
            pasted:  # a Groq key pasted as the variable's name
              connector: openai
              base_url: "http://127.0.0.1:7/v1"
              model: llama
              api_key_env: gsk_verysecretvalue123
            passworded:  # a password in the URL, and a key in its query
              connector: openai
              base_url: "http://bob:pw-very-secret@127.0.0.1:6/v1?key=sk-very-secret-query"
              model: llama
        tests:
          - {id: a, input: x, reference: x}
        """,
    )
    monkeypatch.setenv("LOCAL_KEY", "sk-very-secret-value")
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    result = pytester.run(*ARENA, "models", "--project", "projects/mine")
    assert result.ret == 0, result.stderr.str()
    out = result.stdout.str()
    for secret in ("sk-very-secret-value", "gsk_verysecret", "pw-very-secret", "bob", "query"):
        assert secret not in out
    result.stdout.fnmatch_lines(
        [
            "*sim_small*builtin*sim*$0.15 / $0.6*16 at once, timeout 120s, 4 retries*none needed*",
            "*sim_perfect*builtin*free*",
            "*local*defined*openai*http://127.0.0.1:9/v1*llama3*–*30 rpm*LOCAL_KEY (set)*",
            "*router*defined*openai*http://127.0.0.1:8/v1*none sent (set api_key_env to send one)*",
            "*openai:gpt-4o-mini*defined*openai*https://api.openai.com/v1*gpt-4o-mini*$1 / $2 (cached"
            " in $0.5)*"
            "OPENAI_API_KEY (not set)*",
            "*pasted*defined*openai*http://127.0.0.1:7/v1*(api_key_env) (not set)*",
            "*passworded*defined*openai*http://127.0.0.1:6/v1?key=[*][*][*]*",
            "*anthropic:claude-3-5-haiku-latest*provider*anthropic*$0.8 / $4*ANTHROPIC_API_KEY*",
        ]
    )
    alone = pytester.run(*ARENA, "models")
    assert alone.ret == 0
    assert "local" not in alone.stdout.str()
    nowhere = pytester.run(*ARENA, "models", "--project", "nowhere")
    assert nowhere.ret == 4
    nowhere.stderr.fnmatch_lines(["arena models: no project at nowhere*"])


@pytest.mark.parametrize(
    ("content", "said"),
    [
        ('{"version": 2, "records": []}'.encode("utf-16"), "not UTF-8 text (byte 0: *"),
        (b'{"records": [1]}', "records[[]0[]] is not a record*"),
        (b'{"records": [], "leaderboards": 5}', "'leaderboards' is not a list of objects*"),
        (
            b'{"records": [{"project": "p", "case": "c", "model": "m", "sample": "x"}]}',
            "records[[]0[]] is not a record*",
        ),
        (b"[" * 200_000, "not JSON --arena-json writes (nested too deeply)*"),
        (b'{"version": 99, "records": []}', "a report of version 99, and this pytest-arena*"),
        (
            b'{"version": 2, "generator": "pytest-arena", "records": []}',
            "the report: * is a required property*",
        ),
    ],
    ids=["utf-16", "a-number", "boards", "sample", "deep", "newer", "schema"],
)
def test_report_and_compare_say_what_is_wrong_with_a_report_of_another_shape(
    pytester: pytest.Pytester, make_project: MakeProject, content: bytes, said: str
) -> None:
    make_project("mine", PROJECT)
    run_json(pytester, "run.json")
    (pytester.path / "odd.json").write_bytes(content)
    report = pytester.run(*ARENA, "report", "odd.json", "--html", "x.html")
    compare = pytester.run(*ARENA, "compare", "run.json", "odd.json")
    for command, result in (("report", report), ("compare", compare)):
        assert result.ret == 4
        result.stderr.fnmatch_lines([f"arena {command}: odd.json*{said}"])
        assert "Traceback" not in result.stderr.str()
    assert not (pytester.path / "x.html").exists()


def test_report_and_compare_refuse_a_number_no_float_holds_naming_it(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    """NaN, Infinity, 1e999 (which JSON readers take for infinity) and a whole number beyond
    a float's range crashed both commands with a traceback (ValueError: cannot convert float
    NaN to integer, OverflowError: int too large to convert to float), as did a score of
    1e308. Each is refused as a field of the wrong type is, naming it, in any record (the
    schema checks only the first 200)."""
    make_project("mine", PROJECT)
    good = run_json(pytester, "run.json")
    good["records"] = [dict(good["records"][i % 6], case=f"c{i}") for i in range(250)]
    (pytester.path / "run.json").write_text(json.dumps(good))
    assert pytester.run(*ARENA, "report", "run.json", "--html", "ok.html").ret == 0
    bad = [  # (where, what is written there, what is said)
        (("records", 0, "score"), "NaN", "records[[]0[]].score: nan is not a finite number"),
        (("records", 230, "score"), "Infinity", "records[[]230[]].score: inf is not a finite*"),
        (("records", 3, "cost"), "-Infinity", "records[[]3[]].cost: -inf is not a finite*"),
        (("records", 0, "latency_ms"), "1e999", "records[[]0[]].latency_ms: inf is not a*"),
        (
            ("records", 1, "weight"),
            str(10**400),
            "records[[]1[]].weight: 1000000000* (401 digits) is beyond a float's range*",
        ),
        (("records", 2, "tokens", "input"), str(-(10**400)), "records[[]2[]].tokens.input: -1*"),
        (
            ("leaderboards", 0, "rows", 0, "accuracy"),
            "NaN",
            "leaderboards[[]0[]].rows[[]0[]].accuracy: nan is not a finite number",
        ),
        (("records", 0, "score"), "1e308", "records[[]0[]].score: 1e+308 is greater than the*"),
        (("records", 240, "score"), "-0.5", "records[[]240[]].score: -0.5 is less than the*"),
        (("records", 0, "cost"), "9" * 5000, "not JSON --arena-json writes (a number that*"),
    ]
    for path, written, said in bad:
        data = json.loads(json.dumps(good))
        inside = data
        for step in path[:-1]:
            inside = inside[step]
        inside[path[-1]] = "@@here@@"
        (pytester.path / "odd.json").write_text(json.dumps(data).replace('"@@here@@"', written))
        report = pytester.run(*ARENA, "report", "odd.json", "--html", "x.html")
        compare = pytester.run(*ARENA, "compare", "run.json", "odd.json")
        for command, result in (("report", report), ("compare", compare)):
            assert result.ret == 4, (path, written, command, result.stderr.str())
            result.stderr.fnmatch_lines([f"arena {command}: odd.json: {said}*"])
            assert "Traceback" not in result.stderr.str()
        assert not (pytester.path / "x.html").exists()


def test_compare_of_a_case_weighing_1e308_says_its_change(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    """A weight of 1e308 (finite, as the schema allows) made the paired interval's sums
    overflow to NaN: `arena compare` crashed (AttributeError in statistics.stdev).
    The weights are scaled by a power of two, exactly: the heavy case's change is the
    mean change."""
    make_project("mine", PROJECT)
    a = run_json(pytester, "a.json", "--arena-models", "sim_perfect")
    b = json.loads(json.dumps(a))
    for record in b["records"]:
        if record["case"] == "q1":
            record.update(status="failed", passed=False, score=0.0, weight=1e308)
    (pytester.path / "b.json").write_text(json.dumps(b))
    result = pytester.run(*ARENA, "compare", "a.json", "b.json")
    assert "Traceback" not in result.stderr.str()
    assert result.ret == 1  # q1 regressed
    result.stdout.fnmatch_lines(
        ["mean score change -1.000 over 6 paired cases*", "  regression: q1: passed -> failed"]
    )


def test_a_run_that_could_not_load_its_project_fails_the_comparison_and_says_why(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    """B's arena.yaml broke: its JSON report had no records, and `arena compare` said "no
    case changed verdict" and exited 0, a CI gate passed without the cases. The report now
    holds what could not be loaded, and the comparison says it and fails."""
    make_project("mine", PROJECT)
    run_json(pytester, "a.json", "--arena-models", "sim_perfect")
    make_project("mine", PROJECT.replace("tests:", "test:"))
    b = run_json(pytester, "b.json", "--arena-models", "sim_perfect")
    assert b["records"] == []
    assert [p["item"] for p in b["problems"]] == ["projects/mine/arena.yaml::config"]
    assert "unknown key 'test'" in b["problems"][0]["message"]
    spread = run_json(pytester, "b2.json", "--arena-models", "sim_perfect", *XDIST, "-n", "2")
    assert spread["problems"] == b["problems"]  # as the workers' reports carry it
    result = pytester.run(*ARENA, "compare", "a.json", "b.json", "--html", "cmp.html")
    assert result.ret == 1
    result.stdout.fnmatch_lines(
        [
            "run B could not load 1 input(s), so their cases are missing from it:"
            " projects/mine/arena.yaml::config: projects/mine/arena.yaml:2: test: unknown key*",
            "6 case(s) only in A",
        ]
    )
    assert "run B could not load 1 input(s)" in (pytester.path / "cmp.html").read_text()
    page = pytester.run(*ARENA, "report", "b.json", "--html", "b.html")
    assert page.ret == 0
    text = (pytester.path / "b.html").read_text()
    assert "Not loaded" in text and "unknown key &#39;test&#39;" in text
    # the other way round, A's problems are said, and B's cases are new, not a failure
    assert pytester.run(*ARENA, "compare", "b.json", "a.json").ret == 0


def test_compare_says_its_own_errors_apart_from_a_regression(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    """A missing report, or a page that cannot be written, exited 1, as a regression does:
    a CI step could not tell a typo from a failed model. And `--html` naming a report read
    overwrote it."""
    make_project("mine", PROJECT)
    run_json(pytester, "a.json")
    a = (pytester.path / "a.json").read_text()
    missing = pytester.run(*ARENA, "compare", "a.json", "nope.json")
    assert missing.ret == 4
    missing.stderr.fnmatch_lines(["arena compare: cannot read nope.json*"])
    same = pytester.run(*ARENA, "compare", "a.json", "a.json", "--html", "a.json")
    assert same.ret == 4
    same.stderr.fnmatch_lines(["arena compare: --html a.json is a report compared*"])
    unwritable = pytester.run(*ARENA, "compare", "a.json", "a.json", "--html", "a.json/x.html")
    assert unwritable.ret == 4
    report = pytester.run(*ARENA, "report", "a.json", "--html", "a.json")
    assert report.ret == 4
    report.stderr.fnmatch_lines(["arena report: --html a.json is the report read*"])
    assert (pytester.path / "a.json").read_text() == a


def test_a_report_with_fields_a_later_release_added_is_read(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    """A report of this version with one more field (which a later release may add: its
    version goes up only when a field changes meaning) was refused."""
    make_project("mine", PROJECT)
    data = run_json(pytester, "run.json")
    data["generator"] = "pytest-arena 9.9.9"
    data["new_top"] = {"x": 1}
    data["records"][0]["new_field"] = 1
    data["leaderboards"][0]["rows"][0]["new_column"] = 0.5
    (pytester.path / "newer.json").write_text(json.dumps(data))
    assert pytester.run(*ARENA, "report", "newer.json", "--html", "r.html").ret == 0
    assert pytester.run(*ARENA, "compare", "run.json", "newer.json").ret == 0
    data["records"][0]["score"] = "high"  # a field it knows, of the wrong type: still refused
    (pytester.path / "odd.json").write_text(json.dumps(data))
    odd = pytester.run(*ARENA, "report", "odd.json", "--html", "r.html")
    assert odd.ret == 4
    odd.stderr.fnmatch_lines(["arena report: odd.json: records[[]0]*"])


@pytest.mark.parametrize("where", [".", "my evals/faq"])
def test_init_in_the_current_folder_or_one_with_a_space(
    pytester: pytest.Pytester, where: str
) -> None:
    """`arena init .` was refused as the project name '', and a folder with a space got a
    "run it" command that failed when pasted."""
    import shlex
    import subprocess

    folder = pytester.path / ("faq" if where == "." else where)
    folder.mkdir(parents=True)
    cwd = folder if where == "." else pytester.path
    made = subprocess.run([*ARENA, "init", where], cwd=cwd, capture_output=True, text=True)
    assert made.returncode == 0, made.stderr
    assert (folder / "tests" / "test_faq_keywords.py").is_file()
    command = next(line for line in made.stdout.splitlines() if line.startswith("run it:"))
    argv = shlex.split(command.removeprefix("run it:"))
    assert argv[:3] == ["arena", "evaluate", "--project"] and argv[3] == where
    ran = subprocess.run([*ARENA, *argv[1:], "-q"], cwd=cwd, capture_output=True, text=True)
    assert ran.returncode == 0, ran.stdout
    assert f"# Run it:  {command.split(': ', 1)[1].strip()}" in (folder / "arena.yaml").read_text()


def test_compare_weighs_cases_as_the_leaderboard_and_the_baseline_do(tmp_path: Path) -> None:
    """`arena compare` paired unweighted scores: it said a change of -0.2 where accuracy (and
    --arena-baseline) said -0.714 for a heavy case that regressed; and one case, however
    heavy, is no significant change."""
    from pytest_arena.reports.comparison import compare, interval_text

    def rec(case: str, status: str, weight: float) -> dict:
        score = float(status == "passed")
        return {"project": "p", "case": case, "model": "m", "status": status, "score": score}

    weights = {"light1": 1.0, "light2": 1.0, "light3": 1.0, "light4": 1.0, "heavy": 10.0}
    a = {"records": [rec(c, "passed", w) | {"weight": w} for c, w in weights.items()]}
    b = {
        "records": [
            rec(c, "failed" if c == "heavy" else "passed", w) | {"weight": w}
            for c, w in weights.items()
        ]
    }
    (item,) = compare(a, b)
    assert item.score_change is not None
    assert item.score_change.estimate == pytest.approx(-10 / 14)
    assert (item.test, item.score_change.p_value) == ("sign-flip (exact)", 1.0)
    assert interval_text(item).startswith("mean score change -0.714 over 5 paired cases")


def test_compare_of_runs_with_no_case_in_common_says_nothing_was_compared(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    """Cases renamed between two runs: "no case graded in both runs", and exit 0, as if the
    second run were no worse."""
    make_project("mine", PROJECT)
    run_json(pytester, "a.json")
    make_project("mine", PROJECT.replace("id: ", "id: new_"))
    run_json(pytester, "b.json")
    result = pytester.run(*ARENA, "compare", "a.json", "b.json")
    result.stdout.fnmatch_lines(["nothing compared: no case was graded in both runs*"])
    assert result.ret == 1
    assert pytester.run(*ARENA, "compare", "a.json", "a.json").ret == 0


def test_evaluate_runs_pytest_with_the_interpreters_warning_options(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    """`python -W error -m pytest_arena evaluate` dropped `-W error`: a scorer's
    UserWarning passed where `python -W error -m pytest` fails it."""
    import sys

    make_project(
        "warns",
        "models: [sim_perfect]\nscorers: {default: old}\ntests:\n  - {id: a, input: x}\n",
        files={
            "scorers/old.py": (
                "import warnings\nfrom pytest_arena.scorers import Scorer, ScoreResult\n\n\n"
                "class Old(Scorer):\n    name = 'old'\n\n"
                "    def score(self, output, reference, context):\n"
                "        warnings.warn('old API', UserWarning)\n"
                "        return ScoreResult(1.0, True, 'fine')\n"
            )
        },
    )
    evaluate = ["-m", "pytest_arena", "evaluate", "projects/warns", "-p", "no:cacheprovider"]
    assert pytester.run(sys.executable, *evaluate).ret == 0
    strict = pytester.run(sys.executable, "-W", "error::UserWarning", *evaluate)
    assert strict.ret == 1
    strict.stdout.fnmatch_lines(["*UserWarning: old API*"])
    show = "from pytest_arena.cli import _interpreter_options; print(_interpreter_options())"
    shown = pytester.run(sys.executable, "-bb", "-OO", "-X", "dev", "-W", "error", "-c", show)
    for option in ("-Werror", "-Xdev", "-OO", "-bb"):  # -b was dropped
        assert f"'{option}'" in shown.stdout.str()
    isolated = pytester.run(sys.executable, "-I", "-c", show)  # and -I, -E, -s and -P were
    assert "'-I'" in isolated.stdout.str()
    apart = ["-E", "-s", *(["-P"] if sys.version_info >= (3, 11) else [])]
    separate = pytester.run(sys.executable, *apart, "-c", show)
    for option in apart:
        assert f"'{option}'" in separate.stdout.str()


def test_compare_counts_the_paired_cases_its_numbers_are_over(tmp_path: Path) -> None:
    """A case of weight 0 was counted in "over 5 paired cases" while the change and its
    interval were over the 4 that weigh (as --arena-baseline said): the count said is the
    count of the numbers, and the weight-0 case is said apart."""
    from pytest_arena.reports.comparison import compare, interval_text

    def rec(case: str, status: str, weight: float, score: float) -> dict:
        return {"project": "p", "case": case, "model": "m", "status": status, "score": score}

    weights = {"c1": 1.0, "c2": 1.0, "c3": 1.0, "c4": 1.0, "zero": 0.0}
    a = {"records": [rec(c, "passed", w, 1.0) | {"weight": w} for c, w in weights.items()]}
    b = {
        "records": [
            rec(c, "failed" if c in ("c1", "zero") else "passed", w, 0.4 if c == "c1" else 1.0)
            | {"weight": w}
            for c, w in weights.items()
        ]
    }
    (item,) = compare(a, b)
    assert item.score_change is not None and item.score_change.n == 4
    assert (item.common, item.weightless) == (5, 1)
    assert interval_text(item).startswith(
        "mean score change -0.150 over 4 paired cases (1 more of weight 0 left out), 95% CI"
    )
    only_zero = {"records": [r for r in a["records"] if r["case"] == "zero"]}
    (nothing,) = compare(only_zero, only_zero)
    assert interval_text(nothing) == "no case of weight above 0 graded in both runs (1 of weight 0)"


def test_compare_tests_cases_that_share_a_group_as_the_baseline_does(tmp_path: Path) -> None:
    """Cases of one group: `arena compare` reads their group, tests the group as one draw (one
    that moved gives p = 1, not the clustered z-test's p=0.002) and says no McNemar p of the
    flips, which would count the cases of a group as independent."""
    from pytest_arena.reports.comparison import compare, interval_text

    def rec(case: str, passed: bool) -> dict:
        status = "passed" if passed else "failed"
        return {"project": "p", "case": case, "model": "m", "status": status, "group": "g"}

    cases = [f"c{i}" for i in range(10)]
    a = {"records": [rec(c, True) | {"score": 1.0} for c in cases]}
    b = {"records": [rec(c, c != "c0") | {"score": float(c != "c0")} for c in cases]}
    (item,) = compare(a, b)
    assert item.score_change is not None
    assert (item.test, item.score_change.p_value) == ("sign-flip by group (exact)", 1.0)
    assert item.mcnemar_p is None
    text = interval_text(item)
    assert "p=1 sign-flip by group (exact)" in text and "McNemar" not in text
