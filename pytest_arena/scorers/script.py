"""Script scorers: any program that reads a JSON context and prints a score.

The context goes in the environment variables `ARENA_SCORER_CONTEXT` and
`RL_SCORER_CONTEXT` (so scripts written for Runloop's custom scorers run as they
are), and the model's output also goes in a file named by `output_file`. The
output never passes through a shell or a command line. What the script is given is
valid UTF-8: a lone surrogate (half of a UTF-16 pair, as a model's JSON may hold) is a
`\\ud83d` escape in the JSON, and U+FFFD in `output_file`.
"""

from __future__ import annotations

import json
import math
import os
import shlex
import shutil
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from pytest_arena.engine import processes
from pytest_arena.numbers import at_least
from pytest_arena.record import json_safe, long_int_said
from pytest_arena.scorers.base import ScoreResult, ScoringContext, within_0_1
from pytest_arena.scorers.text import excerpt, printable
from pytest_arena.secrets import environment_secrets, redacted
from pytest_arena.spec.surrogates import json_text, replaced

CONTEXT_VARS = ("ARENA_SCORER_CONTEXT", "RL_SCORER_CONTEXT")
DEFAULT_TIMEOUT = 30.0
_ENV_LIMIT = 100_000  # one environment string may hold at most 128 KiB on Linux
_OUTPUT_KEPT = 2_000  # characters of a long output the variable keeps
_CASE_PART_LIMIT = 2_000  # characters of JSON a case's input, reference or metadata keeps
_CUT_LAST = ("case", "output", "output_truncated", "response", "trajectory", "cut")
_STDERR_TAIL = 400
_MAX_OUTPUT = f"{processes.MAX_OUTPUT // 2**20} MiB"  # of stdout or stderr, read back


class ScriptFailed(Exception):
    """The script could not score the output (it timed out, exited with an error, printed no
    score): its case is an error, as when a Python scorer raises, not the model's failure."""


