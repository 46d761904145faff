"""A corpus of defective inputs, each a small project beside a good one.

Each entry (in tests/corpus/, one module a subject) is a project folder
(`projects/<name>/`) holding one mistake. Entries of one category cannot interfere with
each other, so a category is one pytest run: all its broken projects and one good
project. For each entry the test asserts

- what is said about it (file, line, message, and the fix where one is given), matched
  in the lines of the run that belong to it (its sections and the lines naming it);
- that something of it failed or errored, and that the run's exit status is not 0;
- that no INTERNALERROR and no traceback through pytest's or this plugin's code shows;

and for each run that the good project's cases all passed and its leaderboard printed.
Flags are usage errors (exit status 4, nothing run) in runs of their own, as are the inputs
whose timing is checked. A project without cases is a warning, and exit status 5 when
nothing else ran: those run without the good project.

A run is made once per session, by the first test that needs it (under pytest-xdist, the
other worker waits for it and reads its result): see `outcome_of`.

An input the package handles badly stays here, marked `xfail(strict=True)` with the exact
symptom, so that the fix turns it green.
"""

from __future__ import annotations

import json
import os
import re
import stat
import textwrap
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

try:
    import fcntl
except ImportError:  # Windows: each worker makes the runs it needs itself
    fcntl = None  # type: ignore[assignment]

from tests.corpus import CATEGORIES, ENTRIES, GOOD, Entry, Outcome

# -- a run and its outcome ------------------------------------------------------------------


def lay_out(root: Path, name: str) -> None:
    """Write the projects of category `name` (and the good one) under `root/projects`."""
    run = CATEGORIES[name]
    projects = root / "projects"
    if run.good:
        write(projects / "good", {"arena.yaml": GOOD})
    for entry in ENTRIES:
        if entry.category == name:
            write(projects / entry.name, entry.files, entry.executable)
    if run.hook_timeout is not None:  # hooks.py has no setting of its own for it
        (root / "conftest.py").write_text(
            "from pytest_arena.evaluation import user_code\n\n"
            f"user_code.DEFAULT_TIMEOUT = {run.hook_timeout!r}\n"
        )


def make_run(pytester: pytest.Pytester, name: str, monkeypatch: pytest.MonkeyPatch) -> Outcome:
    run = CATEGORIES[name]
    lay_out(pytester.path, name)
    for key, value in run.env.items():
        if value is None:
            monkeypatch.delenv(key, raising=False)
        else:
            monkeypatch.setenv(key, value)
    report = pytester.path / "arena.json"
    # each case's whole failure block, however many fail: the corpus reads them
    args = (
        "-v",
        "-rA",
        "-p",
        "no:cacheprovider",
        "--arena-json=arena.json",
        "--arena-failures=full",
    )
    args += run.args
    started = time.monotonic()
    if run.subprocess:
        try:
            result = pytester.runpytest_subprocess(*args, timeout=run.seconds)
        except pytester.TimeoutExpired:
            return Outcome(-1, "", f"stopped after {run.seconds} s", time.monotonic() - started, [])
    else:
        result = pytester.runpytest(*args)
    took = time.monotonic() - started
    records = json.loads(report.read_text())["records"] if report.is_file() else []
    return Outcome(int(result.ret), result.stdout.str(), result.stderr.str(), took, records)


def write(root: Path, files: Mapping[str, str | bytes], executable: tuple[str, ...] = ()) -> None:
    for rel, content in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(textwrap.dedent(content).lstrip("\n"))
        if rel in executable:
            path.chmod(path.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)


_OUTCOMES: dict[str, Outcome] = {}


def outcome_of(
    name: str,
    pytester: pytest.Pytester,
    tmp_path_factory: pytest.TempPathFactory,
    monkeypatch: pytest.MonkeyPatch,
) -> Outcome:
    """The outcome of the run of category `name`, made once per session: under xdist the
    first worker to ask makes it while holding a lock, and the others read its result."""
    if name in _OUTCOMES:
        return _OUTCOMES[name]
    shared = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        shared = shared.parent
    run_id = os.environ.get("PYTEST_XDIST_TESTRUNUID", "")[:12]
    saved = shared / f"corpus-{run_id}-{name}.json"
    with _locked(shared / f"corpus-{run_id}-{name}.lock"):
        if saved.is_file():
            outcome = Outcome(**json.loads(saved.read_text()))
        else:
            outcome = make_run(pytester, name, monkeypatch)
            saved.write_text(json.dumps(vars(outcome)))
    _OUTCOMES[name] = outcome
    return outcome


class _locked:
    def __init__(self, path: Path) -> None:
        self.path = path

    def __enter__(self) -> None:
        self.handle = self.path.open("a")
        if fcntl is not None:
            fcntl.flock(self.handle, fcntl.LOCK_EX)

    def __exit__(self, *exc: object) -> None:
        if fcntl is not None:
            fcntl.flock(self.handle, fcntl.LOCK_UN)
        self.handle.close()


# -- which lines of a run are an entry's ----------------------------------------------------

_SECTION = re.compile(r"^_{2,} (.+?) _{2,}$")
_BANNER = re.compile(r"^={2,}( .* )?={2,}$")
_BOARD = re.compile(r" arena leaderboard: (\S+) ")
_GATE = re.compile(r"^-{3,} arena gate: (\S+) -{3,}$")


