"""Settings written the way a user would: a prompt given as text, a number in YAML 1.1's
exponent form, a gate on the composite in percent, and messages that name the key once."""

from __future__ import annotations

import pytest

from tests.conftest import MakeProject

CASES = "tests:\n  - {id: a, input: x, reference: x}\n"


@pytest.mark.parametrize(
    ("setting", "says"),
    [
        pytest.param(
            'prompt: "Q: {input}"',
            "prompt: a prompt is a mapping of 'template' and 'system', not text: write"
            ' prompt: {template: "Q: {input}"}',
            id="prompt-as-text",
        ),
        pytest.param(
            "repeat: 0",
            "repeat: 0 samples draws none of a case; give the samples per case",
            id="repeat-0",
        ),
        pytest.param(
            "repeat: {min: 5, max: 3}",
            "repeat: min 5 is above max 3: no number of samples fits",
            id="repeat-range",
        ),
        pytest.param(
            "gate: {all: {composite: {min: 80}}}",
            "gate.all: composite min 80 is no fraction: composite runs from 0 to 1;"
            " write 0.8 for 80%",
            id="composite-in-percent",
        ),
    ],
)
def test_a_setting_written_wrong_is_said_once_at_its_line_with_the_fix(
    pytester: pytest.Pytester, make_project: MakeProject, setting: str, says: str
) -> None:
    make_project("s", f"models: [sim_echo]\n{setting}\n{CASES}")
    result = pytester.runpytest()
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines([f"projects/s/arena.yaml:2: {says}*"])


def test_a_number_in_exponent_form_is_a_number_wherever_one_is_expected(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    """YAML 1.1 reads 1e-9 (no dot) as text; a gate's limit took it as the number."""
    make_project(
        "s",
        "models: [sim_echo]\nrepeat: 2e0\nmin_pass_rate: 5e-1\n"
        "gate: {all: {accuracy: {min: 1e-3}}}\n"
        "tests:\n  - {id: a, input: x, reference: x, min_pass_rate: 1e-9}\n",
    )
    pytester.runpytest().assert_outcomes(passed=1)
