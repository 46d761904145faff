"""Where the response cache lives."""

from __future__ import annotations

import re
from pathlib import Path

CACHE_DIR = ".arena-cache"
CACHE_FILE = "responses.sqlite3"
DEFAULT_CACHE_PATH = Path(CACHE_DIR) / CACHE_FILE  # relative to the pytest rootdir

# files that make a folder pytest's rootdir, with the section they must hold ("" : any)
_INI_FILES = (
    ("pytest.toml", ""),  # from pytest 9
    (".pytest.toml", ""),
    ("pytest.ini", ""),
    (".pytest.ini", ""),
    ("pyproject.toml", r"^\[tool\.pytest(\.ini_options)?\]"),  # [tool.pytest]: from pytest 9
    ("tox.ini", r"^\[pytest\]"),
    ("setup.cfg", r"^\[tool:pytest\]"),
)


def default_cache_path(rootdir: Path | str) -> Path:
    """`.arena-cache/responses.sqlite3` under the pytest rootdir."""
    return Path(rootdir) / DEFAULT_CACHE_PATH


def find_rootdir(start: Path | str, pytest_major: int = 9) -> Path:
    """The folder pytest takes as rootdir when run from `start`, in the common cases: the
    nearest folder up holding pytest's configuration (pytest.toml from `pytest_major` 9),
    else the nearest with a pyproject.toml, else `start`."""
    start = Path(start).resolve()
    known = _INI_FILES if pytest_major >= 9 else _INI_FILES[2:]  # pytest.toml: from pytest 9
    for folder in (start, *start.parents):
        for name, section in known:
            ini = folder / name
            if ini.is_file() and (not section or _has_section(ini, section)):
                return folder
    for folder in (start, *start.parents):
        if (folder / "pyproject.toml").is_file():
            return folder
    return start


def _has_section(path: Path, section: str) -> bool:
    try:
        return re.search(section, path.read_text(errors="replace"), re.M) is not None
    except OSError:
        return False


SQLITE_HEADER = b"SQLite format 3\x00"  # how every SQLite database file starts


def not_a_cache(path: Path) -> str:
    """What the unreadable file at `path` is, when it cannot be a cache ("" when it may be
    one: it lies in `.arena-cache/`, is empty, or starts as SQLite databases do). Only a
    file that may be a cache is deleted: a mistyped --path must not cost the user a file."""
    if path.parent.name == CACHE_DIR:
        return ""
    try:
        with path.open("rb") as file:
            start = file.read(512)
    except FileNotFoundError:
        return ""
    except OSError as exc:
        return f"a file arena cannot read ({exc.strerror or exc})"
    if not start or start.startswith(SQLITE_HEADER):
        return ""
    try:
        text = b"\x00" not in start and bool(start.decode("utf-8"))
    except UnicodeDecodeError as exc:  # a character cut at the end of what was read: text
        text = b"\x00" not in start and exc.start >= len(start) - 3
    return "a text file" if text else "a file that is no SQLite database"
