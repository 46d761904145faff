"""Text a model or a scorer writes, shown where people read it: control characters reach no
terminal raw (a model's output cannot retitle the window, clear the screen or overwrite
a line with "PASSED"), and markdown, XML and ids keep their shape."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import unicodedata
from xml.etree import ElementTree

import pytest

from pytest_arena.scorers.text import excerpt, printable
from tests.conftest import ARENA, MakeProject

# sim_echo answers with its prompt, so the prompt is the model's output: it sets the
# terminal's title, clears the screen, rings the bell and returns to the line's start
HOSTILE = r'"\e]0;pwned\a\e[2Jbad answer\rPASSED \u202eevil"'
SHOWN = r"\x1b]0;pwned\x07\x1b[2Jbad answer\rPASSED \u202eevil"


def hostile_project(make_project: MakeProject, cases: int = 1) -> None:
    tests = "".join(f"  - {{id: q{i}, input: {HOSTILE}, reference: 'ok'}}\n" for i in range(cases))
    make_project(
        "p", "models: [sim_echo]\ntests:\n" + tests + "  - {id: fine, input: ok, reference: ok}\n"
    )


def raw_controls(text: str) -> list[str]:
    """The control characters in `text` other than newlines and tabs."""
    return sorted({c for c in text if (ord(c) < 32 and c not in "\n\t") or c == "\u202e"})


@pytest.mark.parametrize("style", ["full", "compact"])
def test_a_models_control_characters_reach_the_terminal_as_escapes(
    pytester: pytest.Pytester, make_project: MakeProject, style: str
) -> None:
    hostile_project(make_project)
    result = pytester.runpytest("-p", "no:cacheprovider", f"--arena-failures={style}")
    assert result.ret == 1
    out = result.stdout.str()
    assert raw_controls(out) == []
    assert "FAILED projects/p/arena.yaml::q0[sim_echo] - expected 'ok', got '\\x1b]0;pwned" in out
    if style == "full":
        assert f"  output:    '{SHOWN}'" in out


def test_baseline_and_compare_lines_escape_the_reasons_they_quote(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    make_project("p", "models: [sim_echo]\ntests:\n  - {id: q0, input: ok, reference: ok}\n")
    assert (
        pytester.runpytest(
            "-p", "no:cacheprovider", "--arena-save-baseline", "base.json", "--arena-json", "a.json"
        ).ret
        == 0
    )
    hostile = f"models: [sim_echo]\ntests:\n  - {{id: q0, input: {HOSTILE}, reference: ok}}\n"
    make_project("p", hostile)
    result = pytester.runpytest(
        "-p", "no:cacheprovider", "--arena-baseline", "base.json", "--arena-json", "b.json"
    )
    out = result.stdout.str()
    assert "regressed q0" in out
    assert raw_controls(out) == []
    compared = subprocess.run(
        [*ARENA, "compare", "a.json", "b.json"],
        cwd=pytester.path,
        capture_output=True,
        text=True,
        check=False,
    )
    assert "q0" in compared.stdout
    assert r"\x1b[2Jbad answer\rPASSED" in compared.stdout
    assert raw_controls(compared.stdout) == []
    assert json.loads((pytester.path / "b.json").read_text())["records"][0]["output"].startswith(
        "\x1b]0;pwned"
    )  # the record keeps the output as it was: only its display is escaped


AGENT_PROJECT = """
models:
  default: [bot]
  define: {bot: {connector: python, callable: "agent:answer"}}
tests:
  - {id: plain, input: plain, reference: x}
  - {id: cyclic, input: cyclic, reference: x}
