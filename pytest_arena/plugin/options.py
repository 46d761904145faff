"""The command line's arena values, checked before anything is collected or called: a bad
one is a pytest usage error (exit status 4) that names the option and the fix, rather than
a run that skips everything, runs nothing or fails once it has paid for every call."""

from __future__ import annotations

import math
import os
from pathlib import Path

import pytest

from pytest_arena.cache.modes import CacheMode
from pytest_arena.plugin import failure_style
from pytest_arena.reports.report_files import overwrites_project, written_at
from pytest_arena.spec.files import resolved

STEP_SUMMARY = "GITHUB_STEP_SUMMARY"  # as reports.github_summary's (not imported: it is slow)
MAX_REPEAT = 1000  # the most samples of a case, as spec.schema's (not imported: pydantic is slow)


def check(config: pytest.Config) -> None:
    """Raise `pytest.UsageError` for the first arena option whose value cannot work."""
    if hasattr(config, "workerinput"):
        return  # the controller has checked the same values
    problems = [_max_cost(config.getoption("arena_max_cost", None))]
    problems.append(_models(config.getoption("arena_models", None)))
    problems.append(_repeat(config.getoption("arena_repeat", None)))
    problems.append(_progress_every(config.getoption("arena_progress_every", None)))
    problems.append(failure_style.check(config))
    for name, example in (
        ("arena_json", "arena.json"),
        ("arena_html", "arena.html"),
        ("arena_save_baseline", "baseline.json"),
    ):
        raw = config.getoption(name, None)
        if raw is not None:
            option = "--" + name.replace("_", "-")
            problems.append(_file(option, raw, report_path(config, name), example))
    raw_xml = config.getoption("xmlpath", None)  # pytest's; None with -p no:junitxml
    xml_path = report_path(config, "xmlpath")
    if raw_xml and xml_path is not None:  # pytest checks the rest of its path itself
        problems.append(overwrites_project("--junitxml", raw_xml, xml_path, "report.xml"))
    raw_baseline = config.getoption("arena_baseline", None)
    if raw_baseline is not None and report_path(config, "arena_baseline") is None:
        problems.append(  # `--arena-baseline=$BASELINE` with the variable unset
            "--arena-baseline is empty: give the path of a file --arena-save-baseline wrote,"
            " such as --arena-baseline baseline.json (or leave the option out)"
        )
    problems.append(_one_file_each(config))
    raw_cache = config.getoption("arena_cache_path", None)
    if raw_cache is not None and config.getoption("arena_cache", None) != CacheMode.OFF.value:
        cache = report_path(config, "arena_cache_path") if raw_cache else None
        problems.append(_file("--arena-cache-path", raw_cache, cache, "responses.sqlite3"))
    found = [p for p in problems if p]
    if found:
        raise pytest.UsageError(found[0])


def _one_file_each(config: pytest.Config) -> str:
    """Two reports given one file, the last written the only one left, or a report given
    the job summary's file, which the summary is appended to."""
    seen: dict[Path, str] = {}
    others = {"xmlpath": "--junitxml", "htmlpath": "--html"}  # pytest's, pytest-html's
    for name in ("arena_json", "arena_html", "arena_save_baseline", *others):
        path = report_path(config, name)
        if path is None:
            continue
        option = others.get(name) or "--" + name.replace("_", "-")
        where = resolved(written_at(path))
        if where.exists() and not where.is_file():
            continue  # /dev/null takes any number of reports
        if where in seen:
            return (
                f"{seen[where]} and {option} both name {config.getoption(name)}: one report"
                " would overwrite the other; give each its own file"
            )
        seen[where] = option
    summary = os.environ.get(STEP_SUMMARY)
    where = resolved(written_at(Path(config.invocation_params.dir, summary or "")))
    if summary and where in seen:
        return (
            f"{seen[where]} and {STEP_SUMMARY} both name {summary}: the job summary would be"
            " appended to the report; give the report a file of its own"
        )
    return ""


def runs_cases(config: pytest.Config) -> bool:
    """Whether this run calls the models: --collect-only, --setup-only and --setup-plan run
    no test, so they ask no model ahead of one."""
    return not any(
        config.getoption(name, False) for name in ("collectonly", "setuponly", "setupplan")
    )


