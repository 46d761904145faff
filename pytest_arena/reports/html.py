"""The `--arena-html` report: one self-contained HTML file, made from the data of the JSON
report (so `arena report RUN.json --html OUT` makes the same page later).

Jinja2 renders the leaderboards and plots with autoescaping on. The case matrix, the
drill-downs, the filters and the side-by-side comparison are drawn in the browser by
`templates/report.js` (small, no dependencies) from the records, embedded as JSON in a
`<script type="application/json">` block with `<`, `>` and `&` escaped, so no text of
a record can close the block. The script puts record text into the page as text nodes
only, and a Content-Security-Policy lets no script run but the report's own (by hash)
and nothing load from the network.
"""

from __future__ import annotations

import base64
import hashlib
import io
import json
import re
from collections.abc import Mapping
from importlib import resources
from pathlib import Path
from typing import Any, NamedTuple, TextIO

from pytest_arena.engine.money import dollars
from pytest_arena.record import XFAILED, XPASSED, XPASSED_STRICT, json_safe
from pytest_arena.reports import plots
from pytest_arena.reports.json_report import Spilled, stopped_said
from pytest_arena.reports.report_files import written_whole
from pytest_arena.reports.statistics import Difference
from pytest_arena.reports.tables import metric_said, verdicts_said, weights_said
from pytest_arena.reports.verdicts import Comparison, Power

TEMPLATES = "templates"
TITLE = "pytest-arena report"
XFAIL_SAID = {XFAILED: "xfailed", XPASSED: "xpassed", XPASSED_STRICT: "xpassed (strict)"}
UNKNOWN = "\u2013"  # an en dash: no value (a missing price is unknown, never $0)
_JSON_ESCAPES = {
    "<": "\\u003c",
    ">": "\\u003e",
    "&": "\\u0026",
    "\u2028": "\\u2028",
    "\u2029": "\\u2029",
}


