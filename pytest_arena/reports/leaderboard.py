"""Per-model aggregates of records and the weighted composite. Pure: no pytest, no I/O."""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from operator import itemgetter

from pytest_arena.record import ERROR, FAILED, FLAKY, PASSED, UNSCORED, Record
from pytest_arena.reports import verdicts
from pytest_arena.reports.statistics import Interval, pass_at_k, pass_hat_k, weighted_mean
from pytest_arena.scorers.text import said_together
from pytest_arena.spec.errors import did_you_mean

BUILTIN_DIMENSIONS = ("accuracy", "pass_rate", "cost", "latency", "tokens")
LOWER_IS_BETTER = frozenset({"cost", "latency", "tokens"})


@dataclass
class Row:
    model: str
    cases: int = 0
    passed: int = 0
    failed: int = 0
    errors: int = 0
    unscored: int = 0
    flaky: int = 0  # repeated cases still undecided after their most samples
    accuracy: float | None = None
    pass_rate: float | None = None
    tokens: int = 0
    cost: float | None = 0.0  # None: some answer's price is unknown
    latency: float | None = None  # mean milliseconds per live call (cached answers left out)
    judge_cost: float | None = 0.0  # what grading cost, apart from the model's own; None: unknown
    metrics: dict[str, float] = field(default_factory=dict)
    composite: float = 0.0
    rank: int = 0
    rank_label: str = ""  # "=2": ranked with others the data cannot tell apart
    intervals: dict[str, Interval] = field(default_factory=dict)  # by dimension, 95%
    pass_at_k: float | None = None  # with repeats: the mean over cases of pass@k, pass^k
    pass_hat_k: float | None = None
    # what the composite weighs of cost and tokens: the mean over the cases the model
    # answered (a total would favour a model that answered fewer); None: unknown, or none
    cost_per_case: float | None = None
    tokens_per_case: float | None = None

    def value(self, dimension: str) -> float | None:
        """A dimension's value as the composite scales it: cost and tokens per answered case."""
        if dimension in PER_CASE:
            per_case: float | None = getattr(self, PER_CASE[dimension])
            return per_case
        if dimension in BUILTIN_DIMENSIONS:
            value: float | None = getattr(self, dimension)
            return value
        return self.metrics.get(dimension)


PER_CASE = {"cost": "cost_per_case", "tokens": "tokens_per_case"}  # Row.value's attributes


@dataclass
class Board:
    project: str
    rows: list[Row]
    weights: dict[str, float]
    metric_names: list[str]
    warnings: list[str] = field(default_factory=list)
    k: int | None = None  # the k of pass@k and pass^k; None: no case was repeated
    notes: list[str] = field(default_factory=list)  # how to read it, e.g. uneven case counts
    mistakes: list[str] = field(default_factory=list)  # settings that make it wrong: fail the run
    comparisons: list[verdicts.Comparison] = field(default_factory=list)  # each against the leader
    power: verdicts.Power | None = None
    # how ranks were told apart: "test", the paired test of accuracy (a board of accuracy
    # alone); "interval", the bootstrap interval of the composites' difference
    ties_by: str = "interval"


def build_boards(
    records: Iterable[Record], not_run: Mapping[tuple[str, str], int] | None = None
) -> list[Board]:
    """One board per project, rows ranked by composite. `not_run`: by (project, model), the
    cases a spent budget kept from running; a model of them with no row is named under its
    project's board, which would otherwise not show that it ran out. A project it kept from
    every case gets a board with no row (and no weights: nothing was graded) saying so."""
    by_project: dict[str, dict[str, Record]] = {}
    for record in sorted(records, key=_order):  # the same sums whatever the order
        by_project.setdefault(record.project, {}).setdefault(_order(record), record)
    not_run = not_run or {}
    boards = {name: build_board(name, list(found.values())) for name, found in by_project.items()}
    for project in {project for (project, _), n in not_run.items() if n} - set(boards):
        boards[project] = Board(project, [], {}, [])
    for board in boards.values():
        board.notes += _not_run(board, not_run)
    return [boards[name] for name in sorted(boards)]


