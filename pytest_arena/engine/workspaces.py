"""Agents' workspaces: one folder per run, older runs' folders removed."""

from __future__ import annotations

import getpass
import re
import shutil
import tempfile
import time
from pathlib import Path

SAFE = re.compile(r"[^A-Za-z0-9_.-]+")


KEEP_RUNS = 3  # outside pytest, the workspaces of this many latest runs are kept


def new_run_folder(parent: Path | None = None) -> Path:
    """A fresh folder for this run's agent workspaces, under `parent` (default: the system's
    temp folder); the workspaces of older runs are removed, all but the latest few."""
    base = parent or Path(tempfile.gettempdir()) / f"pytest-arena-of-{_user()}"
    base.mkdir(parents=True, exist_ok=True)
    runs = sorted(base.glob("run-*"), key=lambda p: p.stat().st_mtime)
    for old in runs[: max(0, len(runs) - KEEP_RUNS + 1)]:
        if time.time() - old.stat().st_mtime > 60:  # never one a parallel worker just made
            shutil.rmtree(old, ignore_errors=True)
    return Path(tempfile.mkdtemp(prefix="run-", dir=base))


def _user() -> str:
    try:
        return SAFE.sub("_", getpass.getuser()) or "unknown"
    except (KeyError, OSError):
        return "unknown"
