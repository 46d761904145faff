"""Your own agent as a program: `command: "python agent.py"`."""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import tempfile
from pathlib import Path
from typing import Any, ClassVar, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from pytest_arena.connectors.agent_reply import Agent, reply_of, steps_of
from pytest_arena.connectors.base import (
    AGENT_META,
    AGENT_STEPS,
    Connector,
    ConnectorError,
    Request,
    Response,
    SettingProblem,
    secret_safe_digest,
)
from pytest_arena.engine import processes
from pytest_arena.record import json_safe
from pytest_arena.secrets import environment_secrets, redacted
from pytest_arena.spec.case import Case
from pytest_arena.spec.files import resolved
from pytest_arena.spec.surrogates import json_text, replaced

STDERR_TAIL = 600  # characters of stderr quoted when the program fails
# Linux refuses to start a program with one variable over 128 KiB ("Argument list too long")
ENV_VALUE_MAX = 100 * 1024
# `${NAME}` in a value of `env:`: the variable NAME of arena's environment; `$${` is a `${`
_VARIABLE = re.compile(r"\$(\$)?\{([A-Za-z_][A-Za-z0-9_]*)\}")


class CommandSettings(BaseModel):
    """`command`: the program and its arguments, a string (split as a shell would, but
    never run by one) or a list; `env`: extra environment variables; `output`: what stdout
    is, the answer as text, or (`json`) one JSON object as a python agent returns it."""

    model_config = ConfigDict(extra="forbid")

    command: str | list[str]
    env: dict[str, str] = Field(default_factory=dict)
    output: Literal["text", "json"] = "text"

    @field_validator("command")
    @classmethod
    def _splits(cls, value: str | list[str]) -> str | list[str]:
        if isinstance(value, str):
            try:
                shlex.split(value)
            except ValueError as exc:  # "No closing quotation", "No escaped character"
                why = str(exc)[:1].lower() + str(exc)[1:]
                raise ValueError(
                    f"{value!r} cannot be split into a program and its arguments ({why}):"
                    " close the quote, or give the command as a list, [python, agent.py]"
                ) from None
        return value

    def argv(self) -> list[str]:
        return shlex.split(self.command) if isinstance(self.command, str) else list(self.command)

    def environment(self, inherited: dict[str, str]) -> dict[str, str]:
        """`inherited` with `env:` on top, each `${NAME}` in its values replaced by the
        variable NAME of `inherited` (`""` if it is not set: see `unset`)."""
        told = {name: _expanded(value, inherited) for name, value in self.env.items()}
        return {**inherited, **told}

    def unset(self, inherited: dict[str, str]) -> list[tuple[str, str]]:
        """(KEY, NAME) of each `${NAME}` in the value of `env:`'s KEY that `inherited` does
        not hold."""
        return [
            (key, match[2])
            for key, value in self.env.items()
            for match in _VARIABLE.finditer(value)
            if not match[1] and match[2] not in inherited
        ]


def _expanded(value: str, environ: dict[str, str]) -> str:
    return _VARIABLE.sub(lambda m: "${" + m[2] + "}" if m[1] else environ.get(m[2], ""), value)


