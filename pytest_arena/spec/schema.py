"""The shape of `arena.yaml`, validated with pydantic."""

from __future__ import annotations

import json
import math
import re
import typing
from pathlib import PurePosixPath
from typing import Annotated, Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Discriminator,
    Field,
    Tag,
    ValidationInfo,
    field_validator,
    model_validator,
)

from pytest_arena.scorers.text import printable

_CONTROLS = re.compile("[\x00-\x1f\x7f-\x9f]")  # C0, DEL, C1: what a terminal obeys
CASE_ID = re.compile(r"[A-Za-z0-9_.-]+\Z")  # \Z: `$` would let a final newline in
# a model key is part of each node id (`case[key]`), of -k and of the reports' tables
MODEL_KEY = re.compile(r"[\w.\-/:@+]+\Z")


def model_key_problem(key: str) -> str | None:
    """Why `key` cannot be a model key, or None."""
    if MODEL_KEY.match(key) and "::" not in key:
        return None
    return (
        f"model key {key!r} may hold only letters, digits and _ . - / : @ + (no spaces,"
        " brackets, '|' or '::'), as it is part of each case's node id"
    )


def plain_name(value: str, what: str) -> str:
    """`value`, a name printed in headlines, leaderboards and gate lines; a ValueError with
    the fix when it holds what a terminal would obey (ESC, BEL, a newline). Invisible
    characters that a terminal only shows (a right-to-left mark pasted with Hebrew text)
    are kept, and escaped where the name is shown."""
    if _CONTROLS.search(value):
        raise ValueError(
            f"{what} '{printable(value)}' holds control characters, which a terminal would act"
            " on rather than show: write it without them"
        )
    return value


def names_list(value: Any) -> Any:
    """`a, b` or `a b` written as one string: the list of its names."""
    if isinstance(value, str):
        return [t for t in re.split(r"[,;|\s]+", value) if t]
    return value


def _numeric(annotation: Any) -> bool:
    """Whether a field of this type takes a number and not a boolean (`float | None`)."""
    if annotation is bool:
        return False
    if annotation in (int, float):
        return True
    args = typing.get_args(annotation)
    if typing.get_origin(annotation) is Annotated:
        return _numeric(args[0])
    return bool(args) and bool not in args and any(_numeric(a) for a in args)


class Spec(BaseModel):
    """A part of arena.yaml: a YAML boolean where a field takes a number is an error, where
    pydantic would take `false` as 0 (a threshold of 0, a budget of $0) and `true` as 1."""

    @field_validator("*", mode="before")
    @classmethod
    def _no_boolean_numbers(cls, value: Any, info: ValidationInfo) -> Any:
        if not isinstance(value, bool):  # (every field of every case passes here)
            return value
        field = cls.model_fields.get(info.field_name or "")
        if field is not None and _numeric(field.annotation):
            raise ValueError(
                f"{str(value).lower()} is a boolean, not a number: write a number such as 0.5"
                " (or leave the setting out)"
            )
        return value


class Strict(Spec):
    # NaN compares false with every limit (and would slip past ge/le): said as not finite
    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)


class Price(Strict):
    """Dollars per million tokens."""

    input_per_mtok: float = Field(0.0, ge=0)
    output_per_mtok: float = Field(0.0, ge=0)
    # input the provider read from its prompt cache; None: OpenAI's at input_per_mtok, and
    # Anthropic's at 0.1 times it (as Anthropic prices every model's)
    cached_input_per_mtok: float | None = Field(None, ge=0)


class ModelDef(Spec):
    """A model key's connector, its price, how the engine calls it, and its connector's own
    settings (every other key)."""

    model_config = ConfigDict(extra="allow", allow_inf_nan=False)

    connector: str = "sim"
    price: Price | None = None
    concurrency: int | None = Field(None, ge=1, le=1024)  # calls in flight; default per connector
    rpm: float | None = Field(None, gt=0)  # requests per minute
    tpm: float | None = Field(None, gt=0)  # tokens (in + out) per minute
    timeout: float | None = Field(None, gt=0)  # seconds per try
    max_retries: int | None = Field(None, ge=0, le=20)
    backoff: float | None = Field(None, ge=0)  # seconds before the first retry; doubles
    cache: bool | None = None  # None: the connector's default
    tags: list[str] = Field(default_factory=list)  # names that cases' `models:` may use

    @field_validator("tags", mode="before")
    @classmethod
    def _tags_list(cls, value: Any) -> Any:
        return names_list(value)

    def settings(self) -> dict[str, Any]:
        return dict(self.model_extra or {})


