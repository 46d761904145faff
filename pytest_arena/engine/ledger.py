"""What a run has spent, in a file that all its processes (pytest-xdist workers) add to,
so that a budget caps the run rather than each worker."""

from __future__ import annotations

import contextlib
import os
import re
from pathlib import Path

try:
    import fcntl
except ImportError:  # Windows: no shared ledger, each worker keeps its own count
    fcntl = None  # type: ignore[assignment]

_WIDTH = 32  # the total is written as a fixed-width text, so it never needs truncating
_UNSAFE = re.compile(r"[^A-Za-z0-9_.-]+")


class Ledger:
    """A running total of dollars, shared through a locked file."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)  # open till the engine closes

    @classmethod
    def in_folder(cls, folder: Path, name: str) -> Ledger | None:
        """The ledger called `name` in `folder`; None where files cannot be locked, or where
        the folder is not (a worker on another machine, started with xdist's --tx)."""
        if fcntl is None or not folder.is_dir():
            return None
        return cls(folder / (_UNSAFE.sub("_", name) + ".spent"))

    def total(self) -> float:
        fcntl.flock(self._fd, fcntl.LOCK_SH)
        try:
            return self._read()
        finally:
            fcntl.flock(self._fd, fcntl.LOCK_UN)

    def add(self, amount: float) -> float:
        """Add `amount`; the new total."""
        fcntl.flock(self._fd, fcntl.LOCK_EX)
        try:
            total = self._read() + amount
            os.pwrite(self._fd, repr(total).ljust(_WIDTH).encode(), 0)
            return total
        finally:
            fcntl.flock(self._fd, fcntl.LOCK_UN)

    def close(self) -> None:
        with contextlib.suppress(OSError):
            os.close(self._fd)

    def _read(self) -> float:
        text = os.pread(self._fd, _WIDTH, 0).strip()
        return float(text) if text else 0.0
