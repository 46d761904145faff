"""hooks.py: misspelt hooks, wrong signatures, imports that fail, hooks that raise, return the
wrong type, exit, or never return."""

from __future__ import annotations

from tests.corpus.kit import Entry, Outcome, Run, category, hooked

# -- hooks.py -------------------------------------------------------------------------------

hooks = category("hooks")

hooks(
    "hook_misspelt",
    hooked(
        "def _helper(text):\n    return text\n\n\ndef post_proces(output, case, context):\n    return output\n"
    ),
    "projects/hook_misspelt/hooks.py:5: 'post_proces' is not a hook, so it is never called;"
    " its parameters are post_process's; did you mean 'post_process'?",
    "  fix: rename it to 'post_process', or start its name with '_' if it is a helper",
)
hooks(
    "hook_misspelt_pre_request",
    hooked("def prerequest(request, case, context):\n    return None\n"),
    "projects/hook_misspelt_pre_request/hooks.py:1: 'prerequest' is not a hook*did you mean 'pre_request'?",
)
hooks(
    "hook_too_few_arguments",
    hooked("def post_process(output):\n    return output\n"),
    "projects/hook_too_few_arguments/hooks.py:1: post_process must accept the arguments (output, case, context)",
    "  fix: define it as 'def post_process(output, case, context):'",
)
hooks(
    "hook_too_many_arguments",
    hooked("def pre_request(request, case, context, extra):\n    return None\n"),
    "projects/hook_too_many_arguments/hooks.py:1: pre_request must accept the arguments (request, case, context)",
    "  fix: define it as 'def pre_request(request, case, context):'",
)
hooks(
    "hook_override_wrong_arguments",
    hooked("def override_verdict(result, case):\n    return None\n"),
    "projects/hook_override_wrong_arguments/hooks.py:1: override_verdict must accept the"
    " arguments (result, output, case, context)",
)
hooks(
    "hook_not_a_function",
    hooked("post_process = 'strip'\n"),
    "projects/hook_not_a_function/hooks.py:1: post_process must be a function, not str",
    "  fix: define it as 'def post_process(output, case, context):'",
)
hooks(
    "hook_import_error",
    hooked("import json\nimport no_such_module_for_hooks\n"),
    "projects/hook_import_error/hooks.py:2: hooks.py failed to import: ModuleNotFoundError: No"
    " module named 'no_such_module_for_hooks'",
    "  fix: fix the error and run again; other files still load",
)
hooks(
    "hook_syntax_error",
    hooked("def post_process(output, case, context)\n    return output\n"),
    "projects/hook_syntax_error/hooks.py:1: hooks.py failed to import: SyntaxError: *",
)
hooks(
    "hook_raises_at_import",
    hooked("SETTINGS = {}\nLIMIT = SETTINGS['limit']\n"),
    "projects/hook_raises_at_import/hooks.py:2: hooks.py failed to import: KeyError: 'limit'",
)
hooks(
    "hook_raises",
    hooked("def post_process(output, case, context):\n    raise KeyError('total')\n"),
    "hooks.py post_process raised KeyError: 'total'",
    '  File "*/hook_raises/hooks.py", line 2, in post_process',
    traceback=True,
)
hooks(
    "hook_pre_request_raises",
    hooked("def pre_request(request, case, context):\n    return 1 / 0\n"),
    "hooks.py pre_request raised ZeroDivisionError: division by zero",
    '  File "*/hook_pre_request_raises/hooks.py", line 2, in pre_request',
    traceback=True,
)
hooks(
    "hook_returns_none",
    hooked("def post_process(output, case, context):\n    output.upper()\n"),
    "hooks.py post_process returned NoneType; it must return a string",
)
hooks(
    "hook_returns_bytes",
    hooked("def post_process(output, case, context):\n    return output.encode()\n"),
    "hooks.py post_process returned bytes; it must return a string",
)
hooks(
    "hook_pre_request_returns_text",
    hooked(
        "def pre_request(request, case, context):\n    return 'Answer briefly. ' + case.input\n"
    ),
    "hooks.py pre_request returned str; return the request (or None after changing it in place)",
)
# A hooks.py that never finishes being imported, under a limit of 1 s (the run's conftest.py
# lowers the default): its project is an error at the line it waits on, the rest runs.
category("hook_hangs_at_import", Run(subprocess=True, seconds=25, hook_timeout=1.0))(
    "hook_never_imported",
    hooked("import threading\n\nthreading.Event().wait()\n"),
    "projects/hook_never_imported/hooks.py:3: hooks.py did not finish importing within 1 s;"
    " it was still running this line",
    "  fix: do not wait at import time*",
)


def nothing_unawaited(outcome: Outcome, entry: Entry) -> None:
    """An `async def` hook or scorer is awaited: no coroutine is left for the garbage collector
    to warn of."""
    assert "never awaited" not in outcome.stdout + outcome.stderr, outcome.stdout[-2000:]
    assert all(r["status"] == "passed" for r in outcome.records), outcome.records


# An `async def` hook is awaited (on the hook's worker thread, within its time limit): it is
# no mistake. A run of its own, so that a coroutine left unawaited would be warned of in it.
category("hook_async", Run(subprocess=True))(
    "hook_async_post_process",
    hooked("async def post_process(output, case, context):\n    return output.strip()\n"),
    kind="runs",
    check=nothing_unawaited,
)
hooks(
    "hook_override_without_reason",
    hooked(
        "from pytest_arena.scorers import ScoreResult\n\n\n"
        "def override_verdict(result, output, case, context):\n    return ScoreResult(0.0, False)\n"
    ),
    "hooks.py override_verdict changed the verdict without a reason; give one",
)
hooks(
    "hook_override_returns_text",
    hooked("def override_verdict(result, output, case, context):\n    return 'failed'\n"),
    "hooks.py override_verdict returned str; return a ScoreResult, or None to keep the scorer's verdict",
)
hooks(
    "hook_sys_exit",
    hooked("import sys\n\n\ndef post_process(output, case, context):\n    sys.exit(2)\n"),
    "hooks.py post_process raised SystemExit: 2",
    '  File "*/hook_sys_exit/hooks.py", line 5, in post_process',
    traceback=True,
)

# A hooks.py that exits while it is imported: a run of its own, should it end the whole run.
category("hook_exit_at_import", Run(subprocess=True))(
    "hook_sys_exit_at_import",
    hooked("import sys\n\nsys.exit('hooks.py is not ready')\n"),
    "projects/hook_sys_exit_at_import/hooks.py:3: hooks.py failed to import: SystemExit: hooks.py is not ready",
)

# A hook that never returns, under a limit of 1 s (hooks.py has no setting of its own for
# it: the run's conftest.py lowers the default): a run of its own.
category("hook_timeout", Run(seconds=25, hook_timeout=1.0, subprocess=True))(
    "hook_never_returns",
    hooked(
        "import threading\n\n\ndef post_process(output, case, context):\n"
        "    if output == 'x':\n        threading.Event().wait()\n    return output\n"
    ),
    "hooks.py post_process did not return within 1 s*",
)
