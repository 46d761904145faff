"""Rendering leaderboards as text tables."""

from __future__ import annotations

import math
import unicodedata
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from pytest_arena.engine.money import dollars
from pytest_arena.numbers import signed
from pytest_arena.record import ERROR, UNSCORED, Record
from pytest_arena.reports.leaderboard import Board, Row
from pytest_arena.reports.statistics import Interval
from pytest_arena.reports.verdicts import Comparison, Power, half_width
from pytest_arena.scorers.text import printable

UNKNOWN = "\u2013"  # an en dash: a cost no price gives (never $0)


TIES = {  # what `=N` means, by how the board told its ranks apart (Board.ties_by)
    "test": "=N: ranks the data cannot tell apart (the paired test of their accuracy against"
    " the rank's first, McNemar's exact test for pass/fail cases, else a paired test of"
    " scores, by group when cases share one, gives p of 0.05 or more)",
    "interval": "=N: ranks the data cannot tell apart (the 95% paired interval of the"
    " composites' difference, from the rank's first, holds 0, or, when at most 16 cases"
    " differ, an exact sign-flip test of the per-case composites gives p of 0.05 or more)",
    "both": "=N: ranks the data cannot tell apart (against the rank's first: on a board of"
    " accuracy alone, a paired test gives p of 0.05 or more; on one that weighs more, the 95%"
    " paired interval of the composites' difference holds 0, or a sign-flip test of the"
    " per-case composites gives p of 0.05 or more)",
}


def render_board(board: Board, fmt: str = "simple", *, legend: bool = True) -> str:
    """A board as a table with its formula and verdicts; `legend=False` leaves out what `=N`
    means (said once after several boards). A board with no row (a spent budget kept every
    model from every case): its notes alone."""
    said = [f"note: {n}" for n in board.notes] + [f"warning: {w}" for w in board.warnings]
    if not board.rows:
        return printable("\n".join(said), lines=True)
    show_unscored = any(r.unscored for r in board.rows)
    headers = ["rank", "model", "composite", "accuracy", "pass rate", "cases", "failed", "errors"]
    if show_unscored:
        headers.append("unscored")
    show_flaky = any(r.flaky for r in board.rows)
    if show_flaky:
        headers.append("flaky")
    if board.k is not None:
        headers += [f"pass@{board.k}", f"pass^{board.k}"]
    show_judge = any(r.judge_cost is None or r.judge_cost for r in board.rows)
    headers += ["tokens", "cost", *(["judge cost"] if show_judge else []), "latency"]
    headers += board.metric_names
    table = []
    for row in board.rows:
        cells: list[str | int] = [
            row.rank_label or row.rank,
            row.model,
            _share(row.composite, row.intervals.get("composite")),
            _share(row.accuracy, row.intervals.get("accuracy")),
            _percent(row.pass_rate, row.intervals.get("pass_rate")),
            row.cases,
            row.failed,
            row.errors,
        ]
        if show_unscored:
            cells.append(row.unscored)
        if show_flaky:
            cells.append(row.flaky)
        if board.k is not None:
            cells += [_share(row.pass_at_k), _share(row.pass_hat_k)]
        cells += [row.tokens, _money(row.cost)]
        if show_judge:
            cells.append(_money(row.judge_cost))
        cells.append(_ms(row.latency))
        cells += [_metric(row, name) for name in board.metric_names]
        table.append(cells)
    # names escaped before the layout: tabulate takes an escape sequence for no width at all
    headers = [printable(h) for h in headers]
    table = [[printable(c) if isinstance(c, str) else c for c in row] for row in table]
    if fmt == "github":  # a name's `|` would end its cell; a name is text, not markup
        from pytest_arena.reports.markdown import escape_markdown

        headers = [escape_markdown(h) for h in headers]
        table = [[escape_markdown(c) if isinstance(c, str) else c for c in row] for row in table]
    if fmt == "simple":
        text = _simple(headers, table)
    else:
        from tabulate import tabulate  # loaded by the job summary alone

        text = tabulate(
            table, headers=headers, tablefmt=fmt, disable_numparse=True, stralign="right"
        )
    lines = [text, f"composite = {formula(board)}"]
    lines += verdict_lines(board, legend=legend)
    lines += said
    return printable("\n".join(lines), lines=True)


