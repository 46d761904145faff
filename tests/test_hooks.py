"""hooks.py: pre_request changes the request, post_process reshapes the output."""

from __future__ import annotations

import base64
import importlib
import json
from pathlib import Path

import pytest

from pytest_arena.spec import images
from tests.conftest import MakeProject

FENCED = """
models:
  default: [fenced]
  define:
    fenced: {profile: sim_echo}
scorers:
  default: json_match
tests:
  - id: invoice
    input: "```json\\n{\\"total\\": 1200}\\n```"
    reference: {total: 1200}
"""

STRIP_FENCE = """
def post_process(output, case, context):
    # Strip a markdown fence before json_match sees it.
    text = output.strip()
    if text.startswith("```"):
        text = text.split("\\n", 1)[1].rsplit("```", 1)[0]
    return text
"""


def test_post_process_reshapes_the_output_before_scoring(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    root = make_project("fences", FENCED)
    without = pytester.runpytest()
    without.assert_outcomes(failed=1)
    without.stdout.fnmatch_lines(["output is not valid JSON*wrapped in a markdown fence*"])
    (root / "hooks.py").write_text(STRIP_FENCE)
    with_hook = pytester.runpytest()
    with_hook.assert_outcomes(passed=1)


def test_a_failure_shows_the_raw_output_when_post_process_changed_it(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    make_project(
        "raw",
        """
        models: [sim_echo]
        tests:
          - {id: sum, input: "The answer is 41.", reference: "42"}
        """,
        files={
            "hooks.py": "def post_process(output, case, context):\n    return output.split()[-1].rstrip('.')\n"
        },
    )
    result = pytester.runpytest()
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            "expected '42', got '41'",
            "  scorer:    exact_match (score 0.00)",
            "  output:    '41'",
            "  raw:       'The answer is 41.' (before hooks.py post_process)",
            "  reference: '42'",
        ]
    )


@pytest.mark.parametrize(
    ("arena_yaml", "hooks"),
    [
        pytest.param(
            """
            models: [sim_echo]
            scorers:
              options:
                exact_match: {ignore_case: true}
            tests:
              - {id: first, input: "ignored", reference: "FIRST|SIM_ECHO|TRUE"}
            """,
            """
            def post_process(output, case, context):
                return f"{case.id}|{context.model_key}|{context.options['ignore_case']}"
            """,
            id="post_process-sees-the-case-and-the-scoring-context",
        ),
        pytest.param(
            """
            models: [sim_echo]
            tests:
              - {id: greet, input: "hello", reference: "hello (from pre_request)"}
            """,
            """
            def pre_request(request, case, context):
                request.messages[-1]["content"] += " (from pre_request)"
            """,
            id="pre_request-changes-the-messages-sent",
        ),
        pytest.param(
            """
            models: [sim_echo]
            tests:
              - {id: greet, input: "hello", reference: "replaced"}
            """,
            """
            import dataclasses

            def pre_request(request, case, context):
                return dataclasses.replace(request, messages=[{"role": "user", "content": "replaced"}])
            """,
            id="pre_request-returns-a-new-request",
        ),
    ],
)
def test_a_hook_changes_what_the_model_is_sent_or_what_is_scored(
    pytester: pytest.Pytester, make_project: MakeProject, arena_yaml: str, hooks: str
) -> None:
    # sim_echo answers with the prompt it was sent: each case passes only through its hook
    make_project("hooked", arena_yaml, files={"hooks.py": hooks})
    pytester.runpytest().assert_outcomes(passed=1)


@pytest.mark.parametrize(
    ("hooks", "message"),
    [
        (
            "def post_process(output, case, context):\n    return None\n",
            "hooks.py post_process returned NoneType; it must return a string",
        ),
        (
            "def pre_request(request, case, context):\n    return 'text'\n",
            "hooks.py pre_request returned str; return the request (or None after changing it in place)",
        ),
        (
            "def post_process(output, case, context):\n    raise KeyError('total')\n",
            "hooks.py post_process raised KeyError: 'total'",
        ),
    ],
)
def test_a_hook_that_misbehaves_fails_the_case_with_a_clear_reason(
    pytester: pytest.Pytester, make_project: MakeProject, hooks: str, message: str
) -> None:
    make_project(
        "bad",
        "models: [sim_perfect]\ntests:\n  - {id: a, input: x, reference: x}\n",
        files={"hooks.py": hooks},
    )
    result = pytester.runpytest()
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines([message])