def _not_run(board: Board, not_run: Mapping[tuple[str, str], int]) -> list[str]:
    """A note for each model of the board's project that a spent budget kept from running
    any case (so it has no row), as the spend line says budget skips; one note for them all
    on a board with no row."""
    ranked = {row.model for row in board.rows}
    kept = [
        (model, f"{n} case{'' if n == 1 else 's'}")
        for (project, model), n in sorted(not_run.items())
        if project == board.project and model not in ranked and n
    ]
    if kept and not board.rows:
        said = said_together([f"{model}'s {cases}" for model, cases in kept])
        return [f"no answer was graded: {said} not run: budget spent"]
    return [f"{model} has no row: its {cases} not run: budget spent" for model, cases in kept]


def _order(record: Record) -> str:
    """`record.key` as text, each part after its length: sorting text makes no object for the
    garbage collector to go over (20,000 tuples could set off a full collection)."""
    project, case, model = record.project, record.case_id, record.model
    return f"{len(project)}:{project}{len(case)}:{case}{len(model)}:{model}{record.sample}"


def build_board(project: str, records: list[Record]) -> Board:
    board_settings = next((r.board for r in records if r.board), {})
    weights: dict[str, float] = dict(board_settings.get("weights") or {"accuracy": 1.0})
    listed = list(board_settings.get("lower_is_better") or ())
    lower = LOWER_IS_BETTER | set(listed)
    by_model: dict[str, list[Record]] = {}
    for record in records:
        by_model.setdefault(record.model, []).append(record)
    rows = [_row(model, found) for model, found in by_model.items()]
    metric_names = sorted({name for r in records for name in r.metrics})
    warnings: list[str] = []
    weightless = [row.model for row in rows if row.accuracy is None and _graded(row)]
    if weightless:
        whose = "every model" if len(weightless) == len(rows) else ", ".join(weightless)
        warnings.append(
            f"every graded case of {whose} has weight 0, so there is no accuracy (-) and the"
            " composite counts it as 0; the pass rate counts cases, whatever their weight."
            " Give the cases that should count a weight above 0"
        )
    unscored = [row.model for row in rows if row.unscored and not _graded(row)]
    if unscored:
        whose = "any model" if len(unscored) == len(rows) else ", ".join(unscored)
        warnings.append(
            f"no case was scored for {whose} (each unscored case says why), so there is no"
            " accuracy (-) and the composite counts it as 0: it is not a score"
        )
    known = [*BUILTIN_DIMENSIONS, *metric_names]
    written = board_settings.get("weights_at") or {}
    mistakes: list[str] = []
    for name in list(weights):
        if name not in known:
            hint = did_you_mean(name, known)
            at = f"{written[name]}: " if name in written else ""
            mistakes.append(
                f"{at}metrics.weights names '{name}', which no record has"
                f"{' (' + hint + ')' if hint else ''}; it is left out of the composite, and"
                " the run fails"
            )
            del weights[name]
    mistakes += _unknown_lower(listed, metric_names, board_settings.get("lower_is_better_at"))
    warnings += mistakes
    for name in [d for d, w in weights.items() if w > 0 and d != "accuracy"]:
        unknown = [row.model for row in rows if row.value(name) is None]
        if unknown:  # counted as 0 for some models and not others, it would rank them
            whose = "every model" if len(unknown) == len(rows) else ", ".join(unknown)
            warnings.append(
                f"'{name}' is unknown for {whose} (no price, answers from the response cache,"
                " no case answered, or no value recorded), so the composite leaves it out for"
                " every model"
            )
            del weights[name]
            continue
        below = [(r.model, v) for r in rows if (v := r.value(name)) is not None and v < 0]
        if below:  # value / top and best / value rank nothing below 0: every model the same
            shown = ", ".join(f"{model} {value:g}" for model, value in below)
            warnings.append(
                f"'{name}' is below 0 for {shown}, which the composite's scaling (value / top,"
                " best / value) cannot rank, so the composite leaves it out for every model;"
                " weigh a metric of 0 or more"
            )
            del weights[name]
    k = _k(records, board_settings.get("pass_k"))
    if k is not None:
        for row in rows:
            row.pass_at_k, row.pass_hat_k = _pass_k(by_model[row.model], k)
    for row in rows:
        row.composite = composite(row, rows, weights, lower)
    rows.sort(key=lambda r: (_descending(r.composite), -(r.accuracy or 0.0), r.model))
    for rank, row in enumerate(rows, start=1):
        row.rank = rank
    board = Board(
        project, rows, weights, metric_names, warnings, k, _uneven(by_model), mistakes=mistakes
    )
    board.notes += _pass_k_notes(by_model, k, board_settings.get("pass_k"))
    _judge(board, by_model, lower)
    return board


