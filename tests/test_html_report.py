"""`--arena-html PATH`: one self-contained page from the records of the run, its script
tried in headless Chromium (the `browser` fixture; skipped only where there is none)."""

from __future__ import annotations

import json
import re
from datetime import datetime
from html import unescape
from pathlib import Path
from typing import Any

import pytest

from pytest_arena.evaluation.samples import Sampling, combine
from pytest_arena.record import ERROR, FAILED, PASSED, UNSCORED, Record
from pytest_arena.reports import html, plots
from pytest_arena.reports.json_report import Spill, build_report
from pytest_arena.reports.leaderboard import build_boards
from tests.browser import Browser
from tests.conftest import XDIST, MakeProject

ATTACK = (
    "<img src=x onerror=\"document.title='pwned'\"></script><script>document.title='pwned'</script>"
)


def records() -> list[Record]:
    """Two projects; every status, a contract, a judge, samples that disagree, a cache hit."""
    quiz = [
        Record(
            "quiz",
            "capital",
            "big",
            PASSED,
            1.0,
            True,
            "matched",
            "exact_match",
            output="Paris",
            reference="Paris",
            messages=[{"role": "user", "content": "Capital of France?"}],
            tags=["geo"],
            cost=0.002,
            latency_ms=120.0,
            tokens_in=12,
            tokens_out=1,
        ),
        Record(
            "quiz",
            "capital",
            "small",
            FAILED,
            0.0,
            False,
            "expected 'Paris', got 'Lyon'",
            "exact_match",
            output="Lyon",
            reference="Paris",
            tags=["geo"],
            cost=0.0001,
            latency_ms=80.0,
            cached=True,
        ),
        Record(
            "quiz",
            "sum",
            "big",
            PASSED,
            1.0,
            True,
            "matched",
            "exact_match",
            output="4",
            reference="4",
            tags=["math"],
            cost=0.002,
            retries=2,
        ),
        Record(
            "quiz",
            "sum",
            "small",
            ERROR,
            None,
            None,
            "model 'small' call failed: timed out",
            "exact_match",
            error="model 'small' call failed: timed out",
            tags=["math"],
        ),
        Record(
            "quiz",
            "essay",
            "big",
            UNSCORED,
            None,
            None,
            "no rubric",
            "tone",
            output="An essay about the sea and the sky.",
            tags=["writing"],
        ),
        Record(
            "quiz",
            "essay",
            "small",
            FAILED,
            0.4,
            False,
            "too short",
            "tone",
            output="An essay about the sea.",
            tags=["writing"],
        ),
        Record("quiz", "colour", "big", PASSED, 1.0, True, "matched", "exact_match", output="blue"),
        Record(
            "quiz", "colour", "small", PASSED, 1.0, True, "matched", "exact_match", output="blue"
        ),
    ]
    support = [
        Record(
            "support",
            "refund",
            "big",
            PASSED,
            0.9,
            True,
            "polite and complete",
            "contract",
            output="Sorry, please send the card's last digits.",
            detail={
                "components": [
                    {
                        "name": "tone",
                        "scorer": "tone",
                        "weight": 1,
                        "required": True,
                        "score": 1.0,
                        "passed": True,
                        "reason": "found 'please'",
                    },
                    {
                        "name": "length",
                        "scorer": "length",
                        "weight": 2,
                        "required": False,
                        "score": 0.85,
                        "passed": True,
                        "reason": "42 words",
                    },
                ],
                "threshold": 0.7,
                "workspace": "/tmp/arena-workspaces/refund-big",
                "nested": {"a": [1, {"b": "deep"}]},
            },
            metrics={"politeness": 1.0},
            cost=0.01,
        ),
        Record(
            "support",
            "refund",
            "small",
            FAILED,
            0.2,
            False,
            "judge: misses the refund",
            "llm_judge",
            output="Send digits.",
            detail={"judge": "sim_judge", "samples": 3},
            judge_cost=0.0004,
            judge_tokens=40,
        ),
        combine(  # a repeated case: one record holding both samples, which disagree
            [
                Record(
                    "support",
                    "late",
                    "big",
                    PASSED,
                    1.0,
                    True,
                    "ok",
                    "tone",
                    output="sorry, please wait",
                    sample=0,
                ),
                Record(
                    "support",
                    "late",
                    "big",
                    FAILED,
                    0.0,
                    False,
                    "no politeness marker",
                    "tone",
                    output="wait",
                    sample=1,
                ),
            ],
            FAILED,
            Sampling(2, 2),
        ),
        Record("support", "late", "small", PASSED, 1.0, True, "ok", "tone", output="please wait"),
    ]
    return quiz + support


def page(tmp_path: Path, recs: list[Record] | None = None, **report: Any) -> Path:
    found = records() if recs is None else recs
    data = build_report(found, build_boards(found), generator="pytest-arena test")
    data.update(report)
    path = tmp_path / "report.html"
    html.write_html(path, data)
    return path


def opened(browser: Browser, path: Path) -> Browser:
    browser.open(path.as_uri())
    assert browser.js("document.documentElement.dataset.ready") == "1"
    return browser


