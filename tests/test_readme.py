"""The README's two set-up commands stay true."""

from __future__ import annotations

import os
import re
import subprocess
import sys

from tests.conftest import ROOT

SCREEN = 60  # lines of a maximised terminal (seven projects of two models take 59)


def readme_command(kind: str) -> str:
    text = (ROOT / "README.md").read_text()
    match = re.search(rf"<!-- readme: {kind} -->\n```bash\n(.+?)\n```", text)
    assert match, f"README.md has no '{kind}' command"
    return match.group(1)


def test_the_readme_starts_with_the_main_job_and_the_test_command() -> None:
    text = (ROOT / "README.md").read_text()
    assert (
        text.index("<!-- readme: main -->")
        < text.index("<!-- readme: tests -->")
        < text.index("## ")
    )


def test_ci_runs_exactly_the_readme_test_command() -> None:
    lines = (ROOT / ".ci" / "run").read_text().splitlines()
    assert readme_command("tests") in lines


def test_the_main_job_runs_every_example_project_and_prints_its_leaderboard() -> None:
    command = readme_command("main")
    install, _, run = command.partition(" && ")
    assert install == "python -m pip install -e ."  # the dev extra is for the tests only
    args = run.split()
    assert args[:3] == ["python", "-m", "pytest"]
    env = {**os.environ, "PYTEST_ADDOPTS": "-p no:cacheprovider -p no:hypothesispytest"}
    result = subprocess.run(
        [sys.executable, *args[1:]], cwd=ROOT, capture_output=True, text=True, env=env, timeout=300
    )
    out = result.stdout
    projects = sorted(p.parent.name for p in (ROOT / "projects").glob("*/arena.yaml"))
    assert len(projects) >= 3
    for name in projects:
        assert f" arena leaderboard: {name} " in out, out[-3000:]
    assert "\nERROR " not in out, out[-3000:]
    assert result.returncode in (0, 1), out[-3000:]
    assert re.search(r"\d+ failed, \d+ passed", out)
    # the run ends with every leaderboard on its last screen, and says where the page is
    screen = "\n".join(out.splitlines()[-SCREEN:])
    for name in projects:
        assert f" arena leaderboard: {name} " in screen, screen
    assert "arena: HTML report: " in screen
    html = args[args.index("--arena-html") + 1]
    assert (ROOT / html).stat().st_size > 10_000
    (ROOT / html).unlink()


def test_ci_runs_the_readme_main_command_without_the_dev_extra() -> None:
    lines = (ROOT / ".ci" / "run").read_text().splitlines()
    assert readme_command("main") + " || status=$?" in lines