def _unknown_lower(
    listed: list[str], metric_names: list[str], written: Mapping[str, str] | None
) -> list[str]:
    """What is wrong with `metrics.lower_is_better`, as with `metrics.weights`: a name no
    record has (a typo) would leave the metric it meant higher-is-better, ranking the worse
    model first, and nothing said so. `written`: where each name is written, if known."""
    known = [*sorted(LOWER_IS_BETTER), *metric_names]
    mistakes = []
    for name in dict.fromkeys(listed):
        if name in known:
            continue
        hint = did_you_mean(name, known)
        at = f"{written[name]}: " if written and name in written else ""
        mistakes.append(
            f"{at}metrics.lower_is_better names '{name}', which no record has"
            f"{' (' + hint + ')' if hint else ''}; it turns no metric lower-is-better, and"
            " the run fails"
        )
    return mistakes


def _judge(
    board: Board, by_model: Mapping[str, list[Record]], lower: frozenset[str] | set[str]
) -> None:
    """Intervals on the board's numbers, each model against the leader, ties, the power."""
    rows = board.rows
    unbounded = verdicts.unbounded_metrics(r for row in rows for r in by_model[row.model])
    for row in rows:
        row.intervals = verdicts.row_intervals(by_model[row.model], unbounded)
    plain = set(board.weights) == {"accuracy"} and all(
        r.accuracy is not None and 0.0 <= r.accuracy <= 1.0 for r in rows
    )  # the composite is the accuracy itself
    boot: dict[str, Interval] = {}
    if plain:
        board.ties_by = "test"
        for row in rows:
            row.intervals["composite"] = row.intervals["accuracy"]
    elif board.weights:
        cases, composites = _bootstrap_table(by_model, board.weights, lower)
        parts = _unscaled_parts(board.weights, lower)
        boot = verdicts.composite_intervals(cases, composites, parts)
        for row in rows:
            if row.model in boot and not _no_score(row, board.weights):
                row.intervals["composite"] = boot[row.model]
    if not rows:
        return
    compared: dict[tuple[str, str], verdicts.Comparison] = {}  # each pair's test, once

    def compare(model: str, against: str) -> verdicts.Comparison:
        if (model, against) not in compared:
            compared[(model, against)] = verdicts.compare(
                model, by_model[model], against, by_model[against]
            )
        return compared[(model, against)]

    leader = rows[0]
    board.comparisons = [compare(r.model, leader.model) for r in rows[1:]]
    head, members = rows[0], [rows[0]]
    groups = [members]
    for row in rows[1:]:
        if _no_score(row, board.weights) or _no_score(head, board.weights):
            apart = True  # a composite that counts a missing score as 0 ties with nothing
        elif plain:
            apart = compare(row.model, head.model).significant
        else:
            apart = verdicts.separated(boot.get(f"{row.model} - {head.model}"))
        if apart:
            head, members = row, [row]
            groups.append(members)
        else:
            members.append(row)
    for members in groups:
        for row in members:
            row.rank_label = f"={members[0].rank}" if len(members) > 1 else str(row.rank)
    board.power = verdicts.power_line([r.model for r in rows], by_model)