def visible_rows(browser: Browser) -> list[str]:
    return browser.js(
        "[...document.querySelectorAll('table.matrix')].filter(t => !t.hidden)"
        ".flatMap(t => [...t.querySelectorAll('tbody tr')].filter(r => !r.hidden)"
        ".map(r => t.dataset.project + '::' + r.firstChild.textContent))"
    )


def click(browser: Browser, selector: str) -> None:
    browser.js(f"document.querySelector({json.dumps(selector)}).click()")


def cell(project: str, case: str, model: str) -> str:
    row = f"[...document.querySelectorAll('table.matrix[data-project={json.dumps(project)}] tbody tr')]"
    return (
        f"{row}.find(r => r.firstChild.textContent === {json.dumps(case)})"
        f".querySelector('td.cell[data-model={json.dumps(model)}]')"
    )


def drill(browser: Browser, project: str, case: str, model: str) -> str:
    browser.js(f"{cell(project, case, model)}.click()")
    assert browser.js("document.getElementById('drill').hidden") is False
    text: str = browser.js("document.getElementById('drill-body').innerText")
    return text


# --- the page as text: no browser needed


def test_the_page_is_self_contained(tmp_path: Path) -> None:
    text = page(tmp_path).read_text()
    assert re.search(r"<(link|img|iframe|object)\b", text) is None
    assert re.search(r"""\b(src|href)=["']?(https?:)?//""", text) is None
    assert "Content-Security-Policy" in text and "default-src 'none'" in text


def test_json_in_the_page_cannot_close_its_script_element() -> None:
    embedded = html.embed_json({"output": "</script><!-- <script>\u2028&"})
    assert "<" not in embedded and ">" not in embedded and "&" not in embedded
    assert "\u2028" not in embedded
    assert json.loads(embedded) == {"output": "</script><!-- <script>\u2028&"}


def test_the_script_never_parses_data_as_html() -> None:
    script = html._asset("report.js")
    for sink in (
        "innerHTML",
        "outerHTML",
        "insertAdjacentHTML",
        "document.write",
        "eval(",
        "Function(",
    ):
        assert sink not in script


def test_model_names_and_reasons_in_the_leaderboard_are_escaped(tmp_path: Path) -> None:
    recs = [Record("p<b>", "c", ATTACK, PASSED, 1.0, True, ATTACK, output=ATTACK)]
    text = page(tmp_path, recs).read_text()
    body = text[: text.index('<script type="application/json"')]
    assert "<img" not in body and "&lt;img src=x" in body


def test_an_old_report_without_messages_renders(tmp_path: Path) -> None:
    data = build_report(records(), build_boards(records()))
    for record in data["records"]:
        del record["messages"]
    assert "quiz" in html.render(data)


def test_the_header_says_what_the_run_spent_also_on_answers_no_case_was_graded_by() -> None:
    spend = {
        "total": 2.5,
        "on_graded": 0.3,
        "on_ungraded": 2.2,
        "unpriced_answers": 0,
        "unpriced_verdicts": 0,
        "budget_skips": 1,
    }
    data = build_report(records(), build_boards(records()), spend=spend)
    header = html.render(data).split("</header>")[0]
    text = re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", header))
    assert (
        "spent $2.50 ($2.20 on answers no case was graded by); 1 case(s) not run: budget spent"
        in text
    )
    data["spend"] = {**spend, "budget_skips": 0, "calls_cut_off": 3}  # after -x or Ctrl-C
    header = html.render(data).split("</header>")[0]
    text = re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", header))
    assert "graded by), and an unknown amount on 3 call(s) cut off in flight" in text
    del data["spend"]  # a report written before it had one
    assert "spent" not in html.render(data).split("</header>")[0]


def test_the_board_shows_ties_comparisons_and_power_as_the_terminal_does() -> None:
    recs = [
        Record("p", f"c{i}", model, PASSED if ok else FAILED, float(ok), ok)
        for i in range(6)
        for model, ok in (("a", True), ("b", i % 3 != 0))
    ]
    data = build_report(recs, build_boards(recs))
    text = html.render(data)
    assert text.count("<td>=1</td>") == 2
    verdicts = re.findall(r'<p class="verdict">([^<]*)</p>', text)
    assert verdicts[0].startswith("=N: ranks the data cannot tell apart")
    # one comparison: on the leader's line, as in the terminal
    assert verdicts[1].startswith(
        "against the leader a, on the cases both answered (accuracy): b -0.333 (95% CI "
    )
    assert verdicts[1].endswith("6 cases: not told apart")
    assert verdicts[2].startswith("power: with 6 paired cases")
    board = data["leaderboards"][0]
    del board["comparisons"][0]["p_value"], board["power"]["cases"]  # a hand-edited report
    kept = re.findall(r'<p class="verdict">([^<]*)</p>', html.render(data))
    assert kept == [verdicts[0]]
    del board["comparisons"], board["power"]
    assert '<p class="verdict">against' not in html.render(data)  # an older report


