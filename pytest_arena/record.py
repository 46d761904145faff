"""A record: everything known about one (case, model) result, as JSON-safe data."""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field, fields
from pathlib import PurePath
from typing import Any

PASSED, FAILED, UNSCORED, ERROR = "passed", "failed", "unscored", "error"
FLAKY = "flaky"  # samples that disagree, and no clear verdict after the most of them
XFAILED, XPASSED, XPASSED_STRICT = "xfailed", "xpassed", "xpassed_strict"

# what a record keeps of each of its samples, when a case is repeated
SAMPLE_FIELDS = (
    "sample",
    "status",
    "score",
    "passed",
    "reason",
    "output",
    "raw_output",
    "detail",
    "metrics",
    "tokens_in",
    "tokens_out",
    "cost",
    "latency_ms",
    "retries",
    "cached",
    "cached_cost",
    "judge_tokens",
    "judge_cost",
    "judge_cached_cost",
    "error",
)


@dataclass(slots=True)
class Record(Mapping[str, Any]):
    """Also read as a mapping of its fields (`record["reason"]`), as a test report's
    `arena_record` is read; slotted, as a run keeps one for each (case, model)."""

    project: str
    case_id: str
    model: str
    status: str
    score: float | None = None
    passed: bool | None = None
    reason: str = ""
    scorer: str = ""
    output: str | None = None  # what was scored
    raw_output: str | None = None  # what the model said, when hooks.py changed it
    reference: Any = None
    messages: list[dict[str, Any]] = field(default_factory=list)  # the prompt sent, rendered
    detail: dict[str, Any] = field(default_factory=dict)
    metrics: dict[str, float] = field(default_factory=dict)
    tokens_in: int = 0
    tokens_out: int = 0
    cost: float | None = 0.0  # None: the model's price is unknown (never shown as $0)
    latency_ms: float | None = None
    retries: int = 0  # tries the engine repeated after 429, 5xx, dropped connections, timeouts
    cached: bool = False  # answered from the response cache: no call, nothing spent this run
    cached_cost: float = 0.0  # of cost, what the response cache answered (all of it if cached)
    judge_tokens: int = 0  # the judge's, apart from the model's
    judge_cost: float | None = 0.0  # None: a judge without a price answered (unknown, not $0)
    judge_cached_cost: float = 0.0  # of judge_cost, the verdicts the response cache gave
    weight: float = 1.0
    tags: list[str] = field(default_factory=list)
    group: str | None = None  # the case's `group`: cases sharing a context, clustered
    # an xfail mark's outcome, as pytest gave it: XFAILED, XPASSED or XPASSED_STRICT (which
    # fails the run); the status stays the scorer's verdict
    xfail: str | None = None
    sample: int = 0
    error: str | None = None
    board: dict[str, Any] = field(default_factory=dict)  # the project's leaderboard settings
    # the whole response (context.response), size-capped: message, tool calls, trajectory
    response: dict[str, Any] | None = None
    # with repeats: every sample (SAMPLE_FIELDS each), and how the verdict came of them
    samples: list[dict[str, Any]] = field(default_factory=list)
    sampling: dict[str, Any] = field(default_factory=dict)

    @property
    def key(self) -> tuple[str, str, str, int]:
        """Identity across processes and `--dist` modes (node ids are not stable there)."""
        return (self.project, self.case_id, self.model, self.sample)

    def sample_dict(self) -> dict[str, Any]:
        """What a repeated case's record keeps of this sample, as JSON-safe data."""
        return {name: json_safe(getattr(self, name)) for name in SAMPLE_FIELDS}

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON data, safe to send from a pytest-xdist worker."""
        data = {name: getattr(self, name) for name in _FIELDS}  # the fields, in their order
        for name in _FREE_FORM:
            data[name] = json_safe(data[name])
        data["tags"] = list(self.tags)
        return data

    def lean(self) -> None:
        """Drop what only the JSON and HTML reports show: the prompt, the answer, the
        reference, the whole response and the scorer's detail (but an override or a
        crash, which the terminal says). The leaderboard, gates and baseline need the
        rest. A lean record is read, never changed: its empty lists and dicts are shared."""
        self.output = self.raw_output = self.reference = self.response = None
        self.messages = _NO_ITEMS
        kept = {k: v for k, v in self.detail.items() if k in _TERMINAL_DETAIL}
        self.detail = kept or _NO_FIELDS
        self.tags, self.samples = self.tags or _NO_ITEMS, self.samples or _NO_ITEMS
        self.metrics, self.sampling = self.metrics or _NO_FIELDS, self.sampling or _NO_FIELDS

    def __getitem__(self, name: str) -> Any:
        if name not in _FIELD_SET:
            raise KeyError(name)
        return getattr(self, name)

    def __iter__(self) -> Iterator[str]:
        return iter(_FIELDS)

    def __len__(self) -> int:
        return len(_FIELDS)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Record:
        if data.keys() == _FIELD_SET:  # as to_dict made it
            return cls(**data)
        return cls(**{k: v for k, v in data.items() if k in _FIELD_SET})


_FIELDS = tuple(f.name for f in fields(Record))
_FIELD_SET = frozenset(_FIELDS)
_TERMINAL_DETAIL = ("override", "crash", "warning")  # what the terminal says of a record
_NO_ITEMS: list[Any] = []  # shared by lean records only
_NO_FIELDS: dict[str, Any] = {}
_FREE_FORM = (
    "reference",
    "messages",
    "detail",
    "metrics",
    "score",
    "latency_ms",
    "samples",
    "sampling",
)  # may hold anything; `board` (the project's, one dict) and `response` (response_data's)
# are JSON data when made, and sent as they are


NESTING_LIMIT = 100  # levels of lists and dicts kept: deeper is said, not followed
TOO_DEEP = f"[nested more than {NESTING_LIMIT} levels deep: cut]"
CYCLE = "[holds itself: cut]"
# an object's place in memory, as a repr without one of its own says it: `<X object at
# 0x7f...>`; it changes each run, and says nothing of the object
ADDRESS = re.compile(r" ?\bat 0x[0-9a-fA-F]+")


def json_safe(value: Any, _within: tuple[int, ...] = ()) -> Any:
    """`value` as plain JSON data: a number JSON has no word for (NaN, an infinity) becomes
    null, an integer too long to write (Python writes 4,300 digits at most) a text saying
    so; paths and other objects become strings, their repr without a memory address
    (`<X object>`, the same in every run), or a text saying their repr failed; a list or
    dict inside itself becomes CYCLE, and one more than NESTING_LIMIT levels down TOO_DEEP.
    Never raises: what a scorer kept in `detail` cannot end the run."""
    kind = type(value)  # the plain types first, by identity: most of what a record holds
    if kind is str or kind is bool or value is None:
        return value
    if kind is int:
        return value if value.bit_length() < _SHORT_INT_BITS else _long_int(value)
    if kind is float:
        return value if math.isfinite(value) else None
    if id(value) in _within:
        return CYCLE
    if len(_within) >= NESTING_LIMIT:
        return TOO_DEEP
    within = (*_within, id(value))
    if kind is dict:
        return {k if type(k) is str else _key(k): json_safe(v, within) for k, v in value.items()}
    if kind is list:
        return [json_safe(v, within) for v in value]
    return _json_safe(value, within)


# an int of fewer bits has fewer than 640 digits, the least limit Python may be set to write
_SHORT_INT_BITS = 2048


def _long_int(value: int) -> int | str:
    """`value` if Python can write it (its limit: 4,300 digits, unless set otherwise), else
    a text giving its sign, first digits and length: JSON's writer would raise on it."""
    try:
        str(value)
    except ValueError:
        pass
    else:
        return value
    digits = int(math.log10(abs(value))) + 1
    if abs(value) >= 10**digits:  # the float log10 may be one off
        digits += 1
    elif abs(value) < 10 ** (digits - 1):
        digits -= 1
    first = abs(value) // 10 ** (digits - 20)
    return long_int_said(digits, str(first), value < 0)


