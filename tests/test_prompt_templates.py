"""prompt.system is a template like prompt.template; slips in either are errors at their
line: Jinja's statements and comments, an empty template."""

from __future__ import annotations

import pytest

from tests.conftest import MakeProject

# a Python agent that answers with the system prompt it was sent, then the user's turn
AGENT = """
def run(messages):
    return " | ".join(m["content"] for m in messages)
"""


def test_the_system_prompt_is_filled_in_with_the_cases_variables(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    make_project(
        "sys",
        """
        models:
          default: [agent]
          define:
            agent: {connector: python, callable: "agent:run"}
        prompt:
          system: "Answer in {language}. Reply as {{literal}}."
          template: "{text}"
        tests:
          - id: fr
            input: {language: French, text: cat}
            reference: "Answer in French. Reply as {literal}. | cat"
          - id: lacking
            input: {text: dog}
            reference: dog
        """,
        files={"agent.py": AGENT},
    )
    result = pytester.runpytest()
    result.assert_outcomes(passed=1, errors=1)
    result.stdout.fnmatch_lines(
        ["projects/sys/arena.yaml:12: prompt.system uses {language}, which this case's input lacks"]
    )


def test_a_chat_input_with_its_own_system_message_keeps_it_beside_a_system_template(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    """The system prompt was filled in for it anyway: {language}, which its input lacks,
    crashed the run (INTERNALERROR, no test ran, no report)."""
    make_project(
        "sys",
        """
        models:
          default: [agent]
          define:
            agent: {connector: python, callable: "agent:run"}
        prompt:
          system: "Answer in {language}."
        tests:
          - id: fr
            input: {language: French, text: cat}
            reference: 'Answer in French. | {"language": "French", "text": "cat"}'
          - id: chat
            input:
              - {role: system, content: One word.}
              - {role: user, content: Opposite of hot?}
            reference: "One word. | Opposite of hot?"
          - id: chat_without
            input:
              - {role: user, content: Opposite of cold?}
            reference: hot
        """,
        files={"agent.py": AGENT},
    )
    result = pytester.runpytest("-rA")
    result.assert_outcomes(passed=2, errors=1)
    result.stdout.fnmatch_lines(["PASSED projects/sys/arena.yaml::chat[[]agent]"])
    result.stdout.fnmatch_lines(["*prompt.system uses {language}, which this case's input lacks*"])


@pytest.mark.parametrize(
    ("prompt", "line", "says"),
    [
        pytest.param(
            'template: "{% if short %}Briefly: {% endif %}{input}"',
            3,
            "prompt.template: '{% if short %}' is sent as written, braces and all: a Jinja"
            " statement is not run here; only variables, as in '{input}', are filled in",
            id="jinja-statement",
        ),
        pytest.param(
            'template: "{# v2 #}Q: {input}"',
            3,
            "prompt.template: '{# v2 #}' is sent as written, braces and all: a Jinja comment"
            " is not removed here, so delete it",
            id="jinja-comment",
        ),
        pytest.param(
            'template: ""',
            3,
            "prompt.template: the template fills in no variable, so every case would send the"
            " same prompt",
            id="empty-template",
        ),
        pytest.param(
            'system: "You are terse. {{ input }}"',
            3,
            "prompt.system: '{{ input }}' is sent as '{ input }', braces and all",
            id="system-slip",
        ),
    ],
)
def test_a_prompt_that_would_be_sent_as_written_is_an_error_at_its_line(
    pytester: pytest.Pytester, make_project: MakeProject, prompt: str, line: int, says: str
) -> None:
    make_project(
        "slip",
        f"models: [sim_echo]\nprompt:\n  {prompt}\ntests:\n  - {{id: a, input: x, reference: x}}\n",
    )
    result = pytester.runpytest()
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines([f"projects/slip/arena.yaml:{line}: {says}*"])


def test_a_system_prompt_needs_no_variable(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    make_project(
        "plain",
        'models: [sim_echo]\nprompt:\n  system: "Reply as {\\"answer\\": ...}."\n'
        "tests:\n  - {id: a, input: x, reference: x}\n",
    )
    pytester.runpytest().assert_outcomes(passed=1)


def test_input_in_a_system_prompt_is_an_error_for_a_chat_input(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    """{input} was the chat's messages dumped as JSON, image data and all: megabytes of
    system prompt, billed and kept in the report."""
    make_project(
        "chat",
        """
        models:
          default: [agent]
          define:
            agent: {connector: python, callable: "agent:run"}
        prompt:
          system: "Describe {input}."
        tests:
          - {id: plain, input: cat, reference: "Describe cat. | cat"}
          - id: chart
            input:
              - {role: user, content: [{type: text, text: What does it show?}]}
            reference: x
        """,
        files={"agent.py": AGENT},
    )
    result = pytester.runpytest()
    result.assert_outcomes(passed=1, errors=1)
    result.stdout.fnmatch_lines(
        [
            "projects/chat/arena.yaml:9: prompt.system uses {input}, but this case's input is a"
            " chat (a list of messages), which a prompt cannot hold",
            "  fix: give the chat its own system message, or take {input} out of prompt.system",
        ]
    )


def test_id_is_the_cases_id_even_beside_an_input_key_named_id(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    """An input's own `id` key filled in {id} instead (the agent got "Sys for inner-id");
    an `input` key, though, is what {input} fills in."""
    make_project(
        "ids",
        """
        models:
          default: [agent]
          define:
            agent: {connector: python, callable: "agent:run"}
        prompt:
          system: "Sys for {id}."
          template: "{input} in {language}"
        tests:
          - id: fr
            input: {language: French, input: the cat, id: inner-id}
            reference: "Sys for fr. | the cat in French"
        """,
        files={"agent.py": AGENT},
    )
    pytester.runpytest().assert_outcomes(passed=1)


def test_a_brace_closed_but_not_around_a_name_is_sent_as_written(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    """'{return 1;}' was "'{return' is never closed: write '{return}'": it is closed, and
    that fix makes it a variable the input lacks."""
    make_project(
        "code",
        """
        models:
          default: [agent]
          define:
            agent: {connector: python, callable: "agent:run"}
        prompt:
          system: "Write C like: if (x) {return 1;}"
        tests:
          - {id: a, input: x, reference: "Write C like: if (x) {return 1;} | x"}
        """,
        files={"agent.py": AGENT},
    )
    pytester.runpytest().assert_outcomes(passed=1)


def test_a_variable_left_open_before_a_later_brace_is_never_closed(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    """The '}' of a later '{a: 1}' made '{input,' pass for a brace written as it is."""
    make_project(
        "open",
        'models: [sim_echo]\nprompt:\n  template: "Q: {input, as in {a: 1}"\n'
        "tests:\n  - {id: a, input: x, reference: x}\n",
    )
    result = pytester.runpytest()
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(
        ["projects/open/arena.yaml:3: prompt.template: '{input' is never closed: write '{input}'"]
    )


def test_a_null_that_a_prompt_fills_in_is_an_error_at_its_line_and_the_other_cases_run(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    """`topic: null` was filled in as the text "null": the model was sent 'Q: hi T: null'.
    A null that no prompt uses is data, which a python agent gets as None."""
    agent = (
        "def run(messages, request):\n"
        "    note = request.case.input.get('note')\n"
        "    return ' | '.join(m['content'] for m in messages) + f' | note={note!r}'\n"
    )
    make_project(
        "nulls",
        """
        models:
          default: [agent]
          define:
            agent: {connector: python, callable: "agent:run"}
        prompt:
          system: "Answer in {language}."
          template: "Q: {question} T: {topic}"
        tests:
          - id: flow
            input: {question: hi, topic: null, language: French}
            reference: "Answer in French. | Q: hi T:  | note=None"
          - id: block
            input:
              question: hi
              topic: x
              language: null
            reference: "Answer in . | Q: hi T: x | note=None"
          - id: unused
            input: {question: hi, topic: x, language: French, note: null}
            reference: "Answer in French. | Q: hi T: x | note=None"
        datasets: [rows.jsonl, rows.yaml]
        """,
        files={
            "agent.py": agent,
            "rows.jsonl": '{"id": "j1", "input": {"question": "a", "topic": "b",'
            ' "language": "Latin"}, "reference": "Answer in Latin. | Q: a T: b | note=None"}\n'
            '{"id": "j2", "input": {"question": "a", "topic": null, "language": "Latin"},'
            ' "reference": "Answer in Latin. | Q: a T:  | note=None"}\n',
            "rows.yaml": "- id: y1\n  input:\n    question: a\n    topic: null\n"
            "    language: Latin\n  reference: x\n",
        },
    )
    result = pytester.runpytest("-p", "no:cacheprovider", "-rA")
    result.assert_outcomes(passed=2, errors=4)
    result.stdout.fnmatch_lines(["PASSED projects/nulls/arena.yaml::unused[[]agent]"])
    result.stdout.fnmatch_lines(["PASSED projects/nulls/rows.jsonl::j1[[]agent]"])
    for where, prompt, name in [
        ("arena.yaml:10", "template", "topic"),
        ("arena.yaml:16", "system", "language"),  # the null's own line, not the case's
        ("rows.jsonl:2", "template", "topic"),
        ("rows.yaml:4", "template", "topic"),
    ]:
        result.stdout.fnmatch_lines(
            [
                f"projects/nulls/{where}: prompt.{prompt} uses {{{name}}}, whose value in this"
                " case's input is null",
                f"  fix: write its text ('' for an empty one), or take {{{name}}} out of"
                f" prompt.{prompt}",
            ]
        )
    result.stdout.no_fnmatch_line("*null | note*")
