"""Script scorers and `command:` components: programs that are missing, not executable, print
nothing or no score, exit with an error, are killed, time out, or leave a child behind."""

from __future__ import annotations

from collections.abc import Mapping

import pytest

from tests.corpus.kit import OK_CASE, PY, Run, case_yaml, category

# -- script scorers -------------------------------------------------------------------------

scripts = category("scripts")

SCRIPTED = case_yaml(
    "{id: a, input: x, reference: x, eval_type: check}\n{id: b, input: y, reference: y, eval_type: check}"
)


def script(body: str, name: str = "check.sh", arena: str = SCRIPTED) -> dict[str, str]:
    """A project graded by the executable `scorers/<name>`: a shell script running `body`."""
    return {"arena.yaml": arena, f"scorers/{name}": f"#!/bin/sh\n{body}\n"}


def commanded(command: str, files: Mapping[str, str] | None = None) -> dict[str, str]:
    """A project graded by a `command:` component (`command` is its flow list)."""
    arena = case_yaml(f"{{id: a, input: x, reference: x, scoring: [{{command: {command}}}]}}")
    return {"arena.yaml": arena, **(files or {})}


EXECUTABLE = ("scorers/check.sh",)

scripts(
    "script_missing_program",
    commanded("[no-such-scorer-program, --strict]"),
    "projects/script_missing_program/arena.yaml:3: scoring: command 'no-such-scorer-program"
    " --strict' cannot be started: program 'no-such-scorer-program' not found on PATH",
    "  fix: give a path relative to the folder holding arena.yaml, or a program on PATH",
)
scripts(
    "script_program_not_executable",
    commanded("[checks/grade.sh]", {"checks/grade.sh": "#!/bin/sh\necho 1\n"}),
    "projects/script_program_not_executable/arena.yaml:3: scoring: command 'checks/grade.sh'"
    " cannot be started: program 'checks/grade.sh' is not executable (chmod +x checks/grade.sh)",
)
scripts(
    "script_missing_file",
    commanded(f"['{PY}', checks/absent.py]"),
    "command '* checks/absent.py' exited with status 2; end of stderr: *can't open file*absent.py*",
)
scripts(
    "script_not_executable",
    {"arena.yaml": SCRIPTED, "scorers/check.py3": "#!/usr/bin/env python3\nprint(1)\n"},
    "projects/script_not_executable/scorers/check.py3:1: scorers/check.py3 starts with '#!' but is"
    " not executable",
    "  fix: make it a script scorer with: chmod +x scorers/check.py3",
)
scripts(
    "script_bad_interpreter",
    {"arena.yaml": SCRIPTED, "scorers/check": "#!/no/such/interpreter\nprint(1)\n"},
    "script scorers/check could not be started: *",
    executable=("scorers/check",),
)
scripts(
    "script_prints_nothing",
    script("exit 0"),
    "script scorers/check.sh printed nothing; it must print a score as its last line",
    executable=EXECUTABLE,
)
scripts(
    "script_prints_garbage",
    script("echo 'the score is'\necho 'great!'"),
    "script scorers/check.sh printed 'great!' as its last line, which is not a score (a number"
    " from 0 to 1, or a JSON object with 'score')",
    executable=EXECUTABLE,
)
scripts(
    "script_score_above_one",
    script("echo 1.7"),
    "script scorers/check.sh printed 1.7, which is outside 0-1",
    executable=EXECUTABLE,
)
scripts(
    "script_score_negative",
    script("echo -0.5"),
    "script scorers/check.sh printed -0.5, which is outside 0-1",
    executable=EXECUTABLE,
)
scripts(
    "script_score_nan",
    script("echo nan"),
    "script scorers/check.sh printed nan, which is outside 0-1",
    executable=EXECUTABLE,
)
scripts(
    "script_json_score_text",
    script("""echo '{"score": "high"}'"""),
    """script scorers/check.sh printed '{"score": "high"}', whose 'score' is not a number""",
    executable=EXECUTABLE,
)
scripts(
    "script_json_score_above_one",
    script("""echo '{"score": 3, "passed": true}'"""),
    "script scorers/check.sh printed a score of 3, which is outside 0-1",
    executable=EXECUTABLE,
)
scripts(
    "script_json_passed_text",
    script("""echo '{"score": 1, "passed": "yes"}'"""),
    "script scorers/check.sh printed 'passed': 'yes'; use true, false or null",
    executable=EXECUTABLE,
)
scripts(
    "script_json_metrics_text",
    script("""echo '{"score": 1, "metrics": {"words": "many"}}'"""),
    "script scorers/check.sh printed metrics that are not all finite numbers: ['words']",
    executable=EXECUTABLE,
)
scripts(
    "script_exits_non_zero",
    script("echo 'jq: command not found' >&2\nexit 3"),
    "script scorers/check.sh exited with status 3; end of stderr: 'jq: command not found'",
    executable=EXECUTABLE,
)
scripts(
    "script_killed_by_signal",
    script("echo 'about to die' >&2\nkill -9 $$"),
    "script scorers/check.sh was killed by signal 9 (SIGKILL); end of stderr: 'about to die'",
    executable=EXECUTABLE,
)
scripts(
    "script_takes_builtin_name",
    {
        **script("echo 1", name="exact_match.sh"),
        "arena.yaml": OK_CASE.join(["models: [sim_perfect]\n", ""]),
    },
    "projects/script_takes_builtin_name/scorers/exact_match.sh:1: script scorer name 'exact_match'"
    " is already taken by a builtin",
    "  fix: rename the script",
    executable=("scorers/exact_match.sh",),
)

# A script that never returns in time: its own run, so that its time is its own.
category("script_timeout", Run(seconds=20))(
    "script_times_out",
    {
        **script("echo starting >&2\nsleep 30\necho 1"),
        "arena.yaml": "models: [sim_perfect]\nscorers:\n  options:\n    check: {timeout: 0.5}\n"
        + SCRIPTED.split("\n", 1)[1],
    },
    "script scorers/check.sh timed out after 0.5 s; end of stderr: 'starting'",
    executable=EXECUTABLE,
)
# A script that leaves a child holding its output open: scored at once, the child ended.
category("script_child", Run(seconds=20, status=pytest.ExitCode.OK))(
    "script_background_child",
    script("sleep 300 &\necho 1"),
    kind="runs",
    executable=EXECUTABLE,
)