def _unscaled_parts(
    weights: Mapping[str, float],
    lower: frozenset[str] | set[str],
) -> dict[str, tuple[float, verdicts.Counted]]:
    """The dimensions the composite may weigh as they are (`normalised` scales none of them
    against other models): weighed, higher-is-better; each with its share of the composite
    and what a record adds to it (`_counted`). Which of them have every value in [0, 1], as
    weighed as they are, `verdicts.composite_intervals` asks."""
    total = sum(weights.values())
    return {
        dimension: (weight / total, _counter(dimension))
        for dimension, weight in weights.items()
        if weight > 0 and total > 0 and dimension not in lower
    }


def _counter(dimension: str) -> verdicts.Counted:
    """`_counted` of one dimension."""

    def counted(record: Record) -> tuple[float | None, float] | None:
        return _counted(record, dimension)

    return counted


def _no_score(row: Row, weights: Mapping[str, float]) -> bool:
    """Whether the composite counts as 0 a value the model does not have (no scored case,
    or cases of weight 0 only): it is no score, so it gets no interval and no shared rank."""
    return any(w > 0 and row.value(d) is None for d, w in weights.items())


def _bootstrap_table(
    by_model: Mapping[str, list[Record]],
    weights: Mapping[str, float],
    lower: frozenset[str] | set[str],
) -> tuple[list[dict[str, Record]], Callable[[Sequence[int]], dict[str, float]]]:
    """The cases (each model's record of each, by case id) and the composite of every model
    on drawn cases, for `verdicts.composite_intervals`. Each weighted dimension of a model is
    a ratio of sums over its cases (`_counted`), so a resample sums per-case columns, scaled
    by their largest value, instead of building rows again (51 s at 10,000 cases, 2 models)."""
    by_case: dict[str, dict[str, Record]] = {}
    for model, records in by_model.items():
        for r in records:
            by_case.setdefault(r.case_id, {})[model] = r
    cases = [by_case[c] for c in sorted(by_case)]
    dimensions = [d for d, w in weights.items() if w > 0]
    models = sorted(by_model)
    columns = {m: _Columns([case.get(m) for case in cases], dimensions) for m in models}

    def composites(drawn: Sequence[int]) -> dict[str, float]:
        pick = _picker(drawn)
        rows = [row for m in models if (row := columns[m].row(m, pick, len(drawn))) is not None]
        return {r.model: composite(r, rows, weights, lower) for r in rows}

    return cases, composites


def _picker(drawn: Sequence[int]) -> Callable[[list[float]], tuple[float, ...]]:
    """What picks the drawn cases' values out of a column, in one call (in C)."""
    if len(drawn) == 1:
        one = drawn[0]
        return lambda column: (column[one],)
    picked: Callable[[list[float]], tuple[float, ...]] = itemgetter(*drawn)
    return picked


class _Columns:
    """One model's per-case sums of each weighted dimension (`_counted`), for resamples: a
    dimension's value on drawn cases is top · Σ numerator / Σ denominator over them (None
    when the denominators sum to 0, or a drawn case's value is unknown)."""

    def __init__(self, records: list[Record | None], dimensions: list[str]) -> None:
        self.present = [0.0 if r is None else 1.0 for r in records]
        self.everywhere = all(self.present)
        self.sums: dict[str, tuple[float, list[float], list[float] | float, list[float]]] = {}
        for dimension in dimensions:
            counted = [None if r is None else _counted(r, dimension) for r in records]
            values = [abs(c[0]) for c in counted if c is not None and c[0] is not None]
            weights = [c[1] for c in counted if c is not None]
            top_v = max(values, default=0.0) or 1.0
            top_w = max(weights, default=0.0) or 1.0
            numerators, denominators, unknown = [], [], []
            for c in counted:
                value, weight = (0.0, 0.0) if c is None else c
                numerators.append(0.0 if value is None else weight / top_w * (value / top_v))
                denominators.append(weight / top_w)
                unknown.append(float(value is None and weight > 0))
            same = denominators[0] if len(set(denominators)) == 1 else None  # summed by count
            self.sums[dimension] = (
                top_v,
                numerators,
                denominators if same is None else same,
                unknown,
            )
        self.unknown = {d for d, (_, _, _, u) in self.sums.items() if any(u)}

    def row(
        self, model: str, pick: Callable[[list[float]], tuple[float, ...]], drawn: int
    ) -> Row | None:
        """The model's row of the weighted dimensions on the drawn cases; None when it
        answered none of them."""
        if not self.everywhere and not any(pick(self.present)):
            return None
        row = Row(model=model, cost=None, accuracy=None)
        for dimension, (top, numerators, denominators, unknown) in self.sums.items():
            if dimension in self.unknown and any(pick(unknown)):
                continue
            below = (
                denominators * drawn if isinstance(denominators, float) else sum(pick(denominators))
            )
            if below > 0:
                _set(row, dimension, top * (sum(pick(numerators)) / below))
        return row