def model_keys(config: pytest.Config) -> list[str]:
    """The keys `--arena-models` names, each once, in their order; empty when not given."""
    raw: str = config.getoption("arena_models", None) or ""
    return list(dict.fromkeys(m.strip() for m in raw.split(",") if m.strip()))


def repeat(config: pytest.Config) -> tuple[int, int] | None:
    """`--arena-repeat N` as (N, N), `--arena-repeat MIN:MAX` as (MIN, MAX); None if absent."""
    raw: str | None = config.getoption("arena_repeat", None)
    if raw is None or _repeat(raw):
        return None
    low, _, high = raw.partition(":")
    return int(low), int(high or low)


def _repeat(raw: str | None) -> str:
    if raw is None:
        return ""
    low, colon, high = raw.strip().partition(":")
    numbers = [low, high] if colon else [low]
    if all(n.strip().isdigit() for n in numbers):
        values = [int(n) for n in numbers]
        if all(1 <= v <= MAX_REPEAT for v in values) and values[0] <= values[-1]:
            return ""
    return (
        f"--arena-repeat {raw}: give the samples per case as a whole number from 1 to"
        f" {MAX_REPEAT} (--arena-repeat 5), or MIN:MAX with MIN at most MAX for sequential"
        " sampling (--arena-repeat 3:10)"
    )


def report_path(config: pytest.Config, name: str = "arena_json") -> Path | None:
    """Where `--arena-json` (or another option naming a file: `arena_html`,
    `arena_cache_path`…) writes; like `--junitxml`, `~` and `$VARS` are expanded and a
    relative path is taken from the folder pytest was started in."""
    raw = config.getoption(name, None)
    if not raw:
        return None
    return Path(config.invocation_params.dir, os.path.expanduser(os.path.expandvars(raw)))


def _max_cost(value: float | None) -> str:
    if value is None or (math.isfinite(value) and value >= 0):
        return ""
    return (
        f"--arena-max-cost {value:g}: give the most the run may spend as a finite number of"
        " dollars, 0 or more (leave the option out for no limit)"
    )


def _progress_every(value: float | None) -> str:
    if value is None or (math.isfinite(value) and value >= 0):
        return ""
    return (
        f"--arena-progress-every {value:g}: give the seconds between progress lines as a"
        " finite number, 0 or more (--arena-progress-every 60; 0 shows no progress)"
    )


def _models(raw: str | None) -> str:
    if raw is None:
        return ""
    if raw.replace(",", "").strip():
        from pytest_arena.spec.schema import model_key_problem  # (loads pydantic)

        for key in raw.split(","):
            problem = model_key_problem(key.strip()) if key.strip() else None
            if problem is not None:
                return f"--arena-models: {problem}"
        return ""
    return (
        f"--arena-models {raw!r} names no model: give model keys, comma separated"
        " (--arena-models sim_small,sim_large), or leave the option out to run each"
        " project's own models"
    )


# what projects are read from: a report given such a file (it exists) would overwrite one
def _file(option: str, raw: str, path: Path | None, example: str) -> str:
    """Why a file cannot be written at `path` (its missing folders are made, as pytest
    does for --junitxml), or "" when it can."""
    if path is None:
        return f"{option} is empty: give the path of a file, such as {option} {example}"
    if path.is_dir():
        return (
            f"{option} {raw} is a folder: give the path of a file,"
            f" such as {option} {Path(raw, example).as_posix()}"
        )
    overwritten = overwrites_project(option, raw, path, example)
    if overwritten:
        return overwritten
    path = written_at(path)
    if path.exists() and not path.is_file():  # a device or a pipe: written into
        return "" if os.access(path, os.W_OK) else f"{option} {raw}: it cannot be written"
    folder = path.parent
    while not folder.exists() and folder != folder.parent:
        folder = folder.parent
    if not folder.is_dir():
        return f"{option} {raw}: {folder} is a file, not a folder; give a path in a folder"
    if path.exists() and not os.access(path, os.W_OK):
        return f"{option} {raw}: the file cannot be written (permission denied)"
    if not os.access(folder, os.W_OK | os.X_OK):
        return (
            f"{option} {raw}: cannot write in {folder} (permission denied);"
            " give a path in a folder you can write to"
        )
    return ""
