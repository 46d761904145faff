"""How fast pytest-arena runs, as whole runs against like-for-like baselines (issue 10).

    python benchmarks/speed.py sim  --cases 2000                                   # (c)
    python benchmarks/speed.py http --cases 500 --latency-ms 100 --concurrency 16  # (a)
    python benchmarks/speed.py http --cases 2000 --latency-ms 0                    # (b)
    python benchmarks/speed.py http --cases 500 --latency-ms 100 --concurrency 16 --xdist 2
    python benchmarks/speed.py first --cases 500                                   # (d)
    python benchmarks/speed.py sim --cases 2000 --arena-args="-v --arena-progress-every 0" \
        --arena-variant="--arena-progress-every 1"     # the progress line's cost

Every time is a whole process, from its start to its exit, run by this script through
subprocess in a fresh folder of generated files. The targets and their baselines:

- (a) http at a latency: arena against a local OpenAI-compatible server within 1.1 x of
  a plain asyncio + aiohttp client making the same calls plus bare pytest. The client
  (client.py, written beside the project) posts the same JSON bodies arena's openai
  connector posts ({"model", "messages"}, with the same Content-Type header), at most
  --concurrency at a time, to the same server process (tests/fake_llm_server.py, started
  once as a process of its own), reads each answer and compares it with the reference.
- (b) http at 0 ms: arena within 2 x of bare pytest. The plain client is timed too, and
  a process that only starts and imports what it imports: the difference of their CPU
  times is what the calls cost the client, and bare pytest's time plus that is the floor
  of a run whose calls and items share one interpreter's lock, printed as a ratio to bare
  pytest beside issue 16's 1.25 x.
- (c) sim: arena on sim models (--models, default sim_perfect) within 1.3 x of bare pytest.
- peak memory: for sim and http, each command's peak resident memory (the operating
  system's accounting of the finished process, as `/usr/bin/time -v` reports it) is
  printed too, and arena's against bare pytest's, within 1.2 x at 50,000 cases (a smaller
  run's ratio is printed, not judged: the imports' fixed megabytes weigh more there):

      python benchmarks/speed.py sim --cases 50000 --models sim_small --runs 1 \
          --arena-variant=--tb=no --bare-args=--tb=no

  (arena with pytest's default output against its --tb=no twin, "arena #1": a large
  failing run's default output within 1.3 x of it; the peak memory against bare pytest
  with as many failures. Bare pytest runs with --tb=no: under the default output pytest's
  summary of 29,000 failures takes time quadratic in them, over 11 minutes here.)
- --no-bytecode-cache: each command runs with PYTHONDONTWRITEBYTECODE=1, where pytest can
  cache no module it rewrites (bare pytest's test file is compiled on every run, and a
  plugin's modules would be too: pytest-arena takes its own off pytest's list).
- (d) first: the time from launching `pytest` on an http project of --cases cases to the
  first request reaching the server, within 0.5 s. The server is a small one in this
  script's own process (http.server on a thread), so launch and arrival are read on one
  clock; it answers every call at once. The plain client's time to its first request on
  the same server is printed beside it, as the floor of what an interpreter start costs.

Bare pytest runs as many trivial parametrized items as arena's run had, and as many of
them fail as arena's run failed (counted from its summary line; an error counts as a
failure): each failing item asserts with a one-line message as long as arena's usual
failure message (the median length of the first lines of its failure reports). It runs
with the same pytest options and --xdist workers as arena, and with `-p no:arena`: pytest
alone, without the plugin's start-up, though the plugin is installed in the same Python.

Each command runs once as a warm-up (arena's warm-up is the one whose failures are
counted), then --runs rounds follow, each running every command once, in an order that
rotates from round to round, so load that comes and goes on the machine falls on all
of them alike. Printed: the Python and the releases measured; each command's median, min
and max (and how much it printed); the ratio in the target's terms: arena's median over
the baseline's median (for (a), the median over the rounds of client + bare pytest), with
its min and max over the rounds (each round's ratio from that round's own times); the
target, met or not.

pytest-arena must be installed in this Python (`pip install .`, or `pip install -e .`):
pytest loads the plugin through its entry point, as a user's run does (the source folder
on PYTHONPATH gives it none to load it by). The client needs aiohttp (a dependency of
pytest-arena). For the figures a user meets, run it from a virtualenv holding the wheel
alone (`python -m venv v && v/bin/pip install dist/pytest_arena-*.whl`): the dev extra's
plugins load in every run, arena's and bare pytest's, and slow each one's start alike
(which moves every ratio); the line under the header names the plugins it found.
"""

