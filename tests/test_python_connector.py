"""The python connector: your own function as a model."""

from __future__ import annotations

import asyncio
import fnmatch
import os
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

from pytest_arena.connectors import Connector, ConnectorError, Request, Response, build_connector
from pytest_arena.connectors.base import AGENT_META
from pytest_arena.spec import Case, SpecError, load_project
from tests.conftest import MakeProject

CASE = Case(id="q1", input="What is 2 + 2?", reference="4", tags=("math",), project="p")


@pytest.fixture(autouse=True)
def clean_imports() -> Iterator[None]:
    """The connector puts project folders on sys.path and imports from them; undo that."""
    path, modules = list(sys.path), set(sys.modules)
    yield
    sys.path[:] = path
    for name in set(sys.modules) - modules:
        del sys.modules[name]


def build(root: Path, settings: str, files: dict[str, str]) -> Connector:
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(textwrap.dedent(text))
    path = root / "arena.yaml"
    path.write_text(
        "models:\n  define:\n    mine:\n      connector: python\n"
        + textwrap.indent(textwrap.dedent(settings), " " * 6)
    )
    file = load_project(path)
    return build_connector("mine", file.spec.models.define, file.path, file.lines)


def request(case: Case = CASE, system: str | None = None) -> Request:
    messages = [{"role": "system", "content": system}] if system else []
    messages.append({"role": "user", "content": str(case.input)})
    return Request("mine", messages, case)


def call(connector: Connector, req: Request) -> Response:
    return asyncio.run(connector.acomplete(req))


def build_error(root: Path, settings: str, files: dict[str, str]) -> str:
    with pytest.raises(SpecError) as caught:
        build(root, settings, files)
    return caught.value.format(root)


def test_a_plain_function_gets_the_prompt_in_a_worker_thread(tmp_path: Path) -> None:
    connector = build(
        tmp_path,
        'callable: "agent:run"',
        {
            "agent.py": """
                import threading

                def run(prompt):
                    return f"{prompt} -> 4 ({threading.current_thread() is threading.main_thread()})"
            """
        },
    )
    assert call(connector, request()).text == "What is 2 + 2? -> 4 (False)"
    assert connector.complete(request()).text == "What is 2 + 2? -> 4 (True)"
    assert not connector.cacheable


def test_a_second_parameter_receives_the_case(tmp_path: Path) -> None:
    connector = build(
        tmp_path,
        "callable: agent:run",
        {"agent.py": "def run(prompt, case):\n    return f'{case.id} {list(case.tags)}'\n"},
    )
    assert call(connector, request()).text == "q1 ['math']"


def test_an_async_function_is_awaited_and_may_ask_for_the_messages(tmp_path: Path) -> None:
    connector = build(
        tmp_path,
        "callable: agent:run",
        {
            "agent.py": """
                import asyncio

                async def run(prompt, *, messages):
                    await asyncio.sleep(0)
                    return " | ".join(m["role"] + ": " + m["content"] for m in messages)
            """
        },
    )
    text = call(connector, request(system="Be brief.")).text
    assert text == "system: Be brief. | user: What is 2 + 2?"
    assert connector.complete(request()).text == "user: What is 2 + 2?"


@pytest.mark.parametrize(
    ("signature", "said"),
    [
        ("messages", "messages[-1]['content']"),
        ("request", "request.messages[-1]['content']"),
        ("messages, request", "str(request.case.id) + ' ' + messages[-1]['content']"),
    ],
)
def test_an_agent_may_take_the_messages_or_the_request_alone(
    tmp_path: Path, signature: str, said: str
) -> None:
    """`def run(messages)` raised "got multiple values for argument 'messages'": the
    prompt went to its first parameter, and the messages by name too."""
    agent = f"def run({signature}):\n    return {said}\n"
    connector = build(tmp_path, "callable: agent:run", {"agent.py": agent})
    assert call(connector, request()).text.endswith("What is 2 + 2?")