class ScriptScorer:
    """Runs `argv` for each output; `label` names it in reasons."""

    def __init__(self, name: str, argv: Sequence[str], shown: str) -> None:
        self.name = name
        self.argv = list(argv)
        self.shown = shown

    @classmethod
    def from_command(cls, name: str, command: str | list[str]) -> ScriptScorer:
        argv = shlex.split(command) if isinstance(command, str) else list(command)
        return cls(name, argv, f"command '{shlex.join(argv)}'")

    def unstartable(self, project_root: Path) -> str | None:
        """Why the program cannot be started from `project_root` (where it runs), or None:
        a path is taken from there, a bare name from PATH."""
        if not self.argv or not self.argv[0]:
            return "the command is empty"
        program = self.argv[0]
        if os.sep in program or (os.altsep and os.altsep in program):
            path = project_root / program
            if path.is_file() and os.access(path, os.X_OK):
                return None
            if path.is_file():
                return f"program '{program}' is not executable (chmod +x {program})"
            return f"program '{program}' not found in {project_root}"
        if shutil.which(program) is None:
            return f"program '{program}' not found on PATH"
        return None

    @staticmethod
    def option_problem(options: Mapping[str, Any]) -> tuple[str, str] | None:
        """(the option, what is wrong with it and the fix) if `timeout` is not seconds above
        0 or `pass_threshold` not a number from 0 to 1; None if both can be used."""
        if options.get("timeout") is not None:  # None: the default
            value = options["timeout"]
            if not (_number(value) and 0 < value < math.inf):
                return "timeout", (
                    f"option 'timeout' is {excerpt(value)}, not a number of seconds above 0"
                    "\n  fix: give the seconds the script may take, such as timeout: 30"
                )
        if options.get("pass_threshold") is not None:
            value = options["pass_threshold"]
            if not (_number(value) and 0 <= value <= 1):
                return "pass_threshold", (
                    f"option 'pass_threshold' is {excerpt(value)}, not a number from 0 to 1"
                    "\n  fix: give the score at which a bare number passes, such as"
                    " pass_threshold: 0.5"
                )
        return None

    def score(self, output: str, reference: Any, context: ScoringContext) -> ScoreResult:
        options = dict(context.options)
        timeout = float(options.get("timeout") or DEFAULT_TIMEOUT)
        given = options.get("pass_threshold")
        pass_threshold = 1.0 if given is None else float(given)
        with tempfile.TemporaryDirectory(prefix="arena-score-") as scratch:
            workspace = Path(context.workspace) if context.workspace else Path(scratch)
            output_file = Path(scratch) / "output.txt"
            output_file.write_text(replaced(output), encoding="utf-8")
            context_file = Path(scratch) / "context.json"
            places = {
                "output_file": str(output_file),
                "context_file": str(context_file),
                "project_root": str(context.project_root),
                "workspace": str(workspace),
            }
            payload = script_context(output, reference, context, places)
            context_file.write_text(json_text(payload), encoding="utf-8")
            env = {**os.environ, **dict.fromkeys(CONTEXT_VARS, _fit(payload))}
            # what the script says, read and quoted without the secrets it was started with
            secrets = environment_secrets(env)
            try:
                done = processes.run(self.argv, cwd=context.project_root, env=env, timeout=timeout)
            except processes.TimedOut as exc:
                raise self._failure(str(exc), _stderr_said(exc.stderr, secrets)) from None
            except OSError as exc:
                why = processes.shebang_problem(Path(context.project_root), self.argv[0], exc)
                raise self._failure(f"could not be started: {why}", "") from None
        stderr = _stderr_said(done.stderr, secrets)
        if done.stdout_cut:  # its last line, the score, is lost: a line of the middle is none
            # (said before its exit status: a script writing past the limit is stopped then)
            raise self._failure(
                f"printed more than {_MAX_OUTPUT} to stdout, more than arena reads, so its"
                " output was cut and is not graded; print the score (a number, or a JSON"
                " object) alone as the last line, and the rest to stderr or to a file",
                stderr,
            )
        if done.returncode != 0:
            raise self._failure(done.how(), stderr)
        return self._read(_text(done.stdout, secrets), stderr, pass_threshold)

    def _read(self, stdout: str, stderr: str, pass_threshold: float) -> ScoreResult:
        """The score `stdout` ends with; `stderr`: what a failure says of stderr."""
        lines = [line.strip() for line in stdout.splitlines() if line.strip()]
        if not lines:
            raise self._failure("printed nothing; it must print a score as its last line", stderr)
        last = lines[-1]
        data: Any
        long: dict[str, int] = {}  # integers too long for Python to read: `_int`'s text, digits
        try:
            data = json.loads(last, parse_int=lambda digits: _int(digits, long))
        except json.JSONDecodeError:
            data = None
        if isinstance(data, dict):
            return self._from_object(data, last, stderr, pass_threshold, long)
        if isinstance(data, str) and data in long:
            raise self._failure(
                f"printed {excerpt(last)} as its last line, an integer of {long[data]:,} digits,"
                " not a score arena can read; print a number from 0 to 1, or a JSON object"
                " with 'score'",
                stderr,
            )
        try:
            score = float(last)
        except ValueError:
            raise self._failure(
                f"printed {excerpt(last)} as its last line, which is not a score"
                " (a number from 0 to 1, or a JSON object with 'score')",
                stderr,
            ) from None
        within = within_0_1(score)
        if within is None:
            shown = last if len(last) <= 60 else excerpt(last)  # 1e400 written out: cut
            raise self._failure(f"printed {shown}, which is outside 0-1", stderr)
        score = within
        passed = at_least(score, pass_threshold)
        return ScoreResult(score, passed, f"{self.shown} scored {score:g}")

    def _from_object(
        self,
        data: dict[str, Any],
        last: str,
        stderr: str,
        pass_threshold: float,
        long: dict[str, int],
    ) -> ScoreResult:
        score = data.get("score")
        if isinstance(score, str) and score in long:
            raise self._failure(
                f"printed {excerpt(last)}, whose 'score' is an integer of {long[score]:,} digits,"
                ' not a number arena can read; print a number from 0 to 1, such as {"score": 0.8}',
                stderr,
            )
        if isinstance(score, bool) or not isinstance(score, int | float):
            raise self._failure(f"printed {excerpt(last)}, whose 'score' is not a number", stderr)
        within = within_0_1(score)
        if within is None:
            raise self._failure(f"printed a score of {score}, which is outside 0-1", stderr)
        score = within
        passed = data.get("passed", at_least(score, pass_threshold))
        if passed is not None and not isinstance(passed, bool):
            raise self._failure(f"printed 'passed': {passed!r}; use true, false or null", stderr)
        metrics = data.get("metrics") or {}
        if not isinstance(metrics, dict):
            raise self._failure(
                f"printed 'metrics': {excerpt(repr(metrics))}; it must be an object of"
                ' numbers, such as {"words": 12}',
                stderr,
            )
        bad = [
            k
            for k, v in metrics.items()
            if isinstance(v, bool) or not isinstance(v, int | float) or not math.isfinite(v)
        ]
        if bad:
            raise self._failure(f"printed metrics that are not all finite numbers: {bad}", stderr)
        given = data.get("detail")
        detail: dict[str, Any] = given if isinstance(given, dict) else {}
        reason = str(data.get("reason") or f"{self.shown} scored {score:g}")
        return ScoreResult(float(score), passed, reason, detail=detail, metrics=metrics)

    def _failure(self, what: str, stderr: str) -> ScriptFailed:
        """The script failed: `what` it did, then `stderr`, what `_stderr_said` says of it."""
        return ScriptFailed(f"{self.shown} {what}{stderr}")


