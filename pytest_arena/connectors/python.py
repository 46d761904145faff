"""Your own agent as a Python function: `callable: "agent:run"`."""

from __future__ import annotations

import ast
import asyncio
import contextlib
import importlib
import inspect
import os
import sys
import threading
import time
import traceback
from collections.abc import Callable, Iterator
from concurrent.futures import Future
from concurrent.futures import TimeoutError as FutureTimeout
from pathlib import Path
from types import ModuleType
from typing import Any, ClassVar

from pydantic import BaseModel, ConfigDict, field_validator

from pytest_arena.connectors.agent_reply import Agent, checked, reply_of, steps_of
from pytest_arena.connectors.base import (
    AGENT_META,
    AGENT_STEPS,
    Connector,
    ConnectorError,
    Request,
    Response,
    SettingProblem,
    case_data,
)
from pytest_arena.engine.processes import MAX_OUTPUT
from pytest_arena.engine.user_threads import (
    RUNNER_FOLDERS,
    Raised,
    cancelled_from_outside,
    not_user_code,
    run_blocking,
)
from pytest_arena.secrets import environment_secrets, redacted, redacted_data
from pytest_arena.spec.case import Case
from pytest_arena.spec.errors import raised
from pytest_arena.spec.python_files import project_package

_PACKAGE_DIR = str(Path(__file__).resolve().parent.parent)
_TRACEBACK_FRAMES = 6


class PythonSettings(BaseModel):
    """`callable`: `module:function` (or `package.module:function`), importable from the
    project folder or the environment."""

    model_config = ConfigDict(extra="forbid")

    callable: str

    @field_validator("callable")
    @classmethod
    def _module_and_name(cls, value: str) -> str:
        module, _, name = value.partition(":")
        if not all(part.isidentifier() for part in [*module.split("."), *name.split(".")]):
            raise ValueError(
                f"callable {value!r} is not 'module:function'; write it as, e.g., 'agent:run'"
                " for the function run in agent.py of the project folder"
            )
        return value


