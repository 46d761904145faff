"""YAML files are read from the parser's events where they can be, and the result is what the
composer's node tree gives: the same values, the same lines, the same errors."""

from __future__ import annotations

import json
import math
import tracemalloc
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_arena.spec import SpecError, load_project, yamlfile
from tests.conftest import MakeProject

LOADERS = [yaml.SafeLoader, *([yaml.CSafeLoader] if hasattr(yaml, "CSafeLoader") else [])]


@pytest.fixture(params=LOADERS, ids=lambda loader: loader.__name__)
def loader(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> type[Any]:
    """Each loader PyYAML has here: libyaml's, and the pure Python one."""
    monkeypatch.setattr(yamlfile, "_Loader", yamlfile.arena_loader(request.param))
    return request.param  # type: ignore[no-any-return]


def typed(value: Any) -> Any:
    """`value` with every leaf's type beside it (True == 1 and nan != nan otherwise)."""
    if isinstance(value, dict):
        return {typed(k): typed(v) for k, v in value.items()}
    if isinstance(value, list):
        return [typed(v) for v in value]
    if isinstance(value, float) and math.isnan(value):
        return ("nan",)
    return (type(value).__name__, value)


def outcome(load: Any, text: str) -> Any:
    try:
        data, lines = load(Path("arena.yaml"), text)
    except SpecError as exc:
        return ("error", str(exc))
    return typed(data), lines._lines


def assert_as_from_nodes(text: str) -> Any:
    got = outcome(yamlfile.load_yaml, text)
    assert got == outcome(yamlfile._from_nodes, text)
    return got


PLAIN = {
    "flow cases": "tests:\n  - {id: a, input: 'What is 1+1?', reference: '2'}\n"
    '  - {id: b, input: "x", reference: 3}\n',
    "block cases": "models: [sim_small, sim_large]\ntests:\n  - id: a\n    input: |\n"
    "      two\n      lines\n    reference: >\n      folded\n      text\n    weight: 2.5\n",
    "every core type": "a: null\nb: ~\nc: true\nd: no\ne: 0x1f\nf: 1_000\ng: .inf\nh: -.Inf\n"
    "i: .nan\nj: 2001-12-14t21:59:43.10-05:00\nk: 2002-12-14\nl: 1e3\nm: ''\nn:\n",
    "explicit tags": "a: !!str 123\nb: !!int '7'\nc: !!float 1\nd: ! 12\ne: !!binary aGk=\n"
    "f: !!bool 'true'\ng: !!null ''\n",
    "keys of any scalar": "1: int\n2.5: float\nfalse: bool\nnull: none\n'1': str\n",
    "nesting": "a:\n  b:\n    - [1, [2, {c: d}]]\n    - {e: [f, g]}\n  h: {}\ni: []\n",
    "comments only": "# nothing here\n",
    "empty": "",
    "an empty document": "---\n",
    "a lone scalar": "just text\n",
    "a list at the top": "- 1\n- two\n",
    "explicit document": "--- \na: 1\n...\n",
    "unicode": 'name: "caf\\u00e9 \\U0001F600"\nplain: naïve ✓\n',
}

NODES_ONLY = {
    "anchor and alias": "base: &b {x: 1}\nother: *b\n",
    "merge key": "base: &b {x: 1, y: 2}\nother:\n  <<: *b\n  z: 3\n",
    "merge of a mapping in place": "a:\n  <<: {x: 1}\n  y: 2\n",
    "merge overridden": "base: &b {x: 1, y: 2}\nother: {<<: *b, x: 3}\n",
    "merge of a list": "a: &a {x: 1}\nb: &b {x: 2, y: 2}\nc: {<<: [*a, *b], z: 3}\n",
    "nested merge": "a: &a {x: 1, y: 1}\nb: &b {<<: *a, y: 2}\nc:\n  <<: *b\n  x: 3\n",
    "value key": "a:\n  =: 1\n",
    "complex key": "? [a, b]\n: 1\n",
    "mapping key": "? {a: 1}\n: 2\n",
    "two documents": "a: 1\n---\nb: 2\n",
    "anchored scalar": "a: &x 1\nb: 2\n",
}

WRONG = {
    "duplicate key": "tests:\n  - {id: a}\na: 1\ntests: []\n",
    "bad int": "weight: !!int abc\n",
    "bad binary": "blob: !!binary oops!\n",
    "unknown tag": "a: !custom 1\n",
    "syntax after a duplicate": "a: 1\na: 2\nb: [\n",
    "unclosed quote": "a: 'open\nb: 2\n",
    "tab indentation": "a:\n\t- 1\n",
    "too deep": "a: " + "[" * (yamlfile.MAX_DEPTH + 2) + "]" * (yamlfile.MAX_DEPTH + 2) + "\n",
    "undefined alias": "a: *nowhere\n",
    "duplicate beside a merge": "a: &a {x: 1}\nb:\n  <<: *a\n  x: 2\n  x: 3\n",
    "duplicate in a merged mapping": "a: {<<: [{x: 1}, {y: 1, y: 2}]}\n",
    "merge of a scalar": "a: {<<: 1}\n",
    "merge of a list holding a scalar": "a: &a {x: 1}\nb: {<<: [*a, 1]}\n",
    "merge into itself": "a: &a {<<: *a, x: 1}\n",
}


@pytest.mark.parametrize("text", PLAIN.values(), ids=PLAIN.keys())
def test_a_plain_file_is_read_from_events_as_from_nodes(loader: type[Any], text: str) -> None:
    yamlfile._from_events(loader(text), yamlfile.LineMap(Path("arena.yaml")))  # no fallback
    assert_as_from_nodes(text)


@pytest.mark.parametrize("text", NODES_ONLY.values(), ids=NODES_ONLY.keys())
def test_what_only_nodes_build_is_built_from_nodes(loader: type[Any], text: str) -> None:
    with pytest.raises(yamlfile._NodesNeeded):
        yamlfile._from_events(loader(text), yamlfile.LineMap(Path("arena.yaml")))
    assert_as_from_nodes(text)


@pytest.mark.parametrize("text", WRONG.values(), ids=WRONG.keys())
def test_a_mistake_is_said_as_the_nodes_say_it(loader: type[Any], text: str) -> None:
    kind, said = assert_as_from_nodes(text)
    assert kind == "error" and said.startswith("arena.yaml:")


def test_the_lines_are_those_of_keys_and_entries() -> None:
    text = "tests:\n  - id: a\n    input: x\n\n  - {id: b,\n     input: y}\n"
    data, lines = yamlfile.load_yaml(Path("arena.yaml"), text)
    assert data == {"tests": [{"id": "a", "input": "x"}, {"id": "b", "input": "y"}]}
    assert [lines.line(("tests", i)) for i in range(2)] == [2, 5]
    assert lines.line(("tests", 1, "input")) == 6
    assert lines.line(("tests", 1, "input", "deeper")) == 6  # the nearest enclosing line


scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.floats(),
    st.text(max_size=10),
    st.binary(max_size=6),
)
values = st.recursive(
    scalars,
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.dictionaries(
            st.one_of(st.text(max_size=6), st.integers(), st.booleans()), inner, max_size=4
        )
    ),
    max_leaves=15,
)


