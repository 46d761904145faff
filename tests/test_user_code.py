"""The project's Python code runs with a time limit; an overrun fails its call, not the run."""

from __future__ import annotations

import asyncio
import threading
import time
from pathlib import Path

import pytest

from pytest_arena.evaluation import user_code
from pytest_arena.spec.python_files import ImportStuck, project_package
from tests.conftest import MakeProject


def test_a_call_returns_its_value_from_the_worker_thread() -> None:
    assert user_code.call(lambda a, b: (a + b, threading.current_thread().name), (1, 2), 5) == (
        3,
        "arena-user-code",
    )


def test_an_exception_reaches_the_caller_as_raised() -> None:
    def boom() -> None:
        raise SystemExit(3)

    with pytest.raises(SystemExit):
        user_code.call(boom, (), 5)


def test_a_call_that_overruns_is_left_behind_and_the_next_one_runs_at_once() -> None:
    release = threading.Event()
    stuck: list[threading.Thread] = []

    def hang() -> None:
        stuck.append(threading.current_thread())
        release.wait(30)

    started = time.monotonic()
    with pytest.raises(user_code.Overran, match=r"did not return within 0\.2 s"):
        user_code.call(hang, (), 0.2)
    assert time.monotonic() - started < 5
    nxt = user_code.call(threading.current_thread, (), 5)
    assert nxt is not stuck[0]  # a fresh worker, not the stuck one
    assert stuck[0].is_alive() and stuck[0].daemon  # left to finish; never holds up the exit
    release.set()
    stuck[0].join(5)
    assert not stuck[0].is_alive()  # done with its call, it ends


def test_an_async_function_is_awaited_within_the_limit() -> None:
    async def add(a: int, b: int) -> tuple[int, str]:
        await asyncio.sleep(0)
        return a + b, threading.current_thread().name

    assert user_code.call(add, (1, 2), 5) == (3, "arena-user-code")
    assert user_code.call(add, (1, 2), None) == (3, threading.current_thread().name)

    async def slow() -> None:
        await asyncio.sleep(30)

    with pytest.raises(user_code.Overran):
        user_code.call(slow, (), 0.2)


def test_an_async_function_is_awaited_where_a_loop_already_runs() -> None:
    async def inner() -> tuple[int, bool]:
        return 7, threading.current_thread().daemon  # a daemon: Ctrl-C never waits for it

    async def outer() -> tuple[int, bool]:
        result: tuple[int, bool] = user_code.call(inner, (), None)  # a loop runs here
        return result

    assert asyncio.run(outer()) == (7, True)


def test_an_import_that_never_ends_is_stopped_at_its_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "slow.py").write_text("import time\n\nX = 1\ntime.sleep(30)\n")
    monkeypatch.setattr(user_code, "DEFAULT_TIMEOUT", 0.3)
    package = project_package(tmp_path)
    with pytest.raises(ImportStuck, match=r"did not finish importing within 0\.3 s") as caught:
        user_code.import_file(tmp_path / "slow.py", package)
    assert caught.value.line == 4
    (tmp_path / "quick.py").write_text("X = 1\n")
    assert user_code.import_file(tmp_path / "quick.py", package).X == 1


def test_without_a_limit_the_call_stays_on_this_thread() -> None:
    assert (
        user_code.call(lambda: threading.current_thread(), (), None) is threading.current_thread()
    )


HANGING_SCORER = """
import time

from pytest_arena.scorers import Scorer, ScoreResult


class Stuck(Scorer):
    name = "stuck"

    def score(self, output, reference, context):
        if output == "2":
            time.sleep(300)  # never returns in any sane time
        return ScoreResult(1.0, True, "fine")
"""


