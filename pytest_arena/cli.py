"""The `arena` command: `arena evaluate` runs projects through pytest; `arena cache`
shows or clears the response cache."""

from __future__ import annotations

import argparse
import subprocess
import sys
from collections.abc import Sequence
from datetime import datetime, timezone
from pathlib import Path

from tabulate import tabulate

from pytest_arena.cache import CacheError, ResponseCache, UnreadableCache
from pytest_arena.cache.location import CACHE_DIR, default_cache_path, find_rootdir


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="arena", description="Run LLM and agent benchmarks as pytest test suites."
    )
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    evaluate = commands.add_parser(
        "evaluate",
        help="run projects on models through pytest",
        description="Run projects on models; arguments arena does not know go to pytest.",
    )
    evaluate.add_argument(
        "--project",
        action="append",
        default=[],
        metavar="PATH",
        help="a project folder or its arena.yaml (repeatable; default: projects/)",
    )
    evaluate.add_argument(
        "--models", default="", metavar="KEYS", help="comma-separated model keys, e.g. sim_small"
    )
    cache = commands.add_parser(
        "cache",
        help="show or clear the response cache",
        description="Show or clear the cache of model responses.",
    )
    actions = cache.add_subparsers(dest="action", metavar="ACTION", required=True)
    path_help = "the cache file (default: .arena-cache/responses.sqlite3 under the pytest rootdir)"
    stats = actions.add_parser("stats", help="what the cache holds")
    stats.add_argument("--path", type=Path, metavar="P", help=path_help)
    clear = actions.add_parser("clear", help="remove cached responses")
    clear.add_argument("--path", type=Path, metavar="P", help=path_help)
    clear.add_argument("--model", metavar="KEY", help="remove only this model's responses")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the `arena` command; returns pytest's exit status."""
    parser = _parser()
    args, rest = parser.parse_known_args(argv)
    if args.command == "cache":
        if rest:
            parser.error(f"unrecognized arguments: {' '.join(rest)}")
        return _cache_command(args)
    if args.command != "evaluate":
        parser.print_help()
        return 2 if args.command is None and rest else 0
    pytest_args = [*(args.project or ["projects"])]
    if args.models:
        pytest_args += ["--arena-models", args.models]
    pytest_args += rest
    return _pytest(pytest_args)


def _pytest(args: list[str]) -> int:
    """Run pytest in a process of its own, so that it imports the plugin itself: in this one
    `pytest_arena` is imported already, and pytest would warn on every run that it cannot
    rewrite its asserts (an error under `-W error`)."""
    process = subprocess.Popen([sys.executable, "-m", "pytest", *args])
    while True:
        try:
            return process.wait()
        except KeyboardInterrupt:
            continue  # pytest got the same Ctrl-C: let it print its summary and exit


def _cache_command(args: argparse.Namespace) -> int:
    path: Path = args.path or default_cache_path(find_rootdir(Path.cwd()))
    cache = ResponseCache(path)
    try:
        if args.action == "stats":
            return _stats(cache)
        return _clear(cache, args.model)
    except CacheError as exc:
        print(f"arena cache: {exc}", file=sys.stderr)
        return 1
    finally:
        cache.close()


def _stats(cache: ResponseCache) -> int:
    stats = cache.stats()
    if stats is None:
        print(f"no response cache at {cache.path}")
        return 0
    print(f"response cache {stats.path}")
    plural = "" if stats.entries == 1 else "s"
    print(f"{stats.entries} cached response{plural}, {_size(stats.size_bytes)} on disk")
    if stats.oldest is not None and stats.newest is not None:
        print(f"oldest {_when(stats.oldest)}, newest {_when(stats.newest)}")
    if stats.per_model:
        rows = [(c, m, n) for (c, m), n in stats.per_model.items()]
        print(tabulate(rows, headers=["connector", "model", "responses"], tablefmt="plain"))
    return 0


def _clear(cache: ResponseCache, model: str | None) -> int:
    if not cache.path.exists():
        print(f"no response cache at {cache.path}; nothing to remove")
        return 0
    try:
        removed = cache.clear(model)
    except UnreadableCache:
        if not _looks_like_a_cache(cache.path):
            raise
        cache.discard()
        print(f"removed the unreadable cache file {cache.path}")
        return 0
    of = f" of model {model}" if model else ""
    print(f"removed {removed} cached response{'' if removed == 1 else 's'}{of} from {cache.path}")
    if model and not removed and (stats := cache.stats()) and stats.per_model:
        print("cached models: " + ", ".join(sorted({m for _, m in stats.per_model})))
    return 0


def _looks_like_a_cache(path: Path) -> bool:
    """Only a file named like a cache is deleted when it cannot be read: a mistyped
    --path must not cost the user a file of theirs."""
    return path.parent.name == CACHE_DIR or path.suffix in (".sqlite3", ".sqlite", ".db")


def _size(size: int) -> str:
    value = float(size)
    for unit in ("bytes", "KiB", "MiB"):
        if value < 1024:
            return f"{value:.0f} {unit}" if unit == "bytes" else f"{value:.1f} {unit}"
        value /= 1024
    return f"{value:.1f} GiB"


def _when(epoch: float) -> str:
    return datetime.fromtimestamp(epoch, tz=timezone.utc).strftime("%Y-%m-%d %H:%M:%S UTC")


if __name__ == "__main__":
    sys.exit(main())
