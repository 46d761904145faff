"""The `arena` command runs the same thing through pytest."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from tests.conftest import ARENA, MakeProject

PROJECT = """
models: [sim_perfect]
tests:
  - {id: a, input: "say x", reference: x}
  - {id: b, input: "say y", reference: y, tags: [slow]}
"""


def test_arena_evaluate_runs_a_project_on_the_given_models(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    make_project("mine", PROJECT)
    make_project("other", PROJECT)
    result = pytester.run(
        *ARENA, "evaluate", "--project", "projects/mine", "--models", "sim_large,sim_echo"
    )
    assert result.ret == 1  # sim_echo repeats the prompt, which is not the reference
    result.stdout.fnmatch_lines(
        ["FAILED projects/mine/arena.yaml::a[[]sim_echo] - expected 'x', got 'say x'"]
    )
    result.stdout.fnmatch_lines(["*arena leaderboard: mine*"])
    result.stdout.no_fnmatch_line("*arena leaderboard: other*")
    result.stdout.fnmatch_lines(["*sim_large*", "*sim_echo*"])


def test_arena_evaluate_passes_other_arguments_to_pytest(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    make_project("mine", PROJECT)
    result = pytester.run(
        *ARENA,
        "evaluate",
        "--project",
        "projects/mine",
        "--models",
        "sim_perfect",
        "-k",
        "not slow",
        "-v",
    )
    assert result.ret == 0
    result.stdout.fnmatch_lines(
        ["projects/mine/arena.yaml::a[[]sim_perfect] PASSED*", "*1 passed, 1 deselected*"]
    )


def test_arena_evaluate_given_a_project_or_a_node_id_runs_that_alone(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    """`arena evaluate projects/mine` and `arena evaluate <node id>` ran every project under
    projects/ too (the default folder was added beside them); pytest runs what it is given."""
    make_project("mine", PROJECT)
    make_project("other", PROJECT)
    models = ("--models", "sim_perfect")
    folder = pytester.run(*ARENA, "evaluate", "projects/mine", *models, "-q")
    folder.stdout.fnmatch_lines(["*2 passed*"])
    assert "other" not in folder.stdout.str()
    case = pytester.run(*ARENA, "evaluate", "projects/mine/arena.yaml::a[sim_perfect]", "-q")
    case.stdout.fnmatch_lines(["*1 passed*"])
    # a value of -k that is also a folder's name is not taken for a path: both projects run
    (pytester.path / "mine").mkdir()
    both = pytester.run(*ARENA, "evaluate", *models, "-k", "mine", "-q", "--co")
    both.stdout.fnmatch_lines(["projects/mine/arena.yaml::a[[]sim_perfect]", "*2/4 tests*"])


def test_arena_version_and_an_unknown_option_are_said(pytester: pytest.Pytester) -> None:
    """`arena --version` printed the whole help and exited 2, saying nothing of why."""
    from pytest_arena import __version__

    version = pytester.run(*ARENA, "--version")
    assert (version.ret, version.stdout.str().strip()) == (0, f"arena {__version__}")
    odd = pytester.run(*ARENA, "--verbose")
    assert odd.ret == 4 and odd.stdout.str() == ""  # pytest's usage error
    odd.stderr.fnmatch_lines(["usage: arena*", "arena: error: unrecognized arguments: --verbose"])


@pytest.mark.parametrize("args", [["models"], ["--help"], ["models", "--help"], ["--version"]])
def test_output_into_a_closed_pipe_ends_quietly(pytester: pytest.Pytester, args: list[str]) -> None:
    """`arena models | head -1` ended in a BrokenPipeError traceback once head had gone; and
    `arena --help | head -1`, whose SystemExit passed the flush, with status 120 on 3.14."""
    import os
    import subprocess

    read, write = os.pipe()
    os.close(read)  # the reader has gone before a line is written
    try:
        process = subprocess.run([*ARENA, *args], stdout=write, stderr=subprocess.PIPE)
    finally:
        os.close(write)
    # argparse's help that cannot be written is dropped quietly up to Python 3.13 (status 0)
    assert process.returncode in ((1,) if args == ["models"] else (0, 1))
    assert process.stderr == b""


def test_arena_without_a_command_prints_help(pytester: pytest.Pytester) -> None:
    result = pytester.run(*ARENA)
    assert result.ret == 0
    result.stdout.fnmatch_lines(["usage: arena*", "*evaluate*"])


SMALL = """
tests:
  - {id: q1, input: "2 + 2?", reference: "4"}
  - {id: q2, input: "Capital of Italy?", reference: "Rome"}
  - {id: q3, input: "3 * 7?", reference: "21"}
  - {id: q4, input: "Largest planet?", reference: "Jupiter"}
  - {id: q5, input: "10 - 4?", reference: "6"}
  - {id: q6, input: "Capital of Spain?", reference: "Madrid"}
