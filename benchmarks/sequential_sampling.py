"""How well sequential sampling decides clear cases, measured in whole pytest runs on the sims.

A simulated model with `correlation: 0` answers every sample of every case right with
probability `accuracy`, independently: its true pass rate on each case is exactly that. This
script writes a project of N cases (each a trial), defines `clear_pass` (true pass rate 0.95)
and `clear_fail` (0.2), runs pytest on it with `repeat: {min: 3, max: MAX}` and
`min_pass_rate: 0.7`, and reads the `--arena-json` report: how many cases each model's
verdict got right (passed for 0.95, failed for 0.2; FLAKY counts as wrong) and how many
samples that took on average, against MAX. Run by hand:

PYTHONPATH=. python benchmarks/sequential_sampling.py [N] [MAX ...]

N (default 1000) cases; MAX (default 30, then 20 and 10 for contrast).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

THRESHOLD = 0.7
MODELS = {"clear_pass": 0.95, "clear_fail": 0.2}


def project(n: int) -> str:
    """arena.yaml: the two models and `n` cases; `flaky: pass` keeps pytest's exit status 0."""
    models = "".join(
        f"    {key}: {{connector: sim, accuracy: {p}, correlation: 0, format_noise: 0}}\n"
        for key, p in MODELS.items()
    )
    cases = "".join(
        f"  - {{id: case{i:05d}, input: 'question {i}', reference: 'answer {i}'}}\n"
        for i in range(n)
    )
    head = f"models:\n  default: [{', '.join(MODELS)}]\n  define:\n{models}"
    return head + f"min_pass_rate: {THRESHOLD}\nflaky: pass\ntests:\n{cases}"


def measure(n: int, most: int, folder: Path) -> dict[str, tuple[float, float, int]]:
    """Per model: (share of cases decided right, mean samples drawn, FLAKY cases)."""
    report = folder / f"max{most}.json"
    env = {
        **os.environ,
        "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1",
        "PYTEST_PLUGINS": "pytest_arena.plugin",
    }
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            str(folder / "projects"),
            f"--arena-repeat=3:{most}",
            f"--arena-json={report}",
            "--arena-failures=compact",
        ],
        cwd=folder,
        env=env,
        stdout=subprocess.DEVNULL,
        check=False,
    )
    records = json.loads(report.read_text())["records"]
    found: dict[str, tuple[float, float, int]] = {}
    for model, p in MODELS.items():
        mine = [r for r in records if r["model"] == model]
        assert len(mine) == n, f"{model}: {len(mine)} records, not {n}"
        right = "passed" if p > THRESHOLD else "failed"
        correct = sum(r["status"] == right for r in mine) / n
        drawn = sum(r["sampling"]["drawn"] for r in mine) / n
        flaky = sum(r["status"] == "flaky" for r in mine)
        found[model] = (correct, drawn, flaky)
    return found


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 1000
    maxima = [int(a) for a in sys.argv[2:]] or [30, 20, 10]
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        (folder / "projects" / "clear").mkdir(parents=True)
        (folder / "projects" / "clear" / "arena.yaml").write_text(project(n))
        print(f"{n} cases per model; repeat {{min: 3, max: MAX}}; min_pass_rate {THRESHOLD}")
        print(
            f"{'MAX':>4}  {'model':<10}  {'true rate':>9}  {'decided right':>13}  "
            f"{'FLAKY':>5}  {'mean samples':>12}  {'of MAX':>6}"
        )
        for most in maxima:
            for model, (correct, drawn, flaky) in measure(n, most, folder).items():
                print(
                    f"{most:>4}  {model:<10}  {MODELS[model]:>9.2f}  {correct:>13.1%}  "
                    f"{flaky:>5}  {drawn:>12.2f}  {drawn / most:>6.1%}"
                )


if __name__ == "__main__":
    main()
