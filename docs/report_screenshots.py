"""Screenshots of the example projects' HTML report, for the README:

    python docs/report_screenshots.py            # writes docs/report.png, docs/report-drilldown.png
    python docs/report_screenshots.py --out DIR  # elsewhere (tests/test_html_screenshots.py does)

Runs the README's main command with `--arena-html` (the example projects on sim_small and
sim_large), opens the report in headless Chromium (Debian's `chromium`) and takes:

- report.png: the top of the page, every project's leaderboard and plots, 1280 px wide;
- report-drilldown.png: the case matrix with the drill-down of a failed case open.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # tests.browser

from tests.browser import Browser  # noqa: E402

WIDTH = 1280
NAMES = ("report.png", "report-drilldown.png")
COMMAND = ["projects", "--arena-models", "sim_small,sim_large", "-q", "-p", "no:randomly"]


def make_report(folder: Path) -> Path:
    page = folder / "report.html"
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            *COMMAND,
            "--arena-html",
            str(page),
            "-p",
            "no:cacheprovider",
        ],
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        check=False,  # sim_small fails some cases: exit status 1 on purpose
    )
    if not page.exists():
        raise SystemExit("the run wrote no report")
    return page


def shoot(page: Path, out: Path) -> list[Path]:
    out.mkdir(parents=True, exist_ok=True)
    top, drill = (out / name for name in NAMES)
    with Browser(width=WIDTH, height=900) as browser:
        browser.open(page.as_uri())
        height = browser.js(
            "Math.ceil(document.getElementById('cases').getBoundingClientRect().top)"
        )
        browser.call(
            "Emulation.setDeviceMetricsOverride",
            width=WIDTH,
            height=height,
            deviceScaleFactor=1,
            mobile=False,
        )
        browser.screenshot(top)
        browser.call("Emulation.clearDeviceMetricsOverride")
        browser.js(
            "document.getElementById('cases').scrollIntoView();"
            "document.querySelector('td.cell.failed').click()"
        )
        browser.screenshot(drill)
    return [top, drill]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", type=Path, default=ROOT / "docs")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        for path in shoot(make_report(Path(folder)), args.out):
            print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