from __future__ import annotations

import argparse
import http.server
import importlib.metadata
import json
import os
import re
import shlex
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager, nullcontext
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PYTEST = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:randomly"]
BARE = ["-p", "no:arena"]  # pytest alone: without the plugin, installed in this Python as it is
TARGETS = {"sim": 1.3, "http-latency": 1.1, "http-0": 2.0, "first": 0.5, "memory": 1.2}
OVERHEAD_BOUND = 1.25  # issue 16: the http run at 0 ms against bare pytest
MEMORY_AT = 50_000  # issue 16 sets the memory target for runs of this many cases
DEFAULT_MESSAGE = 40  # characters of a bare failure's message when arena's run had none

CLIENT = '''\
"""The baseline for arena's HTTP runs: the same chat calls with a plain aiohttp client.

    python client.py URL CONCURRENCY

Posts each body in calls.jsonl to URL, at most CONCURRENCY at a time, reads the answer
and compares it with the call's reference; prints how many calls were made and how many
answers differed.
"""

import asyncio
import json
import sys
from pathlib import Path

import aiohttp


async def main(url: str, concurrency: int) -> None:
    lines = (Path(__file__).parent / "calls.jsonl").read_text().splitlines()
    calls = [json.loads(line) for line in lines]
    headers = {"Content-Type": "application/json"}
    wrong = 0
    connector = aiohttp.TCPConnector(limit=concurrency)
    async with aiohttp.ClientSession(connector=connector) as session:
        pending = iter(calls)

        async def worker() -> None:
            nonlocal wrong
            for call in pending:
                payload = json.dumps(call["body"], ensure_ascii=False).encode()
                async with session.post(url, data=payload, headers=headers) as reply:
                    reply.raise_for_status()
                    data = json.loads(await reply.read())
                wrong += data["choices"][0]["message"]["content"] != call["reference"]

        await asyncio.gather(*(worker() for _ in range(concurrency)))
    print(f"{len(calls)} calls, {wrong} wrong")


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], int(sys.argv[2])))
'''


def cases(count: int) -> list[tuple[str, str, str]]:
    """(id, input, reference) of each case; the marker tells the local server what to
    answer, the sim answers by itself."""
    return [
        (f"case{i}", f"What is {i} plus {i}? [[answer={2 * i}]]", str(2 * i)) for i in range(count)
    ]


def write_project(folder: Path, count: int, models: str) -> None:
    project = folder / "projects" / "bench"
    project.mkdir(parents=True, exist_ok=True)
    lines = [models, "tests:"]
    lines += [
        f"  - {{id: {id_}, input: '{text}', reference: '{reference}'}}"
        for id_, text, reference in cases(count)
    ]
    (project / "arena.yaml").write_text("\n".join(lines) + "\n")


def write_client(folder: Path, count: int) -> None:
    """client.py and the calls it makes: the bodies arena's openai connector posts for
    the project's cases (model "bench", one user message, no other fields)."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "client.py").write_text(CLIENT)
    calls = [
        {
            "body": {"model": "bench", "messages": [{"role": "user", "content": text}]},
            "reference": reference,
        }
        for _, text, reference in cases(count)
    ]
    (folder / "calls.jsonl").write_text(
        "".join(json.dumps(call, ensure_ascii=False) + "\n" for call in calls)
    )


def write_bare(folder: Path, items: int, failures: int, message: int) -> None:
    """`items` trivial parametrized tests, `failures` of them (spread evenly) failing with
    a one-line assert message of `message` characters. Which fail is computed, not listed:
    pytest parses the failing test's file for each failure it reports, so a file growing
    with the run would slow bare pytest down and flatter arena."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "test_bare.py").write_text(
        "import pytest\n\n\n"
        f"@pytest.mark.parametrize('i', range({items}))\n"
        "def test_case(i):\n"
        f"    ok = i * {failures} // {items} == (i + 1) * {failures} // {items}\n"
        f"    assert ok, f\"expected '{{i}}', got '{{i + 1}}'\".ljust({message}, '.')\n"
    )


def http_models(url: str, concurrency: int) -> str:
    return (
        "models:\n  default: [local]\n  define:\n    local:\n"
        f"      connector: openai\n      base_url: {url}/v1\n      model: bench\n"
        f"      concurrency: {concurrency}\n      cache: false"
    )


