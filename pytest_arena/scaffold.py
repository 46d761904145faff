"""`arena init NAME`: a new project that runs green on the simulated models the moment it is
made: `arena.yaml` with two cases, a custom scorer in `scorers/`, and that scorer's tests."""

from __future__ import annotations

import itertools
import os
import re
import shlex
from pathlib import Path

from pytest_arena.cache.location import find_rootdir

NAME = re.compile(r"[A-Za-z][A-Za-z0-9_-]*\Z")  # ASCII: as a module of its tests is named

ARENA_YAML = """\
# A pytest-arena project: one test per case and model.
# Run it:  arena evaluate --project {folder}
# sim_perfect is a simulated model that always answers right; sim_small and sim_large get
# some cases wrong, realistically:  arena evaluate --project {folder} --models sim_small,sim_large
# A real model needs no more than its key:  --models openai:gpt-4o-mini (with OPENAI_API_KEY set)
models: [sim_perfect]
scorers:
  default: keywords          # scorers/keywords.py
  options:
    keywords: {{min_share: 0.75}}
tests:
  - id: capital_of_france
    input: "What is the capital of France? Answer in one sentence."
    reference: "The capital of France is Paris."
    tags: [geography]
  - id: boiling_point
    input: "At what temperature does water boil at sea level, in Celsius?"
    reference: "Water boils at 100 degrees Celsius at sea level."
    tags: [science]
"""

SCORER = '''\
"""A custom scorer: the share of the reference's words that the output contains."""

import re

from pydantic import BaseModel

from pytest_arena.scorers import Scorer, ScoreResult


def words(text):
    return {w for w in re.findall(r"[a-z0-9]+", str(text).lower()) if len(w) > 3}


class KeywordsOptions(BaseModel):
    min_share: float = 0.75  # of the reference's words the output must contain to pass


class KeywordsScorer(Scorer):
    name = "keywords"
    options_model = KeywordsOptions

    def score(self, output, reference, context):
        wanted = words(reference)
        if not wanted:
            return ScoreResult(0.0, passed=None, reason="the reference has no words: unscored")
        found = wanted & words(output)
        share = len(found) / len(wanted)
        missing = ", ".join(sorted(wanted - found)) or "none"
        return ScoreResult(
            score=share,
            passed=share >= context.options.get("min_share", 0.75),
            reason=f"{len(found)} of {len(wanted)} key words; missing: {missing}",
            detail={"found": sorted(found)},
        )
'''

SCORER_TEST = '''\
"""Tests of scorers/keywords.py: a scorer is a plain class, so these are plain tests."""

import importlib.util
from pathlib import Path

from pytest_arena import scoring_context

SCORER_FILE = Path(__file__).resolve().parent.parent / "scorers" / "keywords.py"


def load_scorer():
    spec = importlib.util.spec_from_file_location("{name}_keywords", SCORER_FILE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.KeywordsScorer()


def test_an_answer_with_the_key_words_passes():
    ctx = scoring_context("The capital of France is Paris.", options={{"min_share": 0.5}})
    result = load_scorer().score("Paris is the capital of France.", ctx.test_case.reference, ctx)
    assert result.passed and result.score == 1.0


def test_an_answer_without_them_fails_and_says_what_is_missing():
    ctx = scoring_context("The capital of France is Paris.", options={{"min_share": 0.5}})
    result = load_scorer().score("I do not know.", ctx.test_case.reference, ctx)
    assert not result.passed
    assert "paris" in result.reason


def test_a_reference_without_words_is_unscored():
    ctx = scoring_context("?!", options={{"min_share": 0.5}})
    result = load_scorer().score("Paris.", ctx.test_case.reference, ctx)
    assert result.passed is None and "no words" in result.reason
'''


class InitError(ValueError):
    """The project cannot be written where asked."""


def shown(target: Path) -> str:
    """The folder as a shell command names it: quoted if it holds a space or such."""
    return shlex.quote(target.as_posix())


def files(name: str, folder: str, taken: frozenset[str] = frozenset()) -> dict[str, str]:
    """The new project's files, by path relative to its folder. The scorer's tests are
    `tests/test_<name>_keywords.py` (`_` for the project's `-`), or `..._keywords_2.py` and
    so on when a module of that name is `taken`: pytest imports a test file of a folder
    without `__init__.py` by its bare name, and two of one name stop the run's collection."""
    module = name.replace("-", "_")
    base = f"test_{module}_keywords"
    numbered = (f"{base}_{n}" for n in itertools.count(2))
    test = next(t for t in itertools.chain([base], numbered) if f"{t}.py" not in taken)
    return {
        "arena.yaml": ARENA_YAML.format(folder=folder),
        "scorers/keywords.py": SCORER,
        f"tests/{test}.py": SCORER_TEST.format(name=module),
    }


_NOT_SEARCHED = {"node_modules", "__pycache__", "site-packages"}


def test_modules(folders: list[Path]) -> frozenset[str]:
    """The names of the test files (`test_*.py`) under `folders`, but in hidden folders,
    virtual environments and the like, which pytest does not collect."""
    found: set[str] = set()
    for top in {os.path.abspath(f) for f in folders}:
        for where, subfolders, names in os.walk(top):
            subfolders[:] = [
                d
                for d in subfolders
                if not d.startswith(".")
                and d not in _NOT_SEARCHED
                and not os.path.exists(os.path.join(where, d, "pyvenv.cfg"))
            ]
            found.update(n for n in names if n.startswith("test_") and n.endswith(".py"))
    return frozenset(found)


def init(target: Path) -> list[Path]:
    """Write a new project into the folder `target` (which must not hold files yet)."""
    if not str(target).strip():
        raise InitError("give the new project's folder, e.g. projects/faq (or . for this one)")
    name = Path(os.path.abspath(target)).name  # `arena init .` names it after the folder
    if not NAME.match(name):
        raise InitError(
            f"'{name}' cannot name a project: use ASCII letters, digits, '_' and '-',"
            " starting with a letter (e.g. my-project)"
        )
    if target.exists() and (not target.is_dir() or any(target.iterdir())):
        raise InitError(f"{target} exists and is not an empty folder; pick another name")
    # a project may be run with others under the rootdir pytest finds from here or from it
    here, there = Path.cwd(), Path(os.path.abspath(target)).parent
    roots = [find_rootdir(here), find_rootdir(there)]
    written = []
    for rel, text in files(name, shown(target), test_modules(roots)).items():
        path = target / rel
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, "utf-8")
        except OSError as exc:  # a file where a folder should be, no permission, a full disk
            raise InitError(
                f"cannot write {path.as_posix()}: {exc.strerror or exc}; pick a folder you can"
                " write to"
            ) from None
        written.append(path)
    return written