def test_the_page_says_how_ties_were_told_apart_as_the_board_did() -> None:
    """A board of accuracy alone with a model no case was scored for tells ranks apart by
    the composites' interval; the page guessed from the weights alone and said the paired
    test of accuracy, contradicting the terminal."""
    from pytest_arena.reports.tables import TIES

    recs = [
        Record("p", f"c{i}", model, PASSED if ok else FAILED, float(ok), ok)
        for i in range(6)
        for model, ok in (("a", i % 2 == 0), ("b", i % 2 == 1))
    ] + [Record("p", f"c{i}", "c", UNSCORED, 0.0, None) for i in range(6)]
    (board,) = build_boards(recs)
    data = build_report(recs, [board])
    assert data["leaderboards"][0]["ties_by"] == board.ties_by == "interval"
    verdicts = re.findall(r'<p class="verdict">([^<]*)</p>', html.render(data))
    assert unescape(verdicts[0]) == TIES["interval"]
    del data["leaderboards"][0]["ties_by"]  # a report from before the board said it
    older = re.findall(r'<p class="verdict">([^<]*)</p>', html.render(data))
    assert unescape(older[0]) == TIES["test"]


def test_the_pareto_front_is_the_models_nothing_beats_on_cost_and_accuracy() -> None:
    points = [("cheap", 0.1, 0.5), ("dear", 1.0, 0.9), ("worse", 0.5, 0.4), ("mid", 0.3, 0.7)]
    assert plots.pareto(points) == ["cheap", "mid", "dear"]


def test_intervals_on_a_board_row_become_error_bars() -> None:
    rows = [
        {"model": "a", "accuracy": 0.6, "interval": {"low": 0.5, "high": 0.7}},
        {"model": "b", "accuracy": 0.4, "ci": [0.3, 0.5]},
    ]
    plot = plots.scores(rows)
    assert sum(s.cls == "whisker" and s.title != "" for s in plot.shapes) == 2
    assert plot.note == ""
    assert "no intervals" in plots.scores([{"model": "a", "accuracy": 0.6}]).note


def test_a_model_without_a_price_is_not_drawn_at_cost_zero() -> None:
    plot = plots.cost_accuracy(
        [
            {"model": "a", "accuracy": 0.6, "cost": None},
            {"model": "b", "accuracy": 0.4, "cost": 0.2},
        ]
    )
    assert "a" in plot.note and not any(s.text == "a" for s in plot.shapes)


# --- the option, end to end

QUIZ = """
models: [sim_perfect, sim_echo]
tests:
  - {id: a, input: "say x", reference: x, tags: [easy]}
  - {id: b, input: "say y", reference: y}
  - {id: c, input: "say z", reference: z}
"""


def test_the_controller_writes_the_page_under_xdist(
    pytester: pytest.Pytester, make_project: MakeProject, browser: Browser
) -> None:
    make_project("quiz", QUIZ)
    result = pytester.runpytest(
        *XDIST, "-n", "2", "--arena-html", "out/r.html", "--arena-json", "out/r.json"
    )
    result.stdout.fnmatch_lines(["arena: HTML report: */out/r.html"])
    report = json.loads((pytester.path / "out" / "r.json").read_text())
    assert len(report["records"]) == 6
    opened(browser, pytester.path / "out" / "r.html")
    assert browser.js("document.querySelectorAll('td.cell').length") == 6
    assert browser.js("document.querySelectorAll('td.cell.failed').length") == 3
    assert browser.js("document.querySelectorAll('table.board tbody tr').length") == 2
    assert browser.js("document.getElementById('f-count').textContent") == "3 of 3 cases shown"


