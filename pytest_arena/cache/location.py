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


def named_like_a_cache(path: Path) -> bool:
    """Whether `path` is named as a cache file is: in `.arena-cache/`, or with an SQLite
    suffix. Only such a file is deleted when it cannot be read: a mistyped --path must not
    cost the user a file of theirs."""
    return path.parent.name == CACHE_DIR or path.suffix in (".sqlite3", ".sqlite", ".db")