@dataclass(frozen=True)
class Spent:
    """Dollars a run spent on models and judges: on the answers and verdicts its records
    hold, and on answers no case was graded by (the engine's total less those: cases the
    run stopped, skipped, cut short or ran again). Answers of a model without a price and
    verdicts of a judge without one are counted, not priced: `unpriced_answers` those the
    records hold, `unpriced_ungraded` those no case was graded by."""

    graded: float
    ungraded: float
    unpriced_answers: int
    unpriced_verdicts: int
    unpriced_ungraded: int = 0
    saved: float = 0.0  # what the answers and verdicts the cache gave would have cost

    @property
    def total(self) -> float:
        return self.graded + self.ungraded


def spent(
    records: Sequence[Record], spent_on_calls: float | None = None, unpriced_on_calls: int = 0
) -> Spent:
    """What `records` cost, beside `spent_on_calls` (the engine's total, when known) and
    `unpriced_on_calls` (the answers of models without a price its calls got)."""
    answers = [a for r in records for a in _answers(r)]
    # an answer not wholly from the cache: what its live turns cost (a tool loop replayed
    # up to its last turn paid for that turn alone)
    paid = sum((cost or 0.0) - part for was_cached, cost, part in answers if not was_cached)
    paid += sum(r.judge_cost or 0.0 for r in records) - sum(r.judge_cached_cost for r in records)
    ungraded = (spent_on_calls or 0.0) - paid
    unpriced = sum(cost is None for was_cached, cost, _ in answers if not was_cached)
    saved = sum((cost or 0.0) if was_cached else part for was_cached, cost, part in answers)
    return Spent(
        graded=paid,
        ungraded=ungraded if ungraded > 1e-9 else 0.0,
        unpriced_answers=unpriced,
        unpriced_verdicts=sum(r.judge_cost is None for r in records),
        unpriced_ungraded=max(0, unpriced_on_calls - unpriced),
        saved=saved + sum(r.judge_cached_cost for r in records),
    )


UNGRADED = "stopped, skipped, cut short or ran again"  # what befell cases no answer graded
UNGRADED_XDIST = "stopped, skipped, cut short, ran again or gave to another xdist worker"