class ModelsSpec(Strict):
    default: list[str] = Field(default_factory=list)
    define: dict[str, ModelDef] = Field(default_factory=dict)

    @field_validator("default", mode="before")
    @classmethod
    def _one_or_many(cls, value: Any) -> Any:
        return [value] if isinstance(value, str) else value

    @field_validator("default", "define")
    @classmethod
    def _keys(cls, value: Any) -> Any:
        for key in value:
            problem = model_key_problem(key)
            if problem is not None:
                raise ValueError(problem)
        return list(dict.fromkeys(value)) if isinstance(value, list) else value  # once each


class ScorersSpec(Strict):
    default: str | None = None
    options: dict[str, dict[str, Any]] = Field(default_factory=dict)


Finite = Annotated[float, Field(allow_inf_nan=False)]
# weights count relative to each other; sums of larger ones overflow a float (1e308)
MAX_WEIGHT = 1e9


def _some_weight(scoring: list[ComponentSpec] | None) -> list[ComponentSpec] | None:
    """A contract whose weights are all 0 would score every case 0; one with no component
    would have nothing to score with."""
    if scoring is not None and not scoring:
        raise ValueError(
            "scoring: [] lists no scorer; list at least one, or leave 'scoring' out to use"
            " the default scorer"
        )
    if scoring and not any(c.weight > 0 for c in scoring):
        raise ValueError(
            "every component's weight is 0, so the contract's score is always 0: give at"
            " least one component a weight above 0"
        )
    return scoring


HIGHER_IS_BETTER = ("accuracy", "pass_rate")  # shares of the cases: never lower-is-better


class MetricsSpec(Strict):
    weights: dict[str, Finite] = Field(default_factory=dict)
    lower_is_better: list[str] = Field(default_factory=list)
    pass_k: int | None = Field(None, ge=1)  # the k of pass@k and pass^k; default: the repeats

    @field_validator("weights", "lower_is_better")
    @classmethod
    def _plain_names(cls, value: Any) -> Any:
        for name in value:
            plain_name(name, "metric name")
        return value

    @field_validator("lower_is_better")
    @classmethod
    def _not_shares(cls, value: list[str]) -> list[str]:
        for name in value:
            if name in HIGHER_IS_BETTER:
                raise ValueError(
                    f"'{name}' is higher-is-better by definition (a share of what was right):"
                    " take it out of lower_is_better, which is for custom metrics such as"
                    " hallucinated_refs (cost, latency and tokens already are)"
                )
        return value

    @field_validator("weights")
    @classmethod
    def _non_negative(cls, value: dict[str, float]) -> dict[str, float]:
        for name, weight in value.items():
            if weight < 0:
                raise ValueError(f"weight of '{name}' is {weight}; weights must be 0 or more")
            if weight > MAX_WEIGHT:
                raise ValueError(
                    f"weight of '{name}' is {weight:g}; weights are relative, {MAX_WEIGHT:g}"
                    " at most"
                )
        if value and not any(value.values()):
            raise ValueError(
                "every weight is 0, so every composite would be 0: give at least one a weight"
                " above 0"
            )
        return value


class Bound(Strict):
    """Limits on one leaderboard value: `min`, `max` or both."""

    min: Finite | None = None  # NaN would hold against any value
    max: Finite | None = None

    @model_validator(mode="after")
    def _some_limit(self) -> Bound:
        if self.min is None and self.max is None:
            raise ValueError("give the limit as 'min: NUMBER', 'max: NUMBER' or both")
        if self.min is not None and self.max is not None and self.min > self.max:
            raise ValueError(f"min {self.min} is above max {self.max}; no value could pass")
        return self


# leaderboard values from 0 to 1 (the composite is a weighted mean of 0-1 scales)
FRACTIONS = frozenset({"accuracy", "pass_rate", "composite"})