def _int(digits: str, long: dict[str, int]) -> int | str:
    """A whole number the script printed; one of more digits than Python reads (4,300,
    unless set otherwise) is a text saying so, as reports write one, kept in `long` with
    its digits: json would raise a bare ValueError."""
    try:
        return int(digits)
    except ValueError:
        negative = digits.startswith("-")
        digits = digits.removeprefix("-")
        said = long_int_said(len(digits), digits[:20], negative)
        long[said] = len(digits)
        return said


def _number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def script_context(
    output: str, reference: Any, context: ScoringContext, places: dict[str, str]
) -> dict[str, Any]:
    """What a script scorer is told: the case, the output, where things are, and its params."""
    case = context.test_case
    payload: dict[str, Any] = {
        "case": {
            "id": case.id if case else "",
            "input": case.input if case else "",
            "reference": reference,
            "tags": list(case.tags) if case else [],
            "metadata": dict(case.metadata) if case else {},
        },
        "output": output,
        "model": context.model_key,
        "response": dict(context.response),
        "trajectory": context.trajectory,
        **places,
    }
    for key, value in context.options.items():
        payload.setdefault(key, fill(value, places))
    result: dict[str, Any] = json_safe(payload)
    return result


def fill(value: Any, places: dict[str, str]) -> Any:
    """Replace `{output_file}`, `{context_file}`, `{project_root}` and `{workspace}` in strings,
    deeply."""
    if isinstance(value, str):
        for key, path in places.items():
            value = value.replace("{" + key + "}", path)
        return value
    if isinstance(value, dict):
        return {k: fill(v, places) for k, v in value.items()}
    if isinstance(value, list):
        return [fill(v, places) for v in value]
    return value


def _fit(payload: dict[str, Any]) -> str:
    """The context as the variable holds it, under the kernel's limit on one: whole if it
    fits, else without what `output_file` and `context_file` hold whole (the output cut to
    its start, then no response and no trajectory, then the case's long parts), keeping
    the scorer's params and where things are to the last."""
    text = json_text(payload)
    if len(text.encode()) <= _ENV_LIMIT:
        return text
    cut = dict(payload)
    if len(payload["output"]) > _OUTPUT_KEPT:  # its start, named in `cut` as the rest are
        cut.update(output=payload["output"][:_OUTPUT_KEPT], output_truncated=True, cut=["output"])
    for key in ("trajectory", "response"):  # a tool loop's results: the largest parts
        text = json_text(cut)
        if len(text.encode()) <= _ENV_LIMIT:
            return text
        cut = {**cut, key: None, "cut": [*cut.get("cut", []), key]}
    case = dict(cut["case"])
    for part in ("input", "reference", "metadata"):  # a long document to read, say
        if len(json.dumps(case[part], ensure_ascii=False)) > _CASE_PART_LIMIT:
            case[part] = None
            cut["cut"] = [*cut.get("cut", []), f"case.{part}"]
    cut["case"] = case
    text = json_text(cut)
    if len(text.encode()) <= _ENV_LIMIT:
        return text
    kept = {k: v for k, v in payload.items() if k not in _CUT_LAST}  # params, places
    text = json_text({**kept, "cut": ["everything else"]})
    if len(text.encode()) <= _ENV_LIMIT:
        return text
    places = ("model", "output_file", "context_file", "project_root", "workspace")
    return json.dumps({**{k: payload[k] for k in places}, "cut": ["everything else"]})


def _stderr_said(data: bytes | None, secrets: list[str]) -> str:
    """What a failure says of the script's stderr: its end (of a long one, arena keeps the
    end); "" if it wrote nothing."""
    tail = _text(data, secrets).strip()[-_STDERR_TAIL:]
    if not tail:
        return ""
    return f"; end of stderr: {_end_excerpt(tail, _STDERR_TAIL)}"


def _end_excerpt(text: str, limit: int) -> str:
    """`text` quoted as `excerpt` quotes it, but cut at its start: the end is what counts
    (a newline shown as two characters made a tail of 600 lose its last line)."""
    shown = printable(text)
    if len(shown) <= limit:
        return f"'{shown}'"
    kept: list[str] = []
    size = 1  # the "…"
    for char in reversed(text):
        part = printable(char)
        if size + len(part) > limit:
            break
        kept.append(part)
        size += len(part)
    return "'…" + "".join(reversed(kept)) + "'"


def _text(data: str | bytes | None, secrets: list[str]) -> str:
    """What the script wrote, each of `secrets` in it as `***` (a score, its reason and
    detail, the end of stderr are all quoted in reports)."""
    text = data.decode(errors="replace") if isinstance(data, bytes) else data or ""
    return redacted(text, secrets)