def test_a_dict_gives_tokens_cost_and_meta(tmp_path: Path) -> None:
    connector = build(
        tmp_path,
        "callable: agent:run",
        {
            "agent.py": """
                def run(prompt):
                    return {"text": "4", "tokens_in": 12, "tokens_out": 1, "cost": 0.002,
                            "meta": {"steps": 3}}
            """
        },
    )
    response = call(connector, request())
    assert (response.text, response.tokens_in, response.tokens_out) == ("4", 12, 1)
    assert response.meta == {AGENT_META: {"steps": 3}}  # apart from arena's own keys
    assert connector.cost_of(response) == 0.002


def test_a_response_is_taken_as_it_is(tmp_path: Path) -> None:
    connector = build(
        tmp_path,
        "callable: agents.math:solve",
        {
            "agents/__init__.py": "",
            "agents/math.py": """
                from pytest_arena.connectors import Response

                def solve(prompt, case, request):
                    return Response(text="4", tokens_in=5, meta={"model": request.model})
            """,
        },
    )
    response = call(connector, request())
    assert (response.text, response.tokens_in) == ("4", 5)
    assert response.meta == {AGENT_META: {"model": "mine"}}


def test_an_exception_names_the_callable_type_message_and_line(tmp_path: Path) -> None:
    connector = build(
        tmp_path,
        "callable: agent:run",
        {"agent.py": "def run(prompt):\n    raise ValueError('no tool for ' + prompt)\n"},
    )
    with pytest.raises(ConnectorError) as caught:
        call(connector, request())
    text = str(caught.value)
    assert not caught.value.retryable
    assert text.startswith("agent:run raised ValueError: no tool for What is 2 + 2?")
    assert f'File "{tmp_path / "agent.py"}", line 2, in run' in text
    assert "asyncio" not in text and "connectors" not in text


@pytest.mark.parametrize(
    ("returned", "words"),
    [
        ("42", "agent:run returned int; return the output text, a dict with 'text', or a Response"),
        (
            "{'output': 'x'}",
            "agent:run returned a dict with keys ['output']; return one with 'text'",
        ),
        (  # what an SDK gives for a reply without usage
            "Response(text='x', tokens_in=None, tokens_out=None)",
            "agent:run returned a Response whose tokens_in is None; return 'text' (a string)",
        ),
        ("Response(text=None)", "agent:run returned a Response whose text is None;"),
        ("{'text': 'x', 'cost': float('nan')}", "agent:run returned a dict whose cost is nan;"),
        ("{'text': 'x', 'cost': -5}", "agent:run returned a dict whose cost is -5.0;"),
        ("{'text': 'x', 'cost': 1e400}", "agent:run returned a dict whose cost is inf;"),
        ("{'text': 'x', 'cost': 10**400}", "agent:run returned a dict whose cost is inf;"),
        ("{'text': 'x', 'tokens_out': -3}", "agent:run returned a dict whose tokens_out is -3;"),
        ("{'text': 'x', 'meta': [1]}", "agent:run returned a dict whose meta is [1];"),
        (
            "Response(text='x', latency_ms='12 ms')",
            "agent:run returned a Response whose latency_ms is '12 ms';",
        ),
        (
            "Response(text='x', latency_ms=-100.0)",
            "a Response may also give 'latency_ms' (milliseconds, 0 or more)",
        ),
        ("Response(text='x', latency_ms=float('nan'))", "whose latency_ms is nan;"),
        ("Response(text='x', cost=10**400)", "agent:run returned a Response whose cost is 1000"),
    ],
)
def test_a_result_of_another_kind_is_an_error_saying_what_to_return(
    tmp_path: Path, returned: str, words: str
) -> None:
    agent = (
        f"from pytest_arena.connectors import Response\ndef run(prompt):\n    return {returned}\n"
    )
    connector = build(tmp_path, "callable: agent:run", {"agent.py": agent})
    with pytest.raises(ConnectorError, match="returned") as caught:
        connector.complete(request())
    assert words in str(caught.value)


