"""The README's screenshots of the example projects' report are current: made again by
docs/report_screenshots.py, they have the committed ones' size and shape (not their pixels:
the report's date, fonts and antialiasing differ from machine to machine)."""

from __future__ import annotations

import struct
import subprocess
import sys
from pathlib import Path

import pytest

from tests.browser import Browser
from tests.conftest import ROOT

SCRIPT = ROOT / "docs" / "report_screenshots.py"
NAMES = ("report.png", "report-drilldown.png")


def png_size(path: Path) -> tuple[int, int]:
    head = path.read_bytes()[:24]
    assert head[:8] == b"\x89PNG\r\n\x1a\n", f"{path} is not a PNG"
    width, height = struct.unpack(">II", head[16:24])
    return width, height


def test_the_readme_shows_the_screenshots() -> None:
    readme = (ROOT / "README.md").read_text()
    for name in NAMES:
        assert f"](docs/{name})" in readme


@pytest.mark.usefixtures("browser")  # skipped, with its reason, where there is no chromium
def test_the_committed_screenshots_are_current(tmp_path: Path, browser: Browser) -> None:
    made = subprocess.run(
        [sys.executable, str(SCRIPT), "--out", str(tmp_path)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert made.returncode == 0, made.stdout + made.stderr
    for name in NAMES:
        committed, fresh = ROOT / "docs" / name, tmp_path / name
        assert png_size(fresh) == png_size(committed), (
            f"docs/{name} is out of date: run `python docs/report_screenshots.py`"
        )
        ratio = fresh.stat().st_size / committed.stat().st_size
        assert 0.6 < ratio < 1.6, f"docs/{name} differs much from a fresh one ({ratio:.2f} x)"