def test_a_hooks_file_that_fails_to_import_names_its_line(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    make_project(
        "bad",
        "models: [sim_perfect]\ntests:\n  - {id: a, input: x, reference: x}\n",
        files={"hooks.py": "import json\n\nSETTINGS = json.loads('{')\n"},
    )
    result = pytester.runpytest()
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(
        ["projects/bad/hooks.py:3: hooks.py failed to import: JSONDecodeError*"]
    )


OVERRIDE = """
from pytest_arena.scorers import ScoreResult


def override_verdict(result, output, case, context):
    if case.id == "known_flaky" and not result.passed:
        return ScoreResult(1.0, True, "ticket ARENA-12: the reference is out of date")
    return None
"""


def test_a_hook_may_override_the_verdict_and_the_override_is_shown(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    make_project(
        "over",
        """
        models: [sim_echo]
        tests:
          - {id: known_flaky, input: "old answer", reference: "new answer"}
          - {id: plain, input: "old answer", reference: "new answer"}
        """,
        files={"hooks.py": OVERRIDE},
    )
    result = pytester.runpytest("-rA")
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(
        [
            "*- verdicts changed by hooks.py override_verdict -*",
            "over::known_flaky[[]sim_echo]: failed -> passed: ticket ARENA-12: the reference is out of date",
            "*= arena leaderboard: over =*",
        ]
    )
    result.stdout.fnmatch_lines(["PASSED projects/over/arena.yaml::known_flaky[[]sim_echo]"])
    pytester.makeconftest(
        """
        def pytest_runtest_logreport(report):
            record = getattr(report, "arena_record", None)
            if record and record["case_id"] == "known_flaky":
                print("REASON", record["reason"])
                print("WAS", record["detail"]["override"]["passed"])
        """
    )
    result = pytester.runpytest("-s")
    result.stdout.fnmatch_lines(
        [
            "*REASON verdict overridden by hooks.py override_verdict: ticket ARENA-12: the reference"
            " is out of date (the scorer said failed, score 0.00: expected 'new answer', got 'old answer')",
            "WAS False",
        ]
    )


def test_an_override_that_fails_a_passing_case_is_the_failure_text(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    make_project(
        "over",
        """
        models: [sim_perfect]
        tests:
          - {id: capital, input: "Capital of France?", reference: "Paris"}
          - {id: river, input: "River of Paris?", reference: "Seine"}
        """,
        files={
            "hooks.py": """
            from pytest_arena.scorers import ScoreResult


            def override_verdict(result, output, case, context):
                if case.id == "capital":
                    return ScoreResult(0.0, False, "policy: answers must name the country too")
                return None
            """
        },
    )
    result = pytester.runpytest("-rA")
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(
        [
            "*_ over::capital[[]sim_perfect] _*",
            "verdict overridden by hooks.py override_verdict: policy: answers must name the"
            " country too (the scorer said passed, score 1.00: exact match)",
            "  scorer:    exact_match (score 0.00)",
            "  output:    'Paris'",
        ]
    )
    result.stdout.fnmatch_lines(
        [
            "FAILED projects/over/arena.yaml::capital[[]sim_perfect] - verdict overridden by*",
        ]
    )
    result.stdout.fnmatch_lines(
        [
            "*- verdicts changed by hooks.py override_verdict -*",
            "over::capital[[]sim_perfect]: passed -> failed: policy: answers must name the country too",
        ]
    )
    result.stdout.fnmatch_lines(["PASSED projects/over/arena.yaml::river[[]sim_perfect]"])


def test_an_override_without_a_reason_is_refused(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    make_project(
        "over",
        "models: [sim_echo]\ntests:\n  - {id: a, input: x, reference: y}\n",
        files={
            "hooks.py": """
            from pytest_arena.scorers import ScoreResult

            def override_verdict(result, output, case, context):
                return ScoreResult(1.0, True)
            """
        },
    )
    result = pytester.runpytest()
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        ["hooks.py override_verdict changed the verdict without a reason; give one"]
    )


def test_a_verdict_the_hook_changed_past_its_limits_is_the_cases_error(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    """The hook gets a copy of the verdict; setting its score to 5 on it was never checked."""
    make_project(
        "over",
        "models: [sim_echo]\ntests:\n  - {id: a, input: x, reference: y}\n",
        files={
            "hooks.py": """
            def override_verdict(result, output, case, context):
                result.score, result.passed, result.reason = 5, True, "it is fine"
                return result
            """
        },
    )
    result = pytester.runpytest()
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            "*hooks.py override_verdict returned a ScoreResult changed after it was built:"
            " ScoreResult.score must be between 0 and 1, got 5"
        ]
    )


def test_a_hook_that_is_not_a_function_is_said_where_it_is_bound(tmp_path: Path) -> None:
    from pytest_arena.evaluation.project_hooks import load_hooks
    from pytest_arena.spec.errors import SpecError
    from pytest_arena.spec.python_files import project_package

    (tmp_path / "hooks.py").write_text("LIMIT = 3\npost_process = 'strip'\nNAME = post_process\n")
    with pytest.raises(SpecError) as caught:
        load_hooks(tmp_path, project_package(tmp_path))
    (problem,) = caught.value.problems
    assert (problem.line, problem.message) == (2, "post_process must be a function, not str")


def test_an_override_that_changes_the_result_in_place_and_returns_none_changes_nothing(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    make_project(
        "over",
        """
        models: [sim_echo]
        tests:
          - {id: q, input: hi, reference: bye}
        """,
        files={
            "hooks.py": """
            def override_verdict(result, output, case, context):
                result.passed = True
                result.score = 1.0
                result.metrics["edited"] = 1.0
            """
        },
    )
    result = pytester.runpytest("-p", "no:cacheprovider", "--arena-json", "r.json")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        ["FAILED projects/over/arena.yaml::q[[]sim_echo] - expected 'bye', got 'hi'"]
    )
    record = json.loads((pytester.path / "r.json").read_text())["records"][0]
    assert (record["status"], record["score"], record["metrics"]) == ("failed", 0.0, {})


def run_breaking_one_case(
    pytester: pytest.Pytester, make_project: MakeProject, hooks: str
) -> pytest.RunResult:
    """Run a project of two cases whose `hooks` break the case 'broken': it fails, saying
    why (no internal error), and 'fine' passes."""
    make_project(
        "p",
        "models: [sim_perfect]\ntests:\n  - {id: broken, input: x, reference: x}\n"
        "  - {id: fine, input: y, reference: y}\n",
        {"hooks.py": hooks},
    )
    result = pytester.runpytest("-p", "no:cacheprovider")
    result.assert_outcomes(passed=1, failed=1)
    assert "internal error" not in result.stdout.str()
    return result


@pytest.mark.parametrize(
    ("messages", "said"),
    [
        ("None", "a NoneType"),
        ('"hello"', "a str"),
        ("[7]", "a list holding a int"),
        ("[]", "an empty list"),
        ('[{"role": "user"}]', "a message without a text role and content"),
    ],
)
def test_messages_a_hook_leaves_malformed_fail_the_case_naming_the_hook(
    pytester: pytest.Pytester, make_project: MakeProject, messages: str, said: str
) -> None:
    hooks = (
        "def pre_request(request, case, context):\n"
        f"    if case.id == 'broken':\n        request.messages = {messages}\n"
    )
    result = run_breaking_one_case(pytester, make_project, hooks)
    result.stdout.fnmatch_lines(
        [
            f"*hooks.py pre_request left request.messages as {said}; give a list of messages,"
            " each {role, content}, as request.messages held them*"
        ]
    )


@pytest.mark.parametrize(
    ("params", "said"),
    [
        ("object()", "holding what JSON cannot (Object of type object is not JSON serializable)"),
        ("float('nan')", "holding what JSON cannot (Out of range float values*"),
        ("[1]", "as a list; give a mapping of body fields*"),
    ],
)
def test_params_a_hook_leaves_that_json_cannot_hold_fail_the_case_naming_the_hook(
    pytester: pytest.Pytester, make_project: MakeProject, params: str, said: str
) -> None:
    """They failed the case as 'internal error in the arena engine: ValueError: cache key
    part params.obj (a object) is not JSON data' (a cached model), or a TypeError."""
    hooks = (
        "def pre_request(request, case, context):\n"
        f"    if case.id == 'broken':\n        request.params = {{'obj': {params}}}\n"
    )
    if params == "[1]":
        hooks = hooks.replace("{'obj': [1]}", "[1]")
    result = run_breaking_one_case(pytester, make_project, hooks)
    result.stdout.fnmatch_lines([f"*hooks.py pre_request left request.params {said}*"])


def test_a_hook_may_put_an_assistants_turn_of_tool_calls_without_content_before_the_input(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    hooks = (
        "def pre_request(request, case, context):\n"
        "    turn = {'role': 'assistant', 'content': None, 'tool_calls': []}\n"
        "    request.messages = [turn, *request.messages]\n"
    )
    make_project(
        "p",
        "models: [sim_perfect]\ntests: [{id: a, input: x, reference: x}]\n",
        {"hooks.py": hooks},
    )
    pytester.runpytest("-p", "no:cacheprovider").assert_outcomes(passed=1)


def test_a_hook_adding_a_string_to_a_list_of_parts_is_told_how(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    """The docs' own hook, `content += "..."`, split its text into one-character parts on a
    case with an image; the parts went to the model unchecked."""
    hooks = (
        "def pre_request(request, case, context):\n"
        "    request.messages[-1]['content'] += '\\nReply in plain text.'\n"
    )
    parts = "[{type: text, text: 'Describe it.'}]"
    yaml = f"models: [sim_echo]\ntests:\n  - {{id: a, input: [{{role: user, content: {parts}}}]}}\n"
    make_project("p", yaml, {"hooks.py": hooks})
    result = pytester.runpytest("-p", "no:cacheprovider")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            "hooks.py pre_request left a content part that is a str ('\\n'); a message's content"
            " is text, or a list of parts each {type: text, text: ...} or {type: image_url,"
            " image_url: {url: ...}} (to add text to a list, append {type: text, text: ...};"
            " `+=` a string adds its characters)"
        ]
    )


PNG_URL = (
    "data:image/png;base64,"
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="
)
ADD_IMAGE = (
    "def pre_request(request, case, context):\n"
    "    if case.id == 'broken':\n"
    "        part = {{'type': 'image_url', 'image_url': {image_url}}}\n"
    "        request.messages[-1]['content'] = [{{'type': 'text', 'text': 'x'}}, part]\n"
)


@pytest.mark.parametrize(
    ("image_url", "said"),
    [
        (
            "{'url': 'data:image/png;base64,!!!'}",
            "an image whose image data URL 'data:image/png;base64,!!!...' does not hold valid"
            " base64 (*); fix: write it as a base64 data URL of a PNG, JPEG, GIF or WebP image*",
        ),
        (
            "{'url': 'data:image/png;base64,aGVsbG8='}",
            "an image whose image data URL 'data:image/png;base64,aGVsbG8=...' is not a PNG,"
            " JPEG, GIF or WebP image (its first bytes are 68 65 6c 6c 6f); fix: *",
        ),
        (
            "{'url': 'charts/sales.png'}",
            "an image whose url is 'charts/sales.png', neither an http(s) URL nor a data URL;"
            " fix: give {type: image_url, image_url: {url: ...}} an https:// URL or a base64"
            " data URL (data:image/png;base64,...); a file of the project goes in the case's"
            " input, as {image: path}",
        ),
        ("{}", "an image whose url is a NoneType, neither an http(s) URL nor a data URL;*"),
    ],
    ids=["not-base64", "not-an-image", "a-file", "no-url"],
)
def test_an_image_a_hook_leaves_that_no_provider_takes_fails_the_case_naming_the_hook(
    pytester: pytest.Pytester, make_project: MakeProject, image_url: str, said: str
) -> None:
    """It went to the model as it was: a sim passed the case, a provider answered 400, and
    the anthropic connector raised a KeyError on an image without a url."""
    hooks = ADD_IMAGE.format(image_url=image_url)
    result = run_breaking_one_case(pytester, make_project, hooks)
    result.stdout.fnmatch_lines([f"*hooks.py pre_request left {said}"])


def test_a_hook_may_add_images_and_the_cases_own_are_not_decoded_again(
    pytester: pytest.Pytester, make_project: MakeProject, monkeypatch: pytest.MonkeyPatch
) -> None:
    case_run = importlib.import_module("pytest_arena.evaluation.case_run")  # the inner run's
    decoded: list[str] = []

    def counted(url: str) -> str:
        decoded.append(url)
        return images.checked_data_url(url)

    monkeypatch.setattr(case_run, "checked_data_url", counted)
    hooks = (
        "def pre_request(request, case, context):\n"
        f"    url = {PNG_URL!r}\n"
        "    added = [{'type': 'image_url', 'image_url': {'url': url}},\n"
        "             {'type': 'image_url', 'image_url': {'url': 'https://example.com/a.png'}}]\n"
        "    request.messages[-1]['content'] = [*request.messages[-1]['content'], *added]\n"
    )
    yaml = (
        "models: [sim_perfect]\ntests:\n"
        "  - {id: a, reference: seen, input: [{role: user, content: [{type: text, text: Look.},"
        " {image: one.png}]}]}\n"
    )
    root = make_project("p", yaml, {"hooks.py": hooks})
    (root / "one.png").write_bytes(base64.b64decode(PNG_URL[22:]))
    pytester.runpytest("-p", "no:cacheprovider").assert_outcomes(passed=1)
    assert decoded == [PNG_URL]  # the hook's own: the case's image was checked as it loaded


def test_what_a_hook_changes_in_place_is_that_requests_own(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    """A part appended to a list of parts, or a tool described otherwise, was changed in the
    case itself: each later model, sample and case got the change once more."""
    hooks = (
        "def pre_request(request, case, context):\n"
        "    request.messages[-1]['content'].append({'type': 'text', 'text': 'Be brief.'})\n"
        "    for tool in request.tools:\n"
        "        tool['parameters']['description'] = tool['parameters'].get('description', '') + '!'\n"
        "    print('TOOLS', [t['parameters']['description'] for t in request.tools])\n"
    )
    tools = 'def lookup(order_id: str) -> str:\n    """An order."""\n    return \'ok\'\n'
    parts = "[{type: text, text: 'Say it.'}]"
    yaml = (
        "models: [sim_echo, sim_perfect]\ntests:\n"
        f"  - {{id: a, input: [{{role: user, content: {parts}}}], repeat: 2}}\n"
        f"  - {{id: b, input: [{{role: user, content: {parts}}}]}}\n"
    )
    make_project("p", yaml, {"hooks.py": hooks, "tools.py": tools})
    result = pytester.runpytest("-p", "no:cacheprovider", "-s", "--arena-json=r.json")
    said = {line for line in result.stdout.lines if line.startswith("TOOLS")}
    assert said == {"TOOLS ['!']"}  # once, on each request
    data = json.loads((pytester.path / "r.json").read_text())
    outputs = [
        s["output"] for r in data["records"] if r["model"] == "sim_echo" for s in r["samples"]
    ] + [r["output"] for r in data["records"] if r["model"] == "sim_echo" and not r["samples"]]
    assert outputs and all(o.count("Be brief.") == 1 for o in outputs), outputs