def spending(
    records: Sequence[Record],
    budget_skips: int = 0,
    spent_on_calls: float | None = None,
    unknown_workers: int = 0,
    *,
    xdist: bool = False,
    unpriced_on_calls: int = 0,
    cut_off: int = 0,
) -> str:
    """One line on what the run spent, what the cache saved and what budgets stopped;
    `spent_on_calls` (the engine's total) also counts answers whose cases never ran,
    unless `unknown_workers` (pytest-xdist's) spent what could not be known, and so does
    `unpriced_on_calls` (the answers of models without a price the calls got). `xdist`:
    the run had workers, which pay for answers of cases another worker then runs (one took
    them over, or a worker crashed), and the line says so. `cut_off`: calls the run's stop
    cut off in flight, which cost what their providers bill for them, unknown here."""
    answers = [a for r in records for a in _answers(r)]
    cached = [cost or 0.0 for was_cached, cost, _ in answers if was_cached]
    partly = sum(part for was_cached, _, part in answers if not was_cached)
    judged_from_cache = sum(r.judge_cached_cost for r in records)  # verdicts not paid again
    money = spent(records, spent_on_calls, unpriced_on_calls)
    unpriced, unjudged = money.unpriced_answers, money.unpriced_verdicts
    graded = sum(_graded(r) for r in records)
    parts = [f"{graded} answer{'' if graded == 1 else 's'} graded"]
    unscored = sum(_unscored(r) for r in records)
    if unscored:
        parts[0] += f" ({unscored} more unscored)"
    if cached or judged_from_cache or partly:
        saved = money.saved
        pieces = (("turns", partly), ("verdicts", judged_from_cache))
        kinds = " and ".join(kind for kind, cost in pieces if cost)
        what = f"{len(cached)} from the response cache" if cached else f"{kinds} from the cache"
        unknown = sum(cost is None for was_cached, cost, _ in answers if was_cached)
        more = f", and an unknown amount on {unknown} of them without a price" if unknown else ""
        parts.append(f"{what} ({dollars(saved)} not spent again{more})")
    retried = sum(r.retries for r in records)
    if retried:
        parts.append(f"{retried} retries")
    line = ", ".join(parts) + f"; {dollars(money.graded)} spent on models and judges"
    if unpriced:
        line += f", and an unknown amount on {unpriced} answer{'' if unpriced == 1 else 's'}"
        line += " of models without a price (set price: in models.define)"
    if unjudged:
        line += f", and an unknown amount on judging {unjudged} answer"
        line += f"{'' if unjudged == 1 else 's'} by a judge without a price (set its price:)"
    if unknown_workers:  # the engines' total is not all there is: what it lacks, unknown
        one = unknown_workers == 1
        line += ", and an unknown amount on answers no case was graded by"
        line += f" ({unknown_workers} xdist worker{'' if one else 's'} stopped before saying"
        line += f" what {'it' if one else 'they'} spent)"
    elif money.ungraded:
        line += f", and {dollars(money.ungraded)} on answers no case was graded by (of cases"
        line += f" the run {UNGRADED_XDIST if xdist else UNGRADED})"
    left = money.unpriced_ungraded
    if left:
        line += f", and an unknown amount on {left} answer{'' if left == 1 else 's'} of models"
        line += " without a price that no case was graded by (of cases the run"
        line += f" {UNGRADED_XDIST if xdist else UNGRADED})"
    if cut_off:
        line += f", and an unknown amount on {cut_off} call{'' if cut_off == 1 else 's'} cut off"
        line += " in flight when the run stopped (a provider may bill what it had generated)"
    if budget_skips:
        line += f"; {budget_skips} not run: budget spent"
    return line


def _answers(record: Record) -> list[tuple[bool, float | None, float]]:
    """(wholly from the cache, cost, what of it the cache answered) of each answer a record
    graded: each sample of a repeated case; a cost of None is unknown (no price). A call
    that failed (an error with no latency: no answer came) is no answer: what it cost a
    model without a price is unknown too, but it is no answer of one."""
    if record.samples:
        return [
            (bool(s.get("cached")), _cost(s.get("cost")), _cost(s.get("cached_cost")) or 0.0)
            for s in record.samples
            if _answered(s.get("status"), s.get("latency_ms"))
        ]
    if not _answered(record.status, record.latency_ms):
        return []
    return [(record.cached, record.cost, record.cached_cost)]


def _answered(status: object, latency_ms: object) -> bool:
    """Whether a record (or a sample) holds an answer: all do but a failed call's error."""
    return status != ERROR or latency_ms is not None


def _graded(record: Record) -> int:
    """The answers a record graded: none for an error (no answer, or a scorer that broke on
    it) or an unscored answer (no verdict), each sample's that did not end in one for a
    repeated case."""
    if record.samples:
        return sum(s.get("status") not in (ERROR, UNSCORED) for s in record.samples)
    return int(record.status not in (ERROR, UNSCORED))


def _unscored(record: Record) -> int:
    """The answers a record left without a verdict (UNSCORED)."""
    if record.samples:
        return sum(s.get("status") == UNSCORED for s in record.samples)
    return int(record.status == UNSCORED)


def _cost(value: object) -> float | None:
    return float(value) if isinstance(value, int | float) else None


def _simple(headers: list[str], rows: list[list[str | int]]) -> str:
    """The table, right-aligned, its columns two spaces apart and as wide as a terminal
    shows their text (a CJK model key or metric takes two columns a character; tabulate
    counts one)."""
    texts = [[str(cell) for cell in row] for row in rows]
    widths = [  # a title has two spaces more, as tabulate's "simple" tables gave
        max(shown_width(title) + 2, *map(shown_width, column))
        for title, *column in zip(headers, *texts, strict=True)
    ]

    def line(cells: list[str]) -> str:
        padded = (" " * (w - shown_width(c)) + c for c, w in zip(cells, widths, strict=True))
        return "  ".join(padded).rstrip()

    return "\n".join([line(headers), "  ".join("-" * w for w in widths), *map(line, texts)])


