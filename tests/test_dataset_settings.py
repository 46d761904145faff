"""A dataset's own settings in arena.yaml are said wrong once, at their line there."""

from __future__ import annotations

import re

import pytest

from tests.conftest import MakeProject


def test_a_dataset_s_unknown_scorer_is_one_error_at_its_line_in_arena_yaml(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    """`eval_type: containz` on a dataset was an error at every row of the file, each
    'data/r.jsonl:N: eval_type: no scorer is named ...'."""
    rows, others = (
        "".join(f'{{"id": "{name}{i}", "input": "x", "reference": "x"}}\n' for i in range(30))
        for name in ("r", "s")
    )
    own = '{"id": "own", "input": "x", "reference": "x", "eval_type": "contains"}\n'
    make_project(
        "p",
        """
        models: [sim_perfect]
        tests:
          - {id: a, input: x, reference: x}
        datasets:
          - path: data/r.jsonl
            eval_type: containz
          - path: data/s.jsonl
            scoring:
              - {scorer: exact_match}
              - {scorer: tokn_f1}
        """,
        {"data/r.jsonl": rows + own, "data/s.jsonl": others},
    )
    result = pytester.runpytest("-p", "no:cacheprovider", "-rE")
    result.assert_outcomes(passed=2, errors=2)  # `a`, and the row with its own eval_type
    result.stdout.fnmatch_lines(
        [
            "projects/p/arena.yaml:6: datasets[[]0[]].eval_type: no scorer is named 'containz'"
            " (did you mean 'contains'?)*",
        ]
    )
    result.stdout.fnmatch_lines(
        [
            "projects/p/arena.yaml:10: datasets[[]1[]].scoring[[]1[]].scorer: no scorer is named"
            " 'tokn_f1' (did you mean 'token_f1'?)*",
        ]
    )
    assert re.search(r"data/[rs]\.jsonl:\d", result.stdout.str()) is None  # no row said it


def test_a_dataset_after_an_invalid_entry_is_said_by_its_own_index(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    """Once an earlier entry of `datasets:` was invalid, the later ones' errors were at
    their line but named the entry before: `datasets[0].models` for the second entry."""
    make_project(
        "p",
        """
        models: [sim_perfect]
        tests:
          - {id: a, input: x, reference: x}
        datasets:
          - {path: data/a.jsonl, bogus: 1}
          - {path: data/b.jsonl, models: [no_such_model]}
          - {path: data/c.jsonl, eval_type: no_such_scorer}
          - {path: data/d.jsonl, delimiter: ";"}
          - {path: data/e.csv, fields: {input: nope}}
          - data/missing.jsonl
          - "data/f[1].jsonl"
        """,
        {
            **{
                f"data/{name}.jsonl": f'{{"id": "r{i}", "input": "x", "reference": "x"}}\n'
                for i, name in enumerate(("a", "b", "c", "d", "f[1]"))
            },
            "data/e.csv": "id,input,reference\nr9,x,x\n",
        },
    )
    result = pytester.runpytest("-p", "no:cacheprovider", "-rE")
    result.assert_outcomes(passed=1, errors=7)
    said = {
        5: "datasets[[]0].bogus: unknown key 'bogus'",
        6: "datasets[[]1].models: 'no_such_model' is neither a model key*",
        7: "datasets[[]2].eval_type: no scorer is named 'no_such_scorer'*",
        8: "datasets[[]3].delimiter: 'delimiter' is for CSV files*",
        9: "datasets[[]4].fields.input: column 'nope' is not in data/e.csv*",
        10: "datasets[[]5].path: dataset file 'data/missing.jsonl' does not exist*",
        11: "datasets[[]6].path: dataset path 'data/f[[]1].jsonl' holds '[[]'*",
    }
    for line, message in said.items():
        result.stdout.fnmatch_lines([f"projects/p/arena.yaml:{line}: {message}"])
    # pytest 8 ends the line at the node id, pytest 9 adds " - " and the message
    result.stdout.re_match_lines([r"ERROR projects/p/arena\.yaml::datasets\.6( - .*)?$"])
