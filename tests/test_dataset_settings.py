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
