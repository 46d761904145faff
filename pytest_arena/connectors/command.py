"""Your own agent as a program: `command: "python agent.py"`."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import shlex
import shutil
import signal
import tempfile
from pathlib import Path
from typing import Any, ClassVar

from pydantic import BaseModel, ConfigDict, Field

from pytest_arena.connectors.base import (
    Connector,
    ConnectorError,
    Request,
    Response,
    SettingProblem,
)
from pytest_arena.record import json_safe

STDERR_TAIL = 600  # characters of stderr quoted when the program fails


class CommandSettings(BaseModel):
    """`command`: the program and its arguments, a string (split as a shell would, but
    never run by one) or a list; `env`: extra environment variables."""

    model_config = ConfigDict(extra="forbid")

    command: str | list[str]
    env: dict[str, str] = Field(default_factory=dict)

    def argv(self) -> list[str]:
        return shlex.split(self.command) if isinstance(self.command, str) else list(self.command)


class CommandConnector(Connector):
    """Runs the program once per call, in the call's workspace folder.

    The prompt goes to its stdin; the case (id, input, tags, metadata: never the reference)
    is JSON in `ARENA_CASE`, the chat messages in `ARENA_MESSAGES`, the folder in
    `ARENA_WORKSPACE` and the project in `ARENA_PROJECT_ROOT`. What it prints on stdout is
    the output. A relative program, or an argument naming a file of the project folder,
    is taken from the project folder.
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
                arg = str(local.resolve())
            out.append(arg)
        return out

    async def acomplete(self, request: Request) -> Response:
        workspace = request.workspace or Path(tempfile.mkdtemp(prefix="arena-agent-"))
        workspace.mkdir(parents=True, exist_ok=True)
        case = request.case
        env = {
            **os.environ,
            **self.settings.env,
            "ARENA_CASE": json.dumps(
                json_safe(
                    {
                        "id": case.id,
                        "input": case.input,
                        "tags": list(case.tags),
                        "metadata": dict(case.metadata),
                    }
                ),
                ensure_ascii=False,
            ),
            "ARENA_MESSAGES": json.dumps(request.messages, ensure_ascii=False),
            "ARENA_WORKSPACE": str(workspace),
            "ARENA_MODEL": self.key,
        }
        if self.root is not None:
            env["ARENA_PROJECT_ROOT"] = str(self.root.resolve())
        try:
            process = await asyncio.create_subprocess_exec(
                *self.argv(),
                stdin=asyncio.subprocess.PIPE,
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.PIPE,
                cwd=workspace,
                env=env,
                start_new_session=True,  # its own process group, so all of it can be ended
            )
        except OSError as exc:
            raise ConnectorError(
                f"model '{self.key}': {self.shown} could not be started: {exc.strerror or exc}"
            ) from None
        try:
            stdout, stderr = await process.communicate(request.prompt.encode())
        finally:
            await _end(process)
        if process.returncode != 0:
            code = process.returncode or 0
            what = f"was killed by signal {-code}" if code < 0 else f"exited with status {code}"
            tail = stderr.decode(errors="replace").strip()[-STDERR_TAIL:]
            raise ConnectorError(
                f"model '{self.key}': {self.shown} {what}"
                + (f"; end of stderr:\n{tail}" if tail else " and wrote nothing to stderr")
            )
        text = stdout.decode(errors="replace").removesuffix("\n").removesuffix("\r")
        meta: dict[str, Any] = {"workspace": str(workspace)}
        return Response(text=text, meta=meta)


async def _end(process: asyncio.subprocess.Process) -> None:
    """Kill the program's process group (anything it left running, or all of it when the
    call was cancelled) and reap it."""
    if os.name == "posix":
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(process.pid, signal.SIGKILL)
    elif process.returncode is None:
        with contextlib.suppress(ProcessLookupError):
            process.kill()
    # reaping must finish even if the call is being cancelled
    await asyncio.shield(process.wait())
