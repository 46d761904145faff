"""The VS Code Python extension's side of test discovery and test runs, in Python.

What the extension does (microsoft/vscode-python, src/client/testing/testController/):

- it makes a FIFO with `mkfifo` (a named pipe on Windows), opens it for reading and names
  it in `TEST_RUN_PIPE`; its `python_files` folder goes first on `PYTHONPATH`;
- discovery runs `python -m pytest -p vscode_pytest --collect-only <pytestArgs>
  --rootdir=<cwd>` and gets one JSON-RPC message whose tree may be compact (paths and ids
  relative to `pathBase` and `idBase`, expanded as `expandCompactDiscoveryPayload` does);
- a run writes the chosen tests' `runID`s, one a line, to a file named in
  `RUN_TEST_IDS_PIPE` and runs `python python_files/vscode_pytest/run_pytest_script.py
  <pytestArgs without files and folders> --rootdir=<cwd>`; each result comes as a message
  keyed by the `runID` the extension looks its test item up by;
- running a folder or file node runs the `runID`s of the tests under it.

Messages are framed like the Language Server Protocol: `content-length: N` headers, a blank
line, N bytes of JSON.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tests.clients.workspace import clean_env

PYTHON_FILES = Path(__file__).parent / "python_files"
RUN_SCRIPT = PYTHON_FILES / "vscode_pytest" / "run_pytest_script.py"
PYTEST_ARGS = ("-p", "no:randomly")  # the user's python.testing.pytestArgs


@dataclass
class Exchange:
    """One pytest process: what it sent down the pipe and what it printed."""

    messages: list[dict[str, Any]]
    process: subprocess.CompletedProcess[str]

    def __str__(self) -> str:
        return (
            f"{self.messages}\n--- stdout\n{self.process.stdout}\n--- stderr\n{self.process.stderr}"
        )


@dataclass
class Discovery:
    tree: dict[str, Any]  # the session node, paths and ids made absolute
    errors: list[str]
    exchange: Exchange

    def tests(self, under: dict[str, Any] | None = None) -> Iterator[dict[str, Any]]:
        """Every test item (a leaf of the test explorer) in the tree or under a node of it."""
        stack = [under or self.tree]
        while stack:
            node = stack.pop()
            if node["type_"] == "test":
                yield node
            else:
                stack.extend(node["children"])

    def node(self, path: Path) -> dict[str, Any]:
        """The folder or file node at `path`."""
        stack = [self.tree]
        while stack:
            node = stack.pop()
            if node["type_"] != "test" and Path(node["path"]) == path:
                return node
            stack.extend(node.get("children", []))
        raise AssertionError(f"no node for {path} in the tree")


@dataclass
class Run:
    results: dict[str, dict[str, Any]] = field(default_factory=dict)  # runID -> outcome
    errors: list[str] = field(default_factory=list)
    exchange: Exchange | None = None


def discover(cwd: Path, *pytest_args: str) -> Discovery:
    args = [*PYTEST_ARGS, *pytest_args, f"--rootdir={cwd}"]
    exchange = _talk(cwd, ["-m", "pytest", "-p", "vscode_pytest", "--collect-only", *args], {})
    assert len(exchange.messages) == 1, f"discovery sends one message, got:\n{exchange}"
    payload = exchange.messages[0]["params"]
    assert payload["status"] == "success", f"discovery failed:\n{exchange}"
    tree = payload["tests"]
    if payload.get("pathBase"):  # the compact form (payloadVersion 2)
        id_base = payload.get("idBase")
        tree = _expand(
            tree, payload["pathBase"], payload["pathBase"] if id_base is None else id_base
        )
    return Discovery(tree, payload.get("error") or [], exchange)


def run(cwd: Path, run_ids: list[str]) -> Run:
    with tempfile.TemporaryDirectory() as folder:
        ids_file = Path(folder) / "test-ids.txt"
        ids_file.write_text("\n".join(run_ids), encoding="utf-8")
        args = [str(RUN_SCRIPT), *PYTEST_ARGS, f"--rootdir={cwd}"]
        exchange = _talk(cwd, args, {"RUN_TEST_IDS_PIPE": str(ids_file)})
    outcome = Run(exchange=exchange)
    for message in exchange.messages:
        payload = message["params"]
        if payload.get("error"):
            outcome.errors.extend(payload["error"])
        for run_id, result in (payload.get("result") or {}).items():
            assert run_id not in outcome.results, f"{run_id} reported twice:\n{exchange}"
            outcome.results[run_id] = result
    return outcome


def _talk(cwd: Path, args: list[str], env: dict[str, str]) -> Exchange:
    """Run `python ARGS` in `cwd` with a FIFO in TEST_RUN_PIPE; return what came through it."""
    with tempfile.TemporaryDirectory() as folder:
        pipe = Path(folder) / "python-test-results"
        os.mkfifo(pipe)
        reader = os.open(pipe, os.O_RDONLY | os.O_NONBLOCK)  # as the extension opens it
        # our own writer keeps the FIFO open until the process has ended, so the reader sees
        # end of file only then, however often (if ever) the process opens and closes it
        keeper = os.open(pipe, os.O_WRONLY)
        os.set_blocking(reader, True)
        chunks: list[bytes] = []
        drain = threading.Thread(target=_drain, args=(reader, chunks), daemon=True)
        drain.start()
        python_path = os.pathsep.join(
            [str(PYTHON_FILES), *filter(None, [os.environ.get("PYTHONPATH")])]
        )
        try:
            process = subprocess.run(
                [sys.executable, *args],
                cwd=cwd,
                env=clean_env(PYTHONPATH=python_path, TEST_RUN_PIPE=str(pipe), **env),
                capture_output=True,
                text=True,
                timeout=120,
                check=False,
            )
        finally:
            os.close(keeper)
            drain.join(timeout=30)
            os.close(reader)
    return Exchange(list(_messages(b"".join(chunks))), process)


def _drain(fd: int, chunks: list[bytes]) -> None:
    while chunk := os.read(fd, 65536):
        chunks.append(chunk)


def _messages(data: bytes) -> Iterator[dict[str, Any]]:
    while data:
        head, blank, rest = data.partition(b"\r\n\r\n")
        assert blank, f"a message without its blank line: {data[:200]!r}"
        headers = dict(line.split(": ", 1) for line in head.decode("ascii").split("\r\n"))
        size = int(headers["content-length"])
        # vscode_pytest counts characters, not bytes; the JSON is ASCII (json.dumps escapes)
        yield json.loads(rest[:size])
        data = rest[size:]


# expandCompactDiscoveryPayload (testDiscoveryHandler.ts), for POSIX paths


def _join(base: str, relative: str) -> str:
    if not base or os.path.isabs(relative):
        return relative
    if relative == ".":
        return base
    return base.rstrip("/") + "/" + relative.lstrip("/")


def _expand_id(test_id: str, id_base: str) -> str:
    path, separator, selector = test_id.partition("::")
    return _join(id_base, path) + separator + selector


def _expand(node: dict[str, Any], path_base: str, id_base: str) -> dict[str, Any]:
    expanded = {
        **node,
        "path": _join(path_base, node["path"]),
        "id_": _expand_id(node["id_"], id_base),
    }
    if "runID" in expanded:
        expanded["runID"] = _expand_id(expanded["runID"], id_base)
        return expanded
    expanded["children"] = [_expand(c, path_base, id_base) for c in node.get("children", [])]
    return expanded