def _fractions(limits: dict[str, Bound]) -> dict[str, Bound]:
    """`limits`, whose limits on a fraction are from 0 to 1 (90 meant 90%: it never held)."""
    for metric in sorted(FRACTIONS.intersection(limits)):
        for side, limit in (("min", limits[metric].min), ("max", limits[metric].max)):
            if limit is not None and not 0 <= limit <= 1:
                percent = f"; write {limit / 100:g} for {limit:g}%" if 1 < limit <= 100 else ""
                raise ValueError(
                    f"{metric} {side} {limit:g} is no fraction: {metric} runs from 0 to 1{percent}"
                )
    return limits


class GateSpec(Strict):
    """Thresholds on leaderboard values that decide a run's exit status."""

    all: dict[str, Bound] = Field(default_factory=dict)  # every model that ran
    models: dict[str, dict[str, Bound]] = Field(default_factory=dict)  # one model each
    # against --arena-baseline: fail on an accuracy drop significant at regression_level,
    # and (critical: no_regression) on any regressed case tagged 'critical'
    regression: Literal["significant"] | None = None
    regression_level: float = Field(0.05, gt=0, lt=1)
    critical: Literal["no_regression"] | None = None

    @field_validator("all")
    @classmethod
    def _plain_metrics(cls, value: dict[str, Bound]) -> dict[str, Bound]:
        for metric in value:
            plain_name(metric, "metric name")
        return _fractions(value)

    @field_validator("models")
    @classmethod
    def _plain_models(cls, value: dict[str, dict[str, Bound]]) -> dict[str, dict[str, Bound]]:
        for model, limits in value.items():
            plain_name(model, "model key")
            for metric in limits:
                plain_name(metric, "metric name")
            _fractions(limits)
        return value

    @model_validator(mode="after")
    def _some_limits(self) -> GateSpec:
        rules = self.regression or self.critical
        if not self.all and not any(self.models.values()) and not rules:
            raise ValueError(
                "the gate has no limits; add e.g. 'all: {accuracy: {min: 0.8}}',"
                " 'models: {sim_small: {pass_rate: {min: 0.5}}}' or 'regression: significant'"
            )
        return self


class PromptSpec(Strict):
    template: str | None = None
    system: str | None = None

    @model_validator(mode="before")
    @classmethod
    def _a_mapping(cls, value: Any) -> Any:
        if isinstance(value, str):  # `prompt: "Q: {input}"`: the template, meant
            raise ValueError(
                f"a prompt is a mapping of 'template' and 'system', not text: write"
                f" prompt: {{template: {json.dumps(value, ensure_ascii=False)}}}"
            )
        if value is not None and not isinstance(value, dict | PromptSpec):
            raise ValueError(
                f"a prompt is a mapping of 'template' and 'system', not {_kind(value)}: write"
                ' e.g. prompt: {template: "Q: {input}", system: "Answer briefly."}'
            )
        return value


def _kind(value: Any) -> str:
    return "a list" if isinstance(value, list) else f"{type(value).__name__} {value!r}"


class FieldMap(Strict):
    """Which column of a dataset row holds each part of a case."""

    id: str | None = None
    input: str | list[str] = "input"
    reference: str | None = "reference"
    tags: str | None = "tags"
    weight: str | None = "weight"
    eval_type: str | None = "eval_type"
    models: str | None = "models"


class ComponentSpec(Strict):
    """One scorer of a weighted scoring contract."""

    name: str | None = None
    scorer: str | None = None
    command: str | list[str] | None = None
    weight: float = Field(1.0, ge=0, le=MAX_WEIGHT, allow_inf_nan=False)
    params: dict[str, Any] = Field(default_factory=dict)
    required: bool = False
    timeout: float | None = Field(None, gt=0)

    @model_validator(mode="after")
    def _one_way_to_score(self) -> ComponentSpec:
        if (self.scorer is None) == (self.command is None):
            raise ValueError("give each component either 'scorer: NAME' or 'command: PROGRAM'")
        return self

    @property
    def label(self) -> str:
        if self.name:
            return self.name
        if self.scorer:
            return self.scorer
        first = self.command if isinstance(self.command, str) else (self.command or ["command"])[0]
        return first.split()[0].rsplit("/", 1)[-1] if first else "command"


Threshold = Annotated[float, Field(ge=0, le=1)]

MAX_REPEAT = 1000
_REPEAT_FIX = (
    "give the samples per case as a whole number, 1 or more (repeat: 5), or a range for"
    " sequential sampling (repeat: {min: 3, max: 10})"
)


