"""Per-model aggregates of records and the weighted composite. Pure: no pytest, no I/O."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from pytest_arena.record import ERROR, FAILED, FLAKY, PASSED, UNSCORED, Record
from pytest_arena.reports import verdicts
from pytest_arena.reports.statistics import Interval, pass_at_k, pass_hat_k
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

    def value(self, dimension: str) -> float | None:
        if dimension in BUILTIN_DIMENSIONS:
            value: float | None = getattr(self, dimension)
            return value
        return self.metrics.get(dimension)


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


def build_boards(records: Iterable[Record]) -> list[Board]:
    """One board per project, rows ranked by composite."""
    by_project: dict[str, dict[str, Record]] = {}
    for record in sorted(records, key=_order):  # the same sums whatever the order
        by_project.setdefault(record.project, {}).setdefault(_order(record), record)
    return [build_board(name, list(found.values())) for name, found in sorted(by_project.items())]


def _order(record: Record) -> str:
    """`record.key` as text, each part after its length: sorting text makes no object for the
    garbage collector to go over (20,000 tuples could set off a full collection)."""
    project, case, model = record.project, record.case_id, record.model
    return f"{len(project)}:{project}{len(case)}:{case}{len(model)}:{model}{record.sample}"


def build_board(project: str, records: list[Record]) -> Board:
    board_settings = next((r.board for r in records if r.board), {})
    weights: dict[str, float] = dict(board_settings.get("weights") or {"accuracy": 1.0})
    lower = LOWER_IS_BETTER | set(board_settings.get("lower_is_better") or ())
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
    warnings += mistakes
    for name in [d for d, w in weights.items() if w > 0 and d != "accuracy"]:
        unknown = [row.model for row in rows if row.value(name) is None]
        if unknown:  # counted as 0 for some models and not others, it would rank them
            whose = "every model" if len(unknown) == len(rows) else ", ".join(unknown)
            warnings.append(
                f"'{name}' is unknown for {whose} (no price, answers from the response cache,"
                " or no value recorded), so the composite leaves it out for every model"
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
    rows.sort(key=lambda r: (-r.composite, -(r.accuracy or 0.0), r.model))
    for rank, row in enumerate(rows, start=1):
        row.rank = rank
    board = Board(
        project, rows, weights, metric_names, warnings, k, _uneven(by_model), mistakes=mistakes
    )
    _judge(board, by_model, lower)
    return board


def _judge(
    board: Board, by_model: Mapping[str, list[Record]], lower: frozenset[str] | set[str]
) -> None:
    """Intervals on the board's numbers, each model against the leader, ties, the power."""
    rows = board.rows
    for row in rows:
        row.intervals = verdicts.row_intervals(by_model[row.model])
    plain = set(board.weights) == {"accuracy"} and all(
        r.accuracy is not None and 0.0 <= r.accuracy <= 1.0 for r in rows
    )  # the composite is the accuracy itself
    boot: dict[str, Interval] = {}
    if plain:
        board.ties_by = "test"
        for row in rows:
            row.intervals["composite"] = row.intervals["accuracy"]
    elif board.weights:

        def composites(drawn: dict[str, list[Record]]) -> dict[str, float]:
            drawn_rows = [_row(m, found) for m, found in drawn.items() if found]
            return {r.model: composite(r, drawn_rows, board.weights, lower) for r in drawn_rows}

        boot = verdicts.composite_intervals(by_model, composites)
        for row in rows:
            if row.model in boot:
                row.intervals["composite"] = boot[row.model]
    if not rows:
        return
    leader = rows[0]
    board.comparisons = [
        verdicts.compare(r.model, by_model[r.model], leader.model, by_model[leader.model])
        for r in rows[1:]
    ]
    head, members = rows[0], [rows[0]]
    groups = [members]
    for row in rows[1:]:
        if plain:
            apart = verdicts.compare(
                row.model, by_model[row.model], head.model, by_model[head.model]
            ).significant
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