def sim_models(names: str) -> str:
    return f"models: [{', '.join(n.strip() for n in names.split(','))}]"


@dataclass
class Command:
    name: str
    argv: list[str]
    cwd: Path
    times: list[float] = field(default_factory=list)
    output: str = ""
    outputs: list[int] = field(default_factory=list)  # characters printed, per timed run
    peak: float = 0.0  # MB of resident memory at most, of the last run
    peaks: list[float] = field(default_factory=list)  # per timed run
    cpu: float = 0.0  # CPU seconds (user + system) of the last run
    cpus: list[float] = field(default_factory=list)  # per timed run

    def run(self, env: dict[str, str]) -> float:
        """Wall seconds of one run, from the process's start to its exit; its peak resident
        memory and CPU time (the operating system's accounting of the finished child) go
        to `peak` and `cpu`."""
        with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
            started = time.perf_counter()
            child = subprocess.Popen(self.argv, cwd=self.cwd, env=env, stdout=out, stderr=err)
            _, status, usage = os.wait4(child.pid, 0)
            elapsed = time.perf_counter() - started
            child.returncode = os.waitstatus_to_exitcode(status)
            out.seek(0)
            err.seek(0)
            stdout, stderr = out.read(), err.read()
        if child.returncode not in (0, 1):
            sys.exit(
                f"{' '.join(self.argv)} failed ({child.returncode}):\n"
                f"{stdout[-3000:]}{stderr[-3000:]}"
            )
        self.output = stdout
        # ru_maxrss: kilobytes on Linux, bytes on macOS
        self.peak = usage.ru_maxrss / (1024 * 1024 if sys.platform == "darwin" else 1024)
        self.cpu = usage.ru_utime + usage.ru_stime
        return elapsed


def summary(output: str) -> dict[str, int]:
    """The counts in pytest's last summary line: {'passed': 861, 'failed': 1139, ...}."""
    for line in reversed(output.splitlines()):
        found = re.findall(r"(\d+) (passed|failed|errors?|skipped|xfailed|xpassed)\b", line)
        if found and " in " in line:
            counts = {
                word.rstrip("s") if word.startswith("error") else word: int(n) for n, word in found
            }
            return counts
    sys.exit(f"no pytest summary line in:\n{output[-3000:]}")


def failed(output: str) -> int:
    counts = summary(output)
    return counts.get("failed", 0) + counts.get("error", 0)


def message_length(output: str) -> int:
    """The median length of the first line of each failure report in pytest's output."""
    lines = output.splitlines()
    header = re.compile(r"^_{3,} .+ _{3,}$")
    firsts = [len(lines[n + 1]) for n, line in enumerate(lines[:-1]) if header.match(line)]
    return int(statistics.median(firsts)) if firsts else DEFAULT_MESSAGE


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


class _FirstRequest(http.server.BaseHTTPRequestHandler):
    """Answers every chat call at once; the server notes when the first one arrived."""

    protocol_version = "HTTP/1.1"  # keep-alive, as real servers
    server: _FirstServer

    def do_POST(self) -> None:
        if self.server.first is None:
            self.server.first = time.perf_counter()
        self.rfile.read(int(self.headers.get("Content-Length", "0")))
        body = json.dumps(
            {
                "choices": [{"message": {"role": "assistant", "content": "0"}}],
                "usage": {"prompt_tokens": 1, "completion_tokens": 1},
            }
        ).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: object) -> None:
        pass


class _FirstServer(http.server.ThreadingHTTPServer):
    daemon_threads = True
    first: float | None = None


