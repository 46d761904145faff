"""Chat input as a case writes it: the messages and content parts it may hold, and what a
slip in one of them says."""

from __future__ import annotations

import pytest

from tests.conftest import MakeProject


def test_a_tool_message_in_a_case_input_is_an_error_at_its_line_not_a_crash_at_each_call(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    """`role: tool` passed, then every openai/anthropic call of the case failed on a
    KeyError: 'tool_call_id' (no case can hold the call a tool result answers)."""
    make_project(
        "chat",
        """
        models: [sim_perfect]
        tests:
          - id: ok
            input: hello
            reference: hello
          - id: told
            input:
              - {role: user, content: "Where is order 7?"}
              - {role: tool, content: "shipped"}
            reference: shipped
        """,
    )
    result = pytester.runpytest()
    result.assert_outcomes(passed=1, errors=1)
    result.stdout.fnmatch_lines(
        [
            "projects/chat/arena.yaml:9: tests[[]1].input[[]1].role: role 'tool' is a tool's"
            " result, which answers a model's tool call, and a case's input holds no such call:"
            " write the result in a user message's text, or give the project a tools.py,*"
        ]
    )
    assert "KeyError" not in result.stdout.str()


@pytest.mark.parametrize(
    ("written", "key", "fix"),
    [
        (
            '{role: user, content: "hi", name: bob}',
            "input[[]0].name: unknown key 'name'",
            "known keys here: content, role",
        ),
        (
            "{role: user, content: [{type: text, text: hi, cache_control: {type: ephemeral}}]}",
            "input[[]0].content[[]0].cache_control: unknown key 'cache_control'",
            "known keys here: text, type",
        ),
        (
            "{role: user, content: [{image: pic.png, caption: hi}]}",
            "input[[]0].content[[]0].caption: unknown key 'caption'",
            "did you mean 'alt'? known keys here: alt, detail, image",
        ),
        (
            '{role: user, content: [{type: image_url, image_url: {url: "https://x/a.png", foo: 1}}]}',
            "input[[]0].content[[]0].image_url.foo: unknown key 'foo'",
            "known keys here: detail, url",
        ),
        (
            '{role: user, content: [{type: image_url, image_url: {url: "https://x/a.png"}, alts: a}]}',
            "input[[]0].content[[]0].alts: unknown key 'alts'",
            "did you mean 'alt'? known keys here: alt, image_url, type",
        ),
    ],
)
def test_an_unknown_key_in_a_message_or_part_lists_the_keys_known_there(
    pytester: pytest.Pytester, make_project: MakeProject, written: str, key: str, fix: str
) -> None:
    """The fix listed nothing (`known keys here: `): the keys of the model the message or
    part is were not found through the unions that hold it."""
    make_project(
        "chat",
        f"""
        models: [sim_perfect]
        tests:
          - id: odd
            input:
              - {written}
            reference: hi
        """,
    )
    result = pytester.runpytest()
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines([f"projects/chat/arena.yaml:5: tests[[]0].{key}", f"  fix: {fix}"])


def test_an_unknown_key_in_a_dataset_rows_message_lists_the_keys_known_there(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    make_project(
        "rows",
        """
        models: [sim_perfect]
        datasets:
          - path: data/m.jsonl
        """,
        files={
            "data/m.jsonl": (
                '{"id": "a", "input": [{"role": "user", "content": "hi", "name": "x"}],'
                ' "reference": "hi"}\n'
            )
        },
    )
    result = pytester.runpytest()
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(
        [
            "projects/rows/data/m.jsonl:1: input[[]0[]].name: unknown key 'name'",
            "  fix: known keys here: content, role",
        ]
    )