def shown_width(text: str) -> int:
    """The columns a terminal gives `text`: two for a wide (East Asian) character, none for
    a combining mark or a joiner."""
    if text.isascii():
        return len(text)
    return sum(
        0
        if unicodedata.combining(ch) or ch in "\u200c\u200d"
        else 2
        if unicodedata.east_asian_width(ch) in "WF"
        else 1
        for ch in text
    )


def formula(board: Board) -> str:
    """The composite's weights as shares of their sum (`weights_said`)."""
    return weights_said(board.weights)


def weights_said(weights: Mapping[str, float]) -> str:
    """Weights as shares of their sum, in hundredths that add up to 1.00 (each rounded
    down, the hundredths left over to the largest remainders): the terminal's, the job
    summary's and the HTML report's formula."""
    total = sum(weights.values()) or 1.0
    shares = {d: w / total * 100 for d, w in weights.items()}
    cents = {d: math.floor(share) for d, share in shares.items()}
    left = round(sum(shares.values())) - sum(cents.values())
    for d in sorted(shares, key=lambda d: cents[d] - shares[d])[: max(left, 0)]:
        cents[d] += 1
    return " + ".join(f"{cents[d] / 100:.2f}·{d}" for d in weights) or "0"


def has_ties(board: Board) -> bool:
    return any(r.rank_label.startswith("=") for r in board.rows)


def ties_legend(boards: Sequence[Board]) -> str | None:
    """What `=N` means on the tied boards among `boards`, in one line; None without ties."""
    kinds = {board.ties_by for board in boards if has_ties(board)}
    if not kinds:
        return None
    return TIES[kinds.pop()] if len(kinds) == 1 else TIES["both"]


def verdict_lines(board: Board, *, legend: bool = True) -> list[str]:
    """What the board can be trusted to say: ties, each model against the leader (on the
    same line when there is one), power."""
    ties = board.ties_by if legend and has_ties(board) else None
    return verdicts_said(ties, board.comparisons, board.power)


def verdicts_said(
    ties: str | None, comparisons: Sequence[Comparison], power: Power | None
) -> list[str]:
    """The verdict lines: what `=N` means (when ranks are tied, told apart by `ties`, a key
    of TIES), the comparisons, the power."""
    lines: list[str] = [TIES[ties]] if ties else []
    if comparisons:
        said = [_compared(c) for c in comparisons]
        heading = (
            f"against the leader {comparisons[0].against}, on the cases both answered (accuracy):"
        )
        if len(said) == 1:
            lines.append(f"{heading} {said[0]}")
        else:
            lines += [heading, *(f"  {line}" for line in said)]
    if power is not None:
        lines.append(_power_sentence(power))
    return lines


def _compared(c: Comparison) -> str:
    """One model against the leader; the cases in common of weight 0, which the difference
    leaves out, said apart (counted with the others, they hid why nothing was compared)."""
    d = c.difference
    weightless = f"{c.weightless} more of weight 0" if c.weightless else ""
    if d.estimate is None or d.low is None or d.high is None or d.p_value is None:
        if not weightless:
            return f"{c.model}: {d.n} case(s) in common, too few to compare"
        if not d.n:
            common = _count(c.weightless, "case")
            return f"{c.model}: {common} in common, all of weight 0: nothing to compare"
        return (
            f"{c.model}: {_count(d.n, 'case')} of weight above 0 in common ({weightless}),"
            " too few to compare"
        )
    verdict = "different" if c.significant else "not told apart"
    cases = f"{d.n} cases ({weightless} left out)" if weightless else f"{d.n} cases"
    return (
        f"{c.model} {signed(d.estimate)} (95% CI {signed(d.low)} to {signed(d.high)}),"
        f" p{_p(d.p_value)} {c.test}, {cases}: {verdict}"
    )


def _grouped(power: Power) -> str:
    """What groups do to the power line's figures: each case counts for less."""
    if power.design_effect <= 1.0:
        return ""
    return f"; in groups, each case counts as 1/{power.design_effect:.2f} of one, the design effect"