class CommandConnector(Connector):
    """Runs the program once per call, in the call's workspace folder.

    The prompt goes to its stdin; the case (id, input, tags, metadata: never the reference)
    is JSON in the file named by `ARENA_CASE_FILE` and, when it fits in a variable, in
    `ARENA_CASE`; the chat messages likewise in `ARENA_MESSAGES_FILE` and `ARENA_MESSAGES`.
    The folder is in `ARENA_WORKSPACE` and the project in `ARENA_PROJECT_ROOT`. What it
    prints on stdout is the output, or with `output: json` one JSON object saying it
    (`text`, and optionally `tokens_in`, `tokens_out`, `cost`, `meta`, `tool_calls`). A
    relative program, or an argument naming a file of the project folder, is taken from the
    project folder.
    """

    name: ClassVar[str] = "command"
    settings_model: ClassVar[type[BaseModel]] = CommandSettings
    cacheable: ClassVar[bool] = False
    wants_workspace: ClassVar[bool] = True
    settings: CommandSettings

    def __repr__(self) -> str:
        return f"<CommandConnector {self.key!r} {self.shown}>"

    @property
    def shown(self) -> str:
        return f"command '{shlex.join(self.settings.argv())}'"

    def cache_identity(self) -> dict[str, Any]:
        """With `cache: true`: the command as it is run (its project files by their absolute
        paths), the project folder (ARENA_PROJECT_ROOT), its `env:` as the agent gets it
        (`${NAME}` expanded; as a digest: it may hold a key) and an `output:` other than
        text."""
        settings = self.settings
        given = settings.environment(dict(os.environ))
        told = {name: given[name] for name in settings.env}
        env = {"env": secret_safe_digest(told)} if settings.env else {}
        output = {"output": settings.output} if settings.output != "text" else {}
        folder = None if self.root is None else str(self.root.resolve())
        command = {"command": self.argv(), "folder": folder}
        return {**super().cache_identity(), **command, **env, **output}

    def cache_case(self, case: Case) -> dict[str, Any]:
        """What ARENA_CASE tells the agent of the case, as `acomplete` says it: id, input,
        tags and metadata (never the reference)."""
        about = {"id": case.id, "input": case.input, "tags": list(case.tags)}
        about["metadata"] = dict(case.metadata)
        return json_safe(about)  # type: ignore[no-any-return]

    def check(self) -> None:
        argv = self.settings.argv()
        if not argv or not argv[0]:
            raise SettingProblem("the command is empty", "command", "name the program to run")
        program = self.argv()[0]
        if shutil.which(program, path=self._path()) is None:
            where = f" in {self.root} or" if self.root is not None else ""
            path = " (env: sets it)" if "PATH" in self.settings.env else ""
            raise SettingProblem(
                f"{self.shown}: program '{argv[0]}' not found{where} on PATH{path}, or not"
                " executable",
                "command",
                "give a path relative to the project folder, or a program on PATH",
            )

    def preflight(self) -> str | None:
        """A variable that `${NAME}` in `env:` names and arena's environment lacks: no call
        could be given what the project means it to be."""
        unset = self.settings.unset(dict(os.environ))
        if not unset:
            return None
        key, name = unset[0]
        return (
            f"the variable {name} that env: {key} names (${{{name}}}) is not set; fix: export"
            f" {name}=... before running pytest, or write the value itself in env:"
        )

    def _path(self) -> str | None:
        """The PATH the program is run with when `env:` sets one (its `${NAME}`s replaced);
        None: arena's own."""
        if "PATH" not in self.settings.env:
            return None
        return self.settings.environment(dict(os.environ))["PATH"]

    def argv(self) -> list[str]:
        """The command with project files made absolute, for a run in another folder."""
        argv = self.settings.argv()
        if self.root is None:
            return argv
        out = []
        for i, arg in enumerate(argv):
            local = self.root / arg
            relative = not arg.startswith("-") and not Path(arg).is_absolute()
            is_path = i == 0 and os.sep in arg
            if relative and (
                is_path or (local.is_file() and (i > 0 or not shutil.which(arg, path=self._path())))
            ):
                arg = str(resolved(local))
            out.append(arg)
        return out

    def _run_argv(self) -> list[str]:
        """`argv()`, with a program found on the PATH of `env:` named by its path there:
        what is run is what `check` found (a program without a folder is otherwise looked
        up on one PATH or the other, as the event loop's library does it)."""
        argv = self.argv()
        path = self._path()
        if path is not None and os.sep not in argv[0]:
            argv[0] = shutil.which(argv[0], path=path) or argv[0]
        return argv

    async def acomplete(self, request: Request) -> Response:
        """The program's answer, run in `request.workspace`; without one (a call from your
        own code), in a temporary folder that is removed after the call, failed or not, and
        that the answer's meta does not name."""
        if request.workspace is not None:
            return await self._answer(request, request.workspace)
        own = Path(tempfile.mkdtemp(prefix="arena-agent-"))  # the workspace and its case files
        try:
            response = await self._answer(request, own / "workspace")
        finally:
            shutil.rmtree(own, ignore_errors=True)
        response.meta.pop("workspace")
        return response

    async def _answer(self, request: Request, workspace: Path) -> Response:
        workspace.mkdir(parents=True, exist_ok=True)
        case = request.case
        about = {"id": case.id, "input": case.input, "tags": list(case.tags)}
        about["metadata"] = dict(case.metadata)
        env = {
            **self.settings.environment(dict(os.environ)),
            "ARENA_WORKSPACE": str(workspace),
            "ARENA_MODEL": self.key,
        }
        too_big = _pass_json(env, "ARENA_CASE", json_safe(about), workspace)
        too_big += _pass_json(env, "ARENA_MESSAGES", request.messages, workspace)
        if self.root is not None:
            env["ARENA_PROJECT_ROOT"] = str(self.root.resolve())
        argv = self._run_argv()
        try:
            done = await processes.arun(
                argv, cwd=workspace, env=env, stdin=replaced(request.prompt).encode()
            )
        except OSError as exc:  # a '#!' line naming no program (one ending in \r) says so
            root = self.root.resolve() if self.root is not None else workspace
            program = argv[0] if os.sep in argv[0] else shutil.which(argv[0]) or argv[0]
            why = processes.shebang_problem(root, program, exc)
            raise ConnectorError(f"{self.shown} could not be started: {why}") from None
        stdout, stderr = done.stdout, done.stderr
        secrets = environment_secrets(env)
        if done.stdout_cut:  # the end, where answers usually are, is lost: not gradable
            # (a program that writes on is stopped then: `processes` reads no more)
            raise ConnectorError(
                f"{self.shown} wrote more than {processes.MAX_OUTPUT // 2**20} MiB to stdout,"
                " more than arena reads of an answer; write the answer alone to stdout (and"
                " logs to stderr or to files in the workspace)"
            )
        if done.returncode != 0:
            tail = _tail(stderr, secrets)
            hint = "".join(
                f"\n{name} was not set: {size // 1024} KiB is too much for an environment"
                f" variable; read the file named by {name}_FILE instead"
                for name, size in too_big
            )
            raise ConnectorError(
                f"{self.shown} {done.how()}"
                + (f"; end of stderr:\n{tail}" if tail else " and wrote nothing to stderr")
                + hint
            )
        # what it printed goes into reports as its output: the secrets of its environment
        # (a key it was given, printed in a log line) are written *** there, as in stderr
        text = redacted(stdout.decode(errors="replace"), secrets)
        text = text.removesuffix("\n").removesuffix("\r")
        meta: dict[str, Any] = {
            "workspace": str(workspace),
            "exit_status": done.returncode,
            "stderr_tail": _tail(stderr, secrets),
        }
        if self.settings.output == "text":
            return Response(text=text, meta=meta)
        agent = Agent(self.shown, verb="printed", fix="print")
        reply = _json_reply(agent, text)
        response = reply_of(agent, reply)
        steps = steps_of(agent, reply)
        response.meta = {**meta, AGENT_META: response.meta}
        if steps is not None:
            response.meta[AGENT_STEPS] = steps
        return response


