"""The names of the files a project is made of, and where a path to one leads."""

import os
from pathlib import Path

PROJECT_FILE = "arena.yaml"  # a folder holding one is a project
MISNAMED_FILE = "arena.yml"  # not read: said as a problem, since it is surely meant as one
# the formats of dataset files, by suffix (a dataset may also declare its format)
DATASET_FORMATS = {
    ".yaml": "yaml",
    ".yml": "yaml",
    ".jsonl": "jsonl",
    ".ndjson": "jsonl",
    ".csv": "csv",
    ".tsv": "tsv",
}


def resolved(path: Path) -> Path:
    """`path` made absolute, its links followed, as `Path.resolve()` does from Python 3.13:
    a link that loops is left as it is, where up to 3.12 resolve() raised RuntimeError (a
    crash of the run, not a file that is said to be missing)."""
    return Path(os.path.realpath(path))
