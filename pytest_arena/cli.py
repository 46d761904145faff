"""The `arena` command: `evaluate` runs projects through pytest; `init` writes a new project;
`report` renders the HTML report of a JSON report; `compare` compares two runs; `models` lists
the model keys a project can use; `cache` shows or clears the response cache."""

from __future__ import annotations

import argparse
import io
import itertools
import json
import os
import subprocess
import sys
import textwrap
from collections.abc import Sequence
from datetime import datetime, timezone
from importlib import metadata
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from tabulate import tabulate

from pytest_arena import __version__
from pytest_arena.cache import CacheError, ResponseCache, UnreadableCache
from pytest_arena.cache.location import default_cache_path, find_rootdir, not_a_cache
from pytest_arena.spec.files import resolved

UNKNOWN = "\u2013"  # an en dash: no value (an unknown price is never $0)


EXAMPLES = {
    "evaluate": "arena evaluate --project projects/my_project --models sim_small,sim_large -q",
    "init": "arena init projects/faq\n  arena evaluate --project projects/faq",
    "report": "pytest projects --arena-json run.json\n  arena report run.json --html report.html",
    "compare": "arena compare before.json after.json --html compare.html",
    "models": "arena models --project projects/my_project",
    "cache": "arena cache stats\n  arena cache clear --model gpt-4o-mini",
}


USAGE_ERROR = 4  # as pytest's: what was asked cannot be done (1 says tests failed)
# given to the pytest that `arena evaluate` runs, so that the plugin's hints name this
# command's options (plugin/outputs.py's FROM_CLI: this module does not import the plugin)
FROM_CLI = "--arena-from-cli"


class _Parser(argparse.ArgumentParser):
    """An argument parser whose errors exit as pytest's usage errors do (4, not 2), after
    the usage of the command that was given (`arena init a b`: init's)."""

    def error(self, message: str) -> Any:
        self.print_usage(sys.stderr)
        self.exit(USAGE_ERROR, f"{self.prog}: error: {message}\n")


def _command(commands: Any, name: str, help: str, description: str) -> argparse.ArgumentParser:
    parser: argparse.ArgumentParser = commands.add_parser(
        name,
        help=help,
        description=textwrap.fill(description, 88),
        epilog=f"example:\n  {EXAMPLES[name]}",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    return parser


def _count(raw: str) -> int:
    """A whole number of 1 or more (`--limit N`); anything else is argparse's usage error."""
    try:
        value = int(raw)
    except ValueError:
        raise argparse.ArgumentTypeError(f"invalid int value: {raw!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"{raw}: give a whole number, 1 or more")
    return value


def _parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="arena",
        description="Run LLM and agent benchmarks as pytest test suites.",
        epilog="examples:\n" + "\n".join(f"  {e}" for e in EXAMPLES.values()),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"arena {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    evaluate = _command(
        commands,
        "evaluate",
        "run projects on models through pytest",
        "Run projects on models; arguments arena does not know go to pytest.",
    )
    evaluate.add_argument(
        "--project",
        action="append",
        default=[],
        metavar="PATH",
        help="a project folder or its arena.yaml (repeatable; default: projects/, unless"
        " an existing file or folder, or a node id in one, is given as pytest's own argument)",
    )
    evaluate.add_argument(
        "--models",
        metavar="KEYS",
        help="comma-separated model keys, e.g. sim_small or openai:gpt-4o-mini",
    )
    init = _command(
        commands,
        "init",
        "write a new project",
        "Write a new project into the folder NAME: arena.yaml with two cases, a custom"
        " scorer in scorers/ and its tests in tests/. It runs green on the simulated models.",
    )
    init.add_argument("name", metavar="NAME", help="the new folder, e.g. projects/faq")
    report = _command(
        commands,
        "report",
        "render the HTML report of an --arena-json report",
        "Render the self-contained HTML report (the same as --arena-html) from a JSON report"
        " written by --arena-json, now or long after the run.",
    )
    report.add_argument("json", type=Path, metavar="RUN.json", help="an --arena-json report")
    report.add_argument(
        "--html", type=Path, required=True, metavar="OUT", help="the HTML file to write"
    )
    compare = _command(
        commands,
        "compare",
        "compare two runs' JSON reports",
        "Compare two --arena-json reports: per project and model, the cases whose verdict"
        " changed (regressions first) with both reasons, and how accuracy, pass rate, cost"
        " and latency moved, with a paired interval on the cases both runs graded. Exits 1"
        " when a case passed in A and fails in B, or B could not load some of its input;"
        " 4 when a report cannot be read or the page written.",
    )
    compare.add_argument("a", type=Path, metavar="A.json", help="the earlier run (the baseline)")
    compare.add_argument("b", type=Path, metavar="B.json", help="the later run")
    compare.add_argument("--html", type=Path, metavar="OUT", help="also write the comparison here")
    compare.add_argument(
        "--limit", type=_count, default=50, metavar="N", help="changed cases shown per model (50)"
    )
    models = _command(
        commands,
        "models",
        "list the model keys a project can use",
        "List every model key a project can use (the builtin sims, its models.define keys and"
        " provider keys such as openai:gpt-4o-mini) with connector, base URL, model name,"
        " price, limits, and whether the API key variable is set (never its value).",
    )
    models.add_argument(
        "--project", type=Path, metavar="P", help="a project folder or its arena.yaml"
    )
    cache = _command(
        commands,
        "cache",
        "show or clear the response cache",
        "Show or clear the cache of model responses.",
    )
    actions = cache.add_subparsers(dest="action", metavar="ACTION", required=True)
    path_help = "the cache file (default: .arena-cache/responses.sqlite3 under the pytest rootdir)"
    stats = actions.add_parser("stats", help="what the cache holds")
    stats.add_argument("--path", type=Path, metavar="P", help=path_help)
    clear = actions.add_parser("clear", help="remove cached responses")
    clear.add_argument("--path", type=Path, metavar="P", help=path_help)
    clear.add_argument(
        "--model",
        metavar="NAME",
        help="remove only this model's responses: its name as `arena cache stats` lists it"
        " (gpt-4o-mini), or CONNECTOR:NAME (openai:gpt-4o-mini, as a provider's model key)",
    )
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the `arena` command; returns pytest's exit status."""
    for stream in (sys.stdout, sys.stderr):  # an ASCII terminal shows "\u2013", not a crash
        if isinstance(stream, io.TextIOWrapper):
            stream.reconfigure(errors="backslashreplace")
    try:
        try:
            return _main(argv)
        finally:  # argparse's --help and --version too: here, not at exit, where Python
            sys.stdout.flush()  # 3.14 says the broken pipe
    except BrokenPipeError:  # `arena models | head -1`: the reader has gone
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())  # or the exit's flush says it again
        return 1