def test_a_folder_as_the_html_path_is_a_usage_error(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    make_project("quiz", QUIZ)
    (pytester.path / "out").mkdir()
    result = pytester.runpytest("--arena-html", "out")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--arena-html out is a folder*--arena-html out/arena.html*"])


# --- in the browser


def test_failing_only_hides_the_rows_without_a_failure(tmp_path: Path, browser: Browser) -> None:
    opened(browser, page(tmp_path))
    assert len(visible_rows(browser)) == 6
    click(browser, "#f-failing")  # colour passes on both models
    assert visible_rows(browser) == [
        "quiz::capital",
        "quiz::essay",
        "quiz::sum",
        "support::late",
        "support::refund",
    ]
    click(browser, "#f-flaky")
    assert visible_rows(browser) == ["support::late"]
    assert browser.js("document.getElementById('f-count').textContent") == "1 of 6 cases shown"


def test_filters_by_model_tag_scorer_project_and_text(tmp_path: Path, browser: Browser) -> None:
    opened(browser, page(tmp_path))

    def choose(select: str, value: str) -> list[str]:
        browser.js(
            f"(s => {{ s.value = {json.dumps(value)}; s.dispatchEvent(new Event('change')); }})"
            f"(document.getElementById({json.dumps(select)}))"
        )
        return visible_rows(browser)

    assert choose("f-tag", "math") == ["quiz::sum"]
    assert choose("f-tag", "") and choose("f-scorer", "llm_judge") == ["support::refund"]
    assert choose("f-scorer", "") and choose("f-project", "support") == [
        "support::late",
        "support::refund",
    ]
    choose("f-project", "")
    click(browser, "#f-failing")
    assert choose("f-model", "big") == ["support::late"]  # big fails only the second sample of late
    assert (
        browser.js(
            "document.querySelectorAll('tr:not([hidden]) > td.cell:not([hidden])[data-model=small]').length"
        )
        == 0
    )
    click(browser, "#f-failing")
    choose("f-model", "")
    browser.js(
        "(t => { t.value = 'LYON'; t.dispatchEvent(new Event('input')); })(document.getElementById('f-text'))"
    )
    browser.js("new Promise(r => setTimeout(r, 300))")
    assert visible_rows(browser) == ["quiz::capital"]  # an output
    browser.js(
        "(t => { t.value = 'capital of france'; t.dispatchEvent(new Event('input')); })(document.getElementById('f-text'))"
    )
    browser.js("new Promise(r => setTimeout(r, 300))")
    assert visible_rows(browser) == ["quiz::capital"]  # the prompt


def test_a_cell_opens_its_drill_down(tmp_path: Path, browser: Browser) -> None:
    opened(browser, page(tmp_path))
    text = drill(browser, "quiz", "capital", "small")
    assert "expected 'Paris', got 'Lyon'" in text
    assert (
        browser.js("document.querySelector('#drill .reason').textContent")
        == "expected 'Paris', got 'Lyon'"
    )
    assert "from the cache" in text and "cached" in text
    text = drill(browser, "quiz", "capital", "big")
    assert "Capital of France?" in text and "12 in, 1 out" in text and "$0.002" in text
    text = drill(browser, "quiz", "sum", "small")
    assert "timed out" in text
    text = drill(browser, "support", "refund", "big")
    assert "CONTRACT COMPONENTS" in text and "found 'please'" in text and "42 words" in text
    assert "/tmp/arena-workspaces/refund-big" in text and "politeness" in text
    assert browser.js(
        "[...document.querySelectorAll('#drill .tree .key')].map(k => k.textContent).includes('b: ')"
    )
    text = drill(browser, "support", "refund", "small")
    assert "sim_judge" in text and "judge: misses the refund" in text and "40 tokens" in text
    text = drill(browser, "support", "late", "big")
    assert "2 samples, which disagree" in text and "SAMPLE 1" in text
    assert "passed 1 of 2; needs 100%" in text
    click(browser, "#drill-close")
    assert browser.js("document.getElementById('drill').hidden") is True


def test_two_outputs_side_by_side_mark_the_words_that_differ(
    tmp_path: Path, browser: Browser
) -> None:
    opened(browser, page(tmp_path))
    drill(browser, "quiz", "essay", "big")
    deleted = browser.js(
        "[...document.querySelectorAll('#drill .compare del')].map(e => e.textContent).join('')"
    )
    inserted = browser.js(
        "[...document.querySelectorAll('#drill .compare ins')].map(e => e.textContent).join('')"
    )
    assert "sky." in deleted and "sea." in inserted
    assert "An" not in deleted  # the words they share are not marked


@pytest.mark.parametrize("csp", [True, False], ids=["with-csp", "escaping-alone"])
def test_no_script_from_the_data_runs(tmp_path: Path, browser: Browser, csp: bool) -> None:
    """Model output, reasons, ids, tags, detail and the model name carry markup that would
    run a script; the page shows it as text. Without its Content-Security-Policy too:
    escaping alone holds."""
    attack = [
        Record(
            "p" + ATTACK,
            "c" + ATTACK,
            "m" + ATTACK,
            FAILED,
            0.5,
            False,
            ATTACK,
            "s" + ATTACK,
            output=ATTACK,
            reference=ATTACK,
            raw_output=ATTACK,
            tags=[ATTACK],
            messages=[{"role": ATTACK, "content": ATTACK}],
            detail={ATTACK: [ATTACK]},
            metrics={ATTACK: 0.5},
        ),
        Record(
            "p" + ATTACK, "c" + ATTACK, "other", PASSED, 1.0, True, "ok", output="fine " + ATTACK
        ),
    ]
    path = page(tmp_path, attack)
    if not csp:
        text = re.sub(r'<meta http-equiv="Content-Security-Policy"[^>]*>', "", path.read_text())
        assert "Content-Security-Policy" not in text
        path.write_text(text)
    browser.before_load(
        "window.__blocked = []; document.addEventListener('securitypolicyviolation',"
        " e => window.__blocked.push(e.violatedDirective));"
    )
    opened(browser, path)
    for td in range(2):
        browser.js(f"document.querySelectorAll('td.cell')[{td}].click()")
        assert ATTACK in browser.js("document.getElementById('drill-body').textContent")
    assert browser.js("document.title") == "pytest-arena report"
    assert browser.js("document.querySelectorAll('img').length") == 0
    assert browser.js("document.querySelectorAll('script').length") == 2  # the data and ours
    assert browser.js("window.__blocked") == []  # nothing even tried, and was stopped
    assert browser.js("document.querySelector('#drill pre.output').textContent") == ATTACK


def test_a_large_report_draws_its_rows_page_by_page_and_filters_them_all(
    tmp_path: Path, browser: Browser
) -> None:
    many = [
        Record(
            "big",
            f"c{i:04d}",
            "m",
            FAILED if i % 2 else PASSED,
            1.0 - i % 2,
            i % 2 == 0,
            output=f"answer {i}",
        )
        for i in range(1200)
    ]
    opened(browser, page(tmp_path, many))
    assert len(visible_rows(browser)) == 500
    assert (
        browser.js("document.querySelector('button.more').textContent")
        == "show 500 more of 700 cases not drawn yet"
    )
    click(browser, "button.more")
    click(browser, "button.more")
    assert len(visible_rows(browser)) == 1200
    assert browser.js("document.querySelector('button.more').hidden") is True
    browser.js(
        "(t => { t.value = 'answer 1199'; t.dispatchEvent(new Event('input')); })(document.getElementById('f-text'))"
    )
    browser.js("new Promise(r => setTimeout(r, 300))")
    assert visible_rows(browser) == ["big::c1199"]
    assert drill(browser, "big", "c1199", "m").count("answer 1199") == 1


def test_the_count_says_how_many_cases_are_drawn_when_a_table_draws_only_its_first_page(
    tmp_path: Path, browser: Browser
) -> None:
    """It said "620 of 620 cases shown" with 500 rows on the page, the rest behind "show
    more"."""
    many = [
        Record("big", f"c{i:04d}", "m", FAILED if i % 2 else PASSED, 1.0 - i % 2, i % 2 == 0)
        for i in range(620)
    ]
    opened(browser, page(tmp_path, many))

    def count() -> str:
        said: str = browser.js("document.getElementById('f-count').textContent")
        return said

    assert len(visible_rows(browser)) == 500
    assert count() == "500 of 620 cases shown; 120 more match, drawn by “show more” below"
    click(browser, "button.more")
    assert len(visible_rows(browser)) == 620
    assert count() == "620 of 620 cases shown"
    click(browser, "#f-failing")  # 310 match: all drawn
    assert count() == "310 of 620 cases shown"


def test_the_drill_down_shows_a_tool_loops_trajectory(tmp_path: Path, browser: Browser) -> None:
    call = {"id": "c1", "name": "lookup_order", "arguments": {"order_id": "<b>1182</b>"}}
    steps = [
        {
            "step": 1,
            "message": {"content": "", "tool_calls": [call]},
            "tool_results": [
                {"id": "c1", "name": "lookup_order", "content": "error: no order", "is_error": True}
            ],
            "tokens_in": 30,
            "tokens_out": 8,
            "latency_ms": 12.0,
            "cached": False,
        },
        {"step": 2, "message": {"content": "<i>Sorry</i>, no such order."}, "tokens_in": 50},
    ]
    record = Record(
        "desk",
        "lookup",
        "small",
        FAILED,
        score=0.0,
        passed=False,
        reason="expected call 1, lookup_order: argument 'order_id' is wrong",
        output="<i>Sorry</i>, no such order.",
        response={"message": steps[-1]["message"], "trajectory": steps},
    )
    opened(browser, page(tmp_path, [record]))
    text = drill(browser, "desk", "lookup", "small")
    assert "TRAJECTORY: 2 STEPS" in text
    assert 'lookup_order({"order_id":"<b>1182</b>"})' in text  # as text, never as markup
    assert "error: no order" in text and "30 in, 8 out, 12 ms" in text
    assert "<i>Sorry</i>, no such order." in text
    assert browser.js("document.querySelectorAll('#drill .trajectory li').length") == 2
    assert browser.js("document.querySelectorAll('#drill .trajectory pre.tool-error').length") == 1


def test_the_comparison_page_shows_what_changed_and_runs_no_script_from_the_data(
    tmp_path: Path, browser: Browser
) -> None:
    """`arena compare A B --html`: the regressions and fixes of each model as a reader sees
    them, and markup in case ids, reasons and names shown as text."""
    from pytest_arena.reports.comparison import as_html, compare

    def run(model: str, statuses: dict[str, str]) -> list[Record]:
        return [
            Record("p" + ATTACK, case, model, status, float(status == PASSED), reason=ATTACK)
            for case, status in statuses.items()
        ]

    before = run("m" + ATTACK, {"a": PASSED, "b" + ATTACK: PASSED, "c": FAILED, "d": PASSED})
    after = run("m" + ATTACK, {"a": FAILED, "b" + ATTACK: FAILED, "c": PASSED, "d": PASSED})
    a, b = (build_report(r, build_boards(r)) for r in (before, after))
    path = tmp_path / "compare.html"
    path.write_text(as_html(compare(a, b), a, b, names=("before.json", ATTACK)), "utf-8")
    browser.before_load(
        "window.__blocked = []; document.addEventListener('securitypolicyviolation',"
        " e => window.__blocked.push(e.violatedDirective));"
    )
    browser.open(path.as_uri())
    rows = browser.js(
        "[...document.querySelectorAll('table.changes tbody tr')]"
        ".map(r => [...r.cells].slice(0, 4).map(c => c.textContent))"
    )
    assert rows == [
        ["regression", "a", "passed", "failed"],
        ["regression", "b" + ATTACK, "passed", "failed"],
        ["fix", "c", "failed", "passed"],
    ]
    red = browser.js("getComputedStyle(document.querySelector('tr.regression td.kind')).color")
    green = browser.js("getComputedStyle(document.querySelector('tr.fix td.kind')).color")
    assert (red, green) == ("rgb(176, 0, 32)", "rgb(27, 122, 27)")
    assert browser.js("document.querySelector('td.reason').textContent") == ATTACK
    assert browser.js("document.querySelector('h2').textContent") == f"p{ATTACK} / m{ATTACK}"
    assert ATTACK in browser.js("document.querySelector('p.meta').textContent")
    assert browser.js("document.title") == f"pytest-arena: before.json against {ATTACK}"
    assert browser.js("document.querySelectorAll('script, img').length") == 0
    assert browser.js("window.__blocked") == []  # nothing even tried, and was stopped


def test_a_page_from_spilled_records_is_the_page_from_whole_ones(tmp_path: Path) -> None:
    """A run with --arena-html keeps lean records and the whole ones in a spill file, and
    writes the page from there a record at a time: the same page, byte for byte."""

    def record(case: str, model: str, status: str, output: str, **more: Any) -> Record:
        return Record(
            "p", case, model, status, score=float(status == PASSED), output=output, **more
        )

    arrived = [
        record("a", "m1", PASSED, "fine"),
        record("b", "m1", FAILED, "</script><script>alert(1)</script> & \u2028"),
        record("a", "m2", FAILED, "naïve <b>"),
        record("c", "m2", ERROR, "", error="boom", detail={"crash": "gw0"}),  # not spilled
    ]
    boards, when = build_boards(arrived), datetime(2026, 1, 2)
    whole = html.render(build_report(arrived, boards, created=when))
    spill = Spill()
    for r in arrived:
        if spill.add(r, whole="crash" not in r.detail):
            r.lean()  # as the run keeps it
    assert arrived[1].output is None
    html.write_html(tmp_path / "r.html", build_report(arrived, boards, created=when, spill=spill))
    spill.close()
    page = (tmp_path / "r.html").read_text("utf-8")
    assert page == whole
    data = json.loads(re.search(r'id="arena-data">(.*?)</script>', page, re.S)[1])  # type: ignore[index]
    assert [(r["case"], r["model"], r["output"]) for r in data["records"]] == [
        ("a", "m1", "fine"),
        ("a", "m2", "naïve <b>"),
        ("b", "m1", "</script><script>alert(1)</script> & \u2028"),
        ("c", "m2", ""),
    ]
    assert "<script>alert" not in page


# --- what a reader of a real run met (a user's runs, in Chromium)


def test_a_page_without_cases_or_boards_still_opens_and_shows_every_record(
    tmp_path: Path, browser: Browser
) -> None:
    """A run that selected no case threw a script error (the filters were not on the page);
    a report without leaderboards (older, or edited) dropped every record from the matrix."""
    opened(browser, page(tmp_path, []))
    assert "no arena case ran" in browser.js("document.body.innerText")
    data = build_report(records(), [])
    path = tmp_path / "boardless.html"
    html.write_html(path, data)
    opened(browser, path)
    assert browser.js("document.querySelectorAll('td.cell:not(.none)').length") == len(records())
    assert browser.js("document.getElementById('f-count').textContent") == "6 of 6 cases shown"


def test_a_cell_opens_and_closes_from_the_keyboard(tmp_path: Path, browser: Browser) -> None:
    opened(browser, page(tmp_path))
    target = cell("quiz", "capital", "small")
    assert browser.js(f"{target}.tabIndex") == 0
    assert browser.js(f"{target}.getAttribute('role')") == "button"
    browser.js(
        f"(c => {{ c.focus(); c.dispatchEvent(new KeyboardEvent('keydown', {{key: 'Enter',"
        f" bubbles: true}})); }})({target})"
    )
    assert browser.js("document.getElementById('drill').hidden") is False
    assert browser.js("document.activeElement.id") == "drill-close"  # focus moved in
    browser.js(
        "document.dispatchEvent(new KeyboardEvent('keydown', {key: 'Escape', bubbles: true}))"
    )
    assert browser.js("document.getElementById('drill').hidden") is True
    assert browser.js(f"document.activeElement === {target}")  # and back to the cell


def test_a_repeated_case_shows_its_own_verdict_not_its_first_sample(
    tmp_path: Path, browser: Browser
) -> None:
    """The tooltip and the side-by-side said sample 0's 'ok' and 'passed' for a case whose
    verdict, from its samples, was failed."""
    opened(browser, page(tmp_path))
    late = cell("support", "late", "big")
    reason = next(r.reason for r in records() if (r.case_id, r.model) == ("late", "big"))
    assert reason != "ok" and browser.js(f"{late}.title") == reason
    drill(browser, "support", "late", "big")
    heads = browser.js(
        "[...document.querySelectorAll('#drill .compare > div:not(.reason)')]"
        ".slice(0, 2).map(d => d.textContent)"
    )
    assert heads[0].startswith("big failed")


def test_flaky_cases_pass_at_k_and_gate_limits_are_on_the_page(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    """Undecided cases were in no badge nor column, and gate checks said a value without its
    limit or margin."""
    cases = "".join(f"  - {{id: c{i}, input: 'q{i}', reference: 'a{i}'}}\n" for i in range(30))
    make_project(
        "rep",
        "models: [sim_small]\nrepeat: {min: 3, max: 6}\nmin_pass_rate: 0.6\n"
        "gate:\n  all: {accuracy: {min: 0.1}}\ntests:\n" + cases,
    )
    pytester.runpytest("-p", "no:cacheprovider", "--arena-html", "r.html", "--arena-json", "r.json")
    report = json.loads((pytester.path / "r.json").read_text())
    statuses = [r["status"] for r in report["records"]]
    text = (pytester.path / "r.html").read_text()
    header = text[text.index("<header>") : text.index("</header>")]
    assert "flaky" in statuses
    assert f'<span class="badge flaky">{statuses.count("flaky")} flaky</span>' in header
    assert "<th>flaky</th>" in text and "<th>pass@3</th>" in text and "<th>pass^3</th>" in text
    (check,) = report["gates"][0]["checks"]
    line = html.check_line(check)
    value, margin = check["value"], check["margin"]
    assert line == f"held: sim_small accuracy {value:.4g} within min 0.1 (margin {margin:.4g})"
    assert line in text


def test_control_and_bidi_characters_in_run_text_are_shown_not_obeyed(
    tmp_path: Path, browser: Browser
) -> None:
    """An unterminated right-to-left override in a project name reversed the nav links after
    it, and one in an output showed 'evil' as 'live'."""
    recs = [
        Record("p\u202eab", "c", "m", FAILED, 0.0, False, "why\u202e", output="\u202eevil\u202c")
    ]
    opened(browser, page(tmp_path, recs))
    assert browser.js("getComputedStyle(document.querySelector('nav a')).unicodeBidi") == "isolate"
    text = drill(browser, "p\u202eab", "c", "m")
    assert "⟨U+202E⟩evil⟨U+202C⟩" in text and "why⟨U+202E⟩" in text


def test_each_answer_is_in_the_page_once(tmp_path: Path) -> None:
    """The record's output and its response's message held the same answer: every page
    twice its size."""
    answer = "".join(f"word{i} " for i in range(2000))
    recs = [
        Record(
            "p", "c", "m", PASSED, 1.0, True, "ok", output=answer,
            response={"message": {"role": "assistant", "content": answer}, "trajectory": []},
        )
    ]  # fmt: skip
    assert page(tmp_path, recs).read_text().count(answer) == 1


def test_long_model_names_fit_their_plots_and_equal_costs_one_tick() -> None:
    rows = [
        {"model": f"openrouter/meta-llama/llama-3.1-{size}b-instruct", "accuracy": 0.5, "cost": 0.0}
        for size in (8, 70, 405)
    ]
    labels = [s for s in plots.scores(rows).shapes if s.kind == "text" and s.cls == "label"]
    shown = [s.text for s in labels]
    assert shown == ["…a-3.1-8b-instruct", "…-3.1-70b-instruct", "…3.1-405b-instruct"]
    assert all(len(s.text) <= plots.LABEL_CHARACTERS for s in labels)
    assert [s.title for s in labels] == [r["model"] for r in rows]  # whole, as a tooltip
    ticks = [s.text for s in plots.cost_accuracy(rows).shapes if s.cls == "tick" and "$" in s.text]
    assert ticks == ["$0.00"]  # not "$0.00$0.00" on one spot


def test_a_model_on_one_run_only_is_said_so_by_the_text_and_the_page() -> None:
    """`arena compare` of two runs where a model ran in one only: both the terminal text and
    the page say on which run's leaderboard it is missing, and count its cases as one
    run's only."""
    from pytest_arena.reports.comparison import as_html, as_text, compare

    def run(models: list[str]) -> dict[str, Any]:
        records = [Record("p", case, m, PASSED, 1.0) for m in models for case in ("a", "b")]
        return build_report(records, build_boards(records))

    a, b = run(["kept", "gone"]), run(["kept", "new"])
    items = compare(a, b)
    assert [(i.model, i.before is None, i.after is None) for i in items] == [
        ("gone", False, True),
        ("kept", False, False),
        ("new", True, False),
    ]
    text = as_text(items)
    gone, kept, new = text.split("== p / ")[1:]
    assert "not on run B's leaderboard" in gone and "2 case(s) only in A" in gone
    assert "not on run A's leaderboard" in new and "2 case(s) only in B" in new
    assert "leaderboard" not in kept.split("\n", 1)[1]
    page = as_html(items, a, b)
    said = re.findall(r"<h2>p / (\w+)</h2>\s*(?:<p class=\"warning\">([^<]*)</p>)?", page)
    assert said == [
        ("gone", "not on run B's leaderboard"),
        ("kept", ""),
        ("new", "not on run A's leaderboard"),
    ]


def test_the_arrow_keys_move_between_the_matrix_cells(tmp_path: Path, browser: Browser) -> None:
    """A reader at the keyboard went through every cell with Tab, one at a time; the arrow
    keys move along a row and a column, past a case the model did not run."""
    recs = [
        Record("p", case, model, PASSED, 1.0)
        for case, models in (("a", "xyz"), ("b", "xz"), ("c", "xyz"))
        for model in models
    ]
    opened(browser, page(tmp_path, recs))

    def press(key: str, code: int) -> str:
        for kind in ("rawKeyDown", "keyUp"):
            browser.call(
                "Input.dispatchKeyEvent",
                type=kind,
                key=key,
                code=key,
                windowsVirtualKeyCode=code,
            )
        return browser.js(
            "(c => c.parentNode.firstChild.textContent + ':' + c.dataset.model)"
            "(document.activeElement)"
        )

    browser.js(f"{cell('p', 'a', 'x')}.focus()")
    assert press("ArrowRight", 39) == "a:y"
    assert press("ArrowRight", 39) == "a:z"
    assert press("ArrowRight", 39) == "a:z"  # the row's end: it stays
    assert press("ArrowDown", 40) == "b:z"
    assert press("ArrowLeft", 37) == "b:x"  # past b's empty cell of y
    assert press("ArrowUp", 38) == "a:x"
    browser.js(f"{cell('p', 'a', 'y')}.focus()")
    assert press("ArrowDown", 40) == "c:y"  # past b, which y did not run
    press("Enter", 13)
    assert browser.js("document.getElementById('drill').hidden") is False


def test_names_of_models_at_one_cost_and_accuracy_do_not_overprint(
    tmp_path: Path, browser: Browser
) -> None:
    """Three sims at $0 and the same accuracy had their names drawn on one spot, unreadable;
    each name is drawn apart, and a lone model's where its point is."""
    recs = [
        Record("p", case, model, PASSED, 1.0, cost=0.0)
        for case in "abc"
        for model in ("sim_perfect", "sim_large_model", "mine")
    ]
    recs += [Record("p", "a", "lone", FAILED, 0.0, cost=0.0)]
    opened(browser, page(tmp_path, recs))
    boxes = browser.js(
        "[...document.querySelectorAll('figure svg')].find(s => s.textContent.includes('cost'))"
        ".querySelectorAll('text.label').values().toArray().map(t => {"
        " const b = t.getBBox(), own = [...t.childNodes].filter(n => n.nodeType === 3);"
        " return [own.map(n => n.data).join(''), b.x, b.y, b.width, b.height]; })"
    )
    assert sorted(b[0] for b in boxes) == ["lone", "mine", "sim_large_model", "sim_perfect"]
    for i, (_, x, y, w, h) in enumerate(boxes):
        for other, x2, y2, w2, h2 in boxes[i + 1 :]:
            apart = x + w <= x2 or x2 + w2 <= x or y + h <= y2 or y2 + h2 <= y
            assert apart, f"{boxes[i][0]} overprints {other}"
    points = browser.js(
        "[...document.querySelectorAll('figure svg')].find(s => s.textContent.includes('cost'))"
        ".querySelectorAll('circle').values().toArray().map(c => Number(c.getAttribute('cy')))"
    )
    lone = next(b for b in boxes if b[0] == "lone")
    assert abs(lone[2] + lone[4] / 2 - max(points)) < 8  # beside its own point, low


def test_a_baseline_check_of_an_older_report_without_its_text_is_said_plainly() -> None:
    """Reports written before checks kept their text showed "regression (limit ):"."""
    from pytest_arena.reports import html

    old = {"scope": "baseline", "model": "sim_large", "metric": "regression", "status": "failed"}
    assert html.check_line({**old, "value": 0.0}) == "failed: sim_large regression 0"
    assert html.check_line({**old, "metric": "critical", "status": "held", "value": None}) == (
        "held: sim_large critical"
    )


def test_bidi_overrides_in_tags_and_tool_calls_are_shown_as_their_code(
    tmp_path: Path, browser: Browser
) -> None:
    """A case's tags and a tool call's name and arguments were put into the drill-down raw:
    an override in a tag reversed the tags after it, one in an argument the call's line."""
    call = {"id": "c1", "name": "look\u202eup", "arguments": {"q": "\u202eevil\u2066"}}
    steps = [{"step": 1, "message": {"content": "", "tool_calls": [call]}}]
    record = Record(
        "desk", "c", "m", PASSED, 1.0, True, "ok", output="done",
        tags=["\u202eslow", "x\u0007"],
        response={"message": {"content": "done"}, "trajectory": steps},
    )  # fmt: skip
    opened(browser, page(tmp_path, [record]))
    text = drill(browser, "desk", "c", "m")
    assert "⟨U+202E⟩slow, x⟨U+0007⟩" in text
    assert 'look⟨U+202E⟩up({"q":"⟨U+202E⟩evil⟨U+2066⟩"})' in text
    assert "\u202e" not in text and "\u2066" not in text


def test_the_page_says_the_composites_formula_as_the_terminal_does(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    """Weights of 0.5 and 0.3 read 0.63·accuracy + 0.37·cost in the terminal and the job
    summary, and 0.62·accuracy + 0.37·cost on the page: 0.99 of the composite."""
    make_project(
        "quiz",
        """
        models: [sim_small, sim_large]
        metrics:
          weights: {accuracy: 0.5, cost: 0.3}
        tests:
          - {id: a, input: "Capital of France?", reference: Paris}
          - {id: b, input: "2+2?", reference: "4"}
        """,
    )
    result = pytester.runpytest("-p", "no:cacheprovider", "--arena-html", "page.html")
    result.stdout.fnmatch_lines(["composite = 0.63·accuracy + 0.37·cost"])
    text = (pytester.path / "page.html").read_text()
    assert '<p class="formula">composite = 0.63·accuracy + 0.37·cost</p>' in text
