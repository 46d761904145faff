"""A small workspace of arena projects that the client tests open, and what each case should do.

`quiz` has cases in arena.yaml and in two dataset files (JSONL with a blank line, CSV);
`greet` has cases in arena.yaml only. Every case runs on `sim_perfect`, which passes it,
and on `sim_echo`, which repeats the input and so fails it with exact_match's reason.
"""

from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

QUIZ = """\
models: [sim_perfect, sim_echo]
tests:
  - id: capital
    input: "Capital of France?"
    reference: Paris
  - id: sum
    input: "2+2?"
    reference: "4"
datasets:
  - path: data/more.jsonl
  - path: data/table.csv
"""
MORE = """\
{"id": "r1", "input": "3+3", "reference": "6"}

{"id": "r2", "input": "1+2", "reference": "3"}
"""
TABLE = """\
id,input,reference
c1,5+5,10
c2,2*3,6
"""
GREET = """\
models: [sim_perfect, sim_echo]
tests:
  - id: hello
    input: "Say hello"
    reference: hello
"""
FILES = {
    "pytest.ini": "[pytest]\n",  # the workspace's root, whatever lies above it
    "projects/quiz/arena.yaml": QUIZ,
    "projects/quiz/data/more.jsonl": MORE,
    "projects/quiz/data/table.csv": TABLE,
    "projects/greet/arena.yaml": GREET,
}
# case id -> (its file, the text that starts it there, input, reference)
CASES = {
    "capital": ("projects/quiz/arena.yaml", "- id: capital", "Capital of France?", "Paris"),
    "sum": ("projects/quiz/arena.yaml", "- id: sum", "2+2?", "4"),
    "r1": ("projects/quiz/data/more.jsonl", '{"id": "r1"', "3+3", "6"),
    "r2": ("projects/quiz/data/more.jsonl", '{"id": "r2"', "1+2", "3"),
    "c1": ("projects/quiz/data/table.csv", "c1,", "5+5", "10"),
    "c2": ("projects/quiz/data/table.csv", "c2,", "2*3", "6"),
    "hello": ("projects/greet/arena.yaml", "- id: hello", "Say hello", "hello"),
}
MODELS = ("sim_perfect", "sim_echo")


@dataclass(frozen=True)
class Expected:
    """One item: a case on a model, where an editor should open it and how it should end."""

    case: str
    model: str
    file: Path  # absolute
    relative: str  # the file from the workspace's root, which is pytest's rootdir
    line: int  # 1-based, as editors count
    in_dataset: bool
    passes: bool
    reason: str | None  # the scorer's reason when it fails

    @property
    def name(self) -> str:
        return f"{self.case}[{self.model}]"


def write_workspace(root: Path) -> list[Expected]:
    """Write the projects under `root`; return every item they make, in no particular order."""
    for rel, text in FILES.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    expected = []
    for case, (rel, start, prompt, reference) in CASES.items():
        lines = FILES[rel].splitlines()
        (line,) = [n for n, text in enumerate(lines, start=1) if text.lstrip().startswith(start)]
        for model in MODELS:
            passes = model == "sim_perfect"
            expected.append(
                Expected(
                    case=case,
                    model=model,
                    file=root / rel,
                    relative=rel,
                    line=line,
                    in_dataset=not rel.endswith("arena.yaml"),
                    passes=passes,
                    reason=None if passes else f"expected '{reference}', got '{prompt}'",
                )
            )
    return expected


def clean_env(**extra: str) -> dict[str, str]:
    """This process's environment without what the outer pytest run put there."""
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith("PYTEST_") and key != "GITHUB_STEP_SUMMARY"
    }
    env.update(extra)
    return env


def run_pytest(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """`python -m pytest ARGS` in `root`, as a client starts it: a fresh process, its own env."""
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:randomly", *args],
        cwd=root,
        env=clean_env(),
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def node_ids(root: Path) -> dict[tuple[str, str], str]:
    """pytest's own node id of each (case, model), from `pytest --collect-only -q`."""
    result = run_pytest(root, "--collect-only", "-q")
    assert result.returncode == 0, result.stdout + result.stderr
    ids = {}
    for line in result.stdout.splitlines():
        if "::" in line and line.endswith("]"):
            case, model = line.rsplit("::", 1)[1][:-1].split("[")
            ids[case, model] = line
    return ids
