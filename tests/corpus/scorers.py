"""Scorer classes in scorers/*.py: files that do not import, classes that cannot be used,
names taken twice or unknown, bad options, and scorers that raise, return the wrong thing,
exit or never return."""

from __future__ import annotations

import sys
import textwrap

from tests.corpus.hooks import nothing_unawaited
from tests.corpus.kit import OK_CASE, Run, case_yaml, category

# -- scorers in scorers/*.py ---------------------------------------------------------------

scorers = category("scorers")

SCORED = case_yaml(
    "{id: a, input: x, reference: x, eval_type: mine}\n{id: b, input: y, reference: y, eval_type: mine}"
)


def scorer_file(body: str, head: str = "") -> str:
    """A scorers/*.py file: a Scorer class named 'mine' whose score() is `body`."""
    return (
        f"{head}from pytest_arena.scorers import Scorer, ScoreResult\n\n\n"
        "class Mine(Scorer):\n"
        "    name = 'mine'\n\n"
        "    def score(self, output, reference, context):\n"
        + textwrap.indent(textwrap.dedent(body).strip("\n"), " " * 8)
        + "\n"
    )


def with_scorer(text: str, name: str = "mine.py", arena: str = SCORED) -> dict[str, str]:
    return {"arena.yaml": arena, f"scorers/{name}": text}


