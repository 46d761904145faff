"""Your own agent as a program: `command: "python agent.py"`."""

from __future__ import annotations

import json
import os
import shlex
import shutil
import tempfile
from pathlib import Path
from typing import Any, ClassVar, Literal

from pydantic import BaseModel, ConfigDict, Field

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
from pytest_arena.spec.files import resolved
from pytest_arena.spec.surrogates import json_text, replaced

STDERR_TAIL = 600  # characters of stderr quoted when the program fails
# Linux refuses to start a program with one variable over 128 KiB ("Argument list too long")
ENV_VALUE_MAX = 100 * 1024


class CommandSettings(BaseModel):
    """`command`: the program and its arguments, a string (split as a shell would, but
    never run by one) or a list; `env`: extra environment variables; `output`: what stdout
    is, the answer as text, or (`json`) one JSON object as a python agent returns it."""

    model_config = ConfigDict(extra="forbid")

    command: str | list[str]
    env: dict[str, str] = Field(default_factory=dict)
    output: Literal["text", "json"] = "text"

    def argv(self) -> list[str]:
        return shlex.split(self.command) if isinstance(self.command, str) else list(self.command)


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
        """With `cache: true`: the command, its `env:` (as a digest: it may hold a key) and
        an `output:` other than text."""
        settings = self.settings
        env = {"env": secret_safe_digest(settings.env)} if settings.env else {}
        output = {"output": settings.output} if settings.output != "text" else {}
        return {**super().cache_identity(), "command": settings.argv(), **env, **output}

    def check(self) -> None:
        argv = self.settings.argv()
        if not argv or not argv[0]:
            raise SettingProblem("the command is empty", "command", "name the program to run")
        program = self.argv()[0]
        if shutil.which(program) is None:
            where = f" in {self.root} or" if self.root is not None else ""
            raise SettingProblem(
                f"{self.shown}: program '{argv[0]}' not found{where} on PATH, or not executable",
                "command",
                "give a path relative to the project folder, or a program on PATH",
            )

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
            if relative and (is_path or (local.is_file() and (i > 0 or not shutil.which(arg)))):
                arg = str(resolved(local))
            out.append(arg)
        return out

    async def acomplete(self, request: Request) -> Response:
        if request.workspace is None:
            workspace = Path(tempfile.mkdtemp(prefix="arena-agent-")) / "workspace"
        else:
            workspace = request.workspace
        workspace.mkdir(parents=True, exist_ok=True)
        case = request.case
        about = {"id": case.id, "input": case.input, "tags": list(case.tags)}
        about["metadata"] = dict(case.metadata)
        env = {
            **os.environ,
            **self.settings.env,
            "ARENA_WORKSPACE": str(workspace),
            "ARENA_MODEL": self.key,
        }
        too_big = _pass_json(env, "ARENA_CASE", json_safe(about), workspace)
        too_big += _pass_json(env, "ARENA_MESSAGES", request.messages, workspace)
        if self.root is not None:
            env["ARENA_PROJECT_ROOT"] = str(self.root.resolve())
        try:
            done = await processes.arun(
                self.argv(), cwd=workspace, env=env, stdin=replaced(request.prompt).encode()
            )
        except OSError as exc:
            raise ConnectorError(
                f"{self.shown} could not be started: {exc.strerror or exc}"
            ) from None
        stdout, stderr = done.stdout, done.stderr
        secrets = environment_secrets(env)
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
        if done.stdout_cut:  # the end, where answers usually are, is lost: not gradable
            raise ConnectorError(
                f"{self.shown} wrote more than {processes.MAX_OUTPUT // 2**20} MiB to stdout,"
                " more than arena reads of an answer; write the answer alone to stdout (and"
                " logs to stderr or to files in the workspace)"
            )
        text = stdout.decode(errors="replace").removesuffix("\n").removesuffix("\r")
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
    """The end of what the command wrote to stderr, without the secrets of its environment
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
