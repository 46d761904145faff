"""Every code block in the README and the guides is run or checked here.

A block is preceded by a directive in an HTML comment:
  <!-- file: PATH -->    write the block to PATH in the guide's scratch folder
  <!-- run -->          run each `$ ` line there; the lines after it must appear in the output
  <!-- yaml -->         the block is a valid arena.yaml on its own
  <!-- readme: main --> / <!-- readme: tests -->  the README's set-up commands (see test_readme)
"""

from __future__ import annotations

import re
import shlex
import sys
import textwrap
from dataclasses import dataclass
from pathlib import Path

import pytest

from pytest_arena.spec import load_project
from tests.conftest import ROOT, XDIST

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


@pytest.mark.parametrize("doc", DOCS, ids=lambda p: str(p.relative_to(ROOT)))
def test_the_guide_runs_as_written(
    doc: Path, pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(pytester.path)
    ran = 0
    for block in blocks(doc):
        where = f"{doc.name}:{block.line}"
        if block.directive.startswith("file: "):
            path = pytester.path / block.directive.removeprefix("file: ")
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(block.body)
        elif block.directive == "yaml":
            scratch = pytester.path / "_yaml_check" / "arena.yaml"
            scratch.parent.mkdir(exist_ok=True)
            scratch.write_text(block.body)
            # a fragment naming datasets cannot ship their files: only its own cases must load
            problems = [p for p in load_project(scratch).problems if p.dataset is None]
            assert problems == [], where
        elif block.directive == "run":
            for command, expected in commands(block.body):
                args = shlex.split(command)
                if args[0] == "pytest":
                    args = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", *args[1:]]
                    if "-n" in args:  # inner runs load only the plugins they name
                        args[3:3] = XDIST
                elif args[0] == "arena":
                    args = [sys.executable, "-m", "pytest_arena", *args[1:]]
                elif args[0] == "python":  # this test's interpreter, activated or not
                    args = [sys.executable, *args[1:]]
                result = pytester.run(*args, timeout=120)
                result.stdout.fnmatch_lines(expected, consecutive=False)
                ran += 1
    if doc.name != "README.md":
        assert ran, f"{doc.name} runs nothing"


def commands(body: str) -> list[tuple[str, list[str]]]:
    out: list[tuple[str, list[str]]] = []
    for line in textwrap.dedent(body).splitlines():
        if line.startswith("$ "):
            out.append((line[2:], []))
        elif out and line.strip() and line.strip() != "...":
            pattern = line.replace("[", "[[]")  # only '*' is a wildcard in the guides
            out[-1][1].append(pattern if "*" in line else f"*{pattern.strip()}*")
    return out
