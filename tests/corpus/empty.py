"""Projects that hold no case (a warning, and exit status 5 when nothing else ran), projects
that name no model, and cases that all weigh nothing."""

from __future__ import annotations

import pytest

from tests.corpus.kit import OK_CASE, Run, case_yaml, category

# -- projects without cases: warnings, and exit status 5 when nothing else ran --------------

NO_CASE_RAN = "arena: no case ran: the projects of this run hold no cases (exit status 5, as when no tests ran)"
empty = category(
    "empty", Run(good=False, status=pytest.ExitCode.NO_TESTS_COLLECTED, said=(NO_CASE_RAN,))
)
empty_beside = category("empty_beside", Run(status=pytest.ExitCode.OK))

for add in (empty, empty_beside):
    suffix = "" if add is empty else "_beside_good"
    add(
        f"empty_tests{suffix}",
        "models: [sim_perfect]\ntests: []\n",
        f"projects/empty_tests{suffix}/arena.yaml:2",
        f"*ArenaWarning: project 'empty_tests{suffix}' has no cases, so nothing of it runs: write"
        " cases under 'tests:', or rows in a dataset file named under 'datasets:'",
        kind="empty",
    )
    add(
        f"empty_jsonl{suffix}",
        {"arena.yaml": "models: [sim_perfect]\ndatasets: [rows.jsonl]\n", "rows.jsonl": ""},
        f"projects/empty_jsonl{suffix}/rows.jsonl:1",
        "*ArenaWarning: dataset file rows.jsonl holds no cases (arena.yaml line 2 names it): add"
        " rows to it, or take it out of 'datasets:'",
        kind="empty",
    )
empty(
    "empty_csv_header_only",
    {"arena.yaml": "models: [sim_perfect]\ndatasets: [t.csv]\n", "t.csv": "id,input,reference\n"},
    "projects/empty_csv_header_only/t.csv:1",
    "*ArenaWarning: dataset file t.csv holds no cases (arena.yaml line 2 names it)*",
    kind="empty",
)
empty(
    "empty_yaml_dataset",
    {"arena.yaml": "models: [sim_perfect]\ndatasets: [q.yaml]\n", "q.yaml": "[]\n"},
    "projects/empty_yaml_dataset/q.yaml:1",
    "*ArenaWarning: dataset file q.yaml holds no cases*",
    kind="empty",
)
empty(
    "empty_jsonl_blank_lines",
    {"arena.yaml": "models: [sim_perfect]\ndatasets: [q.jsonl]\n", "q.jsonl": "\n\n   \n"},
    "projects/empty_jsonl_blank_lines/q.jsonl:1",
    "*ArenaWarning: dataset file q.jsonl holds no cases*",
    kind="empty",
)
empty(
    "empty_tests_and_dataset",
    {"arena.yaml": "models: [sim_perfect]\ntests: []\ndatasets: [q.jsonl]\n", "q.jsonl": ""},
    "projects/empty_tests_and_dataset/q.jsonl:1",
    "*ArenaWarning: dataset file q.jsonl holds no cases (arena.yaml line 3 names it)*",
    "projects/empty_tests_and_dataset/arena.yaml:2",
    "*ArenaWarning: project 'empty_tests_and_dataset' has no cases*",
    "  projects/empty_tests_and_dataset/q.jsonl:1: dataset file q.jsonl holds no cases*",
    "  projects/empty_tests_and_dataset/arena.yaml:2: project 'empty_tests_and_dataset' has no cases*",
    kind="empty",
)

# an arena.yaml with nothing in it is no project to run: it names no model
blank = category("blank")
blank(
    "blank_arena_yaml",
    "",
    "projects/blank_arena_yaml/arena.yaml:1: no models to run: pass --arena-models sim_small (any"
    " model keys, comma separated) or set 'models: default: [sim_small]' in arena.yaml",
)
blank(
    "blank_comments_only",
    "# cases to come\n",
    "projects/blank_comments_only/arena.yaml:1: no models to run*",
)
blank(
    "blank_no_models",
    OK_CASE,
    "projects/blank_no_models/arena.yaml:1: no models to run*",
)

# -- cases that all weigh nothing: the board says so ----------------------------------------

weights = category("weights", Run(status=pytest.ExitCode.OK))
weights(
    "weights_all_zero",
    case_yaml(
        "{id: a, input: x, reference: x, weight: 0}\n{id: b, input: y, reference: y, weight: 0}"
    ),
    "*= arena leaderboard: weights_all_zero =*",
    "*1  sim_perfect        0.000           -  100.0% ± 32.9        2*",
    "warning: every graded case of every model has weight 0, so there is no accuracy (-) and the"
    " composite counts it as 0; the pass rate counts cases, whatever their weight. Give the cases"
    " that should count a weight above 0",
    kind="runs",
)