class PythonConnector(Connector):
    """Calls a function with the prompt and returns what it returns.

    The function is called as `fn(prompt)`, or `fn(prompt, case)` when it takes a second
    positional parameter (none, when its only parameters are the named ones below);
    parameters named `messages` and `request` receive the chat messages and the whole
    Request, and one named `workspace` the case's fresh folder (a Path; also
    `request.workspace`). A plain function runs in a worker thread, an
    `async def` one on the engine's loop. It returns the text, a dict with `text` and
    optionally `tokens_in`, `tokens_out`, `cost`, `meta`, or a Response; its `meta` reaches
    the scorers in `context.response["meta"]`. Text of more than MAX_OUTPUT bytes fails the
    call, as a command agent's does. What it returns and what it raises reach the reports
    with the secrets of arena's environment (see `environment_secrets`) written `***`.
    """

    name: ClassVar[str] = "python"
    settings_model: ClassVar[type[BaseModel]] = PythonSettings
    cacheable: ClassVar[bool] = False
    wants_workspace: ClassVar[bool] = True
    settings: PythonSettings

    def cache_identity(self) -> dict[str, Any]:
        """With `cache: true`: the callable too, and the project folder it is imported from
        (two projects' `agent:run` are two agents)."""
        folder = None if self.root is None else str(self.root.resolve())
        return {**super().cache_identity(), "callable": self.settings.callable, "folder": folder}

    def cache_case(self, case: Case) -> dict[str, Any]:
        """The whole case, as `request.case` hands it to the agent (its reference too)."""
        return case_data(case)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._fn: Callable[..., Any] | None = None

    def __repr__(self) -> str:
        return f"<PythonConnector {self.key!r} {self.settings.callable}>"

    def check(self) -> None:
        self.function()

    def function(self) -> Callable[..., Any]:
        """The callable, imported on first use; SettingProblem if it cannot be."""
        if self._fn is None:
            self._fn = load_callable(self.settings.callable, self.root)
        return self._fn

    async def acomplete(self, request: Request) -> Response:
        fn = self.function()
        args, kwargs = self._arguments(fn, request)
        took: float | None = None  # the milliseconds a plain function ran, on its thread
        try:
            with WORKING_DIRECTORY.kept():
                if inspect.iscoroutinefunction(fn):
                    result = await fn(*args, **kwargs)
                else:  # on a thread that never holds the process open, should fn never return
                    result, took = await run_blocking(_clocked, fn, *args, **kwargs)
                    if inspect.isawaitable(result):
                        result, took = await result, None
        except asyncio.CancelledError as exc:
            if cancelled_from_outside():  # a timeout, or the run's end: the engine's
                raise
            raise self._failed(exc) from exc  # an inner task of the agent's own, cancelled
        except BaseException as exc:  # sys.exit() too: the agent's error, not the loop's end
            cause = exc.raised if isinstance(exc, Raised) else exc
            raise self._failed(cause) from cause  # the engine's `ends_run` looks at the cause
        response = self._answer(result, request)
        if response.latency_ms is None:  # its own time, not the wait for the loop to see it
            response.latency_ms = took
        return response

    def complete(self, request: Request) -> Response:
        fn = self.function()
        if inspect.iscoroutinefunction(fn):
            return asyncio.run(self.acomplete(request))
        args, kwargs = self._arguments(fn, request)
        try:
            with WORKING_DIRECTORY.kept():
                result = fn(*args, **kwargs)
                if inspect.isawaitable(result):
                    result = asyncio.run(_awaited(result))
        except Exception as exc:
            raise self._failed(exc) from exc
        return self._answer(result, request)

    def _answer(self, result: Any, request: Request) -> Response:
        """The Response `result` says, with the secrets of arena's environment in its text,
        meta and tool calls written `***` (the reports hold them: a key an agent was
        handed, echoed in a log line); ConnectorError if it says none, or too much."""
        response, steps = self._response(result), self._steps(result)
        if _longer_than(response.text, MAX_OUTPUT):  # a report of 2 cases held 105 MB
            raise ConnectorError(
                f"{self.settings.callable} returned more than {MAX_OUTPUT // 2**20} MiB of"
                " text, more than arena reads of an answer; return the answer alone (and"
                " write logs to files in the workspace)"
            )
        secrets = environment_secrets(os.environ)
        response.text = redacted(response.text, secrets)
        response.meta = redacted_data(response.meta, secrets)
        return self._in(response, request, redacted_data(steps, secrets))

    @staticmethod
    def _in(response: Response, request: Request, steps: list[dict[str, Any]] | None) -> Response:
        """`response` with the agent's meta kept whole apart from arena's keys (a meta of its
        own named `workspace` or `tool_calls` reaches the scorers as it is, and does not take
        the place of arena's), the steps of the tool calls it said, and the case's workspace."""
        response.meta = {AGENT_META: response.meta}
        if steps is not None:
            response.meta[AGENT_STEPS] = steps
        if request.workspace is not None:
            response.meta["workspace"] = str(request.workspace)
        return response

    def _arguments(
        self, fn: Callable[..., Any], request: Request
    ) -> tuple[list[Any], dict[str, Any]]:
        try:
            params = inspect.signature(fn).parameters.values()
        except (TypeError, ValueError):  # builtins without a signature: give the prompt alone
            return [request.prompt], {}
        positional = [
            p
            for p in params
            if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
            and p.name not in ("messages", "request", "workspace")
        ]
        spread = any(p.kind is p.VAR_POSITIONAL for p in params)
        # `def run(messages)` takes the messages by their name alone, not the prompt too
        args: list[Any] = [request.prompt] if positional or spread else []
        if len(positional) >= 2 or spread:
            args.append(request.case)
        named = {p.name for p in params if p.kind is not p.POSITIONAL_ONLY}
        kwargs: dict[str, Any] = {}
        if "messages" in named:
            kwargs["messages"] = request.messages
        if "request" in named:
            kwargs["request"] = request
        if "workspace" in named:
            kwargs["workspace"] = request.workspace
        return args, kwargs

    def _failed(self, exc: BaseException) -> ConnectorError:
        frames = [
            f
            for f in traceback.extract_tb(exc.__traceback__)
            if not f.filename.startswith((_PACKAGE_DIR, *RUNNER_FOLDERS))
        ]
        where = "".join(traceback.format_list(frames[-_TRACEBACK_FRAMES:])).rstrip()
        said = f"{self.settings.callable} raised {raised(exc)}" + (f"\n{where}" if where else "")
        # a key in the message ("401: key sk-...") would reach every report: as a command
        # agent's stderr, it is said with the secrets of the environment it ran in as ***
        return ConnectorError(redacted(said, environment_secrets(os.environ)))

    def _response(self, result: Any) -> Response:
        agent = Agent(self.settings.callable)
        if isinstance(result, Response):
            return checked(agent, result, "a Response")
        if isinstance(result, str):
            return Response(text=result)
        if isinstance(result, dict):
            return reply_of(agent, result)
        raise ConnectorError(
            f"{self.settings.callable} returned {type(result).__name__};"
            " return the output text, a dict with 'text', or a Response"
        )

    def _steps(self, result: Any) -> list[dict[str, Any]] | None:
        """The trajectory of an agent whose dict said the tool calls it made (see
        agent_reply.steps_of); None if it said none."""
        if not isinstance(result, dict):
            return None
        return steps_of(Agent(self.settings.callable), result)