def _json_reply(agent: Agent, text: str) -> dict[Any, Any]:
    """The JSON object a command with `output: json` printed; ConnectorError if it printed
    anything else."""
    try:
        reply = json.loads(text)
    except ValueError as exc:
        shown = repr(text[:200]) + ("…" if len(text) > 200 else "") if text.strip() else "nothing"
        raise ConnectorError(
            f"{agent.who} printed {shown} on stdout, not a JSON object ({exc}); with output:"
            f' json it prints one, such as {{"text": "the answer"}} (logs go to stderr), or'
            " set output: text"
        ) from None
    if not isinstance(reply, dict):
        raise ConnectorError(
            f"{agent.who} printed JSON {type(reply).__name__} on stdout, not an object; with"
            f' output: json it prints one, such as {{"text": "the answer"}}'
        )
    return reply


def _tail(stderr: bytes, secrets: list[str]) -> str:
    """The end of what the command wrote to stderr (of the end `processes` keeps), without
    the secrets of its environment
    (see `environment_secrets`: an `env:` entry or an inherited variable named as a credential,
    `UPSTREAM_TOKEN`, a model's `api_key_env`; `curl -v` prints the header it sends)."""
    return redacted(stderr.decode(errors="replace"), secrets).strip()[-STDERR_TAIL:]


def _pass_json(env: dict[str, str], name: str, data: Any, workspace: Path) -> list[tuple[str, int]]:
    """Put `data` as JSON in the file named by `{name}_FILE` (beside the workspace, so the
    agent's own files are all that is in it) and, if it fits, in `name`; [(name, size)] if
    it does not."""
    text = json_text(data)
    file = workspace.with_name(f"{workspace.name}.{name.lower()}.json")
    file.write_text(text, encoding="utf-8")
    env[f"{name}_FILE"] = str(file)
    size = len(text.encode())
    if size > ENV_VALUE_MAX:
        return [(name, size)]
    env[name] = text
    return []