scorers(
    "scorer_import_error",
    with_scorer("import json\nimport no_such_module_for_scorers\n"),
    "projects/scorer_import_error/scorers/mine.py:2: scorer file scorers/mine.py failed to import:"
    " ModuleNotFoundError: No module named 'no_such_module_for_scorers'",
    "  fix: fix the error and run again; other files still load",
    "projects/scorer_import_error/arena.yaml:3: eval_type: no scorer is named 'mine'; known"
    " scorers: *; these scorer files failed to load and may define it: mine.py",
)
scorers(  # the seed's own import line: the API was first written under that name
    "scorer_seed_import",
    with_scorer(
        scorer_file("return ScoreResult(1.0, True, 'ok')").replace("pytest_arena", "agent_arena")
    ),
    "projects/scorer_seed_import/scorers/mine.py:1: scorer file scorers/mine.py failed to import:"
    " ModuleNotFoundError: No module named 'agent_arena'",
    "  fix: the package is pytest_arena: write 'from pytest_arena.scorers import Scorer,"
    " ScoreResult' where the file says agent_arena",
)
scorers(
    "scorer_syntax_error",
    with_scorer(scorer_file("return ScoreResult(1.0, True, 'ok'") + "\n\nx = 1\n"),
    "projects/scorer_syntax_error/scorers/mine.py:8: scorer file scorers/mine.py failed to import:"
    " SyntaxError: '(' was never closed (mine.py, line 8)",
    "  fix: fix the error and run again; other files still load",
)
scorers(
    "scorer_raises_at_import",
    with_scorer("CONFIG = {}\nLIMIT = CONFIG['limit']\n"),
    "projects/scorer_raises_at_import/scorers/mine.py:2: scorer file scorers/mine.py failed to"
    " import: KeyError: 'limit'",
)
scorers(
    "scorer_without_score",
    with_scorer(
        "from pytest_arena.scorers import Scorer\n\n\nclass Mine(Scorer):\n    name = 'mine'\n\n"
        "    def scores(self, output, reference, context):\n        return None\n"
    ),
    "projects/scorer_without_score/scorers/mine.py:4: scorer class Mine (name 'mine') lacks"
    " score(), so it cannot be used",
    "  fix: define 'def score(self, output, reference, context):' returning a ScoreResult",
)
scorers(
    "scorer_duplicate_name",
    {
        "arena.yaml": SCORED,
        "scorers/a_mine.py": scorer_file("return ScoreResult(1.0, True, 'a')"),
        "scorers/b_mine.py": scorer_file("return ScoreResult(1.0, True, 'b')"),
    },
    "projects/scorer_duplicate_name/scorers/b_mine.py:4: scorer name 'mine' of Mine is already"
    " taken by a_mine.py:4",
    "  fix: give each scorer its own `name`",
)
scorers(
    "scorer_takes_builtin_name",
    with_scorer(
        scorer_file("return ScoreResult(1.0, True, 'mine')").replace("'mine'", "'exact_match'", 1)
    ),
    "projects/scorer_takes_builtin_name/scorers/mine.py:4: scorer name 'exact_match' of Mine is"
    " already taken by a builtin",
    "  fix: give each scorer its own `name`",
)
scorers(
    "scorer_needs_arguments",
    with_scorer(
        scorer_file("return ScoreResult(1.0, True, 'ok')").replace(
            "    name = 'mine'\n",
            "    name = 'mine'\n\n    def __init__(self, floor):\n        self.floor = floor\n",
        )
    ),
    "projects/scorer_needs_arguments/scorers/mine.py:4: scorer Mine cannot be created without"
    " arguments: TypeError: *",
    "  fix: read settings from context.options instead of __init__ arguments",
)
scorers(
    "scorer_unknown_name",
    with_scorer(
        scorer_file("return ScoreResult(1.0, True, 'ok')"), arena=SCORED.replace("mine}", "mien}")
    ),
    "projects/scorer_unknown_name/arena.yaml:3: eval_type: no scorer is named 'mien' (did you"
    " mean 'mine'?); known scorers: *",
)
scorers(
    "scorer_rejects_options",
    with_scorer(
        "from pydantic import BaseModel, ConfigDict\n\n"
        "from pytest_arena.scorers import Scorer, ScoreResult\n\n\n"
        "class Options(BaseModel):\n    model_config = ConfigDict(extra='forbid')\n    floor: float = 0.5\n\n\n"
        "class Mine(Scorer):\n    name = 'mine'\n    options_model = Options\n\n"
        "    def score(self, output, reference, context):\n        return ScoreResult(1.0, True, 'ok')\n",
        arena="models: [sim_perfect]\nscorers:\n  default: mine\n  options:\n    mine: {flor: 0.9}\n"
        + OK_CASE,
    ),
    "projects/scorer_rejects_options/arena.yaml:5: scorers.options.mine: scorer 'mine': unknown"
    " option 'flor' (valid options: floor)",
)
scorers(
    "scorer_raises",
    with_scorer(scorer_file("raise ValueError('cannot parse the amount')")),
    "scorer 'mine' raised ValueError: cannot parse the amount",
    "Traceback (most recent call last):",
    '  File "*/scorer_raises/scorers/mine.py", line 8, in score',
    "ValueError: cannot parse the amount",
    traceback=True,
)
scorers(
    "scorer_returns_number",
    with_scorer(scorer_file("return 1.0")),
    "scorer 'mine' returned float; it must return a ScoreResult",
)
scorers(
    "scorer_returns_none",
    with_scorer(scorer_file("ScoreResult(1.0, True, 'built and dropped')")),
    "scorer 'mine' returned NoneType; it must return a ScoreResult",
)
scorers(
    "scorer_returns_dict",
    with_scorer(scorer_file("return {'score': 1.0, 'passed': True}")),
    "scorer 'mine' returned dict; it must return a ScoreResult",
)
scorers(
    "scorer_score_above_one",
    with_scorer(scorer_file("return ScoreResult(2.0, True, 'very good')")),
    "scorer 'mine' raised ScoreResultError: ScoreResult.score must be between 0 and 1, got 2.0",
    '  File "*/scorer_score_above_one/scorers/mine.py", line 8, in score',
    traceback=True,
)
scorers(
    "scorer_passed_text",
    with_scorer(scorer_file("return ScoreResult(1.0, 'yes', 'fine')")),
    "scorer 'mine' raised ScoreResultError: ScoreResult.passed must be True, False or None, got 'yes'",
    '  File "*/scorer_passed_text/scorers/mine.py", line 8, in score',
    traceback=True,
)
scorers(
    "scorer_metric_text",
    with_scorer(scorer_file("return ScoreResult(1.0, True, 'ok', metrics={'words': 'many'})")),
    "scorer 'mine' raised ScoreResultError: metric 'words' must be a finite number, got str 'many'",
    '  File "*/scorer_metric_text/scorers/mine.py", line 8, in score',
    traceback=True,
)
scorers(
    "scorer_wrong_signature",
    with_scorer(
        "from pytest_arena.scorers import Scorer, ScoreResult\n\n\nclass Mine(Scorer):\n"
        "    name = 'mine'\n\n    def score(self, output):\n        return ScoreResult(1.0, True, 'ok')\n"
    ),
    "projects/scorer_wrong_signature/scorers/mine.py:7: Mine.score() must accept the arguments"
    " (output, reference, context)",
    "  fix: define it as 'def score(self, output, reference, context):'",
)