@settings(max_examples=300, deadline=None)
@given(
    document=values,
    flow=st.sampled_from([None, True, False]),
    canonical=st.booleans(),
    width=st.sampled_from([8, 80]),
)
def test_any_dumped_document_reads_as_from_nodes(
    document: Any, flow: bool | None, canonical: bool, width: int
) -> None:
    text = yaml.safe_dump(
        document, default_flow_style=flow, canonical=canonical, width=width, allow_unicode=True
    )
    assert_as_from_nodes(text)


@settings(max_examples=300, deadline=None)
@given(text=st.text(alphabet="ab: -[]{},'\"\n#&*!<=?|>0.1~", max_size=60))
def test_any_text_reads_or_fails_as_from_nodes(text: str) -> None:
    assert_as_from_nodes(text)


def test_a_large_file_is_read_without_holding_a_node_tree(tmp_path: Path) -> None:
    text = "tests:\n" + "".join(
        f"  - {{id: case{i}, input: 'What is {i} plus {i}?', reference: '{2 * i}'}}\n"
        for i in range(5000)
    )

    def peak(load: Any) -> int:
        tracemalloc.start()
        try:
            kept = load(tmp_path / "arena.yaml", text)
            held, most = tracemalloc.get_traced_memory()
        finally:
            tracemalloc.stop()
        assert kept[0]["tests"][4999]["reference"] == "9998"
        return most - held  # what was held only while loading

    # the tree of nodes held several times the loaded data; events are let go as read
    assert peak(yamlfile.load_yaml) * 4 < peak(yamlfile._from_nodes)


