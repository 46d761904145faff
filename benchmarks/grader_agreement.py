"""How often each builtin agrees with the benchmark's own grader on generated corpora: the
named conventions (which claim their reference, so must agree on every pair) and
pytest-arena's own defaults (which read more forms, so may differ). Run by hand:

PYTHONPATH=. python benchmarks/grader_agreement.py [N]

N (default 5000) pairs per row, from the generators the parity tests use
(tests/grader_corpora.py); the references are the copies in tests/references/.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from pytest_arena import Case
from pytest_arena.scorers import ScoringContext
from pytest_arena.scorers.json_schema import JsonSchema
from tests import grader_corpora as corpora


def agreement(
    strategy: st.SearchStrategy[Any], agree: Callable[[Any], bool | None], n: int
) -> tuple[int, int, list[Any]]:
    """(agreeing, counted, a few disagreeing examples); `agree` returns None to skip."""
    counts = [0, 0]
    differ: list[Any] = []

    @settings(
        max_examples=n,
        database=None,
        deadline=None,
        phases=[Phase.generate],
        suppress_health_check=list(HealthCheck),
    )
    @given(strategy)
    def run(example: Any) -> None:
        verdict = agree(example)
        if verdict is None:
            return
        counts[1] += 1
        counts[0] += verdict
        if not verdict and len(differ) < 3:
            differ.append(example)

    run()
    return counts[0], counts[1], differ


def rows(n: int) -> list[tuple[str, str, str, st.SearchStrategy[Any], Callable[[Any], Any]]]:
    squad = corpora.squad_pair()
    gsm = st.tuples(corpora.gsm8k_output, corpora.gsm8k_reference())
    math = st.tuples(corpora.math_output, corpora.math_reference)
    choice = st.tuples(corpora.choice_output(), st.sampled_from("AB"))

    def f1(ours: str, theirs: str) -> Callable[[Any], bool]:
        return lambda p: (
            corpora.ours_token_f1(p[0], p[1], ours)
            == corpora.reference_token_f1(p[0], p[1], theirs)
        )

    def numeric(ours: str, theirs: str) -> Callable[[Any], bool | None]:
        def agree(p: Any) -> bool | None:
            if theirs == "math" and not corpora.math_reference_has_answer(p[1]):
                return None
            try:
                mine = corpora.ours_numeric(p[0], p[1], ours)
            except ValueError:  # the default's reference must hold a number: not counted
                return None
            return mine is corpora.reference_numeric(p[0], p[1], theirs)

        return agree

    def pick(ours: str) -> Callable[[Any], bool]:
        return lambda p: corpora.ours_choice(p[0], p[1], ours) is corpora.reference_choice(*p)

    return [
        (
            "token_f1",
            "normalize: squad_v1",
            "SQuAD v1.1 f1_score",
            squad,
            f1("squad_v1", "squad_v1"),
        ),
        (
            "token_f1",
            "normalize: squad_v2",
            "SQuAD v2.0 compute_f1",
            squad,
            f1("squad_v2", "squad_v2"),
        ),
        ("token_f1", "default (unicode)", "SQuAD v1.1 f1_score", squad, f1("unicode", "squad_v1")),
        (
            "token_f1",
            "default (unicode)",
            "SQuAD v2.0 compute_f1",
            squad,
            f1("unicode", "squad_v2"),
        ),
        ("numeric_match", "convention: gsm8k", "GSM8K is_correct", gsm, numeric("gsm8k", "gsm8k")),
        (
            "numeric_match",
            "convention: lm_eval_strict",
            "lm-eval gsm8k strict-match",
            gsm,
            numeric("lm_eval_strict", "lm_eval_strict"),
        ),
        (
            "numeric_match",
            "convention: lm_eval_flexible",
            "lm-eval gsm8k flexible-extract",
            gsm,
            numeric("lm_eval_flexible", "lm_eval_flexible"),
        ),
        ("numeric_match", "convention: math", "MATH is_equiv", math, numeric("math", "math")),
        ("numeric_match", "default (auto)", "GSM8K is_correct", gsm, numeric("auto", "gsm8k")),
        (
            "numeric_match",
            "default (auto)",
            "lm-eval gsm8k strict-match",
            gsm,
            numeric("auto", "lm_eval_strict"),
        ),
        ("numeric_match", "default (auto)", "MATH is_equiv", math, numeric("auto", "math")),
        ("choice", "convention: inspect", "inspect_ai parse_answers", choice, pick("inspect")),
        ("choice", "default (auto)", "inspect_ai parse_answers", choice, pick("auto")),
    ]


def json_schema_suite() -> tuple[int, int, int]:
    """(agreeing, decided by jsonschema, cases) over the JSON-Schema-Test-Suite copy."""
    from jsonschema.validators import Draft202012Validator, validator_for

    suite = Path(__file__).parents[1] / "tests" / "references" / "json_schema_test_suite"
    agree = decided = total = 0
    for path in sorted((suite / "draft2020-12").glob("*.json")):
        for group in json.loads(path.read_text(encoding="utf-8")):
            schema = group["schema"]
            for test in group["tests"]:
                total += 1
                try:
                    validator = validator_for(schema, default=Draft202012Validator)(schema)
                    theirs = validator.is_valid(test["data"])
                except Exception:
                    continue
                decided += 1
                context = ScoringContext(options={"schema": schema}, test_case=Case("c", "q"))
                ours = JsonSchema().score(json.dumps(test["data"]), None, context).passed
                agree += ours is theirs
    return agree, decided, total


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 5000
    print(
        "| scorer | reading | reference | agree | pairs | share |\n"
        "| --- | --- | --- | --- | --- | --- |"
    )
    examples = []
    for scorer, reading, reference, strategy, agree in rows(n):
        good, counted, differ = agreement(strategy, agree, n)
        share = good / counted if counted else float("nan")
        print(f"| {scorer} | {reading} | {reference} | {good} | {counted} | {share:.1%} |")
        examples += [(scorer, reading, reference, d) for d in differ[:1]]
    good, decided, total = json_schema_suite()
    print(
        f"| json_schema | schema | jsonschema, JSON-Schema-Test-Suite draft 2020-12 |"
        f" {good} | {decided} | {good / decided:.1%} |"
    )
    print(f"\n({total - decided} of the suite's {total} cases jsonschema cannot decide offline)")
    print("\nA pair where a reading differs from its reference:")
    for scorer, reading, reference, example in examples:
        print(f"- {scorer}, {reading} vs {reference}: {example!r}")


if __name__ == "__main__":
    main()