class RepeatSpec(Strict):
    """How many samples of a case to draw: `min` of them, then more one by one until the
    verdict is clear or `max` are drawn. `repeat: N` is `{min: N, max: N}`."""

    min: int
    max: int


def repeat_of(value: Any) -> Any:
    """`repeat: N` or `repeat: {min: A, max: B}` as a RepeatSpec; ValueError with the fix."""
    if isinstance(value, RepeatSpec) or value is None:
        return value
    if isinstance(value, dict):
        unknown = sorted(str(k) for k in value if k not in ("min", "max"))
        if unknown or "min" not in value or "max" not in value:
            what = f"unknown key '{unknown[0]}'" if unknown else "it needs both 'min' and 'max'"
            raise ValueError(f"as a range, {what}; {_REPEAT_FIX}")
        low, high = _samples(value["min"], "min "), _samples(value["max"], "max ")
        if low > high:
            raise ValueError(
                f"min {low} is above max {high}: no number of samples fits; give min at"
                f" most max (repeat: {{min: {high}, max: {low}}}), or one number (repeat: {low})"
            )
        return RepeatSpec(min=low, max=high)
    count = _samples(value, "")
    return RepeatSpec(min=count, max=count)


def _samples(value: Any, name: str) -> int:
    """`value` as a number of samples; `name` is '' for `repeat: N`, 'min ' or 'max ' for a
    range's ends (the message follows the key, `repeat:`)."""
    value = number_of(value)
    whole = isinstance(value, int | float) and math.isfinite(value) and value == int(value)
    if isinstance(value, bool) or not whole:
        raise ValueError(f"{name}{value!r} is not a number of samples; {_REPEAT_FIX}")
    if not 1 <= value <= MAX_REPEAT:
        raise ValueError(
            f"{name}{int(value)} samples "
            + ("draws none of a case" if value < 1 else f"is more than {MAX_REPEAT}")
            + f"; {_REPEAT_FIX}"
        )
    return int(value)