def test_a_time_of_day_is_text_not_a_base_60_number(loader: type[Any]) -> None:
    """YAML 1.1 reads `12:30` as 750 and `12:30:00` as 45000: a reference graded wrong."""
    text = (
        "a: 12:30\nb: 12:30:00\nc: [190:20:30.15, -1:05]\nd: !!int 1:30\n"
        "e: 1_000\nf: 0x1f\ng: 3.5\nh: -2\ni: .inf\n12:30: key\n"
    )
    data, _ = yamlfile.load_yaml(Path("arena.yaml"), text)
    assert typed(data) == typed(
        {
            "a": "12:30",
            "b": "12:30:00",
            "c": ["190:20:30.15", "-1:05"],
            "d": 90,
            "e": 1000,
            "f": 31,
            "g": 3.5,
            "h": -2,
            "i": float("inf"),
            "12:30": "key",
        }
    )
    assert outcome(yamlfile._from_nodes, text) == outcome(yamlfile.load_yaml, text)


def test_a_case_id_is_the_text_written(loader: type[Any]) -> None:
    """`id: 010` was the octal number 8 (a duplicate of `id: 8`), `id: 007` was 7: node ids
    that did not select the case as written."""
    text = (
        "tests:\n  - {id: 010, n: 010}\n  - {id: 007}\n  - id: 1.10\n  - {id: 0x1A}\n"
        "  - {id: '8'}\n  - {id: capital}\n"
    )
    data, _ = yamlfile.load_yaml(Path("arena.yaml"), text)
    assert [case["id"] for case in data["tests"]] == [
        "010",
        "007",
        "1.10",
        "0x1A",
        "8",
        "capital",
    ]
    assert data["tests"][0]["n"] == "010"  # led by a zero: the text written, not octal 8
    assert outcome(yamlfile._from_nodes, text) == outcome(yamlfile.load_yaml, text)


def test_a_date_or_time_is_read_as_the_text_written(loader: type[Any]) -> None:
    text = (
        "a: 1969-07-20\nb: 2001-12-14t21:59:43.10-05:00\nc: !!timestamp 2002-12-14\n"
        "d: [2002-12-14]\n2003-01-01: key\n"
    )
    data, _ = yamlfile.load_yaml(Path("arena.yaml"), text)
    assert data == {
        "a": "1969-07-20",
        "b": "2001-12-14t21:59:43.10-05:00",
        "c": "2002-12-14",
        "d": ["2002-12-14"],
        "2003-01-01": "key",
    }
    assert outcome(yamlfile._from_nodes, text) == outcome(yamlfile.load_yaml, text)


MERGED = """\
models: [sim_perfect]
tests:
  - &base {id: q1, input: "What is 2+2?", reference: "4", tags: [math]}
  - {<<: *base, id: q2, input: "What is 1+3?"}
"""