def _set(row: Row, dimension: str, value: float) -> None:
    if dimension in PER_CASE:
        setattr(row, PER_CASE[dimension], value)
    elif dimension in BUILTIN_DIMENSIONS:
        setattr(row, dimension, value)
    else:
        row.metrics[dimension] = value


def _counted(record: Record, dimension: str) -> tuple[float | None, float] | None:
    """What a record adds to a dimension of its model's row, as (value, weight): the row's
    value is the weighted mean of them (a value of None: unknown, so the row's is too).
    None: the record does not count in that dimension."""
    status = record.status
    graded = status in (PASSED, FAILED, FLAKY, ERROR)
    if dimension == "accuracy":
        score = 0.0 if status == ERROR else (record.score or 0.0)
        return (score, record.weight) if graded else None
    if dimension == "pass_rate":
        return (float(status == PASSED), 1.0) if graded else None
    if dimension == "cost":
        return (record.cost, 1.0) if _answered(record) else None
    if dimension == "tokens":
        return (float(record.tokens_in + record.tokens_out), 1.0) if _answered(record) else None
    if dimension == "latency":
        live = record.latency_ms is not None and not record.cached  # a cached answer took no time
        return (record.latency_ms, 1.0) if live else None
    if dimension in record.metrics:
        return (float(record.metrics[dimension]), record.weight)
    return None


def _answered(record: Record) -> bool:
    """Whether the model answered the case: any verdict, or an error after an answer it was
    paid for (a call that failed costs nothing, and would make its model look cheap)."""
    return record.status != ERROR or bool(record.tokens_in or record.tokens_out or record.cost)


def _tries(record: Record) -> tuple[int, int] | None:
    """(graded samples, passed samples) of a repeated case; None for a case drawn once."""
    sampling = record.sampling
    if not sampling or record.status not in (PASSED, FAILED, FLAKY):
        return None
    return int(sampling["graded"]), int(sampling["passed"])


def _k(records: list[Record], asked: int | None) -> int | None:
    """The k of pass@k: the project's `metrics.pass_k`, else the fewest graded samples (not
    drawn: unscored ones are left out, as of n) of a repeated case with two or more, so every
    such case counts; None when no case was repeated."""
    tries = [t[0] for r in records if (t := _tries(r)) is not None and t[0] > 1]
    if not tries:
        return None
    return int(asked) if asked else min(tries)


def _pass_k(records: list[Record], k: int) -> tuple[float | None, float | None]:
    """pass@k (Chen et al. 2021, unbiased) and pass^k (τ-bench), each the mean over the
    cases with at least k graded samples, and the repeated cases that ended in an error and
    could have drawn k (`_erred`: they count as never passing); None when no graded case
    has k samples: errors alone are no pass@k. `_pass_k_notes` says what is left out."""
    if not any((t := _tries(r)) is not None and t[0] >= k for r in records):
        return None, None
    at: list[float] = []
    hat: list[float] = []
    for r in records:
        if _erred(r, k):
            at.append(0.0)
            hat.append(0.0)
            continue
        tries = _tries(r)
        if tries is None or tries[0] < k:
            continue
        n, c = tries
        at.append(pass_at_k(n, c, k))
        hat.append(pass_hat_k(n, c, k))
    return sum(at) / len(at), sum(hat) / len(hat)