def test_a_latency_that_is_not_milliseconds_is_the_cases_error_and_the_run_ends_whole(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    """A Response(latency_ms="12 ms") crashed the run's end with a TypeError: no leaderboard,
    no --arena-json, the other project's board lost too."""
    make_project(
        "good", "models: [sim_perfect]\ntests:\n  - {id: one, input: '1', reference: '1'}\n"
    )
    make_project(
        "a",
        """
        models:
          default: [mine]
          define:
            mine: {connector: python, callable: "agent:answer"}
        tests:
          - {id: a, input: x, reference: x}
        """,
        files={
            "agent.py": "from pytest_arena.connectors import Response\n"
            "def answer(prompt):\n    return Response(text='x', latency_ms='12 ms')\n"
        },
    )
    result = pytester.runpytest("-p", "no:cacheprovider", "--arena-json", "run.json")
    result.assert_outcomes(passed=1, failed=1)  # the model's call failed, as said
    result.stdout.fnmatch_lines(["*agent:answer returned a Response whose latency_ms is '12 ms'*"])
    result.stdout.fnmatch_lines(["*arena leaderboard: good*"])
    assert (pytester.path / "run.json").exists()
    assert "Traceback" not in result.stdout.str()


def test_each_project_imports_its_own_module_of_a_shared_name(tmp_path: Path) -> None:
    one = build(tmp_path / "one", "callable: agent:run", {"agent.py": "run = lambda p: 'one'\n"})
    two = build(tmp_path / "two", "callable: agent:run", {"agent.py": "run = lambda p: 'two'\n"})
    assert (one.complete(request()).text, two.complete(request()).text) == ("one", "two")


def test_each_projects_agent_imports_its_own_helper_module(tmp_path: Path) -> None:
    """Two agents each doing `from prompts import NAME` from their own folder: the second
    got the first's `prompts` (run in one session, the result depended on order)."""
    agent = "from prompts import NAME\n\ndef run(prompt):\n    return NAME\n"
    one = build(
        tmp_path / "a", "callable: agent:run", {"agent.py": agent, "prompts.py": "NAME = 'a'\n"}
    )
    two = build(
        tmp_path / "b", "callable: agent:run", {"agent.py": agent, "prompts.py": "NAME = 'b'\n"}
    )
    assert (one.complete(request()).text, two.complete(request()).text) == ("a", "b")


@pytest.mark.parametrize(
    ("settings", "files", "expected"),
    [
        (
            "callable: nosuch:run",
            {},
            [
                "arena.yaml:5: models.define.mine.callable: callable 'nosuch:run': no module 'nosuch' in *",
                "  fix: check the spelling, and that the file sits in the project folder or is installed",
            ],
        ),
        (
            "callable: agent:runn",
            {"agent.py": "def run(prompt):\n    return prompt\n"},
            [
                "arena.yaml:5: models.define.mine.callable: callable 'agent:runn': module 'agent' (*agent.py) has no 'runn'",
                "  fix: name a function defined in agent",
            ],
        ),
        (
            "callable: agent:run",
            {"agent.py": "1 / 0\n"},
            [
                "arena.yaml:5: models.define.mine.callable: callable 'agent:run': importing 'agent' failed at agent.py:1: ZeroDivisionError: division by zero",
                "  fix: fix the error at agent.py:1",
            ],
        ),
        (  # the line of the project's file where it was raised, in a helper it imports too
            "callable: agent:run",
            {
                "agent.py": "from helpers.config import CONFIG\n\ndef run(prompt):\n    return prompt\n",
                "helpers/__init__.py": "",
                "helpers/config.py": "import json\n\nCONFIG = {'a': 1}\nB = CONFIG['b']\n",
            },
            [
                "arena.yaml:5: models.define.mine.callable: callable 'agent:run': importing 'agent' failed at helpers/config.py:4: KeyError: 'b'",
                "  fix: fix the error at helpers/config.py:4",
            ],
        ),
        (
            "callable: agent.py:run",
            {"agent.py": "def run(prompt):\n    return prompt\n"},
            [
                "arena.yaml:5: models.define.mine.callable: callable 'agent.py:run' names the file agent.py, where a module's name goes",
                "  fix: write 'agent:run', without .py",
            ],
        ),
        (
            "callable: agent.run",
            {},
            [
                "arena.yaml:5: models.define.mine.callable: callable 'agent.run' is not 'module:function'; write it as, e.g., 'agent:run'*",
            ],
        ),
        (
            "callable: agent:run\ncalable: x",
            {},
            ["arena.yaml:6: models.define.mine.calable: unknown key 'calable'"],
        ),
    ],
)
def test_a_callable_that_cannot_be_loaded_is_an_error_at_its_line(
    tmp_path: Path, settings: str, files: dict[str, str], expected: list[str]
) -> None:
    text = build_error(tmp_path, settings, files)
    lines = text.splitlines()
    for pattern in expected:
        assert any(fnmatch.fnmatchcase(line, pattern) for line in lines), (
            pattern,
            text,
        )


def test_sixteen_plain_calls_run_at_once(tmp_path: Path) -> None:
    connector = build(
        tmp_path,
        "callable: agent:run",
        {
            "agent.py": """
                import threading

                together = threading.Barrier(16, timeout=10)  # broken unless 16 wait at once

                def run(prompt):
                    together.wait()
                    return prompt
            """
        },
    )

    async def sixteen() -> list[str]:
        try:
            calls = [connector.acomplete(request()) for _ in range(16)]
            return [r.text for r in await asyncio.gather(*calls)]
        finally:
            await connector.aclose()

    assert asyncio.run(sixteen()) == ["What is 2 + 2?"] * 16


def test_an_agent_module_whose_import_never_ends_is_an_error_at_its_setting(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from pytest_arena.connectors import python

    monkeypatch.setattr(python, "IMPORT_LIMIT", 0.5)
    agent = "import time\ntime.sleep(300)  # waits for a server\ndef run(p):\n    return p\n"
    said = build_error(tmp_path, "callable: slow_agent:run", {"slow_agent.py": agent})
    assert said.startswith(
        "arena.yaml:5: models.define.mine.callable: callable 'slow_agent:run': importing"
        " 'slow_agent' did not finish within 0.5 s; still running"
        f" {tmp_path / 'slow_agent.py'}:2"
    )


def test_an_agent_module_that_exits_at_import_is_an_error_at_its_setting(tmp_path: Path) -> None:
    agent = "import sys\nsys.exit('no config')\n"
    said = build_error(tmp_path, "callable: quitter:run", {"quitter.py": agent})
    assert (
        "callable 'quitter:run': importing 'quitter' failed at quitter.py:2: SystemExit: no config"
        in said
    )


MUTATES_ITS_CASE = """
def answer(prompt, case):
    seen = list(case.metadata["k"])
    case.metadata["k"].append("x")  # an agent that keeps notes on what it was given
    case.reference.append("x")
    return prompt if seen == [1] else f"saw {seen}"
"""


def test_what_an_agent_changes_in_its_case_no_other_sample_or_model_sees(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    """The case's metadata was one dict for every call: the second sample, and the second
    model, were graded on what the first call left in it ("saw [1, 'x', 'x', 'x']"); and
    the reference the agent changed was the one its answer was graded against."""
    make_project(
        "notes",
        "models:\n  default: [mine, again]\n  define:\n"
        '    mine: {connector: python, callable: "agent:answer"}\n'
        '    again: {connector: python, callable: "agent:answer"}\n'
        "repeat: 3\n"
        "scorers: {default: contains}\n"
        "tests:\n  - {id: t1, input: one, reference: [one], metadata: {k: [1]}}\n",
        {"agent.py": MUTATES_ITS_CASE},
    )
    result = pytester.runpytest("-p", "no:cacheprovider")
    result.assert_outcomes(passed=2)


def test_agents_import_their_own_projects_files_relatively_and_share_them_with_scorers(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    """agent.py was imported as a top-level module: `from . import helper` failed ("no known
    parent package"), an import made inside the agent's function found another project's
    helper.py, and a scorer importing `..helper` got a second copy of the module."""
    for name in ("east", "west"):
        make_project(
            name,
            "models:\n  default: [mine]\n  define:\n"
            '    mine: {connector: python, callable: "agent:answer"}\n'
            "scorers: {default: same}\n"
            f"tests:\n  - {{id: t1, input: one, reference: {name}}}\n",
            {
                "helper.py": f"NAME = {name!r}\nSEEN = []\n",
                "agent.py": """
                    from .helper import SEEN


                    def answer(prompt):
                        from . import helper  # when called: this project's, not the last's

                        SEEN.append(prompt)
                        return helper.NAME
                """,
                "scorers/same.py": """
                    from pytest_arena.scorers import Scorer, ScoreResult

                    from ..helper import SEEN


                    class Same(Scorer):
                        name = "same"

                        def score(self, output, reference, context):
                            ok = output == reference and SEEN == ["one"]
                            return ScoreResult(float(ok), ok, f"{output} after {SEEN}")
                """,
            },
        )
    pytester.runpytest("-p", "no:cacheprovider").assert_outcomes(passed=2)


def test_a_project_file_named_like_a_library_does_not_take_its_place_after_the_agent_loads(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    """The project's folder stayed first on the import path: pytest-arena's own import of
    tabulate, for the leaderboard, found the project's tabulate.py and the run crashed."""
    make_project(
        "tables",
        "models:\n  default: [mine]\n  define:\n"
        '    mine: {connector: python, callable: "agent:answer"}\n'
        "tests:\n  - {id: t1, input: one, reference: one}\n",
        {
            "tabulate.py": "def rows_to_md(rows):\n    return ''\n",
            "agent.py": "def answer(prompt):\n    return prompt\n",
        },
    )
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider")
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(["*arena leaderboard: tables*", "*1     mine        1.000*"])


def test_an_agent_hands_its_functions_to_processes_that_multiprocessing_spawns(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    """A process started by spawn (forkserver, Python 3.14's default on Linux, alike)
    imports the agent's module again by its name: one named for the project's package was
    not found there, and the call waited out its timeout."""
    make_project(
        "pool",
        "models:\n  default: [mine]\n  define:\n"
        '    mine: {connector: python, callable: "agent:run", timeout: 20, max_retries: 0}\n'
        "tests:\n  - {id: t1, input: one, reference: one}\n",
        {
            "agent.py": """
                import multiprocessing


                def work(text):
                    return text


                def run(prompt):
                    with multiprocessing.get_context("spawn").Pool(1) as pool:
                        return pool.apply(work, (prompt,))
            """,
        },
    )
    pytester.runpytest_subprocess("-p", "no:cacheprovider").assert_outcomes(passed=1)


def test_a_packaged_agent_and_two_projects_agents_hand_their_functions_to_spawned_processes(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    """A package's agent that imports relatively was named for the project's package, which
    a spawned process cannot import: it waited out its timeout. Two projects' `agent.py`:
    the spawned process imported the first project's, and the second was graded on its
    answer ("expected 'pb', got 'pa'"); the latest loaded is found, as before."""
    spawned = """
        import multiprocessing

        from .helper import work


        def run(prompt):
            with multiprocessing.get_context("spawn").Pool(1) as pool:
                return pool.apply(work, (prompt,))
    """
    make_project(
        "pk",
        "models:\n  default: [mine]\n  define:\n"
        '    mine: {connector: python, callable: "mypkg.agent:run", timeout: 20}\n'
        "tests:\n  - {id: t1, input: one, reference: one}\n",
        {
            "mypkg/__init__.py": "",
            "mypkg/helper.py": "def work(t):\n    return t\n",
            "mypkg/agent.py": spawned,
        },
    )
    for name in ("pa", "pb"):
        make_project(
            name,
            "models:\n  default: [mine]\n  define:\n"
            '    mine: {connector: python, callable: "agent:run", timeout: 20, max_retries: 0}\n'
            f"tests:\n  - {{id: t1, input: one, reference: {name}}}\n",
            {
                "agent.py": f"""
                    import multiprocessing


                    def work(text):
                        return {name!r}


                    def run(prompt):
                        with multiprocessing.get_context("spawn").Pool(1) as pool:
                            return pool.apply(work, (prompt,))
                """
            },
        )
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider")
    result.assert_outcomes(passed=2, failed=1)
    assert "got 'pa'" not in result.stdout.str()
    result.stdout.fnmatch_lines(["*pa::t1[[]mine[]]*", "*PicklingError*"])


def test_a_project_folder_the_user_put_on_the_path_keeps_its_place_and_others_go_after_it(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    """With one project's folder on `pythonpath`, the others were put in front of it, ahead
    of the libraries: a project's tabulate.py replaced the library again, and the run
    crashed after its tests passed."""
    for name in ("a", "b"):
        make_project(
            name,
            "models:\n  default: [mine]\n  define:\n"
            f'    mine: {{connector: python, callable: "agent_{name}:run"}}\n'
            "tests:\n  - {id: t1, input: one, reference: one}\n",
            {f"agent_{name}.py": "def run(prompt):\n    return prompt\n"},
        )
    (pytester.path / "projects" / "b" / "tabulate.py").write_text(
        "def rows_to_md(rows):\n    return ''\n"
    )
    pytester.makeini("[pytest]\npythonpath = projects/a\n")
    pytester.makeconftest(
        """
        import sys

        def pytest_sessionfinish(session):
            at = {p.rsplit("/", 1)[-1]: i for i, p in enumerate(sys.path)}
            libraries = min(i for i, p in enumerate(sys.path) if p.endswith("site-packages"))
            print("\\nBEFORE THE LIBRARIES", at["a"] < libraries, at["b"] < libraries)
        """
    )
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "-s")
    result.assert_outcomes(passed=2)
    result.stdout.fnmatch_lines(["BEFORE THE LIBRARIES True False"])


def test_a_missing_neighbour_imported_relatively_is_said_by_its_own_name(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    """It was "No module named '_arena_projects.a_767aa2f61e.nohelper'"."""
    make_project(
        "a",
        "models:\n  default: [mine]\n  define:\n"
        '    mine: {connector: python, callable: "agent:run"}\n'
        "tests:\n  - {id: t1, input: one, reference: one}\n",
        {"agent.py": "from .nohelper import V\n\n\ndef run(prompt):\n    return prompt\n"},
    )
    result = pytester.runpytest("-p", "no:cacheprovider")
    result.stdout.fnmatch_lines(
        [
            "*callable 'agent:run': importing 'agent' failed: no module 'nohelper' in *projects/a,"
            " which it imports relatively"
        ]
    )
    assert "_arena_projects" not in result.stdout.str()


ENDS_THE_RUN = """
import pytest

def answer(prompt):
    if prompt == "stop":
        pytest.exit("the agent has seen enough", returncode=3)
    return prompt
"""


@pytest.mark.parametrize("concurrency", [1, 8])
def test_an_agent_that_calls_pytest_exit_ends_the_run_as_a_test_would(
    pytester: pytest.Pytester, make_project: MakeProject, concurrency: int
) -> None:
    """`pytest.exit()` in an agent (and `q` in pytest's debugger, which raises it) ended
    one call as the agent's error, and the run went on with the next case."""
    cases = "".join(f"  - {{id: c{i}, input: 'c{i}', reference: 'c{i}'}}\n" for i in range(6))
    make_project(
        "quits",
        "models:\n  default: [mine]\n  define:\n"
        f'    mine: {{connector: python, callable: "agent:answer", concurrency: {concurrency}}}\n'
        "tests:\n  - {id: a, input: a, reference: a}\n"
        "  - {id: halt, input: stop, reference: stop}\n" + cases,
        {"agent.py": ENDS_THE_RUN},
    )
    result = pytester.runpytest("-p", "no:cacheprovider", "-p", "no:randomly")
    assert result.ret == 3  # the agent's return code, as pytest.exit() gives a test's
    result.stdout.fnmatch_lines(["*Exit: the agent has seen enough*"])
    result.assert_outcomes(passed=1)  # the case before it; none after it ran
    assert "c0[mine]" not in result.stdout.str()


def test_q_in_the_debugger_of_an_agents_breakpoint_ends_the_run(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    """`q` at an agent's `breakpoint()` (run with -s, as the agents guide says) failed that
    call with `raised Exit` and went on with the next case."""
    import subprocess
    import sys

    make_project(
        "debugged",
        "models:\n  default: [mine]\n  define:\n"
        '    mine: {connector: python, callable: "agent:answer", concurrency: 1}\n'
        "tests:\n  - {id: a, input: a, reference: a}\n  - {id: b, input: b, reference: b}\n",
        {"agent.py": "def answer(prompt):\n    breakpoint()\n    return prompt\n"},
    )
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-s", "-p", "no:cacheprovider", "-p", "no:randomly"],
        cwd=pytester.path,
        input="q\n",
        capture_output=True,
        text=True,
        timeout=60,
        env={k: v for k, v in os.environ.items() if k != "PYTHONBREAKPOINT"},
    )
    assert done.returncode == 2, done.stdout[-2000:]
    assert "Exit: Quitting debugger" in done.stdout
    assert "PASSED" not in done.stdout and "FAILED" not in done.stdout