def test_a_key_given_again_over_a_merged_one_overrides_it(loader: type[Any]) -> None:
    """`<<: *base` then `id: q2` was refused as a duplicate 'id' (PyYAML's merge puts the
    merged keys in front of the mapping's own): the mapping's own keys win, as YAML has it."""
    data, lines = yamlfile.load_yaml(Path("arena.yaml"), MERGED)
    assert data == yaml.safe_load(MERGED)
    assert data["tests"][1] == {
        "id": "q2",
        "input": "What is 1+3?",
        "reference": "4",
        "tags": ["math"],
    }
    assert [lines.line(("tests", i)) for i in range(2)] == [3, 4]  # each case its own line
    # each key the line it is written on: the override's, or the merged anchor's
    assert [lines.line(("tests", 1, key)) for key in ("id", "input", "reference")] == [4, 4, 3]
    assert outcome(yamlfile._from_nodes, MERGED) == outcome(yamlfile.load_yaml, MERGED)


def test_a_merged_list_and_a_nested_merge_give_the_first_and_own_keys(
    loader: type[Any],
) -> None:
    """The merge-key spec: of `<<: [*a, *b]` the earlier mapping's key wins, the mapping's
    own keys over all; a merged mapping brings what its own merge gave it."""
    text = (
        "a: &a {x: a, y: a}\nb: &b {x: b, z: b}\nc: {<<: [*a, *b], y: c}\n"
        "d: &d {<<: *a, y: d, w: d}\ne:\n  <<: [*d, *b]\n  w: e\n"
    )
    data, lines = yamlfile.load_yaml(Path("arena.yaml"), text)
    assert data["c"] == {"x": "a", "y": "c", "z": "b"}
    assert data["d"] == {"x": "a", "y": "d", "w": "d"}
    assert data["e"] == {"x": "a", "y": "d", "w": "e", "z": "b"}
    assert [lines.line(("e", key)) for key in ("x", "y", "w", "z")] == [1, 4, 7, 2]
    assert outcome(yamlfile._from_nodes, text) == outcome(yamlfile.load_yaml, text)


@pytest.mark.parametrize(
    ("text", "said"),
    [
        (
            "tests:\n  - &base {id: q1}\n  - <<: *base\n    id: q2\n    id: q3\n",
            "arena.yaml:5: duplicate key 'id' (first at line 4)",
        ),
        (
            "a: {<<: [{x: 1}, {y: 1,\n  y: 2}]}\n",
            "arena.yaml:2: duplicate key 'y' (first at line 1)",
        ),
        (
            "a: &a {<<: *a, x: 1}\n",
            "arena.yaml:1: YAML merge key '<<' merges a mapping into itself",
        ),
    ],
    ids=["duplicate beside a merge", "duplicate in a merged list", "merge into itself"],
)
def test_a_duplicate_beside_a_merge_or_a_merge_into_itself_is_refused(
    loader: type[Any], text: str, said: str
) -> None:
    with pytest.raises(SpecError) as caught:
        yamlfile.load_yaml(Path("arena.yaml"), text)
    assert str(caught.value).startswith(said)


def test_a_case_that_merges_another_has_its_own_line(tmp_path: Path) -> None:
    (tmp_path / "arena.yaml").write_text(MERGED)
    q1, q2 = load_project(tmp_path / "arena.yaml").cases
    assert (q1.id, q2.id, q2.input, q2.reference, q2.tags) == (
        "q1",
        "q2",
        "What is 1+3?",
        "4",
        ("math",),
    )
    assert (q1.line, q2.line) == (3, 4)


