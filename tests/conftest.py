"""Helpers for writing arena projects inside a pytester folder."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
import yaml  # noqa: F401  # see below

from tests.browser import Browser, find_chromium
from tests.fake_llm_server import FakeLLMServer

ROOT = Path(__file__).resolve().parent.parent  # the repository
MakeProject = Callable[..., Path]
XDIST = ("-p", "xdist.plugin")  # inner runs load no plugin by itself (see `pytester`)
ARENA = (sys.executable, "-m", "pytest_arena")  # the `arena` command, found without PATH


def run_to_interrupt(
    cwd: Path, *args: str, env: dict[str, str] | None = None
) -> subprocess.Popen[str]:
    """`python -m pytest *args` in `cwd`, started for a test to stop with Ctrl-C (SIGINT),
    its output (both streams) piped as text."""
    return subprocess.Popen(
        [sys.executable, "-m", "pytest", *args],
        cwd=cwd,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env=env,
        preexec_fn=_interruptible,
    )


def _interruptible() -> None:
    """The child gets SIGINT as from a terminal even when this suite was started in the
    background (a shell's `cmd &` ignores SIGINT, and Python installs no KeyboardInterrupt
    handler in a process that starts with it ignored)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def alive(pids: Path) -> list[int]:
    """The processes still running among those whose pid names a file in `pids`."""
    return [int(entry.name) for entry in pids.iterdir() if running(int(entry.name))]


def running(pid: int) -> bool:
    """Whether process `pid` runs: a killed one that waits for its parent to reap it (a
    zombie, which a run made in this process may leave) is gone for our purpose."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    stat = Path(f"/proc/{pid}/stat")
    try:
        return stat.read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except (FileNotFoundError, IndexError):  # no /proc (macOS): it answered the signal
        return not sys.platform.startswith("linux")


@pytest.fixture
def make_project(pytester: pytest.Pytester) -> MakeProject:
    """Write `projects/<name>/arena.yaml` and any other files; returns the project folder."""

    def make(name: str, arena_yaml: str, files: dict[str, str] | None = None) -> Path:
        root = pytester.path / "projects" / name
        root.mkdir(parents=True, exist_ok=True)
        (root / "arena.yaml").write_text(textwrap.dedent(arena_yaml).lstrip("\n"))
        for rel, text in (files or {}).items():
            path = root / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(textwrap.dedent(text).lstrip("\n"))
        return root

    return make


@pytest.fixture
def pytester(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    # Inner runs load this plugin and nothing else the machine happens to have installed
    # (randomly would shuffle them, hypothesis costs a second a run); a test that wants
    # another plugin names it: `-p xdist.plugin` (XDIST below).
    monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")
    monkeypatch.setenv("PYTEST_PLUGINS", "pytest_arena.plugin")
    # and a deprecated pytest API used by the plugin fails them, as it fails the suite
    monkeypatch.setenv("PYTEST_ADDOPTS", "-W error::DeprecationWarning")
    # The same restore would drop yaml if an inner run imported it first, and yaml's C parser
    # keeps the node classes of its first import: a second import cannot parse. So this
    # module imports yaml for the whole session.
    # a run on GitHub Actions must not write the inner runs' boards into its own job summary
    monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)
    # nor print as pytest does on CI (whole short-summary lines): the same output everywhere
    for name in ("CI", "BUILD_NUMBER"):
        monkeypatch.delenv(name, raising=False)
    return pytester


@pytest.fixture
def fake_llm() -> Iterator[FakeLLMServer]:
    """A fake OpenAI and Anthropic server on a free port of 127.0.0.1 (see fake_llm_server)."""
    with FakeLLMServer(hang_seconds=10) as server:
        yield server


@pytest.fixture(scope="session")
def browser() -> Iterator[Browser]:
    """Headless Chromium for the HTML report's tests (one per process: xdist worker)."""
    if find_chromium() is None:
        pytest.skip("no chromium on the PATH: `apt-get install chromium` (CI installs it)")
    with Browser() as started:
        yield started


def run_ends_with_one_failed(pytester: pytest.Pytester, failure: list[str]) -> None:
    """Run pytest on the project made, which holds a case whose pattern backtracks without
    end: the run ends in time, that case failed (its section showing `failure`), the other
    passed."""
    started = time.monotonic()
    result = pytester.runpytest("-p", "no:cacheprovider")
    assert time.monotonic() - started < 30  # re would take longer than the universe's age
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(failure)


def denied_writes() -> list[str]:
    """A command prefix under which this process's user cannot read or write where the
    file modes say so: root can anywhere, so it runs without the capabilities that let it."""
    import shutil

    if os.geteuid() != 0:
        return []
    setpriv = shutil.which("setpriv")
    if setpriv is None:
        pytest.fail("setpriv (util-linux) is needed to deny root a write")
    return [
        setpriv,
        "--bounding-set",
        "-dac_override,-dac_read_search,-fowner",
        "--inh-caps",
        "-all",
    ]
