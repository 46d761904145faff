"""Whatever a user writes, the loader gives cases or problems, never another exception."""

from __future__ import annotations

import json
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import yaml
from hypothesis import example, given, settings
from hypothesis import strategies as st

from pytest_arena.spec import SpecError, load_project

SETTINGS = settings(max_examples=150, deadline=None)

scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-10, 10**6),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=12),
)
values = st.recursive(
    scalars,
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=12,
)
KEYS = ["models", "scorers", "tests", "datasets", "prompt", "metrics", "judge", "name", "gate"]
CASE_KEYS = ["id", "input", "reference", "tags", "weight", "options", "scoring", "eval_type"]
cases = st.dictionaries(st.sampled_from(CASE_KEYS), values, max_size=6)
projects = st.fixed_dictionaries(
    {}, optional={k: values for k in KEYS} | {"tests": st.lists(cases | values, max_size=4)}
)


@contextmanager
def folder() -> Iterator[Path]:
    with tempfile.TemporaryDirectory() as name:
        yield Path(name)


def loads_cleanly(path: Path) -> None:
    try:
        project = load_project(path)
    except SpecError as exc:
        assert exc.problems and all(p.message for p in exc.problems)
        return
    for case in project.cases:
        assert case.id
    for problem in project.problems:
        assert problem.problems


@SETTINGS
@given(document=projects)
@example(document={"tests": [{"[": None}]})  # an unknown key named like a union branch
def test_any_arena_yaml_document_loads_or_says_what_is_wrong(document: dict[str, object]) -> None:
    with folder() as root:
        path = root / "arena.yaml"
        path.write_text(yaml.safe_dump(document, allow_unicode=True))
        loads_cleanly(path)


@SETTINGS
@given(text=st.text(max_size=300), junk=st.binary(max_size=8))
def test_any_bytes_as_arena_yaml_load_or_say_what_is_wrong(text: str, junk: bytes) -> None:
    with folder() as root:
        path = root / "arena.yaml"
        path.write_bytes(text.encode("utf-8", errors="surrogatepass") + junk)
        loads_cleanly(path)


@SETTINGS
@given(
    rows=st.lists(st.one_of(cases, values), max_size=6),
    fmt=st.sampled_from(["jsonl", "csv", "yaml"]),
    junk=st.binary(max_size=40),
)
def test_any_dataset_rows_load_or_are_problems_of_their_lines(
    rows: list[object], fmt: str, junk: bytes
) -> None:
    with folder() as root:
        write_dataset(root, rows, fmt, junk)
        loads_cleanly(root / "arena.yaml")


def write_dataset(root: Path, rows: list[object], fmt: str, junk: bytes) -> None:
    data = root / f"rows.{fmt}"
    if fmt == "jsonl":
        text = "\n".join(json.dumps(r, default=str) for r in rows).encode() + b"\n" + junk
    elif fmt == "yaml":
        text = yaml.safe_dump(rows, allow_unicode=True).encode() + junk
    else:
        cells = [r.values() if isinstance(r, dict) else [r] for r in rows]
        lines = ["id,input,reference", *(",".join(str(v) for v in row) for row in cells)]
        text = "\n".join(lines).encode() + b"\n" + junk
    data.write_bytes(text)
    (root / "arena.yaml").write_text(f"models: [sim_perfect]\ndatasets:\n  - path: rows.{fmt}\n")