def test_a_scorer_that_never_returns_fails_its_case_and_the_run_goes_on(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    make_project(
        "p",
        """
        models: [sim_perfect]
        scoring:
          - {scorer: stuck, timeout: 1}
        tests:
          - {id: one, input: "1", reference: "1"}
          - {id: two, input: "2", reference: "2"}
          - {id: three, input: "3", reference: "3"}
        """,
        {"scorers/stuck.py": HANGING_SCORER},
    )
    started = time.monotonic()
    result = pytester.runpytest("-q", "-rf")
    assert time.monotonic() - started < 30
    result.assert_outcomes(passed=2, failed=1)
    result.stdout.fnmatch_lines(
        ["*scorer 'stuck' did not return within 1 s; its thread is left to finish*"]
    )
    result.stdout.fnmatch_lines(["*arena leaderboard: p*"])


def test_a_scorer_class_may_run_unbounded_on_pytests_thread(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    make_project(
        "p",
        """
        models: [sim_perfect]
        scorers: {default: here}
        tests:
          - {id: one, input: "1", reference: "1"}
        """,
        {
            "scorers/here.py": """
            import threading

            from pytest_arena.scorers import Scorer, ScoreResult


            class Here(Scorer):
                name = "here"
                timeout = None

                def score(self, output, reference, context):
                    main = threading.current_thread() is threading.main_thread()
                    return ScoreResult(1.0 if main else 0.0, main, "on pytest's thread")
            """
        },
    )
    pytester.runpytest("-q").assert_outcomes(passed=1)


def test_a_hook_that_never_returns_fails_its_case(
    pytester: pytest.Pytester, make_project: MakeProject, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(user_code, "DEFAULT_TIMEOUT", 1.0)  # hooks use the default
    make_project(
        "p",
        """
        models: [sim_perfect]
        tests:
          - {id: one, input: "1", reference: "1"}
        """,
        {
            "hooks.py": "import time\n\ndef post_process(output, case, context):\n    time.sleep(300)\n"
        },
    )
    result = pytester.runpytest("-q", "-rf")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*hooks.py post_process did not return within 1 s*"])


GOOD = "models: [sim_perfect]\ntests: [{id: a, input: x, reference: x}]\n"  # runs beside


def scorer_file(cls: str, name: str, lines: str, head: str = "") -> str:
    """A scorers/ file: `head`, then one class `cls` named `name` with `lines` in its body."""
    body = "".join(f"    {line}\n" for line in lines.splitlines())
    return (
        f"{head}from pytest_arena.scorers import Scorer, ScoreResult\n\n\n"
        f"class {cls}(Scorer):\n    name = {name!r}\n{body}\n"
        "    def score(self, output, reference, context):\n"
        "        return ScoreResult(1.0, True, 'fine')\n"
    )


BROKEN_SCORERS = {
    "waits": "time.sleep(300)  # a server that never answers",
    "exits": "sys.exit('no config file')",
}


@pytest.mark.parametrize("how", sorted(BROKEN_SCORERS))
def test_a_scorer_whose_init_never_returns_or_exits_is_a_problem_of_its_project(
    pytester: pytest.Pytester, make_project: MakeProject, monkeypatch: pytest.MonkeyPatch, how: str
) -> None:
    monkeypatch.setattr(user_code, "DEFAULT_TIMEOUT", 0.5)
    init = f"def __init__(self):\n    {BROKEN_SCORERS[how]}"
    scorer = scorer_file("Broken", "broken", init, head="import sys\nimport time\n\n")
    make_project(
        "bad",
        "models: [sim_perfect]\nscorers: {default: broken}\ntests: [{id: a, input: x}]\n",
        {"scorers/broken.py": scorer},
    )
    make_project("good", GOOD)
    started = time.monotonic()
    result = pytester.runpytest("-p", "no:cacheprovider", "-rE")
    assert time.monotonic() - started < 30
    assert result.ret == 1
    result.assert_outcomes(passed=1, errors=2)  # the scorer file, and the default it names
    said = (
        "Overran: did not return within 0.5 s" if how == "waits" else "SystemExit: no config file"
    )
    result.stdout.fnmatch_lines(
        [
            f"projects/bad/scorers/broken.py:7: scorer Broken cannot be created without"
            f" arguments: {said}",
            "  fix: its __init__ runs once, when the project loads: make it work there",
        ]
    )


@pytest.mark.parametrize(
    ("attribute", "said"),
    [
        ("options_model = dict", "its options_model is <class 'dict'>, not a pydantic model"),
        ("name = 5", "its name is 5"),
        ("timeout = 'abc'", "its timeout is 'abc'"),
        ("timeout = -1", "its timeout is -1"),
    ],
)
def test_a_scorer_class_attribute_of_the_wrong_kind_is_a_problem_at_the_class(
    pytester: pytest.Pytester, make_project: MakeProject, attribute: str, said: str
) -> None:
    make_project(
        "bad",
        "models: [sim_perfect]\ntests: [{id: a, input: x, reference: x, eval_type: nosuch}]\n",
        {"scorers/odd.py": scorer_file("Odd", "odd", attribute)},
    )
    make_project("good", GOOD)
    result = pytester.runpytest("-p", "no:cacheprovider", "-rE")
    assert result.ret == 1
    result.assert_outcomes(passed=1, errors=2)
    result.stdout.fnmatch_lines([f"*projects/bad/scorers/odd.py:4: scorer class Odd: {said}*"])