def _main(argv: Sequence[str] | None) -> int:
    parser = _parser()
    args, rest = parser.parse_known_args(argv)
    if args.command != "evaluate" and rest:
        _given(parser, args).error(f"unrecognized arguments: {' '.join(rest)}")
    handlers = {
        "cache": _cache_command,
        "init": _init_command,
        "report": _report_command,
        "compare": _compare_command,
        "models": _models_command,
    }
    if args.command == "init" and not args.name.strip():
        _given(parser, args).error(
            "NAME is empty: give the new project's folder, e.g. projects/faq"
        )
    if args.command in handlers:
        return handlers[args.command](args)
    if args.command != "evaluate":
        parser.print_help()
        return 0
    chosen = _arena_models(rest)
    # (given empty, as an unset "$MODELS" gives it: pytest's usage error, not every default)
    if args.models is not None and chosen is not None:  # pytest would run the last, silently
        _given(parser, args).error(
            f"--models {args.models} and --arena-models {chosen} both choose the models to"
            " run: give one of them (--models KEYS is passed to pytest as --arena-models KEYS)"
        )
    given = any(_names_cases(arg, before) for before, arg in itertools.pairwise(["", *rest]))
    # the examples' folder when there is one; else what pytest itself collects (a project
    # made by `arena init .`, or an arena.yaml at the top)
    default = ["projects"] if Path("projects").is_dir() and not given else []
    pytest_args = [FROM_CLI, *(args.project or default)]
    if args.models is not None:
        pytest_args += ["--arena-models", args.models]
    pytest_args += rest
    return _pytest(pytest_args)


def _given(parser: argparse.ArgumentParser, args: argparse.Namespace) -> argparse.ArgumentParser:
    """The parser of the (sub)command `args` ran: its usage is the one an error shows."""
    for name in ("command", "action"):
        chosen = getattr(args, name, None)
        commands = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
        if chosen is None or not commands:
            break
        parser = commands[0].choices[chosen]
    return parser