def _power_sentence(power: Power) -> str:
    """The power line: with this many cases (groups), what the board's test finds 80% of the
    time (nothing, when it cannot give p < 0.05 on so few; a difference of at least δ, when
    one an accuracy can show), and the cases a 3-point difference needs; of unequal weights,
    the cases they count as (Kish's effective number), by which it sizes them."""
    between = (
        f"{power.models[0]} and {power.models[1]}"
        if len(power.models) > 1
        else f"{power.models[0]} and a model as spread but unrelated"
    )
    cases = f"{power.n} paired cases"
    if power.groups:
        cases += f" in {_count(power.groups, 'group')}"
    if power.weighted:
        cases += f", counting as {power.effective:.1f} with their weights"
    needs = ""
    if power.needed is not None:
        needs = f"; a {power.target * 100:.0f}-point difference needs about {power.needed:,} cases"
        if power.weighted:
            needs += " weighted as these"
        if power.needed_groups is not None:
            needs += f" ({power.needed_groups:,} groups of this size)"
    if not power.reachable:
        units = _count(power.units, "group" if power.groups else "case")
        return (
            f"power: with {cases} (sd of the differences {power.paired_sd:.3f}, {between}"
            f"{_grouped(power)}), no difference is found at 5% significance:"
            f" {_test_named(power.test)} gives p of {power.floor:.3f} at the least on"
            f" {units}, and needs at least {power.least}{needs}"
        )
    if power.needed is None:
        same = (
            f"{power.models[0]} and {power.models[1]} differ by the same amount on all"
            f" {power.n} paired cases"
            if len(power.models) > 1
            else f"{power.models[0]} scores the same on all {power.n} cases"
        )
        return f"power: {same}, so there is no spread to size a run by"
    found = (
        f"a difference of {power.detectable:.3f} or more is found"
        if power.in_range
        else "no difference within the range (up to 1) is found"
    )
    return (
        f"power: with {cases} (sd of the differences {power.paired_sd:.3f},"
        f" {between}{_grouped(power)}), {found} 80% of the time at 5% significance{needs}"
    )


def _count(n: int, unit: str) -> str:
    return f"{n:,} {unit}{'' if n == 1 else 's'}"


def _test_named(test: str) -> str:
    """A comparison's test ("McNemar (exact)", "sign-flip by group (exact)") in a sentence."""
    if test.startswith("McNemar"):
        return "McNemar's exact test"
    if test.startswith("sign"):
        kind, _, rest = test.removesuffix(" (exact)").partition(" by ")
        return f"the exact {kind} test{' by ' + rest if rest else ''}"
    return "the paired test"


def _p(value: float) -> str:
    return "<0.001" if value < 0.001 else f"={value:.3f}"


def _share(value: float | None, interval: Interval | None = None) -> str:
    if value is None:
        return "-"
    half = half_width(interval)
    return f"{value:.3f}" if half is None else f"{value:.3f} ± {half:.3f}"


def _percent(value: float | None, interval: Interval | None = None) -> str:
    if value is None:
        return "-"
    half = half_width(interval)
    return f"{value * 100:.1f}%" if half is None else f"{value * 100:.1f}% ± {half * 100:.1f}"


def _money(value: float | None) -> str:
    if value is None:
        return UNKNOWN
    return f"${value:.2f}" if value >= 1 else f"${value:.6f}"


def _ms(value: float | None) -> str:
    return UNKNOWN if value is None else f"{value:.0f} ms"  # unknown: a cached answer's


def _metric(row: Row, name: str) -> str:
    value = row.metrics.get(name)
    if value is None:
        return "-"
    half = half_width(row.intervals.get(name))
    return metric_said(value) if half is None else f"{metric_said(value)} ± {metric_said(half)}"


def metric_said(value: float) -> str:
    """A custom metric's value: three decimals, as a share's, or in the general format
    (1e+300, 0.0001234) when so many would be hundreds of digits or none that is not 0."""
    if value == 0 or 1e-3 <= abs(value) < 1e6 or value != value:  # value != value: NaN
        return f"{value:.3f}"
    return f"{value:.4g}"
