"""How long a response-cache get (hit and miss) and put take. Run by hand:

PYTHONPATH=. python benchmarks/cache_speed.py [N]
"""

from __future__ import annotations

import sys
import tempfile
import time
from typing import Any

from pytest_arena.cache import ResponseCache, default_cache_path
from pytest_arena.connectors.base import Response


def parts(n: int) -> dict[str, Any]:
    return {
        "connector": "openai",
        "base_url": "http://127.0.0.1:8000/v1",
        "model": "gpt_small",
        "messages": [
            {"role": "system", "content": "You are a careful assistant. Reply with the answer."},
            {"role": "user", "content": f"Question {n}: " + "what is the capital of France? " * 8},
        ],
        "params": {"temperature": 0.0, "max_tokens": 256},
        "sample": 0,
    }


def timed(label: str, calls: int, run: Any) -> None:
    start = time.perf_counter()
    run()
    per_call = (time.perf_counter() - start) / calls * 1e6
    print(f"{label:<12} {per_call:8.1f} µs a call ({calls} calls)")


def main(n: int) -> None:
    answer = Response("Paris. " * 40, tokens_in=120, tokens_out=80, latency_ms=850.0, cost=1e-4)
    keys = [parts(i) for i in range(n)]
    misses = [parts(n + i) for i in range(n)]
    with tempfile.TemporaryDirectory() as tmp, ResponseCache(default_cache_path(tmp)) as cache:
        cache.put(parts(-1), answer)  # the file and schema are made once
        timed("put", n, lambda: [cache.put(k, answer) for k in keys])
        timed("get (hit)", n, lambda: [cache.get(k) for k in keys])
        timed("get (miss)", n, lambda: [cache.get(k) for k in misses])
        stats = cache.stats()
        assert stats is not None
        print(f"{stats.entries} entries, {stats.size_bytes / 1024:.0f} KiB on disk")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 5000)