def long_int_said(digits: int, first: str, negative: bool) -> str:
    """An integer too long for Python to write, as reports say it: its sign, its first
    digits and how many it has."""
    return f"[an integer of {digits:,} digits: {'-' if negative else ''}{first}...]"


def _key(key: Any) -> str:
    """A dict key as JSON's: a string."""
    if isinstance(key, int) and not isinstance(key, bool):
        safe = _long_int(int(key))
        if isinstance(safe, str):
            return safe
    return _text_of(key, str)


def _text_of(value: Any, how: Callable[[Any], str]) -> str:
    """`how(value)` (str, or repr), or, if it raises, a text naming the type and saying so."""
    try:
        text = how(value)
    except Exception as exc:
        return f"<{type(value).__name__} object: its {how.__name__}() raised {type(exc).__name__}>"
    return text if isinstance(text, str) else str(text)


def encodable(value: Any) -> Any:
    """`value` (JSON data) with every string one UTF-8 can encode: a lone surrogate (half
    of a UTF-16 pair, as a model's JSON may hold) is written as its escape, `\\ud800`."""
    kind = type(value)
    if kind is str:
        return value if value.isascii() else _encodable_text(value)
    if kind is dict:
        return {encodable(k): encodable(v) for k, v in value.items()}
    if kind is list:
        return [encodable(v) for v in value]
    if kind is tuple:  # a report's location and a skip's longrepr stay tuples
        return tuple(encodable(v) for v in value)
    return value


def _encodable_text(text: str) -> str:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return text.encode("utf-8", "backslashreplace").decode("utf-8")
    return text


def as_json(value: Any) -> Any:
    """`value` itself when it is plain JSON data already (a kept record's nested data:
    shared, not copied, by the report built of it), else `json_safe(value)`."""
    return value if _is_json(value) else json_safe(value)


def _is_json(value: Any) -> bool:
    kind = type(value)
    if kind is str or kind is bool or value is None:
        return True
    if kind is int:
        return bool(value.bit_length() < _SHORT_INT_BITS)
    if kind is float:
        return math.isfinite(value)
    if kind is dict:
        return all(type(k) is str and _is_json(v) for k, v in value.items())
    if kind is list:
        return all(_is_json(v) for v in value)
    return False


def _json_safe(value: Any, within: tuple[int, ...]) -> Any:
    if isinstance(value, bool | str):
        return value
    if isinstance(value, int):  # an IntEnum
        return value if value.bit_length() < _SHORT_INT_BITS else _long_int(int(value))
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, Mapping):
        return {_key(k): json_safe(v, within) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [json_safe(v, within) for v in value]
    if isinstance(value, set | frozenset):
        return sorted((json_safe(v, within) for v in value), key=repr)
    if isinstance(value, PurePath):
        return str(value)
    return ADDRESS.sub("", _text_of(value, repr))