def embed_json(data: Any) -> str:
    """`data` as JSON that is safe inside an HTML `<script>` element: `</script>` and
    `<!--` cannot occur in it, nor the line separators old parsers choke on."""
    text = json.dumps(json_safe(data), ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    for raw, escaped in _JSON_ESCAPES.items():
        text = text.replace(raw, escaped)  # only ever inside strings: JSON has no <, > or & else
    return text


def _asset(name: str) -> str:
    folder = resources.files("pytest_arena.reports").joinpath(TEMPLATES)
    return folder.joinpath(name).read_text("utf-8")


def _csp_hash(text: str) -> str:
    return "sha256-" + base64.b64encode(hashlib.sha256(text.encode()).digest()).decode()


def _environment() -> Any:
    import jinja2  # only runs that write the report pay for the import

    env = jinja2.Environment(
        loader=jinja2.FunctionLoader(_asset),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters["share"] = _share
    env.filters["percent"] = _percent
    env.filters["money"] = _money
    env.filters["ms"] = _ms
    env.filters["metric"] = _metric
    env.filters["seen"] = seen
    env.globals["check_line"] = check_line
    return env


# control characters and bidi overrides, as report.js's UNSEEN: newlines and tabs stay
_UNSEEN = re.compile(
    r"[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]"
)


def seen(value: Any) -> str:
    """`value` as text with each character that would act unseen (reorder the text around
    it, as a bidi override does) shown as its code, `⟨U+202E⟩`, as report.js's `seen`."""
    return _UNSEEN.sub(lambda m: f"⟨U+{ord(m.group()):04X}⟩", str(value))


def _share(value: Any) -> str:
    return f"{value:.3f}" if isinstance(value, int | float) else UNKNOWN


def _metric(value: Any) -> str:
    return metric_said(float(value)) if isinstance(value, int | float) else UNKNOWN


def _percent(value: Any) -> str:
    return f"{value * 100:.1f}%" if isinstance(value, int | float) else UNKNOWN


def _money(value: Any) -> str:
    return dollars(float(value)) if isinstance(value, int | float) else UNKNOWN


def _ms(value: Any) -> str:
    return f"{value:.0f} ms" if isinstance(value, int | float) else UNKNOWN


def _project(board: Mapping[str, Any], records: list[Mapping[str, Any]]) -> dict[str, Any]:
    """What the template shows of one project: its board, plots and gate (a board with no
    row, as of a project a spent budget kept from every case: its notes alone)."""
    rows = list(board.get("rows") or [])
    mine = [r for r in records if r.get("project") == board.get("project")]
    return {
        "name": board.get("project", ""),
        "board": board,
        "rows": rows,
        "intervals": {str(r.get("model")): _intervals(r) for r in rows},
        "metric_names": list(board.get("metric_names") or []),
        "weights": dict(board.get("weights") or {}),
        "warnings": list(board.get("warnings") or []),
        "notes": list(board.get("notes") or []),
        "show_unscored": any(r.get("unscored") for r in rows),
        "show_flaky": any(r.get("flaky") for r in rows),
        "k": board.get("k"),
        "show_judge": any("judge_cost" in r and r["judge_cost"] != 0 for r in rows),
        "verdicts": _verdicts(board),
        "plots": [
            plots.scores(rows),
            plots.cost_accuracy(rows),
            plots.distribution(rows, mine),
        ]
        if rows
        else [],
    }


class Bounds(NamedTuple):
    """A 95% interval as a board cell shows it: its bounds, as the accuracy's always were,
    and for their title the terminal's `value ± half-width`."""

    text: str
    title: str


def _intervals(row: Mapping[str, Any]) -> dict[str, Bounds | None]:
    """The intervals a row shows on its composite, accuracy and pass rate: the accuracy's as
    its error bar reads it, the others from `intervals`; None where the row has none (one
    case, a model with no score, a report from before them): the terminal shows no `±`."""
    given = row.get("intervals")
    shown: dict[str, Bounds | None] = {}
    for name in ("composite", "accuracy", "pass_rate"):
        data = given.get(name) if isinstance(given, Mapping) else None
        bounds = plots.interval(row if name == "accuracy" else {"interval": data})
        said = _percent if name == "pass_rate" else _share
        shown[name] = (
            Bounds(
                f"[{said(bounds[0])}, {said(bounds[1])}]",
                f"95% interval: {_plus_minus(name, row.get(name), bounds)}",
            )
            if bounds
            else None
        )
    return shown


def _plus_minus(name: str, value: Any, bounds: tuple[float, float]) -> str:
    """A value with its interval as the terminal's board says it: `0.667 ± 0.500`,
    `66.7% ± 36.5`."""
    half = (bounds[1] - bounds[0]) / 2
    if name == "pass_rate":
        return f"{_percent(value)} ± {half * 100:.1f}"
    return f"{_share(value)} ± {half:.3f}"


def _verdicts(board: Mapping[str, Any]) -> list[str]:
    """The board's verdict lines as the terminal says them, from its JSON: none from a report
    older than the comparisons, and a comparison or power line missing its numbers is left
    out (a hand-edited report still renders)."""
    tied = any(str(r.get("rank_label", "")).startswith("=") for r in board.get("rows") or [])
    said = board.get("ties_by")
    if said not in ("test", "interval"):  # a report from before the board said it
        plain = set(board.get("weights") or {"accuracy": 1}) == {"accuracy"}
        said = "test" if plain else "interval"
    ties = said if tied else None
    comparisons = []
    for c in board.get("comparisons") or []:
        try:
            difference = Difference(
                c["difference"], c["se"], c["low"], c["high"], c["p_value"], int(c["cases"])
            )
            weightless = int(c.get("weightless") or 0)  # (reports before it: none)
            comparisons.append(
                Comparison(
                    str(c["model"]),
                    str(c["against"]),
                    difference,
                    str(c["test"]),
                    weightless=weightless,
                )
            )
        except (KeyError, TypeError, ValueError):
            continue
    p = board.get("power")
    try:
        power = (
            Power(
                tuple(p["models"]),
                int(p["cases"]),
                float(p["paired_sd"]),
                float(p["detectable"]),
                float(p["target"]),
                p["cases_needed"],
                bool(p["assumed"]),
                float(p.get("design_effect") or 1.0),  # (reports before it: none)
                str(p.get("test") or ""),  # (reports before them: none)
                p.get("groups"),
                int(p.get("least") or 0),
                None if p.get("effective_cases") is None else float(p["effective_cases"]),
            )
            if p
            else None
        )
    except (KeyError, TypeError, ValueError):
        power = None
    return verdicts_said(ties, comparisons, power)


def render(report: Mapping[str, Any], *, title: str = TITLE) -> str:
    """The whole page for a report as `json_report.build_report` makes it (or as read back
    from a `--arena-json` file, of this version or an older one)."""
    page = io.StringIO()
    _write_page(page, report, title)
    return page.getvalue()


def _write_page(out: TextIO, report: Mapping[str, Any], title: str) -> None:
    """Write the page to `out`: the template's parts, and between them the records one at a
    time (no text of the whole page is held, and spilled records are read back one by one)."""
    records: list[Any] = list(report.get("records") or [])
    briefs = [_brief(record) for record in records]
    boards = list(report.get("leaderboards") or [])
    gates = {g.get("project"): g for g in report.get("gates") or []}
    projects = [_project(b, briefs) for b in boards]
    on_boards = {p["name"] for p in projects}
    for name in dict.fromkeys(str(b.get("project")) for b in briefs):  # a report edited by
        if name not in on_boards:  # hand, or older than its boards: its records still shown
            projects.append(_project({"project": name}, briefs))
    names = [  # the case matrix's tables: none for a board with no row (nor any record)
        {"name": p["name"], "models": [str(r.get("model")) for r in p["rows"]]}
        for p in projects
        if p["rows"]
    ]
    script, style = _asset("report.js"), _asset("report.css")
    counts: dict[str, int] = {}
    xfails: dict[str, int] = {}  # pytest's outcomes of cases marked xfail
    for brief in briefs:
        status = str(brief.get("status"))
        counts[status] = counts.get(status, 0) + 1
        if brief.get("xfail"):
            outcome = XFAIL_SAID.get(str(brief["xfail"]), str(brief["xfail"]))
            xfails[outcome] = xfails.get(outcome, 0) + 1
    page = str(
        _environment()
        .get_template("report.html.j2")
        .render(
            title=title,
            report=report,
            projects=projects,
            gates=gates,
            counts=counts,
            xfails=xfails,
            spend=_spend_said(report.get("spend")),
            stopped=stopped_said(report),
            formula=weights_said,
            data_json=_DATA,
            script=script,
            style=style,
            script_hash=_csp_hash(script),
        )
    )
    head, _, tail = page.partition(_DATA)
    out.write(head)
    out.write('{"records":[')
    for i, record in enumerate(records):
        if i:
            out.write(",")
        whole = json.loads(record.text()) if isinstance(record, Spilled) else record
        out.write(embed_json(_shown(whole)))
    out.write(f'],"projects":{embed_json(names)}}}')
    out.write(tail)


# where the records go in the rendered page: no text of a report can write it there, as the
# template escapes every "<" of a report's text
_DATA = "<arena-data/>"


def _shown(record: Mapping[str, Any]) -> Mapping[str, Any]:
    """`record` as the page's script reads it: of the response, only the trajectory and
    what was cut (its message holds the output again, a second copy of every answer)."""
    response = record.get("response")
    if not isinstance(response, Mapping):
        return record
    kept = {k: response[k] for k in ("trajectory", "cut") if k in response}
    return {**record, "response": kept}


def check_line(check: Mapping[str, Any]) -> str:
    """A gate check of the JSON report as the terminal says it (`gates.Check.said`): its
    value against its limits and the margin."""
    from pytest_arena.reports.gates import Check

    def number(key: str) -> float | None:
        value = check.get(key)
        return float(value) if isinstance(value, int | float) else None  # a hand-edited file

    said = Check(
        project="",
        scope=str(check.get("scope", "")),
        model=str(check.get("model") or "all models"),
        metric=str(check.get("metric")),
        min=number("min"),
        max=number("max"),
        value=number("value"),
        status=str(check.get("status")),
        note=str(check.get("note") or ""),
        text=str(check.get("text") or ""),
    ).said()
    return f"{check.get('status')}: {said}"


def _brief(record: Any) -> Mapping[str, Any]:
    """What the page's summary reads of a record: project, model, status and score."""
    return record.brief() if isinstance(record, Spilled) else record


def _spend_said(spend: Any) -> str:
    """The report's `spend` in words ("" for a report written before it had one)."""
    if not isinstance(spend, Mapping) or not isinstance(spend.get("total"), int | float):
        return ""
    said = f"spent {dollars(spend['total'])}"
    ungraded = spend.get("on_ungraded")
    if isinstance(ungraded, int | float) and ungraded > 0:
        said += f" ({dollars(ungraded)} on answers no case was graded by)"
    unpriced = sum(
        n
        for n in (
            spend.get("unpriced_answers"),
            spend.get("unpriced_verdicts"),
            spend.get("unpriced_ungraded_answers"),
        )
        if isinstance(n, int)
    )
    if unpriced:
        said += f" and an unknown amount on {unpriced} unpriced answer(s) or verdict(s)"
    unknown = spend.get("unknown_workers")
    if isinstance(unknown, int) and unknown:
        said += f", and an unknown amount by {unknown} xdist worker(s) stopped before saying it"
    cut_off = spend.get("calls_cut_off")
    if isinstance(cut_off, int) and cut_off:
        said += f", and an unknown amount on {cut_off} call(s) cut off in flight"
    skips = spend.get("budget_skips")
    if isinstance(skips, int) and skips:
        said += f"; {skips} case(s) not run: budget spent"
    return said


def render_template(name: str, **values: Any) -> str:
    """Another page of `templates/` (such as `arena compare`'s), autoescaped, with the
    report's style as `style`."""
    return str(_environment().get_template(name).render(style=_asset("report.css"), **values))


def write_html(path: Path, report: Mapping[str, Any]) -> None:
    """Write the page to `path` whole, or not at all (through a temporary file)."""
    with written_whole(path) as out:
        _write_page(out, report, TITLE)