# the options whose value, the next argument, may be an existing path or look like a node
# id: pytest's, its common plugins' and arena's own (every --arena-* but --arena-gate)
_PATH_VALUED = {"-k", "-m", "-p", "-o", "-c", "-n", "--deselect", "--ignore", "--ignore-glob"}
_PATH_VALUED |= {"--rootdir", "--basetemp", "--confcutdir", "--config-file", "--override-ini"}
_PATH_VALUED |= {"--junitxml", "--junit-xml", "--log-file", "--report-log", "--html", "--cov"}
_PATH_VALUED |= {"--cov-config", "--doctest-glob", "--junit-prefix", "--numprocesses"}


def _takes_a_value(option: str) -> bool:
    """Whether the next argument is `option`'s value (not when it holds one: `--arena-json=X`)."""
    own = option.startswith("--arena-") and "=" not in option and option != "--arena-gate"
    return option in _PATH_VALUED or own


def _arena_models(rest: list[str]) -> str | None:
    """The value of pytest's own `--arena-models` among the arguments passed to pytest;
    None if it is not there."""
    for at, arg in enumerate(rest):
        if arg == "--":  # what follows is pytest's file or node ids
            break
        if arg == "--arena-models":
            return rest[at + 1] if at + 1 < len(rest) else ""
        if arg.startswith("--arena-models="):
            return arg.partition("=")[2]
    return None


def _names_cases(arg: str, before: str) -> bool:
    """Whether a pytest argument names what to run: an existing file or folder (a project,
    its tests/ or one test file) or a node id in one (`arena evaluate projects/faq`); then no
    default folder is added to it."""
    if arg.startswith("-") or _takes_a_value(before):
        return False
    path = Path(arg.split("::", 1)[0])
    return path.is_file() if "::" in arg else path.exists()


def _fail(command: str, message: str, status: int = USAGE_ERROR) -> int:
    print(f"arena {command}: {message}", file=sys.stderr)
    return status


def _init_command(args: argparse.Namespace) -> int:
    from pytest_arena.scaffold import InitError, init, shown

    target = Path(args.name)
    try:
        written = init(target)
    except InitError as exc:
        return _fail("init", str(exc))
    for path in written:
        print(f"wrote {path.as_posix()}")
    print(f"run it:        arena evaluate --project {shown(target)}")
    print(f"test a scorer: pytest {shown(target / 'tests')}")
    return 0


def _read_report(command: str, path: Path) -> dict[str, Any]:
    """The JSON report at `path`; _Refused with the reason if it is not one."""
    from pytest_arena.reports.comparison import NotAReport, check_report

    fix = "give the file --arena-json wrote"
    try:
        text = path.read_text("utf-8")
    except OSError as exc:
        raise _Refused(f"cannot read {path}: {exc.strerror or exc}") from None
    except UnicodeDecodeError as exc:  # UTF-16, as PowerShell's `>` writes
        raise _Refused(f"{path}: not UTF-8 text (byte {exc.start}: {exc.reason}); {fix}") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise _Refused(f"{path}:{exc.lineno}: not JSON ({exc.msg}); {fix}") from None
    except RecursionError:
        raise _Refused(f"{path}: not JSON --arena-json writes (nested too deeply); {fix}") from None
    except ValueError as exc:  # a whole number of more digits than Python converts (4,300)
        reason = str(exc).split(":")[0]  # "Exceeds the limit (4300 digits) for integer ..."
        said = reason[:1].lower() + reason[1:]
        raise _Refused(
            f"{path}: not JSON --arena-json writes (a number that {said}); {fix}"
        ) from None
    try:
        return dict(check_report(data, str(path)))
    except NotAReport as exc:
        raise _Refused(str(exc)) from None


class _Refused(Exception):
    pass


def _report_command(args: argparse.Namespace) -> int:
    from pytest_arena.reports.html import write_html

    try:
        report = _read_report("report", args.json)
    except _Refused as exc:
        return _fail("report", str(exc), USAGE_ERROR)
    if resolved(args.html) == resolved(args.json):
        return _fail(
            "report", f"--html {args.html} is the report read; name another file", USAGE_ERROR
        )
    overwritten = _overwrites_project(args.html, "report.html")
    if overwritten:
        return _fail("report", overwritten, USAGE_ERROR)
    try:
        write_html(args.html, report)
    except OSError as exc:
        return _fail("report", f"{args.html} was not written: {exc}", USAGE_ERROR)
    print(f"wrote {args.html} ({len(report['records'])} records)")
    return 0