def _erred(record: Record, k: int) -> bool:
    """Whether a case counts in pass@k as one that never passes: repeated, ended in an
    error, and allowed k samples or more (a case that errs before its samples, or whose
    `repeat` stops short of k, is in neither)."""
    return record.status == ERROR and bool(record.sampling) and record.sampling.get("max", k) >= k


def _pass_k_notes(
    by_model: Mapping[str, list[Record]], k: int | None, asked: int | None
) -> list[str]:
    """What the pass@k and pass^k columns are over, said under the board when it is not
    every case of a model: how many of them, and why the others are left out. One note
    instead when `metrics.pass_k` is more samples than any case may draw."""
    if k is None:
        return []
    records = [r for found in by_model.values() for r in found]
    most = max((_drawn(r)[1] for r in records if r.sampling), default=0)
    if asked and k > most:
        return [
            f"metrics.pass_k is {k}, but no case may draw more than {most} sample"
            f"{'' if most == 1 else 's'} (its repeat's most), so pass@{k} and pass^{k} have"
            f" no case to go by (-): set pass_k to {most} or less, or repeat to {k} or more"
        ]
    return [note for model in sorted(by_model) if (note := _left_out(model, by_model[model], k))]


def _left_out(model: str, records: list[Record], k: int) -> str | None:
    """A note on the cases of `model` its pass@k and pass^k leave out; None: none."""
    counted = sum((t := _tries(r)) is not None and t[0] >= k for r in records)
    if counted:
        counted += sum(_erred(r, k) for r in records)
    if counted == len(records):
        return None
    short = [r for r in records if (t := _tries(r)) is not None and t[0] < k]
    why = "; ".join(
        because
        for because, found in (
            ("sequential sampling stops a case once its verdict is clear", "stopped"),
            ("unscored samples are not graded", "unscored"),
            (f"repeat draws fewer than {k}", "too few"),
        )
        if any(_short_by(r, k) == found for r in short)
    )
    reasons = [
        (len(short), f"with fewer than {k} graded samples{f' ({why})' if why else ''}"),
        (sum(not r.sampling and r.status != ERROR for r in records), "drawn once"),
        (sum(bool(r.sampling) and r.status == UNSCORED for r in records), "unscored"),
        (sum(r.status == ERROR and not (counted and _erred(r, k)) for r in records), "error"),
    ]
    said = ", ".join(
        f"{n} {what}{'s' if what == 'error' and n > 1 else ''}" for n, what in reasons if n
    )
    if not counted:
        cases = f"{len(records)} case{'' if len(records) == 1 else 's'}"
        return (
            f"{model} has no pass@{k} or pass^{k} (-): none of its {cases} has {k} graded"
            f" samples ({said})"
        )
    return (
        f"pass@{k} and pass^{k} of {model} are over {counted} of its {len(records)} cases,"
        f" leaving out {said}"
    )


def _short_by(record: Record, k: int) -> str:
    """Why a repeated case has fewer than k graded samples: sampling "stopped" before its
    most, some of k or more drawn were "unscored", or its repeat allows "too few"."""
    drawn, most = _drawn(record)
    if drawn < most:
        return "stopped"
    return "unscored" if drawn >= k else "too few"


def _drawn(record: Record) -> tuple[int, int]:
    """(samples drawn, the most its repeat allows) of a repeated case (a record that does
    not say them: its graded samples, of as many)."""
    sampling = record.sampling
    drawn = int(sampling.get("drawn", sampling.get("graded", 1)))
    return drawn, int(sampling.get("max", drawn))


