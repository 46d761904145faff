"""How fast the `--arena-html` report opens in headless Chromium (issue 14's target: a report
of 10,000 records open and interactive in under 2 s on these machines).

    python benchmarks/html_report.py                 # 10,000 records, 3 rounds
    python benchmarks/html_report.py --records 50000 --rounds 1

Generated records, like a real run's: two projects, two models each, outputs and prompts
of a few hundred characters, a fifth of them failed with a reason, some with a contract's
detail. Printed: the time to render the page in Python, its size, and per round in
Chromium (each round a fresh page load of the file):

- open: from navigation start until the page's script has drawn every cell and the
  browser has painted a frame and run a task after it (the main thread is free: a click
  is handled at once);
- filter: "failing only" clicked, until every row is shown or hidden;
- drill-down: a cell clicked, until its drill-down is drawn.

Needs Debian's `chromium` on the PATH, and pytest-arena installed in this Python.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # tests.browser

from pytest_arena.record import FAILED, PASSED, Record  # noqa: E402
from pytest_arena.reports.html import render  # noqa: E402
from pytest_arena.reports.json_report import build_report  # noqa: E402
from pytest_arena.reports.leaderboard import build_boards  # noqa: E402
from tests.browser import Browser  # noqa: E402

WORDS = ["the", "order", "parcel", "refund", "card", "invoice", "please", "sorry", "today"]


def sentence(rng: random.Random, words: int) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(words)).capitalize() + "."


def make_records(count: int, seed: int = 14) -> list[Record]:
    rng = random.Random(seed)
    records = []
    projects, models = ("support", "extraction"), ("model_a", "model_b")
    per_project = count // (len(projects) * len(models))
    for project in projects:
        for case in range(per_project):
            prompt = sentence(rng, 50)
            reference = sentence(rng, 25)
            tags = [rng.choice(("billing", "shipping", "account"))]
            for model in models:
                ok = rng.random() < 0.8
                output = reference if ok else sentence(rng, 30)
                detail = {}
                if case % 5 == 0:
                    detail = {"components": [{"name": "tone", "score": 1.0, "passed": True}]}
                records.append(
                    Record(
                        project,
                        f"case-{case:05d}",
                        model,
                        PASSED if ok else FAILED,
                        1.0 if ok else rng.random() / 2,
                        ok,
                        "matched" if ok else "missed the point: " + sentence(rng, 8),
                        "tone",
                        output=output,
                        reference=reference,
                        messages=[{"role": "user", "content": prompt}],
                        detail=detail,
                        tags=tags,
                        tokens_in=60,
                        tokens_out=30,
                        cost=0.0001,
                        latency_ms=rng.uniform(200, 900),
                    )
                )
    return records


OPEN = """new Promise(done => requestAnimationFrame(() => setTimeout(() =>
  done({ready: window.arenaReport.readyMs, free: performance.now(),
        cells: document.querySelectorAll('td.cell').length}))))"""
FILTER = """(() => { const t = performance.now(); document.getElementById('f-failing').click();
  return {ms: performance.now() - t, shown: document.getElementById('f-count').textContent}; })()"""
DRILL = """(() => { const t = performance.now();
  document.querySelector('tr:not([hidden]) td.cell.failed').click();
  return {ms: performance.now() - t,
          reason: document.querySelector('#drill .reason').textContent}; })()"""


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--records", type=int, default=10_000)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    records = make_records(args.records)
    started = time.perf_counter()
    report = build_report(records, build_boards(records))
    page = render(report)
    rendered = time.perf_counter() - started
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder, "report.html")
        path.write_text(page, "utf-8")
        size = path.stat().st_size
        print(f"{len(records):,} records: rendered in {rendered:.2f} s, {size / 2**20:.1f} MiB")
        opens, filters, drills = [], [], []
        with Browser() as browser:
            for round_ in range(1, args.rounds + 1):
                browser.open(path.as_uri())
                opened = browser.js(OPEN)
                assert 0 < opened["cells"] <= len(records), opened
                filtered = browser.js(FILTER)
                drilled = browser.js(DRILL)
                opens.append(opened["free"] / 1000)
                filters.append(filtered["ms"] / 1000)
                drills.append(drilled["ms"] / 1000)
                print(
                    f"round {round_}: open {opens[-1]:.2f} s (script done at"
                    f" {opened['ready'] / 1000:.2f} s), filter {filters[-1] * 1000:.0f} ms"
                    f" ({filtered['shown']}), drill-down {drills[-1] * 1000:.0f} ms"
                )
    median = statistics.median(opens)
    print(
        f"median: open {median:.2f} s, filter {statistics.median(filters) * 1000:.0f} ms,"
        f" drill-down {statistics.median(drills) * 1000:.0f} ms;"
        f" target under 2 s: {'met' if median < 2 else 'NOT met'}"
    )
    return 0 if median < 2 else 1


if __name__ == "__main__":
    sys.exit(main())