def owned(outcome: Outcome, name: str) -> list[str]:
    """The lines of the run that are about project `name`: the sections (failures, errors)
    of its items, its leaderboard and gate, the warnings that name its files, and every
    line naming it."""
    mine = re.compile(rf"projects/{re.escape(name)}/|(?<![\w.-]){re.escape(name)}::")
    out: list[str] = []
    inside = False
    warnings = False
    for line in outcome.lines:
        section = _SECTION.match(line)
        gate = _GATE.match(line)
        if section:
            inside = bool(mine.search(section.group(1)))
        elif gate:
            inside = gate.group(1) == name
        elif _BANNER.match(line):
            board = _BOARD.search(line)
            inside = board is not None and board.group(1) == name
            warnings = "warnings summary" in line
        elif warnings and line and not line.startswith(" "):
            inside = bool(mine.search(line))
        elif warnings and not line:
            inside = False
        if inside or mine.search(line):
            out.append(line)
    return out


_STATUS = "PASSED|FAILED|ERROR|UNSCORED|SKIPPED|XFAIL|XPASS"


def items_of(outcome: Outcome, name: str) -> dict[str, str]:
    """The outcome of each item of project `name`, from the `-v` lines and the `-rA`
    summary (an error at setup shows in both; the summary says it last)."""
    found: dict[str, str] = {}
    path = f"projects/{re.escape(name)}/"
    verbose = re.compile(rf"^({path}.+?) ({_STATUS}) +\[ *\d+%\]$")
    summary = re.compile(rf"^({_STATUS}) ({path}.+?)(?: - .*)?$")
    for line in outcome.lines:
        match = verbose.match(line)
        if match:
            found[match.group(1)] = match.group(2)
            continue
        match = summary.match(line)
        if match:
            found[match.group(2)] = match.group(1)
    return found


_INTERNALS = re.compile(r"_pytest/|/pluggy/|pytest_arena/|site-packages/|INTERNALERROR")


def assert_no_internals(lines: list[str], user_traceback: bool) -> None:
    leaked = [line for line in lines if _INTERNALS.search(line)]
    assert not leaked, "pytest's or the plugin's own code shows:\n" + "\n".join(leaked[:20])
    if not user_traceback:
        raw = [line for line in lines if line.startswith("Traceback (most recent call last)")]
        assert not raw, "a traceback is shown:\n" + "\n".join(lines[:60])


def assert_said(lines: list[str], said: tuple[str, ...]) -> None:
    if said:
        pytest.LineMatcher(lines).fnmatch_lines(list(said))


# -- the checks -----------------------------------------------------------------------------


def check_entry(outcome: Outcome, entry: Entry) -> None:
    run = CATEGORIES[entry.category]
    assert "INTERNALERROR" not in outcome.stdout + outcome.stderr, outcome.stdout[-3000:]
    assert outcome.took < run.seconds, f"the run took {outcome.took:.1f} s"
    if entry.kind == "usage":
        assert outcome.ret == pytest.ExitCode.USAGE_ERROR, outcome.stdout[-2000:]
        assert_said(outcome.stderr.splitlines(), entry.said)
        assert "collected" not in outcome.stdout and "passed" not in outcome.stdout
        return
    assert_said(outcome.lines, run.said)
    lines = owned(outcome, entry.name)
    assert_said(lines, entry.said)
    alone = sum(e.category == entry.category for e in ENTRIES) == 1
    assert_no_internals(outcome.lines if alone else lines, entry.traceback)
    items = items_of(outcome, entry.name)
    if entry.kind == "fails":
        assert {"FAILED", "ERROR"} & set(items.values()), f"nothing of it failed: {items}"
    elif entry.kind == "runs":
        assert items and set(items.values()) == {"PASSED"}, f"not all passed: {items}"
    elif entry.kind == "empty":
        assert not items, f"it has items: {items}"
    # "board": what the end of the run says of it (its gate, its leaderboard) decides
    if run.status is not None:
        assert outcome.ret == run.status, f"exit status {outcome.ret}"
    elif entry.kind != "runs":
        assert outcome.ret != 0, "exit status 0"
    if run.good:
        good = items_of(outcome, "good")
        assert good == {
            "projects/good/arena.yaml::one[sim_perfect]": "PASSED",
            "projects/good/arena.yaml::two[sim_perfect]": "PASSED",
        }, f"the good project did not run as it should: {good}"
        pytest.LineMatcher(outcome.lines).fnmatch_lines(
            ["*= arena leaderboard: good =*", "*1*sim_perfect*1.000*1.000*100.0%*2*0*0*"]
        )
    if entry.check is not None:
        entry.check(outcome, entry)


# ===========================================================================================
# The tests
# ===========================================================================================


def _param(entry: Entry) -> Any:
    marks = [pytest.mark.xfail(strict=True, reason=entry.xfail)] if entry.xfail else []
    return pytest.param(entry, id=f"{entry.category}-{entry.name}", marks=marks)


@pytest.mark.parametrize("entry", [_param(e) for e in ENTRIES])
def test_a_defective_input_is_said_clearly_and_the_good_project_runs(
    entry: Entry,
    pytester: pytest.Pytester,
    tmp_path_factory: pytest.TempPathFactory,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    check_entry(outcome_of(entry.category, pytester, tmp_path_factory, monkeypatch), entry)


def test_the_corpus_holds_a_hundred_distinct_inputs_each_said_of_its_own_project() -> None:
    names = [e.name for e in ENTRIES]
    assert len(names) >= 100
    assert len(set(names)) == len(names)
    assert {e.category for e in ENTRIES} == set(CATEGORIES)
    for entry in ENTRIES:
        named = {n for said in entry.said for n in re.findall(r"projects/([\w.-]+)/", said)}
        assert named <= {entry.name}, f"{entry.name} expects lines of {named}"
        assert entry.said or entry.kind == "runs", f"{entry.name} expects nothing to be said"