def measure_first(args: argparse.Namespace, base: Path, env: dict[str, str]) -> None:
    """(d): seconds from launching each command to the first request reaching the server."""
    server = _FirstServer(("127.0.0.1", 0), _FirstRequest)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_address[1]}"
    try:
        write_project(base / "arena", args.cases, http_models(url, args.concurrency))
        write_client(base / "client", args.cases)
        xdist = ["-n", str(args.xdist)] if args.xdist else ["-p", "no:xdist"]
        commands = [
            Command("arena", [*PYTEST, *xdist, "projects"], base / "arena"),
            Command(
                "aiohttp client",
                [sys.executable, "client.py", f"{url}/v1/chat/completions", str(args.concurrency)],
                base / "client",
            ),
        ]
        firsts: dict[str, list[float]] = {c.name: [] for c in commands}
        for round_ in range(args.runs + 1):  # the first round is the warm-up
            for command in commands[round_ % 2 :] + commands[: round_ % 2]:
                server.first = None
                started = time.perf_counter()
                command.times.append(command.run(env))
                if server.first is None:
                    sys.exit(f"{command.name} made no request:\n{command.output[-3000:]}")
                if round_:
                    firsts[command.name].append(server.first - started)
    finally:
        server.shutdown()
    print(
        f"first: {args.cases} cases, concurrency {args.concurrency}, xdist {args.xdist or 'off'};"
        f" {args.runs} rounds after a warm-up"
    )
    print(measured_on())
    for name, times in firsts.items():
        print(
            f"{name:<15} first request after median {statistics.median(times):.3f} s"
            f"   (min {min(times):.3f}, max {max(times):.3f})"
        )
    median = statistics.median(firsts["arena"])
    target = TARGETS["first"]
    print(
        f"target: arena's first request <= {target:g} s: {'met' if median <= target else 'NOT met'}"
    )


def measure(args: argparse.Namespace, base: Path, url: str, env: dict[str, str]) -> None:
    xdist = ["-n", str(args.xdist)] if args.xdist else ["-p", "no:xdist"]
    models = sim_models(args.models) if args.target == "sim" else http_models(url, args.concurrency)
    write_project(base / "arena", args.cases, models)
    extra = shlex.split(args.pytest_args)
    arena = Command(
        "arena",
        [*PYTEST, *xdist, *extra, "projects", *shlex.split(args.arena_args)],
        base / "arena",
    )
    arena.run(env)  # the warm-up, whose failures the bare items copy
    counts = summary(arena.output)
    items, failures = sum(counts.values()), failed(arena.output)
    message = message_length(arena.output)
    write_bare(base / "bare", items, failures, message)
    bare_argv = [*PYTEST, *BARE, *xdist, *extra, *shlex.split(args.bare_args), "test_bare.py"]
    bare = Command("bare pytest", bare_argv, base / "bare")
    commands = [arena, bare]
    client = None
    if args.target == "http":
        write_client(base / "client", args.cases)
        client = Command(
            "aiohttp client",
            [sys.executable, "client.py", f"{url}/v1/chat/completions", str(args.concurrency)],
            base / "client",
        )
        commands.insert(1, client)
        if args.latency_ms == 0:  # what the client's start costs, to tell its calls' CPU time
            imports = "import asyncio, json, sys; import aiohttp"
            commands.insert(2, Command("client's start", [sys.executable, "-c", imports], base))
    for i, variant in enumerate(args.arena_variant, 1):
        more = shlex.split(variant)
        name = f"arena #{i}"
        commands.insert(i, Command(name, [*arena.argv, *more], base / "arena"))
    for command in commands[1:]:
        command.run(env)  # warm-up
    if failed(bare.output) != failures or sum(summary(bare.output).values()) != items:
        sys.exit(f"bare pytest did not fail {failures} of {items}: {summary(bare.output)}")
    arena_failures = []
    for round_ in range(args.runs):
        shift = round_ % len(commands)
        for command in commands[shift:] + commands[:shift]:
            command.times.append(command.run(env))
            command.outputs.append(len(command.output))
            command.peaks.append(command.peak)
            command.cpus.append(command.cpu)
            if command is arena:
                arena_failures.append(failed(arena.output))
            if command is client and not command.output.startswith(f"{args.cases} calls"):
                sys.exit(f"the client did not make {args.cases} calls: {command.output!r}")
    report(args, commands, client, items, failures, message, arena_failures)


def say_floor(commands: list[Command], client: Command, bare: Command) -> None:
    """The overhead-bound run's floor in one interpreter: pytest's thread and the engine's
    share one interpreter lock, so arena's run cannot take less than bare pytest plus the
    CPU time the same calls take in the plain client (its start, imports, not counted)."""
    start = next(c for c in commands if c.name == "client's start")
    calls = statistics.median(client.cpus) - statistics.median(start.cpus)
    floor = statistics.median(bare.times) + calls
    ratio = floor / statistics.median(bare.times)
    print(
        f"floor          bare pytest + the client's calls ({calls:.2f} s of CPU) ="
        f" {floor:.2f} s = {ratio:.2f} x bare pytest, under one interpreter lock;"
        f" issue 16's overhead-bound target <= {OVERHEAD_BOUND:g} x is"
        f" {'above' if ratio <= OVERHEAD_BOUND else 'under'} it"
    )