def _tries(record: Record) -> tuple[int, int] | None:
    """(graded samples, passed samples) of a repeated case; None for a case drawn once."""
    sampling = record.sampling
    if not sampling or record.status not in (PASSED, FAILED, FLAKY):
        return None
    return int(sampling["graded"]), int(sampling["passed"])


def _k(records: list[Record], asked: int | None) -> int | None:
    """The k of pass@k: the project's `metrics.pass_k`, else the fewest graded samples of a
    repeated case (so every such case counts); None when no case was repeated."""
    tries = [t[0] for r in records if (t := _tries(r)) is not None and t[0] > 1]
    if not tries:
        return None
    return int(asked) if asked else min(tries)


def _pass_k(records: list[Record], k: int) -> tuple[float | None, float | None]:
    """pass@k (Chen et al. 2021, unbiased) and pass^k (τ-bench), each the mean over the
    cases with at least k graded samples; a repeated case that ended in an error counts as
    one that never passes (a case drawn once, or that erred before its samples, in none)."""
    at: list[float] = []
    hat: list[float] = []
    for r in records:
        if r.status == ERROR and r.sampling:
            at.append(0.0)
            hat.append(0.0)
            continue
        tries = _tries(r)
        if tries is None or tries[0] < k:
            continue
        n, c = tries
        at.append(pass_at_k(n, c, k))
        hat.append(pass_hat_k(n, c, k))
    if not at:
        return None, None
    return sum(at) / len(at), sum(hat) / len(hat)


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
    score_sum = weight_sum = 0.0
    latencies: list[float] = []
    metric_sums: dict[str, list[float]] = {}
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
        if r.status in (PASSED, FAILED, FLAKY, ERROR):
            score = 0.0 if r.status == ERROR else (r.score or 0.0)
            score_sum += r.weight * score
            weight_sum += r.weight
        row.tokens += r.tokens_in + r.tokens_out
        row.cost = _plus(row.cost, r.cost)
        row.judge_cost = _plus(row.judge_cost, r.judge_cost)
        if r.latency_ms is not None and not r.cached:  # a cached answer took no time now
            latencies.append(r.latency_ms)
        for name, value in r.metrics.items():
            sums = metric_sums.setdefault(name, [0.0, 0.0])
            sums[0] += r.weight * value
            sums[1] += r.weight
    graded = _graded(row)
    row.accuracy = score_sum / weight_sum if weight_sum else None  # None: nothing weighs
    row.pass_rate = row.passed / graded if graded else None
    row.latency = sum(latencies) / len(latencies) if latencies else None
    row.metrics = {n: s / w for n, (s, w) in metric_sums.items() if w}  # weight 0: no value
    return row


def _graded(row: Row) -> int:
    return row.passed + row.failed + row.flaky + row.errors


def normalised(
    dimension: str, value: float | None, rows: list[Row], lower: frozenset[str] | set[str]
) -> float:
    """A dimension's value on a 0-1 scale where 1 is best (see the README)."""
    if value is None:
        return 0.0
    values = [v for r in rows if (v := r.value(dimension)) is not None]
    if dimension in lower:
        best = min(values)
        if value <= best:
            return 1.0
        return best / value if value > 0 else 1.0
    if all(0.0 <= v <= 1.0 for v in values):
        return value
    top = max(values)
    return max(0.0, value / top) if top > 0 else 0.0


def composite(
    row: Row, rows: list[Row], weights: Mapping[str, float], lower: frozenset[str] | set[str]
) -> float:
    total = sum(weights.values())
    if total <= 0:
        return 0.0
    return sum(w * normalised(d, row.value(d), rows, lower) for d, w in weights.items()) / total


def _plus(total: float | None, cost: float | None) -> float | None:
    """A sum of costs, unknown (None) once any of them is."""
    return None if total is None or cost is None else total + cost