"""


def test_arena_evaluate_on_sim_small_honours_pytest_options(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    make_project("mine", SMALL)
    full = pytester.run(*ARENA, "evaluate", "--project", "projects/mine", "--models", "sim_small")
    counts = full.parseoutcomes()
    assert counts["failed"] >= 2, full.stdout.str()
    stopped = pytester.run(
        *ARENA, "evaluate", "--project", "projects/mine", "--models", "sim_small", "-x", "-rf"
    )
    assert stopped.ret == 1
    assert stopped.parseoutcomes()["failed"] == 1
    stopped.stdout.fnmatch_lines(["*stopping after 1 failures*"])
    stopped.stdout.fnmatch_lines(["FAILED projects/mine/arena.yaml::q*[[]sim_small] - *"])


@pytest.mark.skipif(sys.platform == "win32", reason="signals to one process are POSIX's")
@pytest.mark.parametrize("signal_name", ["SIGINT", "SIGTERM"])
def test_a_signal_sent_to_arena_alone_stops_the_run(
    pytester: pytest.Pytester, make_project: MakeProject, signal_name: str
) -> None:
    """`kill <arena's pid>` (or `docker stop`, an IDE's stop button) left its pytest child
    running to the end, paying for every call: SIGINT was ignored, SIGTERM orphaned it."""
    import signal
    import subprocess
    import time

    cases = "".join(f"  - {{id: c{i}, input: 'say x', reference: x}}\n" for i in range(40))
    slow = (
        "models:\n  default: [slow]\n  define:\n    slow: {profile: sim_perfect, latency_ms: 500,"
    )
    make_project("mine", f"{slow} concurrency: 1}}\ntests:\n{cases}")  # 20 s in all
    started = time.monotonic()
    process = subprocess.Popen(
        [*ARENA, "evaluate", "--project", "projects/mine", "-v", "-p", "no:randomly"],
        cwd=pytester.path,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    assert process.stdout is not None
    for line in process.stdout:  # the first case has its answer: the run is under way
        if "PASSED" in line:
            break
    process.send_signal(getattr(signal, signal_name))
    output = process.stdout.read()
    process.wait(timeout=30)
    assert time.monotonic() - started < 12, "the run went on to its end"
    if signal_name == "SIGINT":  # pytest's own way of being interrupted
        assert process.returncode == pytest.ExitCode.INTERRUPTED, output
        assert "KeyboardInterrupt" in output, output
    else:
        assert process.returncode == -signal.SIGTERM


def test_the_installed_arena_script_runs_clean_under_w_error(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    """pytest imports the plugin itself, so it never warns it cannot rewrite it (on a wheel
    install it did on every run, and `-W error` made that a crash)."""
    make_project("mine", PROJECT)
    script = Path(sys.executable).with_name("arena")  # beside the interpreter, as pip puts it
    assert script.exists(), "pip installs the `arena` script beside python"
    result = pytester.run(script, "evaluate", "--project", "projects/mine", "-W", "error", "-q")
    assert result.ret == 0, result.stdout.str() + result.stderr.str()
    result.stdout.fnmatch_lines(["*2 passed*"])
    assert "cannot be rewritten" not in result.stdout.str() + result.stderr.str()


def test_the_installed_release_is_the_version_arena_and_its_reports_name() -> None:
    """The version was written twice (pyproject.toml and the package), and reports named
    the package's: the build now reads it from the package."""
    from importlib.metadata import version

    from pytest_arena import __version__

    assert version("pytest-arena") == __version__


def test_the_installed_package_carries_its_license_text() -> None:
    """pyproject.toml said MIT, and no wheel or sdist held the license, which the MIT
    license asks every copy to."""
    from importlib.metadata import distribution

    installed = distribution("pytest-arena")
    assert installed.metadata["License-Expression"] == "MIT"
    (license_file,) = [f for f in installed.files or () if f.name == "LICENSE"]
    assert "Permission is hereby granted" in license_file.read_text()


def test_arena_evaluate_without_a_projects_folder_runs_what_pytest_collects(
    pytester: pytest.Pytester,
) -> None:
    """A project made by `arena init .`, or an arena.yaml at the top: there is no
    projects/ folder, and evaluate said "file or directory not found: projects"."""
    (pytester.path / "arena.yaml").write_text(PROJECT)
    result = pytester.run(*ARENA, "evaluate", "-q")
    assert result.ret == 0, result.stdout.str() + result.stderr.str()
    result.stdout.fnmatch_lines(["*2 passed*"])