def test_a_project_whose_case_merges_another_runs_both(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    make_project("m", MERGED)
    result = pytester.runpytest("projects", "-q", "-p", "no:cacheprovider", "--arena-json=out.json")
    assert "duplicate key" not in result.stdout.str()
    result.assert_outcomes(passed=2)
    records = json.loads((pytester.path / "out.json").read_text())["records"]
    assert sorted((r["case"], r["output"]) for r in records) == [("q1", "4"), ("q2", "4")]


HALVES = r"""tests:
  - {id: fine, input: x, reference: x}
  - id: half
    input: "a\ud800b"
  - id: pair
    input: q
    metadata: {smile: "\ud83d\ude00"}
datasets: [d.yaml]
"""
WHOLE = 'write the whole character, as itself or as one escape ("\\U0001f600"), or remove it'
JOINED = 'write the character the pair makes as one escape, "\\U0001f600", or remove it'


def test_a_lone_surrogate_escape_is_said_at_its_line_with_the_fix(
    loader: type[Any], tmp_path: Path
) -> None:
    """PyYAML's own parser reads `"\\ud800"` as half of a character: the case loaded, and
    failed when sent (a bare UnicodeEncodeError); libyaml refuses the escape, and was told
    to check the indentation and quoting."""
    (tmp_path / "arena.yaml").write_text(HALVES)
    (tmp_path / "d.yaml").write_text('- {id: d1, input: x}\n- id: d2\n  input: "\\udc00"\n')
    if loader is yaml.SafeLoader:  # each case and row is a problem of its own
        project = load_project(tmp_path / "arena.yaml")
        assert [case.id for case in project.cases] == ["fine", "d1"]
        assert [p.problem.format(tmp_path) for p in project.problems] == [
            "arena.yaml:4: tests[1].input: holds an unpaired surrogate (\\ud800), half of a"
            f" character\n  fix: {WHOLE}",
            "arena.yaml:7: tests[2].metadata.smile: holds an unpaired surrogate (\\ud83d), half"
            f" of a character\n  fix: {JOINED}",
            "d.yaml:3: input: holds an unpaired surrogate (\\udc00), half of a character\n"
            f"  fix: {WHOLE}",
        ]
        return
    with pytest.raises(SpecError) as caught:
        load_project(tmp_path / "arena.yaml")
    assert caught.value.format(tmp_path) == (
        "arena.yaml:4: YAML error: a double-quoted text holds an unpaired surrogate (\\ud800),"
        f" half of a character\n  fix: {WHOLE}"
    )
    with pytest.raises(SpecError) as caught:
        yamlfile.load_yaml(Path("arena.yaml"), HALVES.replace("a\\ud800b", "a"))
    assert str(caught.value) == (
        "arena.yaml:7: YAML error: a double-quoted text holds an unpaired surrogate (\\ud83d),"
        f" half of a character\n  fix: {JOINED}"
    )


def test_a_lone_surrogate_in_a_setting_the_cases_are_sent_with_is_said_at_its_line(
    loader: type[Any], tmp_path: Path
) -> None:
    (tmp_path / "arena.yaml").write_text('prompt:\n  system: "Be \\udfff brief."\n')
    with pytest.raises(SpecError) as caught:
        load_project(tmp_path / "arena.yaml")
    what = (
        "prompt.system: holds"
        if loader is yaml.SafeLoader
        else "YAML error: a double-quoted text holds"
    )
    assert caught.value.format(tmp_path) == (
        f"arena.yaml:2: {what} an unpaired surrogate (\\udfff), half of a character\n  fix: {WHOLE}"
    )


def test_an_escape_past_the_last_character_is_said_at_its_line_by_either_parser(
    loader: type[Any], tmp_path: Path
) -> None:
    """PyYAML's own scanner (without libyaml) failed with a bare ValueError from chr(), the
    run's collection with it; an escaped backslash before `U` is no escape."""
    (tmp_path / "arena.yaml").write_text(
        'tests:\n  - {id: a, input: "a \\\\U00110000 b", reference: x}\n'
        '  - {id: b, input: "c \\U00110000 d", reference: x}\n'
    )
    with pytest.raises(SpecError) as caught:
        load_project(tmp_path / "arena.yaml")
    assert caught.value.format(tmp_path) == (
        "arena.yaml:3: YAML error: the escape \\U00110000 names no character (the last is"
        " \\U0010ffff)\n  fix: write the character itself, or its number in the escape"
    )
