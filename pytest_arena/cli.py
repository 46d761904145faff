"""The `arena` command: `arena evaluate` runs projects through pytest."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

import pytest


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
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the `arena` command; returns pytest's exit status."""
    parser = _parser()
    args, rest = parser.parse_known_args(argv)
    if args.command != "evaluate":
        parser.print_help()
        return 2 if args.command is None and rest else 0
    pytest_args = [*(args.project or ["projects"])]
    if args.models:
        pytest_args += ["--arena-models", args.models]
    pytest_args += rest
    return int(pytest.main(pytest_args))


if __name__ == "__main__":
    sys.exit(main())