def _overwrites_project(html: Path, example: str) -> str:
    """Why --html would overwrite a project's arena.yaml, dataset or code (as --arena-html
    refuses), or ""."""
    from pytest_arena.reports.report_files import overwrites_project

    return overwrites_project("--html", str(html), html, example)


def _compare_command(args: argparse.Namespace) -> int:
    from pytest_arena.reports import comparison

    try:
        a, b = _read_report("compare", args.a), _read_report("compare", args.b)
    except _Refused as exc:
        return _fail("compare", str(exc), USAGE_ERROR)
    if args.html is not None and resolved(args.html) in (resolved(args.a), resolved(args.b)):
        return _fail(
            "compare", f"--html {args.html} is a report compared; name another file", USAGE_ERROR
        )
    overwritten = "" if args.html is None else _overwrites_project(args.html, "compare.html")
    if overwritten:
        return _fail("compare", overwritten, USAGE_ERROR)
    items = comparison.compare(a, b)
    print(f"A: {args.a}  B: {args.b}")
    for note in comparison.run_notes(a, b):
        print(note)
    print(comparison.as_text(items, limit=args.limit, html=args.html is not None))
    nothing = comparison.nothing_compared(items)
    if nothing:
        print(nothing)
    if args.html:
        from pytest_arena.reports.report_files import written_whole

        page = comparison.as_html(items, a, b, names=(str(args.a), str(args.b)))
        try:
            with written_whole(args.html) as out:  # or the last page is kept
                out.write(page)
        except OSError as exc:
            return _fail("compare", f"{args.html} was not written: {exc}", USAGE_ERROR)
        print(f"wrote {args.html}")
    return 1 if comparison.regressed(items) or comparison.problems(b) or nothing else 0


def _models_command(args: argparse.Namespace) -> int:
    from pytest_arena.connectors.base import shown_url
    from pytest_arena.connectors.catalog import catalog
    from pytest_arena.connectors.http_api import VARIABLE_CASE
    from pytest_arena.spec import SpecError, load_project

    defined = {}
    if args.project is not None:
        path: Path = args.project
        if path.is_dir():
            path = path / "arena.yaml"
        if not path.is_file():
            return _fail("models", f"no project at {args.project} (no arena.yaml there)")
        try:
            defined = dict(load_project(path).spec.models.define)
        except SpecError as exc:
            return _fail("models", exc.format())
    rows = []
    for info in catalog(defined):
        price = UNKNOWN if info.price is None else _price(info.price)
        limits = "" if info.problem else _limits(info)
        if info.problem:  # the run refuses the model: no key is sent
            key = UNKNOWN
        elif info.key_env is None and info.base_url and "@" in urlsplit(info.base_url).netloc:
            key = "base_url's user:password (sent as Authorization)"  # never the password
        elif info.key_env is None and info.base_url:  # a server of the user's: none is sent
            key = "none sent (set api_key_env to send one)"
        elif info.key_env is None:
            key = "none needed"
        else:  # a name not written as variables are may be a key pasted there: not shown
            named = info.key_env if VARIABLE_CASE.match(info.key_env) else "(api_key_env)"
            key = f"{named} ({'set' if info.key_set else 'not set'})"
        rows.append(
            (
                info.key,
                info.source,
                info.connector,
                shown_url(info.base_url) if info.base_url else UNKNOWN,
                info.model or UNKNOWN,
                price,
                info.problem or limits,
                key,
            )
        )
    headers = ["model key", "from", "connector", "base URL", "model", "price /Mtok in/out"]
    print(tabulate(rows, headers=[*headers, "limits", "API key"], tablefmt="simple"))
    print(f"price {UNKNOWN} is unknown: the run shows its cost as unknown, not $0")
    return 0


def _price(price: Any) -> str:
    if not price.input_per_mtok and not price.output_per_mtok:
        return "free"
    said = f"${price.input_per_mtok:g} / ${price.output_per_mtok:g}"
    if price.cached_input_per_mtok is not None:
        said += f" (cached in ${price.cached_input_per_mtok:g})"
    return said


def _limits(info: Any) -> str:
    parts = [f"{info.concurrency} at once"]
    if info.rpm:
        parts.append(f"{info.rpm:g} rpm")
    if info.tpm:
        parts.append(f"{info.tpm:g} tpm")
    parts.append(f"timeout {info.timeout:g}s" if info.timeout else "no timeout")
    parts.append(f"{info.max_retries} retries")
    return ", ".join(parts)


