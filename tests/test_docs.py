"""Every code block in the README and the guides is run or checked here.

A block is preceded by a directive in an HTML comment:
  <!-- file: PATH -->    write the block to PATH in the guide's scratch folder
  <!-- run -->          run each `$ ` line there; the lines after it must appear in the output
  <!-- yaml -->         the block is a valid arena.yaml on its own
  <!-- readme: main --> / <!-- readme: tests -->  the README's set-up commands (see test_readme)

Each run block is a test of its own, so that xdist spreads a guide over its workers: the test
writes the guide's file blocks up to that block, in order, in a fresh folder, then runs it. A
run block of `python` lines only reads what the run before it wrote, and goes with that run.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import sys
import textwrap
from dataclasses import dataclass
from pathlib import Path

import pytest

from pytest_arena.spec import load_project
from tests.conftest import ROOT, XDIST

# programs the guides' shell scripts use that a minimal system may lack
SCRIPT_PROGRAMS = ("jq", "bc")
DOCS = [*sorted((ROOT / "docs").rglob("*.md")), ROOT / "README.md"]
BLOCK = re.compile(
    r"(?:<!--\s*(?P<directive>[^>]*?)\s*-->\s*\n)?^(?P<fence>`{3,})(?P<lang>[\w-]*)\n(?P<body>.*?)^(?P=fence)\s*$",
    re.S | re.M,
)
PROSE = {"text"}  # file trees and other pictures, not code


@dataclass
class Block:
    doc: Path
    line: int
    directive: str
    lang: str
    body: str


def blocks(doc: Path) -> list[Block]:
    text = doc.read_text()
    return [
        Block(doc, text.count("\n", 0, m.start("body")), m["directive"] or "", m["lang"], m["body"])
        for m in BLOCK.finditer(text)
    ]


def test_every_block_has_a_directive() -> None:
    missing = [
        f"{b.doc.relative_to(ROOT)}:{b.line}"
        for doc in DOCS
        for b in blocks(doc)
        if b.lang not in PROSE
        and not re.match(r"(file: \S+|run|yaml|readme: (main|tests))$", b.directive)
    ]
    assert missing == []


def commands(body: str) -> list[tuple[str, list[str]]]:
    out: list[tuple[str, list[str]]] = []
    for line in textwrap.dedent(body).splitlines():
        if line.startswith("$ "):
            out.append((line[2:], []))
        elif out and line.strip() and line.strip() != "...":
            pattern = line.replace("[", "[[]")  # only '*' is a wildcard in the guides
            out[-1][1].append(pattern if "*" in line else f"*{pattern.strip()}*")
    return out


@dataclass
class Run:
    """One case of the guide test: the file blocks before it, written in order (a later block
    replaces an earlier one's file), then its run block and any that continue it, with the
    file blocks between them."""

    doc: Path
    steps: list[Block]

    @property
    def id(self) -> str:
        first = next(b for b in self.steps if b.directive == "run")
        return f"{self.doc.relative_to(ROOT)}:{first.line}"


def starts_a_run(block: Block) -> bool:
    """A run block that runs pytest or arena; one that runs only `python` reads what the run
    before it wrote (reports.md checks its JSON report), so it continues that run's case."""
    return any(shlex.split(command)[0] != "python" for command, _ in commands(block.body))


def runs(doc: Path) -> list[Run]:
    found: list[Run] = []
    files: list[Block] = []  # every file block so far
    since: list[Block] = []  # the file blocks since the last run block
    for block in blocks(doc):
        if block.directive.startswith("file: "):
            files.append(block)
            since.append(block)
        elif block.directive == "run":
            if found and not starts_a_run(block):
                found[-1].steps += [*since, block]
            else:
                found.append(Run(doc, [*files, block]))
            since = []
    return found


RUNS = [run for doc in DOCS for run in runs(doc)]
YAML = [b for doc in DOCS for b in blocks(doc) if b.directive == "yaml"]


def test_every_guide_runs_something() -> None:
    ran = {run.doc for run in RUNS for b in run.steps if b.directive == "run" and commands(b.body)}
    assert [doc.name for doc in DOCS if doc not in ran and doc.name != "README.md"] == []


@pytest.mark.parametrize("block", YAML, ids=[f"{b.doc.relative_to(ROOT)}:{b.line}" for b in YAML])
def test_the_yaml_block_is_a_valid_arena_yaml(block: Block, tmp_path: Path) -> None:
    scratch = tmp_path / "arena.yaml"
    scratch.write_text(block.body)
    # a fragment naming datasets cannot ship their files: only its own cases must load
    problems = [p for p in load_project(scratch).problems if p.dataset is None]
    assert problems == []


@pytest.mark.parametrize("run", RUNS, ids=[run.id for run in RUNS])
def test_the_guide_runs_as_written(
    run: Run, pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    scripts = " ".join(
        b.body for b in run.steps if b.directive.startswith("file: ") and b.lang == "bash"
    )
    used = [program for program in SCRIPT_PROGRAMS if re.search(rf"\b{program}\b", scripts)]
    if missing := [program for program in used if shutil.which(program) is None]:
        pytest.skip(f"the guide's script needs {' and '.join(missing)}, not installed here")
    monkeypatch.chdir(pytester.path)
    # `python` in a guide (`command: python agent.py`) is the reader's, as in an activated
    # virtualenv: a Debian or Ubuntu system has no `python` of its own
    monkeypatch.setenv("PATH", f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}")
    for block in run.steps:
        if block.directive.startswith("file: "):
            path = pytester.path / block.directive.removeprefix("file: ")
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(block.body)
            continue
        for command, expected in commands(block.body):
            args = shlex.split(command)
            if args[0] == "pytest":  # the console script: no folder is put on sys.path
                script = Path(sys.executable).with_name("pytest")  # (python -m puts the cwd)
                args = [str(script), "-p", "no:cacheprovider", *args[1:]]
                if "-n" in args:  # inner runs load only the plugins they name
                    args[1:1] = XDIST
            elif args[0] == "arena":
                args = [sys.executable, "-m", "pytest_arena", *args[1:]]
            elif args[0] == "python":  # this test's interpreter, activated or not
                args = [sys.executable, *args[1:]]
            result = pytester.run(*args, timeout=120)
            result.stdout.fnmatch_lines(expected, consecutive=False)
