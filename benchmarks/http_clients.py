"""CPU and wall time per request of httpx and aiohttp against a local chat server.

    python benchmarks/http_clients.py [--requests 2000] [--concurrency 16]

Starts `tests/fake_llm_server.py` in a separate process (so its work is not counted),
then sends the same OpenAI-style chat requests with `httpx.AsyncClient` and
`aiohttp.ClientSession`, each with one pool of `--concurrency` connections, and prints
the client process's CPU time (`time.process_time()`) and wall time per request.
Needs both clients installed: `pip install httpx aiohttp`.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

import aiohttp
import httpx

SERVER = Path(__file__).resolve().parent.parent / "tests" / "fake_llm_server.py"
BODY = {
    "model": "bench",
    "messages": [{"role": "user", "content": "[[answer=forty-two]] What is six times seven?"}],
    "temperature": 0,
}
Send = Callable[[], Awaitable[str]]


async def run(send: Send, requests: int, concurrency: int) -> None:
    queue = iter(range(requests))

    async def worker() -> None:
        for _ in queue:
            text = await send()
            assert text == "forty-two", text

    await asyncio.gather(*(worker() for _ in range(concurrency)))


async def with_httpx(url: str, requests: int, concurrency: int) -> None:
    limits = httpx.Limits(max_connections=concurrency, max_keepalive_connections=concurrency)
    async with httpx.AsyncClient(limits=limits, timeout=30) as client:

        async def send() -> str:
            response = await client.post(url, json=BODY, headers={"Authorization": "Bearer k"})
            response.raise_for_status()
            return str(response.json()["choices"][0]["message"]["content"])

        await run(send, requests, concurrency)


async def with_aiohttp(url: str, requests: int, concurrency: int) -> None:
    connector = aiohttp.TCPConnector(limit=concurrency)
    timeout = aiohttp.ClientTimeout(total=30)
    async with aiohttp.ClientSession(connector=connector, timeout=timeout) as session:

        async def send() -> str:
            async with session.post(url, json=BODY, headers={"Authorization": "Bearer k"}) as r:
                r.raise_for_status()
                data = await r.json()
                return str(data["choices"][0]["message"]["content"])

        await run(send, requests, concurrency)


CLIENTS = {"httpx": with_httpx, "aiohttp": with_aiohttp}


def server_cpu(pid: int) -> float:
    """Seconds of CPU the server process used so far (Linux), else 0."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def measure(
    name: str, url: str, requests: int, concurrency: int, pid: int
) -> tuple[float, float, float]:
    """Client CPU, wall and server CPU ms per request, after a warm-up."""
    asyncio.run(CLIENTS[name](url, concurrency, concurrency))
    cpu, wall, served = time.process_time(), time.perf_counter(), server_cpu(pid)
    asyncio.run(CLIENTS[name](url, requests, concurrency))
    cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    served = server_cpu(pid) - served
    return cpu * 1000 / requests, wall * 1000 / requests, served * 1000 / requests


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=2000)
    parser.add_argument("--concurrency", type=int, default=16)
    parser.add_argument("--latency-ms", type=float, default=0.0, help="the server's latency")
    parser.add_argument("--rounds", type=int, default=3, help="best of this many runs")
    args = parser.parse_args()
    server = subprocess.Popen(
        [sys.executable, str(SERVER), "--port", "0", "--latency-ms", str(args.latency_ms)],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert server.stdout is not None
        line = server.stdout.readline()
        if not line.startswith("listening on "):
            raise SystemExit(f"the server did not start: {line!r}")
        url = f"http://{line.split()[-1]}/v1/chat/completions"
        print(
            f"{args.requests} requests, concurrency {args.concurrency},"
            f" server latency {args.latency_ms:g} ms, best of {args.rounds}"
        )
        print(
            f"{'client':<10}{'CPU ms/request':>16}{'wall ms/request':>17}{'requests/s':>12}"
            f"{'server CPU ms/request':>23}"
        )
        for name in CLIENTS:
            runs = [
                measure(name, url, args.requests, args.concurrency, server.pid)
                for _ in range(args.rounds)
            ]
            cpu, wall, served = (min(r[i] for r in runs) for i in range(3))
            print(f"{name:<10}{cpu:>16.3f}{wall:>17.3f}{1000 / wall:>12.0f}{served:>23.3f}")
    finally:
        server.terminate()
        server.wait(10)


if __name__ == "__main__":
    main()