"""


def test_the_compare_page_shows_bidi_overrides_in_reasons_as_their_code(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    """`arena compare --html` wrote a scorer's reason raw, so the browser reordered it, while
    the `--arena-html` page shows each such character as its code."""
    scorer = """
        from pytest_arena.scorers import Scorer, ScoreResult

        class Odd(Scorer):
            name = "odd"

            def score(self, output, reference, context):
                good = output == "x"
                return ScoreResult(score=float(good), passed=good, reason="why \u202eevil\\a")
    """
    yaml = "models: [sim_echo]\nscorers: {default: odd}\ntests:\n  - {id: q0, input: INPUT}\n"
    make_project("p", yaml.replace("INPUT", "x"), {"scorers/odd.py": scorer})
    assert pytester.runpytest("-p", "no:cacheprovider", "--arena-json", "a.json").ret == 0
    make_project("p", yaml.replace("INPUT", "y"), {"scorers/odd.py": scorer})
    assert pytester.runpytest("-p", "no:cacheprovider", "--arena-json", "b.json").ret == 1
    compared = subprocess.run(
        [*ARENA, "compare", "a.json", "b.json", "--html", "cmp.html"],
        cwd=pytester.path,
        capture_output=True,
        text=True,
        check=False,
    )
    assert compared.returncode == 1, compared.stderr
    page = (pytester.path / "cmp.html").read_text("utf-8")
    assert ">why ⟨U+202E⟩evil⟨U+0007⟩</td>" in page
    assert raw_controls(page) == []


def test_an_agents_meta_that_holds_itself_is_kept_cut_and_the_case_is_graded(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    agent = """
        def answer(prompt):
            meta = {"step": 1, "path": [1, [2, [3]]]}
            if prompt == "cyclic":
                meta["parent"] = meta
                meta["path"].append(meta["path"])
            return {"text": "x", "meta": meta}
    """
    make_project("p", AGENT_PROJECT, {"agent.py": agent})
    result = pytester.runpytest("-p", "no:cacheprovider", "--arena-json", "r.json")
    assert result.ret == 0, result.stdout.str()
    result.stdout.fnmatch_lines(["*2 passed*"])
    records = {r["case"]: r for r in json.loads((pytester.path / "r.json").read_text())["records"]}
    assert sorted(records) == ["cyclic", "plain"]
    meta = records["cyclic"]["response"]["meta"]
    assert meta["step"] == 1
    assert meta["parent"]["parent"] == "[holds itself: cut]"  # (meta is copied once)
    assert meta["path"] == [1, [2, [3]], "[holds itself: cut]"]
    assert records["plain"]["response"]["meta"] == {"step": 1, "path": [1, [2, [3]]]}


def test_the_job_summary_shows_reasons_and_names_as_text_not_markup(
    pytester: pytest.Pytester, make_project: MakeProject, monkeypatch: pytest.MonkeyPatch
) -> None:
    agent = """
        import os

        def answer(prompt):
            if os.environ.get("MODE") == "before":
                return "x"
            return "</script><img src=x onerror=alert(1)> [details](https://example.com) |a|"
    """
    make_project("p", AGENT_PROJECT, {"agent.py": agent})
    monkeypatch.setenv("MODE", "before")
    assert pytester.runpytest("-p", "no:cacheprovider", "--arena-save-baseline", "b.json").ret == 0
    monkeypatch.delenv("MODE")
    summary = pytester.path / "summary.md"
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    result = pytester.runpytest("-p", "no:cacheprovider", "--arena-baseline", "b.json")
    assert result.ret == 1
    text = summary.read_text()
    assert "<img" not in text and "</script>" not in text and "[details](" not in text
    line = next(line for line in text.splitlines() if "regressed plain" in line)
    assert (
        "got '&lt;/script&gt;&lt;img src=x onerror=alert(1)&gt; \\[details\\](https:<wbr>//exa"
        in line
    )


@pytest.mark.parametrize("family", ["xunit1", "xunit2"])
def test_a_metric_named_with_a_control_character_leaves_the_junit_xml_well_formed(
    pytester: pytest.Pytester, make_project: MakeProject, family: str
) -> None:
    scorer = """
        from pytest_arena.scorers import Scorer, ScoreResult

        class Odd(Scorer):
            name = "odd"

            def score(self, output, reference, context):
                return ScoreResult(score=1.0, passed=True, metrics={"grounded\\x0bness": 0.5})
    """
    yaml = "models: [sim_perfect]\nscorers: {default: odd}\ntests:\n  - {id: a, input: x}\n"
    make_project("p", yaml, {"scorers/odd.py": scorer})
    result = pytester.runpytest(
        "-p", "no:cacheprovider", "--junitxml=out.xml", "-o", f"junit_family={family}"
    )
    assert result.ret == 0, result.stdout.str()
    tree = ElementTree.parse(pytester.path / "out.xml")  # raises on an XML-invalid name
    names = [p.get("name") for p in tree.iter("property")]
    if family == "xunit1":
        assert "metric.grounded\\x0bness" in names


def test_a_gate_on_a_metric_named_with_a_bidi_override_says_it_escaped(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    """The gate line wrote the name raw, in the terminal and in the HTML gate box, where the
    override reversed the rest of the line; the leaderboard's header escaped it."""
    scorer = """
        from pytest_arena.scorers import Scorer, ScoreResult

        class Odd(Scorer):
            name = "odd"

            def score(self, output, reference, context):
                return ScoreResult(score=1.0, passed=True, metrics={"speed\u202e": 0.75})
    """
    yaml = (
        "models: [sim_perfect]\nscorers: {default: odd}\n"
        'gate: {all: {"speed\\u202e": {min: 0.25}, "sped\\u202e": {min: 0}}}\n'
        "tests:\n  - {id: a, input: x}\n"
    )
    make_project("p", yaml, {"scorers/odd.py": scorer})
    result = pytester.runpytest("-p", "no:cacheprovider", "--arena-html", "r.html")
    assert result.ret == 1
    line = "sim_perfect speed\\u202e 0.75 within min 0.25 (margin 0.5)"
    result.stdout.fnmatch_lines([f"  held    {line}", "  failed  sim_perfect sped\\u202e *"])
    assert raw_controls(result.stdout.str()) == []
    page = (pytester.path / "r.html").read_text("utf-8")
    assert f"<li>held: {line}</li>" in page
    assert "<li>failed: sim_perfect sped\\u202e (limit min 0): no record has a metric" in page