def ratio_of(times: list[float], baseline: list[float]) -> tuple[float, list[float]]:
    """The ratio of the medians of `times` and `baseline`, and each round's own ratio."""
    rounds = [a / b for a, b in zip(times, baseline, strict=True)]
    return statistics.median(times) / statistics.median(baseline), rounds


def measured_on() -> str:
    """The interpreter and the releases the runs used, and the other pytest plugins every
    run loads (arena's and bare pytest's alike): a ratio to bare pytest depends on them, as
    bare pytest's own speed does. pytest-arena's own install brings none of them."""
    names = ("pytest", "pytest-arena", "pydantic", "aiohttp")
    found = []
    for name in names:
        try:
            found.append(f"{name} {importlib.metadata.version(name)}")
        except importlib.metadata.PackageNotFoundError:
            found.append(f"{name} not installed")
    plugins = sorted(
        {
            entry.dist.name if entry.dist is not None else entry.name
            for entry in importlib.metadata.entry_points(group="pytest11")
        }
        - {"pytest-arena", "pytest_arena"}
    )
    loaded = f"other pytest plugins: {', '.join(plugins)}" if plugins else "no other pytest plugin"
    return f"on Python {sys.version.split()[0]} ({sys.executable}); {', '.join(found)}; {loaded}"


