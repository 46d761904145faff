"""The simulated models: deterministic, with the accuracy of their profile."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pytest_arena.connectors import Request, build_connector
from pytest_arena.connectors.sim import PROFILES
from pytest_arena.spec import Case
from pytest_arena.spec.errors import SpecError
from pytest_arena.spec.schema import ModelDef

REFERENCES = [
    "$1,200.00",
    {"vendor": "ACME", "total": 1200, "paid": False},
    42,
    "Paris",
    "The parcel left our warehouse on Monday and should arrive on Thursday.",
    ["red", "green", "blue"],
]


def cases(n: int) -> list[Case]:
    return [
        Case(
            id=f"c{i}",
            input=f"question {i}",
            reference=REFERENCES[i % len(REFERENCES)],
            project="p",
        )
        for i in range(n)
    ]


def answer(model: str, case: Case, sample: int = 0, defined: dict[str, ModelDef] | None = None):
    connector = build_connector(model, defined or {}, Path("arena.yaml"))
    request = Request(model, [{"role": "user", "content": str(case.input)}], case, sample)
    return connector.complete(request)


def test_the_same_model_case_and_sample_give_the_same_answer() -> None:
    for case in cases(60):
        first, second = answer("sim_small", case), answer("sim_small", case)
        assert (first.text, first.tokens_in, first.tokens_out) == (
            second.text,
            second.tokens_in,
            second.tokens_out,
        )


def test_another_sample_is_another_draw() -> None:
    differing = sum(
        answer("sim_small", c, 0).text != answer("sim_small", c, 1).text for c in cases(100)
    )
    assert differing > 10


@pytest.mark.parametrize("model", ["sim_small", "sim_large"])
def test_over_500_cases_the_share_of_right_answers_is_near_the_profile(model: str) -> None:
    right = sum(answer(model, c).meta["verdict"] in ("right", "variant") for c in cases(500))
    expected = PROFILES[model][0].accuracy
    assert abs(right / 500 - expected) < 0.05


def test_the_larger_model_is_right_more_often_than_the_smaller() -> None:
    sample = cases(500)
    small = sum(answer("sim_small", c).meta["verdict"] != "wrong" for c in sample)
    large = sum(answer("sim_large", c).meta["verdict"] != "wrong" for c in sample)
    assert large - small > 100


def test_right_answers_sometimes_come_in_another_surface_form() -> None:
    forms = {answer("sim_small", c).meta.get("form") for c in cases(300)}
    assert {"json_fence", "reordered_keys", "answer_prefix", "bare_amount"} <= forms


def test_a_right_answer_in_another_form_is_still_the_same_answer() -> None:
    for case in cases(300):
        response = answer("sim_small", case)
        if response.meta["verdict"] != "variant":
            continue
        if isinstance(case.reference, dict):
            text = response.text.removeprefix("```json\n").removesuffix("\n```")
            assert json.loads(text) == case.reference
        elif case.reference == "$1,200.00":
            assert "1200" in response.text.replace(",", "")


def test_wrong_answers_are_derived_from_the_reference() -> None:
    kinds = set()
    for case in cases(300):
        response = answer("sim_small", case)
        if response.meta["verdict"] == "wrong":
            assert response.text != str(case.reference)
            kinds.add(response.meta["form"])
    assert {"changed_number", "changed_field", "truncated", "off_topic"} <= kinds


def test_a_wrong_answer_to_a_multiple_choice_question_is_mostly_another_letter() -> None:
    answers = []
    for i in range(200):
        case = Case(id=f"q{i}", input=f"question {i}: A, B, C or D?", reference="B", project="p")
        response = answer("sim_small", case)
        if response.meta["verdict"] == "wrong":
            answers.append((response.meta["form"], response.text))
    letters = [text for form, text in answers if form == "other_choice"]
    assert {form for form, _ in answers} == {"other_choice", "off_topic"}
    assert set(letters) == {"A", "C", "D"}
    assert len(letters) > len(answers) * 0.8


def test_a_wrong_answer_to_a_worked_solution_changes_its_final_answer() -> None:
    solution = "She sold 48 / 2 = <<48/2=24>>24 clips in May.\n#### 72"
    changed = []
    for i in range(200):
        case = Case(id=f"q{i}", input=f"problem {i}", reference=solution, project="p")
        response = answer("sim_small", case)
        if response.meta["verdict"] == "wrong" and response.meta["form"] != "off_topic":
            changed.append((response.meta["form"], response.text))
    assert changed
    for form, text in changed:
        before, _, final = text.partition("#### ")
        assert (form, before) == ("changed_answer", solution.partition("#### ")[0])
        assert final != "72"


def test_sim_perfect_is_always_right_and_verbatim() -> None:
    for case in cases(60):
        response = answer("sim_perfect", case)
        expected = case.reference if isinstance(case.reference, str) else json.dumps(case.reference)
        assert response.text == expected


def test_sim_echo_repeats_the_prompt() -> None:
    case = cases(1)[0]
    assert answer("sim_echo", case).text == "question 0"


def test_tokens_and_price_are_simulated() -> None:
    case = Case(id="x", input="abcdefgh", reference="abcd", project="p")
    response = answer("sim_large", case)
    assert response.tokens_in == 2 + 4
    connector = build_connector("sim_large", {}, Path("arena.yaml"))
    price = PROFILES["sim_large"][1]
    assert connector.cost_of(response) == pytest.approx(
        (response.tokens_in * price.input_per_mtok + response.tokens_out * price.output_per_mtok)
        / 1e6
    )


def test_profiles_can_be_tuned_and_defined_in_the_project() -> None:
    defined = {
        "sim_small": ModelDef.model_validate({"accuracy": 0.0}),
        "mine": ModelDef.model_validate(
            {"connector": "sim", "profile": "sim_large", "format_noise": 0}
        ),
    }
    assert all(
        answer("sim_small", c, defined=defined).meta["verdict"] == "wrong" for c in cases(30)
    )
    mine = build_connector("mine", defined, Path("arena.yaml"))
    assert mine.settings.accuracy == PROFILES["sim_large"][0].accuracy  # type: ignore[attr-defined]
    assert mine.settings.format_noise == 0  # type: ignore[attr-defined]


def test_a_misspelt_profile_setting_is_an_error_with_the_valid_ones() -> None:
    defined = {"mine": ModelDef.model_validate({"acuracy": 0.5})}
    with pytest.raises(SpecError) as caught:
        build_connector("mine", defined, Path("arena.yaml"))
    text = caught.value.format()
    assert "models.define.mine.acuracy: unknown key 'acuracy'" in text
    assert "did you mean 'accuracy'?" in text


def test_configured_latency_is_waited_and_reported() -> None:
    import time

    defined = {"slow": ModelDef.model_validate({"profile": "sim_perfect", "latency_ms": 30})}
    started = time.perf_counter()
    response = answer("slow", cases(1)[0], defined=defined)
    assert time.perf_counter() - started >= 0.03
    assert response.latency_ms == 30


def test_the_seed_setting_draws_another_repeatable_set_of_answers() -> None:
    seeded = {"other": ModelDef.model_validate({"profile": "sim_small", "seed": 7})}
    sample = cases(100)
    again = [answer("other", c, defined=seeded).text for c in sample]
    assert again == [answer("other", c, defined=seeded).text for c in sample]
    plain = {"other": ModelDef.model_validate({"profile": "sim_small"})}
    assert again != [answer("other", c, defined=plain).text for c in sample]