# An `async def score` is awaited (on the scorer's worker thread, within its time limit): it
# is no mistake. A run of its own, so that a coroutine left unawaited would be warned of in it.
category("scorer_async", Run(subprocess=True))(
    "scorer_async_score",
    with_scorer(
        "import asyncio\n\nfrom pytest_arena.scorers import Scorer, ScoreResult\n\n\n"
        "class Mine(Scorer):\n    name = 'mine'\n\n"
        "    async def score(self, output, reference, context):\n"
        "        await asyncio.sleep(0)\n"
        "        return ScoreResult(float(output == reference), output == reference, 'ok')\n"
    ),
    kind="runs",
    check=nothing_unawaited,
)
scorers(
    "scorer_sys_exit",
    with_scorer(scorer_file("sys.exit(3)", head="import sys\n\n")),
    "scorer 'mine' raised SystemExit: 3",
    '  File "*/scorer_sys_exit/scorers/mine.py", line 10, in score',
    traceback=True,
)
# a BaseException of its own, or a task of its own cancelled, is the scorer's mistake: it was
# a thousand lines of pytest's own traceback, led by "RuntimeError: no running event loop"
scorers(
    "scorer_own_base_exception",
    with_scorer(
        scorer_file("raise Odd('no grade')", head="class Odd(BaseException):\n    pass\n\n\n")
    ),
    "scorer 'mine' raised Odd: no grade",
    '  File "*/scorer_own_base_exception/scorers/mine.py", line 12, in score',
    traceback=True,
)
LINE_12 = '  File "*/scorer_cancelled_task/scorers/mine.py", line 12, in score'
scorers(
    "scorer_cancelled_task",
    with_scorer(
        "import asyncio\n\nfrom pytest_arena.scorers import Scorer, ScoreResult\n\n\n"
        "class Mine(Scorer):\n    name = 'mine'\n\n"
        "    async def score(self, output, reference, context):\n"
        "        task = asyncio.ensure_future(asyncio.sleep(10))\n"
        "        asyncio.get_running_loop().call_soon(task.cancel)\n"
        "        await task\n"
    ),
    "scorer 'mine' raised CancelledError",
    # Python 3.10 makes the CancelledError anew out of the loop's frames: no line to show
    *(() if sys.version_info < (3, 11) else (LINE_12,)),
    traceback=sys.version_info >= (3, 11),
)
# an exception whose own str() fails was "pytest-arena could not grade the answer"
scorers(
    "scorer_unsayable_exception",
    with_scorer(
        scorer_file(
            "raise Mute()",
            head="class Mute(Exception):\n    def __str__(self):\n        raise ValueError\n\n\n",
        )
    ),
    "scorer 'mine' raised Mute: <its message could not be made: ValueError>",
    '  File "*/scorer_unsayable_exception/scorers/mine.py", line 13, in score',
    traceback=True,
)
scorers(
    "scorer_non_utf8_source",
    {
        "arena.yaml": SCORED,
        "scorers/mine.py": scorer_file("return ScoreResult(1.0, True, 'caf\xe9')").encode(
            "latin-1"
        ),
    },
    "projects/scorer_non_utf8_source/scorers/mine.py:8: scorer file scorers/mine.py failed to"
    " import: SyntaxError: "
    + (
        "(unicode error) 'utf-8' codec can't decode byte 0xe9*"
        if sys.version_info < (3, 14)
        else "Non-UTF-8 code starting with '?xe9' on line 8*"  # Python 3.14's words
    ),
)
scorers(
    "scorer_binary_file",
    {"arena.yaml": SCORED, "scorers/mine.py": b"\x7fELF\x02\x01\x01\x00\x00\x00\x00"},
    # a SyntaxError from Python 3.12 on, a ValueError before
    "projects/scorer_binary_file/scorers/mine.py:1: scorer file scorers/mine.py failed to import:"
    " *: source code string cannot contain null bytes",
)

# A scorer file that exits while it is imported: a run of its own, should it end the whole run.
category("scorer_exit_at_import", Run(subprocess=True))(
    "scorer_sys_exit_at_import",
    with_scorer("import sys\n\nsys.exit('scorers are not ready')\n"),
    "projects/scorer_sys_exit_at_import/scorers/mine.py:3: scorer file scorers/mine.py failed to"
    " import: SystemExit: scorers are not ready",
)


# A scorer that never returns, under `timeout: 1` on its scoring entry: a run of its own, so
# that its time is its own.

category("scorer_timeout", Run(seconds=25, subprocess=True))(
    "scorer_never_returns",
    {
        "arena.yaml": case_yaml(
            "{id: a, input: x, reference: x, scoring: [{scorer: mine, timeout: 1}]}\n"
            "{id: b, input: y, reference: y, scoring: [{scorer: mine, timeout: 1}]}"
        ),
        "scorers/mine.py": scorer_file(
            "if output == 'x':\n    threading.Event().wait()\nreturn ScoreResult(1.0, True, 'ok')",
            head="import threading\n\n",
        ),
    },
    "scorer 'mine' did not return within 1 s; its thread is left to finish*",
)