def _pytest(args: list[str]) -> int:
    """Run pytest in a process of its own, so that it imports the plugin itself: in this one
    `pytest_arena` is imported already, and pytest would warn on every run that it cannot
    rewrite its asserts (an error under `-W error`). It gets this interpreter's `-W`, `-X`,
    `-O`, `-b`, `-I`, `-E`, `-s` and `-P` options, as `python -W error -m pytest` would.

    On POSIX pytest takes this process over (exec): its pid, so a signal sent to `arena`
    alone (`kill`, `docker stop`, an IDE's stop button) stops the run as it stops pytest.
    Elsewhere it is a child, and a Ctrl-C reaches both."""
    argv = [sys.executable, *_interpreter_options(), "-m", "pytest", *args]
    if os.name == "posix":
        sys.stdout.flush()
        sys.stderr.flush()
        os.execv(sys.executable, argv)
    process = subprocess.Popen(argv)
    while True:
        try:
            return process.wait()
        except KeyboardInterrupt:
            continue  # pytest got the same Ctrl-C: let it print its summary and exit


def _interpreter_options() -> list[str]:
    """The command-line options this interpreter was started with that pytest's run keeps:
    warnings filters, -X options, optimisation, bytes warnings and isolation (the
    environment's reach it anyway)."""
    found = [f"-W{option}" for option in sys.warnoptions]
    for name, value in sys._xoptions.items():  # CPython's -X options, as documented
        found.append(f"-X{name}" if value is True else f"-X{name}={value}")
    flags = sys.flags
    isolated = (
        [("I", flags.isolated)]
        if flags.isolated
        else [  # -I is -E, -s and -P
            ("E", flags.ignore_environment),
            ("s", flags.no_user_site),
            ("P", int(getattr(flags, "safe_path", False))),  # Python 3.11 and later
        ]
    )
    for letter, count in [("O", flags.optimize), ("b", flags.bytes_warning), *isolated]:
        if count:
            found.append("-" + letter * count)
    return found


def _cache_command(args: argparse.Namespace) -> int:
    major = int(metadata.version("pytest").split(".")[0])
    path: Path = args.path or default_cache_path(find_rootdir(Path.cwd(), major))
    cache = ResponseCache(path)
    try:
        if args.action == "stats":
            return _stats(cache)
        return _clear(cache, args.model)
    except CacheError as exc:
        return _fail("cache", str(exc))
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
    if stats.entries:
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
        connector, _, name = (model or "").partition(":")
        if model and not removed and name:  # openai:gpt-4o-mini, a provider's model key
            removed = cache.clear(name, connector)
    except UnreadableCache as exc:
        if exc.foreign or exc.newer or not_a_cache(cache.path):
            raise  # the message says why arena leaves it
        if model:  # its answers cannot be told apart: the whole file is not deleted for one
            raise CacheError(
                f"{exc}; --model removes one model's answers from a cache that can be read, so"
                " nothing was removed"
            ) from None
        cache.discard()
        print(f"removed the unreadable cache file {cache.path}")
        return 0
    of = f" of model {model}" if model else ""
    print(f"removed {removed} cached response{'' if removed == 1 else 's'}{of} from {cache.path}")
    if model and not removed and (stats := cache.stats()) and stats.per_model:
        print("cached models: " + ", ".join(sorted({m for _, m in stats.per_model})))
        print(
            "--model takes a model's name as its connector sends it (the model: of a definition"
            " in arena.yaml), not the key the project gives it"
        )
    return 0


def _size(size: int) -> str:
    value = float(size)
    for unit in ("bytes", "KiB", "MiB"):
        if value < 1024:
            return f"{value:.0f} {unit}" if unit == "bytes" else f"{value:.1f} {unit}"
        value /= 1024
    return f"{value:.1f} GiB"


def _when(epoch: float | None) -> str:
    """`epoch` as a date; "unknown" for None (no time that reads as one) or a time past the
    calendar's years (a row another program changed may hold either)."""
    if epoch is None:
        return "unknown"
    try:
        when = datetime.fromtimestamp(epoch, tz=timezone.utc)
    except (OverflowError, OSError, ValueError):
        return "unknown"
    return when.strftime("%Y-%m-%d %H:%M:%S UTC")


if __name__ == "__main__":
    sys.exit(main())
