"""What a run has spent, in a file that all its processes (pytest-xdist workers) add to,
so that a budget caps the run rather than each worker; and what each process spent, in a
file of its own that outlives it."""

from __future__ import annotations

import contextlib
import hashlib
import os
import re
import threading
from pathlib import Path

try:
    import fcntl
except ImportError:  # Windows: no shared ledger, each worker keeps its own count
    fcntl = None  # type: ignore[assignment]

_WIDTH = 32  # the total is written as a fixed-width text, so it never needs truncating
_UNSAFE = re.compile(r"[^A-Za-z0-9_.-]+")
_OWN = ".own"  # a process's own ledger, apart from the budgets' (".spent")


class Ledger:
    """A running total of dollars, shared through a locked file."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)  # open till the engine closes
        # the file lock keeps other processes out, not this one's other threads (pytest's
        # charges inline calls, the engine's the rest): each adds under this lock too
        self._threads = threading.Lock()

    @classmethod
    def in_folder(cls, folder: Path, name: str) -> Ledger | None:
        """The ledger called `name` in `folder`; None where files cannot be locked, or where
        the folder is not (a worker on another machine, started with xdist's --tx)."""
        if not _shared(folder):
            return None
        return cls(folder / (_file_name(name) + ".spent"))

    def total(self) -> float:
        fcntl.flock(self._fd, fcntl.LOCK_SH)
        try:
            return self._read()
        finally:
            fcntl.flock(self._fd, fcntl.LOCK_UN)

    def add(self, amount: float) -> float:
        """Add `amount`; the new total."""
        with self._threads:
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


class OwnLedger(Ledger):
    """What one process spent, in a file of its own beside the run's ledgers: the
    pytest-xdist controller reads a worker's when the worker's own account of it never
    arrived (Ctrl-C, a crash). Only this process writes it: each amount is one write, with
    no file lock. In a budget's place, it passes each amount on to the budget's own ledger (shared
    by the run's processes), if it has one, and totals as that one does."""

    def __init__(self, path: Path) -> None:
        super().__init__(path)
        self.shared: Ledger | None = None
        self._own = 0.0
        self._closed = False

    @classmethod
    def of_process(cls, folder: Path, name: str) -> OwnLedger | None:
        """Process `name`'s own ledger in `folder`, made there at once (so that a process
        that spends nothing leaves $0, not nothing, behind); None where a shared ledger could
        not be made either."""
        if not _shared(folder):
            return None
        return cls(own_path(folder, name))

    def standing_in_for(self, shared: Ledger | None) -> OwnLedger:
        """This ledger, passing what it is given on to `shared` (a budget's ledger) too."""
        self.shared = shared
        return self

    def total(self) -> float:
        if self.shared is not None:
            return self.shared.total()
        with self._threads:
            return self._own

    def add(self, amount: float) -> float:
        with self._threads:
            if amount and not self._closed:  # written when it changes
                self._own += amount
                os.pwrite(self._fd, repr(self._own).ljust(_WIDTH).encode(), 0)
        return self.total() if self.shared is None else self.shared.add(amount)

    def close(self) -> None:
        """Close the file (not the shared ledger's); what is added later is not written."""
        with self._threads:
            if not self._closed:
                self._closed = True
                super().close()


def _file_name(name: str) -> str:
    """A file name for the ledger called `name`: its safe characters, and a digest of the
    whole when some were not (projects named 問答 and 数学 would share one budget)."""
    safe = _UNSAFE.sub("_", name)
    if safe == name:
        return name
    return f"{safe[:80]}-{hashlib.sha256(name.encode('utf-8', 'surrogatepass')).hexdigest()[:16]}"


def own_path(folder: Path, name: str) -> Path:
    """Where process `name` keeps its own ledger in `folder`."""
    return folder / (_file_name(name) + _OWN)


def read_own(path: Path) -> float | None:
    """What the process whose own ledger is at `path` spent; None if it made none there."""
    try:
        text = path.read_text("ascii").strip()
        return float(text) if text else 0.0
    except (OSError, UnicodeDecodeError, ValueError):
        return None


def _shared(folder: Path) -> bool:
    """Whether the run's processes can share ledgers in `folder`: files can be locked, and
    this process sees the folder (a worker on another machine does not)."""
    return fcntl is not None and folder.is_dir()