def _uneven(by_model: dict[str, list[Record]]) -> list[str]:
    """A note when the models did not all answer the same cases (a case's `models:`, a
    selection such as -k, or items not run: a spent budget, -x): each row is then on the
    cases its model answered."""
    answered = {model: {r.case_id for r in found} for model, found in by_model.items()}
    every = set().union(*answered.values()) if answered else set()
    some = {case for case in every if any(case not in mine for mine in answered.values())}
    if not some:
        return []
    counts = ", ".join(f"{model} {len(answered[model])}" for model in sorted(answered))
    return [
        f"{len(some)} of {len(every)} case{'s' if len(every) != 1 else ''} ran on only some"
        f" models ('models:' in arena.yaml, the run's selection, or items not run: a spent"
        f" budget, -x), so each row counts the cases its model answered ({counts}): compare"
        " rows on those"
    ]


def _row(model: str, records: list[Record]) -> Row:
    row = Row(model=model, cases=len(records))
    for r in records:
        if r.status == PASSED:
            row.passed += 1
        elif r.status == FAILED:
            row.failed += 1
        elif r.status == ERROR:
            row.errors += 1
        elif r.status == UNSCORED:
            row.unscored += 1
        elif r.status == FLAKY:
            row.flaky += 1
        row.tokens += r.tokens_in + r.tokens_out
        row.cost = _plus(row.cost, r.cost)
        row.judge_cost = _plus(row.judge_cost, r.judge_cost)
    row.accuracy = _mean(records, "accuracy")  # None: nothing weighs
    row.pass_rate = _mean(records, "pass_rate")
    row.latency = _mean(records, "latency")
    row.cost_per_case = _mean(records, "cost")
    row.tokens_per_case = _mean(records, "tokens")
    names = sorted({n for r in records for n in r.metrics})
    row.metrics = {n: v for n in names if (v := _mean(records, n)) is not None}  # weight 0: none
    return row


def _mean(records: list[Record], dimension: str) -> float | None:
    """The weighted mean of what the records add to a dimension (`_counted`): None when no
    record counts with a weight above 0, or one's value is unknown (a cost without a price)."""
    counted = [c for r in records if (c := _counted(r, dimension)) is not None]
    if any(value is None for value, _ in counted):
        return None
    return weighted_mean([v for v, _ in counted if v is not None], [w for _, w in counted])


def _graded(row: Row) -> int:
    return row.passed + row.failed + row.flaky + row.errors


LATENCY_FLOOR_MS = 1.0  # latencies below it count as it: 0 ms against 0.003 ms is no 1 to 0


def normalised(
    dimension: str, value: float | None, rows: list[Row], lower: frozenset[str] | set[str]
) -> float:
    """A dimension's value on a 0-1 scale where 1 is best (see the README). A NaN stays NaN:
    never a 0 that would rank it."""
    if value is None:
        return 0.0
    if math.isnan(value):
        return value
    values = [v for r in rows if (v := r.value(dimension)) is not None and not math.isnan(v)]
    if dimension in lower:
        if dimension == "latency":  # under a millisecond is no measurable difference
            value, values = max(value, LATENCY_FLOOR_MS), [max(v, LATENCY_FLOOR_MS) for v in values]
        best = min(values)
        if value <= best:
            return 1.0
        return best / value if value > 0 else 1.0
    if all(0.0 <= v <= 1.0 for v in values):
        return value
    top = max(values)
    return value / top if top > 0 else 0.0


def composite(
    row: Row, rows: list[Row], weights: Mapping[str, float], lower: frozenset[str] | set[str]
) -> float:
    total = sum(weights.values())
    if total <= 0:
        return 0.0
    return sum(w * normalised(d, row.value(d), rows, lower) for d, w in weights.items()) / total


def _descending(value: float) -> float:
    """A sort key that puts higher values first, and a NaN after every number."""
    return math.inf if math.isnan(value) else -value


def _plus(total: float | None, cost: float | None) -> float | None:
    """A sum of costs, unknown (None) once any of them is."""
    return None if total is None or cost is None else total + cost