_NUMBER = re.compile(r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?")


def number_of(value: Any) -> Any:
    """A number written as text, as a float: YAML 1.1 reads `1e-9` (no dot) as a string,
    where pydantic's own number fields take it as the number; others are left as given."""
    if isinstance(value, str) and _NUMBER.fullmatch(value.strip()):
        return float(value)
    return value


def min_pass_rate_of(value: Any) -> Any:
    value = number_of(value)
    if value is None:
        return value
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 < value <= 1:
        raise ValueError(
            f"{value!r} is the share of a case's samples that must pass: give a"
            " number above 0 and at most 1, such as 0.8 (80%); 1, the default, means every"
            " sample"
        )
    return float(value)


class SamplingSettings(Strict):
    """What a project, a dataset and a case may each set about repeats."""

    repeat: RepeatSpec | None = None
    min_pass_rate: float | None = None

    @field_validator("repeat", mode="before")
    @classmethod
    def _repeat(cls, value: Any) -> Any:
        return repeat_of(value)

    @field_validator("min_pass_rate", mode="before")
    @classmethod
    def _rate(cls, value: Any) -> Any:
        return min_pass_rate_of(value)


class DatasetSpec(SamplingSettings):
    path: str
    format: Literal["yaml", "jsonl", "csv", "tsv"] | None = None
    delimiter: str | None = None  # a CSV file's, if not the comma (a TSV file's: the tab)
    fields: FieldMap = Field(default_factory=FieldMap)
    tags: list[str] = Field(default_factory=list)
    eval_type: str | None = None
    scoring: list[ComponentSpec] | None = None
    threshold: Threshold | None = None
    models: list[str] | None = None  # model keys or tags: its cases run on these only

    @field_validator("models", mode="before")
    @classmethod
    def _models_list(cls, value: Any) -> Any:
        return names_list(value)

    _scoring = field_validator("scoring")(_some_weight)

    @field_validator("path")
    @classmethod
    def _a_file(cls, value: str) -> str:
        if not value.strip():
            raise ValueError(
                "a dataset's path is empty: give the file's path from arena.yaml's folder,"
                " such as data/cases.jsonl"
            )
        plain_name(value, "dataset path")  # it names the node of the file's problems
        if PurePosixPath(value.strip().replace("\\", "/")).name in ("", ".", ".."):
            raise ValueError(
                f"dataset path {value!r} names a folder, not a file: give the file's path"
                " from arena.yaml's folder, such as data/cases.jsonl"
            )
        return value

    @field_validator("delimiter")
    @classmethod
    def _one_character(cls, value: str | None) -> str | None:
        if value is not None and (len(value) != 1 or value in '"\r\n'):
            raise ValueError(
                f"delimiter {value!r} is not one character that can part cells: give the"
                ' character between a CSV file\'s cells, such as ";" or "\\t" (a tab)'
            )
        return value


class JudgeSpec(Strict):
    """The model that grades for `llm_judge` and `context.judge`."""

    model: str = "sim_judge"
    samples: int = Field(1, ge=1, le=25)
    reduce: Literal["majority", "mean"] = "majority"


class TextPart(Strict):
    type: Literal["text"]
    text: str


class ImageUrl(Strict):
    url: str
    detail: Literal["auto", "low", "high"] | None = None


class ImageUrlPart(Strict):
    """OpenAI's form: `{type: image_url, image_url: {url: ...}}`."""

    type: Literal["image_url"]
    image_url: ImageUrl
    alt: str | None = None  # what the image shows: the simulated models read it


class ImagePart(Strict):
    """Arena's form: `{image: FILE_OR_URL, alt: ...}`; a file is sent inline, as base64."""

    image: str
    alt: str | None = None
    detail: Literal["auto", "low", "high"] | None = None


def _part_kind(value: Any) -> str | None:
    if isinstance(value, dict):
        if "image" in value and "type" not in value:
            return "part[image]"
        kind = value.get("type")
        return f"part[{kind}]" if kind in ("text", "image_url") else None
    return None


ContentPart = Annotated[
    Annotated[TextPart, Tag("part[text]")]
    | Annotated[ImageUrlPart, Tag("part[image_url]")]
    | Annotated[ImagePart, Tag("part[image]")],
    Discriminator(
        _part_kind,
        custom_error_type="content_part",
        custom_error_message="a content part is {type: text, text: ...}, {type: image_url,"
        " image_url: {url: ...}} or {image: FILE_OR_URL, alt: ...}",
    ),
]


def _text_or_list(value: Any) -> str:
    return "list[parts]" if isinstance(value, list) else "str"


class Message(Strict):
    role: Literal["system", "user", "assistant"]
    # one alternative is checked: a list is not also said to be "not a valid string"
    content: Annotated[
        Annotated[str, Tag("str")] | Annotated[list[ContentPart], Tag("list[parts]")],
        Discriminator(_text_or_list),
    ]

    @field_validator("role", mode="before")
    @classmethod
    def _no_tool_result(cls, value: Any) -> Any:
        # a tool's result answers the model's call of it (by the call's id), which no
        # message of a case holds: no API would take it
        if value == "tool":
            raise ValueError(
                "role 'tool' is a tool's result, which answers a model's tool call, and a"
                " case's input holds no such call: write the result in a user message's text,"
                " or give the project a tools.py, whose functions arena offers to the models,"
                " running each call in a tool loop"
            )
        return value


def _not_json(value: Any) -> str | None:
    """What in `value` is not JSON data (a `!!binary` value's bytes), or None."""
    if value is None or isinstance(value, str | bool | int | float):
        return None
    if isinstance(value, list):
        return next((found for v in value if (found := _not_json(v)) is not None), None)
    if isinstance(value, dict):
        for key, v in value.items():
            found = _not_json(v) if isinstance(key, str) else f"the key {key!r}"
            if found is not None:
                return found
        return None
    if isinstance(value, BaseModel):  # a message, already checked by its own model
        return None
    return f"a value of type {type(value).__name__}"


def _input_kind(value: Any) -> str:
    if isinstance(value, list):
        return "list[Message]"
    return "dict" if isinstance(value, dict) else "str"


class CaseSpec(SamplingSettings):
    """One case as written in `tests:` or produced from a dataset row."""

    id: str
    input: Annotated[
        Annotated[str, Tag("str")]
        | Annotated[list[Message], Tag("list[Message]")]
        | Annotated[dict[str, Any], Tag("dict")],
        Discriminator(_input_kind),
    ]
    reference: Any = None
    tags: list[str] = Field(default_factory=list)
    weight: float = Field(1.0, ge=0, le=MAX_WEIGHT, allow_inf_nan=False)
    eval_type: str | None = None
    options: dict[str, Any] = Field(default_factory=dict)
    scoring: list[ComponentSpec] | None = None
    threshold: Threshold | None = None
    metadata: dict[str, Any] = Field(default_factory=dict)
    group: str | None = None  # cases sharing one context: their error bars are clustered
    models: list[str] | None = None  # model keys or tags: the case runs on these only

    @field_validator("input", "reference", "metadata", "options")
    @classmethod
    def _json_data(cls, value: Any) -> Any:
        if isinstance(value, list) and not value:
            return value  # (an empty list of messages is said by _some_message)
        odd = _not_json(value)
        if odd is not None:
            raise ValueError(
                f"{odd} is not JSON data, which cases hold: write it as text (quoted), a number,"
                " true/false, a list or a mapping"
            )
        return value

    @field_validator("input")
    @classmethod
    def _some_message(cls, value: Any) -> Any:
        if isinstance(value, list) and not value:
            raise ValueError("input: [] holds no message; give the chat's messages, or text")
        return value

    @field_validator("models", mode="before")
    @classmethod
    def _models_list(cls, value: Any) -> Any:
        return names_list(value)

    _scoring = field_validator("scoring")(_some_weight)

    @field_validator("id", mode="before")
    @classmethod
    def _id_text(cls, value: Any) -> Any:
        if isinstance(value, int | float) and not isinstance(value, bool):
            value = str(value)
        if isinstance(value, str) and not CASE_ID.match(value):
            written = re.sub(r"[^A-Za-z0-9_.]+", "-", value).strip("-") or "case-1"
            raise ValueError(
                f"case id {value!r} may hold only ASCII letters, digits, '_', '.' and '-';"
                f" write it as {written!r}"
            )
        return value

    @field_validator("tags", mode="before")
    @classmethod
    def _tags_list(cls, value: Any) -> Any:
        return names_list(value)


class BudgetSpec(Strict):
    max_cost: float | None = Field(None, ge=0)  # dollars; no call starts once spent


class ToolsSpec(Strict):
    """How the project's tools (functions of its `tools.py`) are used in a tool loop."""

    # model calls of one case; more is a failure. Strict: `true` is not 1 turn, nor 2.5 two
    max_turns: int = Field(10, ge=1, le=200, strict=True)
    timeout: float = Field(30.0, gt=0)  # seconds one tool call may take

    @field_validator("timeout", mode="before")
    @classmethod
    def _seconds(cls, value: Any) -> Any:
        if isinstance(value, bool):  # a float would take it as 1 s
            raise ValueError(f"{str(value).lower()} is not a number of seconds; give one: 30")
        return value


class ProjectSpec(SamplingSettings):
    """The whole of `arena.yaml`. Cases are validated one by one, apart."""

    name: str | None = None
    description: str | None = None
    models: ModelsSpec = Field(default_factory=ModelsSpec)
    scorers: ScorersSpec = Field(default_factory=ScorersSpec)
    metrics: MetricsSpec = Field(default_factory=MetricsSpec)
    prompt: PromptSpec = Field(default_factory=PromptSpec)
    scoring: list[ComponentSpec] | None = None
    threshold: Threshold | None = None
    judge: JudgeSpec = Field(default_factory=JudgeSpec)
    budget: BudgetSpec = Field(default_factory=BudgetSpec)
    tools: ToolsSpec = Field(default_factory=ToolsSpec)
    gate: GateSpec | None = None
    flaky: Literal["fail", "pass"] = "fail"  # whether a FLAKY case fails the run
    tests: list[Any] = Field(default_factory=list)
    datasets: list[DatasetSpec] = Field(default_factory=list)

    _scoring = field_validator("scoring")(_some_weight)

    @field_validator("name")
    @classmethod
    def _plain(cls, value: str | None) -> str | None:
        return value if value is None else plain_name(value, "project name")

    @field_validator("models", mode="before")
    @classmethod
    def _models_shorthand(cls, value: Any) -> Any:
        if isinstance(value, str | list):
            return {"default": value}
        return value

    @field_validator("datasets", mode="before")
    @classmethod
    def _dataset_shorthand(cls, value: Any) -> Any:
        if isinstance(value, list):
            return [{"path": v} if isinstance(v, str) else v for v in value]
        return value
