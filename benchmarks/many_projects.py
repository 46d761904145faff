"""How a run of many projects with Python agents scales, as whole runs against bare pytest.

    python benchmarks/many_projects.py                           # 40 projects x 5 cases
    python benchmarks/many_projects.py --projects 80 --cases 5 --runs 3

Each project's agent is Python (connector `python`, `callable: "agent:run"`), and its
agent.py imports a neighbour, helpers.py, as agents do. pytest-arena imports each agent in
the one pytest process, and before each import it drops the modules another project's
agent imported from that project's folder that this project has a file of the same name
for (helpers.py here), so that each agent imports its own. That check ran over every loaded
module against every other project folder, building a pathlib.Path for each pair: each
import cost (modules x projects), and a run of N projects N times that, quadratic in the
projects. Since f6a42d4 it compares strings, once per module, against a tuple of prefixes.

Reference measurement (f6a42d4, Python 3.13, 40 projects x 5 cases): 18.3 s before the
fix, 1.9 s after.

Written in a fresh temporary folder: arena/projects/pNN/ (arena.yaml, agent.py, helpers.py;
every agent answers its prompt, which is each case's reference, so every case passes) and
bare/test_bare.py, as many trivial parametrized passing items as arena runs. Each command
is `python -m pytest <target> -q -p no:cacheprovider` with this Python (bare pytest with
`-p no:arena`: pytest alone, the plugin installed as it is); each runs once as a warm-up,
then --runs rounds follow, the order alternating from round to round. Printed: each
command's median, min and max wall seconds (a whole process, start to exit) and its peak
resident memory; arena's median over bare pytest's median. The timing and the bare test
file are speed.py's (Command, write_bare); pytest-arena must be installed in this Python.
"""

from __future__ import annotations

import argparse
import importlib.metadata
import os
import statistics
import sys
import tempfile
from pathlib import Path

from speed import DEFAULT_MESSAGE, Command, measured_on, ratio_of, summary, write_bare

PYTEST = [sys.executable, "-m", "pytest"]
OPTIONS = ["-q", "-p", "no:cacheprovider"]

ARENA_YAML = """\
models:
  default: [mine]
  define:
    mine: {{connector: python, callable: "agent:run"}}
tests:
{cases}
"""

AGENT = """\
import helpers


def run(prompt):
    return helpers.answer(prompt)
"""

HELPERS = """\
def answer(prompt):
    return prompt
"""


def write_projects(folder: Path, projects: int, cases: int) -> None:
    """`projects` projects under folder/projects, each with a Python agent and `cases`
    cases whose reference is their input (the agent answers its prompt)."""
    lines = "\n".join(f"  - {{id: c{j}, input: x{j}, reference: x{j}}}" for j in range(cases))
    for i in range(projects):
        project = folder / "projects" / f"p{i:02d}"
        project.mkdir(parents=True)
        (project / "arena.yaml").write_text(ARENA_YAML.format(cases=lines))
        (project / "agent.py").write_text(AGENT)
        (project / "helpers.py").write_text(HELPERS)


def check(command: Command, items: int) -> None:
    """Exit unless the command's last run passed all `items` and nothing else."""
    counts = summary(command.output)
    if counts != {"passed": items}:
        sys.exit(f"{command.name} did not pass {items} items: {counts}\n{command.output[-3000:]}")


def measure(args: argparse.Namespace, base: Path, env: dict[str, str]) -> None:
    items = args.projects * args.cases
    write_projects(base / "arena", args.projects, args.cases)
    write_bare(base / "bare", items, 0, DEFAULT_MESSAGE)  # no failures: every item passes
    arena = Command("arena", [*PYTEST, "projects", *OPTIONS], base / "arena")
    bare = Command(
        "bare pytest", [*PYTEST, "test_bare.py", *OPTIONS, "-p", "no:arena"], base / "bare"
    )
    commands = [arena, bare]
    for command in commands:  # warm-up
        command.run(env)
        check(command, items)
    for round_ in range(args.runs):
        for command in commands if round_ % 2 == 0 else commands[::-1]:
            command.times.append(command.run(env))
            command.peaks.append(command.peak)
            check(command, items)
    print(
        f"{args.projects} projects x {args.cases} cases = {items} items, Python agents;"
        f" {args.runs} round{'s' * (args.runs > 1)} after a warm-up"
    )
    print(measured_on())
    for command in commands:
        times = command.times
        print(
            f"{command.name:<12} median {statistics.median(times):6.2f} s"
            f"   (min {min(times):.2f}, max {max(times):.2f})"
            f"   peak memory {statistics.median(command.peaks):.0f} MB"
        )
    ratio, rounds = ratio_of(arena.times, bare.times)
    print(
        f"ratio        arena / bare pytest = {ratio:.2f} x"
        f"   (rounds: min {min(rounds):.2f}, max {max(rounds):.2f})"
    )


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--projects", type=int, default=40)
    parser.add_argument("--cases", type=int, default=5, help="cases per project")
    parser.add_argument("--runs", type=int, default=5, help="timed rounds after the warm-up")
    args = parser.parse_args()
    if args.projects < 1 or args.cases < 1 or args.runs < 1:
        parser.error("--projects, --cases and --runs must be at least 1")
    if not any(
        ep.value.startswith("pytest_arena")
        for ep in importlib.metadata.entry_points(group="pytest11")
    ):
        sys.exit("pytest-arena is not installed in this Python: run `pip install .` first")
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # as speed.py: the bytecode cache as usual
    with tempfile.TemporaryDirectory(prefix="arena-many-") as tmp:
        measure(args, Path(tmp), env)


if __name__ == "__main__":
    main()
