"""How fast pytest-arena runs, measured as whole pytest runs against their ideals.

    python benchmarks/speed.py sim  --cases 2000            # sim models vs bare pytest
    python benchmarks/speed.py http --cases 500 --latency-ms 100 --concurrency 16
    python benchmarks/speed.py http --cases 2000 --latency-ms 0
    python benchmarks/speed.py http --cases 500 --latency-ms 100 --concurrency 16 --xdist 2

Each command is run `--runs` times (after a warm-up) in a fresh folder of generated
projects; the medians are printed, with the ratio the target is stated in:

- sim: arena on the sim models over bare pytest running as many trivial parametrized items.
- http, latency > 0: arena against a local OpenAI-compatible server (tests/fake_llm_server.py,
  in its own process) over the ideal N x L / C plus bare pytest's own time.
- http, latency 0: arena over HTTP over bare pytest.

pytest-arena must be installed in this Python (`pip install -e .` or from a wheel): pytest
loads the plugin through its entry point, as a user's run does. Putting the source folder on
PYTHONPATH instead would change what is measured: pytest then rewrites the asserts of the
plugin's modules on every run where Python writes no bytecode (PYTHONDONTWRITEBYTECODE).
"""

from __future__ import annotations

import argparse
import importlib.metadata
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager, nullcontext
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PYTEST = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:randomly"]


def write_bare(folder: Path, cases: int) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "test_bare.py").write_text(
        "import pytest\n\n\n"
        f"@pytest.mark.parametrize('i', range({cases}))\n"
        "def test_case(i):\n    pass\n"
    )


def write_project(folder: Path, cases: int, models: str) -> None:
    project = folder / "projects" / "bench"
    project.mkdir(parents=True, exist_ok=True)
    lines = [models, "tests:"]
    lines += [
        # the marker tells the local server what to answer; the sim answers by itself
        f"  - {{id: case{i}, input: 'What is {i} plus {i}? [[answer={2 * i}]]',"
        f" reference: '{2 * i}'}}"
        for i in range(cases)
    ]
    (project / "arena.yaml").write_text("\n".join(lines) + "\n")


def timed(command: list[str], cwd: Path, runs: int, env: dict[str, str]) -> list[float]:
    """Wall seconds of each run of `command`, after one warm-up run."""
    times = []
    for n in range(runs + 1):
        started = time.perf_counter()
        done = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True)
        elapsed = time.perf_counter() - started
        if done.returncode not in (0, 1):
            sys.exit(f"{' '.join(command)} failed ({done.returncode}):\n{done.stdout[-3000:]}")
        if n:
            times.append(elapsed)
    return times


@contextmanager
def fake_server(latency_ms: float) -> Iterator[str]:
    """A local OpenAI-compatible server in its own process; yields its base URL."""
    server = subprocess.Popen(
        [
            sys.executable,
            str(ROOT / "tests" / "fake_llm_server.py"),
            "--port",
            "0",
            "--latency-ms",
            str(latency_ms),
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert server.stdout is not None
        line = server.stdout.readline()
        if "listening on" not in line:
            sys.exit(f"the fake server did not start: {line!r}")
        yield "http://" + line.split("listening on", 1)[1].strip()
    finally:
        server.terminate()
        server.wait(timeout=10)


def http_models(url: str, args: argparse.Namespace) -> str:
    return (
        "models:\n  default: [local]\n  define:\n    local:\n"
        f"      connector: openai\n      base_url: {url}/v1\n      model: bench\n"
        f"      concurrency: {args.concurrency}\n      cache: false"
    )


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawTextHelpFormatter
    )
    parser.add_argument("target", choices=["sim", "http"])
    parser.add_argument("--cases", type=int, default=2000)
    parser.add_argument("--latency-ms", type=float, default=0.0)
    parser.add_argument("--concurrency", type=int, default=16)
    parser.add_argument("--xdist", type=int, default=0, help="pytest-xdist workers (-n)")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument(
        "--url", default="", help="http: a server already running (default: start the fake one)"
    )
    parser.add_argument(
        "--write",
        metavar="DIR",
        help="only write the bare test and the project to DIR/bare and DIR/arena, to time"
        " them with another tool (hyperfine, /usr/bin/time)",
    )
    args = parser.parse_args()
    if args.write:
        base = Path(args.write)
        write_bare(base / "bare", args.cases)
        url = args.url or "http://127.0.0.1:PORT"
        models = "models: [sim_perfect]" if args.target == "sim" else http_models(url, args)
        write_project(base / "arena", args.cases, models)
        print(f"wrote {base}/bare and {base}/arena")
        return
    if not any(
        ep.value.startswith("pytest_arena")
        for ep in importlib.metadata.entry_points(group="pytest11")
    ):
        sys.exit("pytest-arena is not installed in this Python: run `pip install -e .` first")
    env = {**os.environ, "OPENAI_API_KEY": "sk-bench-not-a-secret"}
    xdist = ["-n", str(args.xdist)] if args.xdist else ["-p", "no:xdist"]
    with tempfile.TemporaryDirectory(prefix="arena-bench-") as tmp:
        base = Path(tmp)
        write_bare(base / "bare", args.cases)
        bare = timed([*PYTEST, *xdist, "test_bare.py"], base / "bare", args.runs, env)
        if args.target == "sim":
            write_project(base / "arena", args.cases, "models: [sim_perfect]")
            arena = timed([*PYTEST, *xdist, "projects"], base / "arena", args.runs, env)
            report(args, bare, arena, statistics.median(bare), "bare pytest")
            return
        with nullcontext(args.url) if args.url else fake_server(args.latency_ms) as url:
            write_project(base / "arena", args.cases, http_models(url, args))
            arena = timed([*PYTEST, *xdist, "projects"], base / "arena", args.runs, env)
        ideal = args.cases * args.latency_ms / 1000 / args.concurrency
        what = f"ideal N*L/C ({ideal:.2f} s) + bare pytest" if ideal else "bare pytest"
        report(args, bare, arena, ideal + statistics.median(bare), what)


def report(
    args: argparse.Namespace, bare: list[float], arena: list[float], target: float, what: str
) -> None:
    def line(name: str, times: list[float]) -> str:
        spread = f"min {min(times):.2f}, max {max(times):.2f}, {len(times)} runs"
        return f"{name:<12} median {statistics.median(times):7.2f} s   ({spread})"

    print(
        f"{args.target}: {args.cases} cases, latency {args.latency_ms:g} ms, "
        f"concurrency {args.concurrency}, xdist {args.xdist or 'off'}"
    )
    print(line("bare pytest", bare))
    print(line("arena", arena))
    print(f"ratio        {statistics.median(arena) / target:.2f} x ({what} = {target:.2f} s)")


if __name__ == "__main__":
    main()