def report(
    args: argparse.Namespace,
    commands: list[Command],
    client: Command | None,
    items: int,
    failures: int,
    message: int,
    arena_failures: list[int],
) -> None:
    arena, bare = commands[0], commands[-1]
    what = (
        f"models {args.models}"
        if args.target == "sim"
        else f"latency {args.latency_ms:g} ms, concurrency {args.concurrency}"
    )
    print(
        f"{args.target}: {args.cases} cases, {what}, xdist {args.xdist or 'off'};"
        f" {args.runs} rounds after a warm-up"
    )
    print(measured_on())
    print(
        f"arena's warm-up: {items} items, {failures} failed"
        f" (bare items fail as many, messages of {message} characters)"
    )
    if any(n != failures for n in arena_failures):
        print(f"NOTE: arena's timed runs failed {arena_failures} items, not all {failures}")
    if client is not None:
        print(f"client: {client.output.strip()}")
    for command in commands:
        times = command.times
        print(
            f"{command.name:<15} median {statistics.median(times):6.2f} s"
            f"   (min {min(times):.2f}, max {max(times):.2f})"
            f"   output {statistics.median(command.outputs) / 1000:.0f} kB"
            f"   peak memory {statistics.median(command.peaks):.0f} MB"
            f"   CPU {statistics.median(command.cpus):.2f} s"
        )
    for i, variant in enumerate(args.arena_variant, 1):
        other = next(c for c in commands if c.name == f"arena #{i}")
        change = statistics.median(other.times) / statistics.median(arena.times) - 1
        rounds = [o / a - 1 for o, a in zip(other.times, arena.times, strict=True)]
        print(
            f"arena #{i} (+ {variant}) against arena: {change * 100:+.1f}% by the medians"
            f"   (rounds: min {min(rounds) * 100:+.1f}%, max {max(rounds) * 100:+.1f}%)"
        )
    if client is not None and args.latency_ms == 0:
        say_floor(commands, client, bare)
    if client is not None and args.latency_ms > 0:
        baseline = [c + b for c, b in zip(client.times, bare.times, strict=True)]
        stated = "arena / (aiohttp client + bare pytest)"
        target = TARGETS["http-latency"]
        ideal = args.cases * args.latency_ms / 1000 / args.concurrency
        print(f"(ideal N x L / C = {ideal:.2f} s, for comparison)")
    else:
        baseline = bare.times
        stated = "arena / bare pytest"
        target = TARGETS["sim" if args.target == "sim" else "http-0"]
    ratio, rounds = ratio_of(arena.times, baseline)
    verdict = "met" if ratio <= target else "NOT met"
    print(
        f"ratio          {stated} = {ratio:.2f} x   (rounds: min {min(rounds):.2f},"
        f" max {max(rounds):.2f})   target <= {target:g} x: {verdict}"
    )
    memory = statistics.median(arena.peaks) / statistics.median(bare.peaks)
    target = TARGETS["memory"]
    if args.cases >= MEMORY_AT:
        judged = "met" if memory <= target else "NOT met"
    else:  # the imports' fixed megabytes weigh more, the fewer the cases
        judged = f"judged at {MEMORY_AT:,} cases or more, not at {args.cases:,}"
    print(f"peak memory    arena / bare pytest = {memory:.2f} x   target <= {target:g} x: {judged}")


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawTextHelpFormatter
    )
    parser.add_argument("target", choices=["sim", "http", "first"])
    parser.add_argument("--cases", type=int, default=2000)
    parser.add_argument("--latency-ms", type=float, default=0.0)
    parser.add_argument("--concurrency", type=int, default=16)
    parser.add_argument("--xdist", type=int, default=0, help="pytest-xdist workers (-n)")
    parser.add_argument("--runs", type=int, default=5, help="timed rounds after the warm-up")
    parser.add_argument(
        "--models", default="sim_perfect", help="sim: the sim models, comma-separated"
    )
    parser.add_argument(
        "--arena-args",
        default="",
        metavar="ARGS",
        help="more pytest arguments for arena's runs, e.g. '-v' (its runs are -q otherwise)",
    )
    parser.add_argument(
        "--arena-variant",
        action="append",
        default=[],
        metavar="ARGS",
        help="also time arena with these arguments added, in the same rounds, and state how"
        " its median differs from arena's (repeatable), e.g. '--arena-progress-every 1'",
    )
    parser.add_argument(
        "--pytest-args",
        default="",
        metavar="ARGS",
        help="sim, http: more pytest options for arena and bare pytest alike (e.g. --tb=no)",
    )
    parser.add_argument(
        "--bare-args",
        default="",
        metavar="ARGS",
        help="sim, http: more pytest options for bare pytest alone (e.g. --tb=no)",
    )
    parser.add_argument(
        "--no-bytecode-cache",
        action="store_true",
        help="run every command with PYTHONDONTWRITEBYTECODE=1, as many containers and CI"
        " images do: pytest can then keep no rewritten module, and compiles every module"
        " it rewrites from source on each run",
    )
    parser.add_argument(
        "--url", default="", help="http: a server already running (default: start the fake one)"
    )
    parser.add_argument(
        "--write",
        metavar="DIR",
        help="only write the files to DIR (arena/, bare/, client/) to time them with another"
        " tool; bare/ then fails --bare-failures items",
    )
    parser.add_argument(
        "--bare-failures",
        type=int,
        default=0,
        help="with --write: how many bare items fail (run arena first and count its failures)",
    )
    args = parser.parse_args()
    if args.write:
        base = Path(args.write)
        url = args.url or "http://127.0.0.1:PORT"
        sim = args.target == "sim"
        models = sim_models(args.models) if sim else http_models(url, args.concurrency)
        write_project(base / "arena", args.cases, models)
        items = args.cases * (len(args.models.split(",")) if sim else 1)
        write_bare(base / "bare", items, args.bare_failures, DEFAULT_MESSAGE)
        if not sim:
            write_client(base / "client", args.cases)
        print(
            f"wrote {base}/arena, {base}/bare (run bare pytest there with -p no:arena)"
            + (
                ""
                if sim
                else f" and {base}/client (python client.py {url}/v1/chat/completions"
                f" {args.concurrency})"
            )
        )
        return
    if not any(
        ep.value.startswith("pytest_arena")
        for ep in importlib.metadata.entry_points(group="pytest11")
    ):
        sys.exit("pytest-arena is not installed in this Python: run `pip install .` first")
    env = {**os.environ, "OPENAI_API_KEY": "sk-bench-not-a-secret"}
    # pytest rewrites the asserts of a test file and caches the result as bytecode: with
    # PYTHONDONTWRITEBYTECODE set it cannot, and every run of bare pytest compiles its test
    # file again from source (pytest-arena takes its own modules off what pytest rewrites).
    # Timed as most machines run it, where the cache is written once, unless asked.
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    if args.no_bytecode_cache:
        env["PYTHONDONTWRITEBYTECODE"] = "1"
    with tempfile.TemporaryDirectory(prefix="arena-bench-") as tmp:
        if args.target == "first":
            measure_first(args, Path(tmp), env)
            return
        if args.target == "sim":
            measure(args, Path(tmp), "", env)
            return
        with nullcontext(args.url) if args.url else fake_server(args.latency_ms) as url:
            measure(args, Path(tmp), url, env)


if __name__ == "__main__":
    main()