class _WorkingDirectory:
    """The working directory the agents' calls started in, gone back to once none of them
    runs: an agent's `os.chdir` is its own, not the next case's, nor the rest of the run's.
    A working directory is the process's, not a thread's: calls that run at once
    (`concurrency` above 1) see each other's `os.chdir` while they run."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._running = 0
        self._home: str | None = None  # where the first of the calls running now started

    @contextlib.contextmanager
    def kept(self) -> Iterator[None]:
        with self._lock:
            if self._running == 0:
                self._home = _working_directory()
            self._running += 1
        try:
            yield
        finally:
            with self._lock:
                self._running -= 1
                home = self._home
                if self._running == 0 and home is not None and _working_directory() != home:
                    with contextlib.suppress(OSError):  # it was removed: nowhere to go back
                        os.chdir(home)


def _working_directory() -> str | None:
    """`os.getcwd()`; None once the directory is removed (an agent's, its workspace)."""
    try:
        return os.getcwd()
    except OSError:
        return None


WORKING_DIRECTORY = _WorkingDirectory()


async def _awaited(awaitable: Any) -> Any:
    return await awaitable


def _clocked(fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> tuple[Any, float]:
    """`fn(*args, **kwargs)`, and the milliseconds it took."""
    began = time.perf_counter()
    result = fn(*args, **kwargs)
    return result, (time.perf_counter() - began) * 1000


def _longer_than(text: str, most: int) -> bool:
    """Whether `text` is more than `most` bytes of UTF-8 (half a character as 3)."""
    if len(text) > most or len(text) * 4 <= most:  # a character is 1 to 4 bytes
        return len(text) > most
    return len(text.encode("utf-8", "surrogatepass")) > most


def load_callable(spec: str, root: Path | None) -> Callable[..., Any]:
    """Import `module:name`; SettingProblem if it cannot be.

    A module of the project folder `root` that imports its neighbours relatively is
    imported as one of the project's own files (as its scorers are). While it is imported,
    `root` is first on the import path, as a script's folder is (`import helper` finds the
    project's); after, it goes back where the user put it, or after the libraries, so that
    what is imported later (by a function of the agent, or by pytest-arena itself) is not
    taken for a project file of the same name.
    """
    module_name, _, attr = spec.partition(":")
    stem = module_name.removesuffix(".py")  # `agent.py:run` for `agent:run`
    if (
        stem != module_name
        and root is not None
        and (root / f"{stem.replace('.', '/')}.py").is_file()
    ):
        raise SettingProblem(
            f"callable '{spec}' names the file {module_name}, where a module's name goes",
            "callable",
            f"write '{stem}:{attr}', without .py",
        )
    if root is None:
        return _load(spec, module_name, module_name, attr, root)
    root = root.resolve()
    folder = str(root)
    was = sys.path.index(folder) if folder in sys.path else None  # the user's own setting
    if was is not None:
        del sys.path[was]
    sys.path.insert(0, folder)
    _forget_if_elsewhere(module_name, root)
    _forget_neighbours(root)
    _PROJECT_FOLDERS.add(root)
    own = _relative_importer(module_name, root)
    try:
        imported = f"{project_package(root)}.{module_name}" if own else module_name
        return _load(spec, module_name, imported, attr, root)
    finally:
        if folder in sys.path:
            sys.path.remove(folder)
        if was is None:
            sys.path.insert(_after_the_libraries(), folder)
            _PLACED.add(folder)
        else:
            sys.path.insert(was, folder)


def _after_the_libraries() -> int:
    """Where a project folder goes on the import path once its agent is imported: after
    the libraries, before the folders placed there for projects loaded earlier, as each was
    first in its turn (a process multiprocessing spawns imports `agent` from the latest)."""
    return next((i for i, entry in enumerate(sys.path) if entry in _PLACED), len(sys.path))


_PLACED: set[str] = set()  # project folders put on the import path here, not by the user


def _relative_importer(module_name: str, root: Path) -> bool:
    """Whether `module_name` is a lone file of the folder `root` (not in a package of its
    own) that imports its neighbours relatively (`from .helper import x`), which only a
    module of the project's package can. Any other keeps its plain name, which a process
    that multiprocessing starts (spawn, forkserver) can import again to find the functions
    handed to it."""
    if "." in module_name:
        return False  # a package's module: its relative imports are within its package
    try:
        tree = ast.parse((root / f"{module_name}.py").read_bytes())
    except (OSError, SyntaxError, ValueError):  # none (a package), or what the import says
        return False
    return any(isinstance(n, ast.ImportFrom) and n.level > 0 for n in ast.walk(tree))


def _load(
    spec: str, module_name: str, imported: str, attr: str, root: Path | None
) -> Callable[..., Any]:
    fix = "check the spelling, and that the file sits in the project folder or is installed"
    try:
        module = _imported_within(imported, IMPORT_LIMIT)
    except _Stuck as stuck:
        raise SettingProblem(
            f"callable '{spec}': importing '{module_name}' did not finish within"
            f" {IMPORT_LIMIT:g} s{stuck.where}",
            "callable",
            "do not wait at import time (for input, a server, a lock): do slow set-up inside"
            " a function, on first use",
        ) from None
    except ModuleNotFoundError as exc:
        package = imported.removesuffix(module_name)  # "_arena_projects.x_…." or ""
        if package and exc.name is not None and exc.name.startswith(package):
            raise SettingProblem(
                f"callable '{spec}': importing '{module_name}' failed: no module"
                f" '{exc.name.removeprefix(package)}' in {root}, which it imports relatively",
                "callable",
                "check the spelling, and that the file sits in the project folder",
            ) from None
        if exc.name is not None and module_name.startswith(exc.name):
            where = f" in {root} or" if root is not None else ""
            raise SettingProblem(
                f"callable '{spec}': no module '{exc.name}'{where} on the import path",
                "callable",
                fix,
            ) from None
        raise _import_failed(spec, module_name, exc, root) from None
    except (Exception, SystemExit) as exc:  # sys.exit() at import is a mistake too
        raise _import_failed(spec, module_name, exc, root) from None
    found: Any = module
    for part in attr.split("."):
        if not hasattr(found, part):
            raise SettingProblem(
                f"callable '{spec}': module '{module_name}' ({module.__file__}) has no '{attr}'",
                "callable",
                f"name a function defined in {module_name}",
            )
        found = getattr(found, part)
    if not callable(found):
        raise SettingProblem(
            f"callable '{spec}' is a {type(found).__name__}, not a function",
            "callable",
            "name a function, or an object with __call__",
        )
    return found  # type: ignore[no-any-return]


IMPORT_LIMIT = 60.0  # seconds an agent's module may take to import


class _Stuck(Exception):
    def __init__(self, where: str) -> None:
        super().__init__(where)
        self.where = where  # "; still running agent.py:4", or ""


def _imported_within(name: str, seconds: float) -> ModuleType:
    """`importlib.import_module(name)` on a daemon thread, given up after `seconds` (the
    thread is left running: Python cannot stop it), so an import that never ends stops
    only its model."""
    done: Future[ModuleType] = Future()

    def run() -> None:
        try:
            done.set_result(importlib.import_module(name))
        except BaseException as exc:  # handed to the waiting thread
            done.set_exception(exc)

    thread = threading.Thread(target=run, name="arena-agent-import", daemon=True)
    thread.start()
    try:
        return done.result(seconds)
    except FutureTimeout:
        frame = sys._current_frames().get(thread.ident or -1)
        where = ""
        while frame is not None:  # the innermost frame outside the import machinery
            if not frame.f_code.co_filename.startswith("<frozen"):
                where = f"; still running {frame.f_code.co_filename}:{frame.f_lineno}"
                break
            frame = frame.f_back
        raise _Stuck(where) from None


def _import_failed(spec: str, module: str, exc: BaseException, root: Path | None) -> SettingProblem:
    """The import of `module` raised `exc`: said at the line of the project's files
    (`root`) where it was raised, as a scorer's failed import is (else of any file but
    Python's and pytest-arena's)."""
    where = _raised_at(exc, root)
    at = f" at {where}" if where and not isinstance(exc, SyntaxError) else ""  # it says it
    return SettingProblem(
        f"callable '{spec}': importing '{module}' failed{at}: {type(exc).__name__}: {exc}",
        "callable",
        f"fix the error at {where}" if where else f"fix the error in {module}",
    )


def _raised_at(exc: BaseException, root: Path | None) -> str:
    """`file:line` of the innermost frame of `exc`'s traceback in the folder `root` (the
    file relative to it), else in no library; a SyntaxError's own place; or ""."""
    places = [(f.filename, f.lineno) for f in traceback.extract_tb(exc.__traceback__)]
    if isinstance(exc, SyntaxError) and exc.filename:
        places.append((exc.filename, exc.lineno))
    # the innermost first; none of "<frozen importlib._bootstrap>", which is no file
    places = [(file, line) for file, line in reversed(places) if not file.startswith("<")]
    if root is not None:
        for file, line in places:
            path = Path(file).resolve()
            if path.is_relative_to(root.resolve()):
                return f"{path.relative_to(root.resolve()).as_posix()}:{line}"
    for file, line in places:
        if not file.startswith(not_user_code()):
            return f"{file}:{line}"
    return ""


_PROJECT_FOLDERS: set[Path] = set()  # the project folders whose agents were imported


def _forget_neighbours(root: Path) -> None:
    """Drop the modules another project's agent imported from its folder (its `prompts.py`)
    that this project has a file of the same name for: its agent imports its own."""
    # as strings: a check per module and folder, of every module, on each agent's import
    others = tuple(os.path.join(f, "") for f in map(str, _PROJECT_FOLDERS) if f != str(root))
    if not others:
        return
    for name, module in list(sys.modules.items()):
        file = getattr(module, "__file__", None)
        if not isinstance(file, str) or not file.startswith(others):
            continue
        top = name.split(".")[0]
        if (root / f"{top}.py").exists() or (root / top / "__init__.py").exists():
            del sys.modules[name]


def _forget_if_elsewhere(module_name: str, root: Path) -> None:
    """Drop an imported module of the same name that another project folder holds, so this
    project's own file is imported."""
    top = module_name.split(".")[0]
    loaded = sys.modules.get(top)
    if loaded is None:
        return
    mine = root / f"{top}.py"
    if not (mine.exists() or (root / top / "__init__.py").exists()):
        return
    file = getattr(loaded, "__file__", None)
    if file is not None and Path(file).resolve().is_relative_to(root):
        return
    for name in [n for n in sys.modules if n == top or n.startswith(top + ".")]:
        del sys.modules[name]