def test_invisible_characters_in_an_answer_are_shown_so_a_failure_does_not_look_like_a_pass(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    """'Par\\u200bis' fails exact_match against 'Paris': the line says why, visibly."""
    make_project(
        "p",
        "models: [sim_echo]\ntests:\n"
        r'  - {id: q, input: "Par\u200bis\u061c\ufeff\u2028", reference: Paris}'
        "\n",
    )
    result = pytester.runpytest("-p", "no:cacheprovider")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines([r"expected 'Paris', got 'Par\u200bis\u061c\ufeff\u2028'"])
    assert not {"\u200b", "\u061c", "\ufeff", "\u2028"} & set(result.stdout.str())


def test_every_format_character_but_the_joiners_is_escaped() -> None:
    """Unicode's category Cf, which a reader cannot see, and the line separators."""
    hidden = [chr(c) for c in range(sys.maxunicode + 1) if unicodedata.category(chr(c)) == "Cf"]
    kept = [c for c in [*hidden, "\u2028", "\u2029"] if printable(c) == c]
    assert kept == ["\u200c", "\u200d"]  # the joiners shape words and emoji
    assert printable("\U000e0041") == "\\U000e0041"
    assert printable("👨\u200d👩") == "👨\u200d👩"


def test_a_metric_named_with_an_escape_keeps_the_leaderboards_columns_in_line(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    scorer = """
        from pytest_arena.scorers import Scorer, ScoreResult

        class Odd(Scorer):
            name = "odd"

            def score(self, output, reference, context):
                return ScoreResult(score=1.0, passed=True, metrics={"\\x1b[1mrecall": 0.5, "a\\tb": 0.25})
    """
    yaml = "models: [sim_perfect]\nscorers: {default: odd}\ntests:\n  - {id: a, input: x}\n"
    make_project("p", yaml, {"scorers/odd.py": scorer})
    result = pytester.runpytest("-p", "no:cacheprovider")
    assert result.ret == 0, result.stdout.str()
    lines = result.stdout.lines
    head = next(i for i, line in enumerate(lines) if line.lstrip().startswith("rank"))
    header, rule, row = lines[head : head + 3]
    assert header.endswith("\\x1b[1mrecall    a\\tb")
    assert len(header) == len(rule) == len(row)  # every column as wide as its title
    assert raw_controls("\n".join(lines)) == []


ROWS = [
    '{"id": "ok", "input": "x", "reference": "x"}',
    '{"id": "x\\u001b]0;OWNED\\u0007\\u001b[2J", "input": "x", "reference": "x"}',
    '{"id": "y\\r\\nz\\u0000", "input": "x", "reference": "x"}',
    '{"id": "c", "input": "x", "\\u001b[2Jreference": "x"}',
]


@pytest.mark.parametrize("options", [(), ("-v",), ("--co",)])
def test_a_rows_id_with_control_characters_names_its_error_by_the_rows_place(
    pytester: pytest.Pytester, make_project: MakeProject, options: tuple[str, ...]
) -> None:
    make_project(
        "p",
        "models: [sim_perfect]\ndatasets: [data/rows.jsonl]\n",
        {"data/rows.jsonl": "\n".join(ROWS) + "\n"},
    )
    result = pytester.runpytest("-p", "no:cacheprovider", *options)
    out = result.stdout.str()
    assert raw_controls(out) == []
    for name in ("rows-2", "rows-3", "c"):  # the row's place, as for a row without an id
        result.stdout.fnmatch_lines([f"*projects/p/data/rows.jsonl::{name}*"])
    if options != ("--co",):
        assert r"rows.jsonl:2: id: case id 'x\x1b]0;OWNED\x07\x1b[2J' may hold only" in out
        assert r"rows.jsonl:3: id: case id 'y\r\nz\x00' may hold only" in out
        assert r"rows.jsonl:4: \x1b[2Jreference: unknown key '\x1b[2Jreference'" in out


def test_an_inline_cases_id_with_control_characters_names_its_error_by_its_place(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    tests = '  - {id: a, input: x, reference: x}\n  - {id: "b\\e[2J\\r", input: x, reference: x}\n'
    make_project("p", "models: [sim_perfect]\ntests:\n" + tests)
    result = pytester.runpytest("-p", "no:cacheprovider", "-v")
    assert result.ret == 1
    out = result.stdout.str()
    assert raw_controls(out) == []
    result.stdout.fnmatch_lines(["projects/p/arena.yaml::tests.1 ERROR*"])
    assert r"arena.yaml:4: tests[1].id: case id 'b\x1b[2J\r' may hold only" in out


TWO_PLUS_TWO = "tests:\n  - {id: a, input: '2+2', reference: '4'}\n"


@pytest.mark.parametrize(
    ("yaml", "said"),
    [
        (
            'name: "demo\\e]0;OWNED\\a\\e[2J"\n',
            r"arena.yaml:1: name: project name 'demo\x1b]0;OWNED\x07\x1b[2J' holds control",
        ),
        (
            'metrics: {weights: {"acc\\e[31m": 1}}\n',
            r"arena.yaml:1: metrics.weights: metric name 'acc\x1b[31m' holds control",
        ),
        (
            'gate: {all: {"pass\\e[2J": {min: 0.5}}}\n',
            r"arena.yaml:1: gate.all: metric name 'pass\x1b[2J' holds control",
        ),
        (
            'gate: {models: {"sim\\e[2J": {accuracy: {min: 0.5}}}}\n',
            r"arena.yaml:1: gate.models: model key 'sim\x1b[2J' holds control",
        ),
        (
            'datasets: ["data/x\\e[2J.jsonl"]\n',
            r"arena.yaml:1: datasets[0].path: dataset path 'data/x\x1b[2J.jsonl' holds control",
        ),
        (
            'tests:\n  - {id: b, input: x, "\\e[32mweird": 1}\n',
            r"arena.yaml:2: tests[0].\x1b[32mweird: unknown key '\x1b[32mweird'",
        ),
        (  # any problem's text: what it quotes is escaped where it is said
            'repeat: {min: 1, max: 2, "\\e[2Jx": 1}\n',
            r"arena.yaml:1: repeat: as a range, unknown key '\x1b[2Jx'",
        ),
    ],
    ids=["name", "weights", "gate-all", "gate-models", "dataset", "unknown-key", "repeat-key"],
)
def test_a_name_or_key_with_control_characters_is_refused_and_said_escaped(
    pytester: pytest.Pytester, make_project: MakeProject, yaml: str, said: str
) -> None:
    make_project("p", yaml + "models: [sim_small]\n" + ("" if "tests:" in yaml else TWO_PLUS_TWO))
    result = pytester.runpytest("-p", "no:cacheprovider")
    assert result.ret == 1
    out = result.stdout.str()
    assert raw_controls(out) == []
    assert said in out


def test_a_cjk_model_key_keeps_the_leaderboards_columns_in_line(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    """A wide character takes two columns of a terminal; the board counts it so."""
    make_project(
        "p",
        "models:\n  default: [sim_perfect, 日本語モデル]\n"
        "  define: {日本語モデル: {profile: sim_perfect}}\n"
        "tests:\n  - {id: a, input: '2+2', reference: '4'}\n",
    )
    result = pytester.runpytest("-p", "no:cacheprovider")
    assert result.ret == 0, result.stdout.str()
    lines = result.stdout.lines
    head = next(i for i, line in enumerate(lines) if line.lstrip().startswith("rank"))
    table = lines[head : head + 4]
    assert any("日本語モデル" in line for line in table)
    widths = {
        sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in line) for line in table
    }
    assert len(widths) == 1, table


def test_a_name_with_an_invisible_mark_loads_and_is_shown_escaped(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    """Hebrew pasted with its right-to-left mark is a name a user means, not a mistake; a
    folder named with an escape sequence is shown escaped too (it has no `name:` to check)."""
    make_project(
        "p",
        'name: "בדיקה\\u200f"\nmodels: [sim_echo]\ntests:\n  - {id: a, input: x, reference: x}\n',
    )
    make_project(
        "bad\x1b[31mred\x07", "models: [sim_echo]\ntests:\n  - {id: a, input: x, reference: y}\n"
    )
    result = pytester.runpytest("-p", "no:cacheprovider", "-rf")
    result.assert_outcomes(passed=1, failed=1)
    for said in (
        "*arena leaderboard: בדיקה\\u200f*",
        "*arena leaderboard: bad\\x1b[[]31mred\\x07*",
        "*_ bad\\x1b[[]31mred\\x07::a[[]sim_echo] _*",
    ):
        result.stdout.fnmatch_lines([said])
    shown = result.stdout.str().replace(str(pytester.path), "")
    arena_lines = [line for line in shown.splitlines() if "projects/" not in line]
    assert raw_controls("\n".join(arena_lines)) == []
    assert "\u200f" not in shown


def test_a_flags_emoji_is_kept_whole_and_an_excerpt_never_splits_an_escape() -> None:
    scotland = "🏴\U000e0067\U000e0062\U000e0073\U000e0063\U000e0074\U000e007f"
    assert printable(f"Flag: {scotland} Scotland") == f"Flag: {scotland} Scotland"
    assert excerpt("x" * 57 + "\U000e0041" * 3) == "'" + "x" * 57 + "…'"
    assert excerpt("a" * 50 + "\xad" * 5) == "'" + "a" * 50 + "\\xad\\xad…'"


def test_the_compare_page_and_the_report_page_show_the_same_characters_as_codes() -> None:
    """The compare page (Python) and the report page (report.js) each list the characters
    shown as their code: a list changed in one and not the other would show a bidi override
    on one page and obey it on the other."""
    from importlib import resources

    from pytest_arena.reports import html

    script = (resources.files("pytest_arena.reports") / "templates" / "report.js").read_text()
    listed = re.search(r"const UNSEEN = /(\[.*?\])/g;", script)
    assert listed is not None
    assert listed.group(1) == html._UNSEEN.pattern
