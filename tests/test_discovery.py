"""Scorers are found in a project's scorers/ folder with no registration."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from pytest_arena.scorers import Scorer, ScoreResult, ScoringContext
from pytest_arena.scorers.builtins import BUILTINS, builtin_classes
from pytest_arena.scorers.discovery import discover
from pytest_arena.spec.python_files import project_package
from tests.conftest import MakeProject


def scorers_in(root: Path, files: dict[str, str]):  # type: ignore[no-untyped-def]
    for rel, text in files.items():
        path = root / "scorers" / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))
    return discover(root, project_package(root), BUILTINS)


POLITE = """
from pytest_arena.scorers import Scorer, ScoreResult
from .words import MARKER


class ToneScorer(Scorer):
    name = "tone"

    def score(self, output, reference, context):
        return ScoreResult(1.0 if MARKER in output else 0.0, MARKER in output)


class HelperBase(Scorer):
    '''abstract: no score(), so not a scorer'''
"""


def test_scorer_classes_are_found_by_name_next_to_the_builtins(tmp_path: Path) -> None:
    found = scorers_in(tmp_path, {"tone.py": POLITE, "words.py": "MARKER = 'please'\n"})
    assert found.names() == sorted([*BUILTINS, "tone"])
    entry = found.get("tone")
    assert entry is not None and entry.source == tmp_path / "scorers" / "tone.py"
    assert entry.line == 6
    assert entry.scorer.score("please", None, ScoringContext()).passed is True
    assert found.problems == []


def test_private_files_and_imported_scorers_are_not_registered_twice(tmp_path: Path) -> None:
    found = scorers_in(
        tmp_path,
        {
            "_shared.py": "from pytest_arena.scorers.equality import ExactMatch\n",
            "again.py": "from pytest_arena.scorers.equality import ExactMatch, JsonMatch\n",
        },
    )
    assert found.names() == sorted(BUILTINS)
    assert found.problems == []


def test_a_scorer_without_a_name_is_named_after_its_class() -> None:
    class CitationCountScorer(Scorer):
        def score(self, output: str, reference: object, context: ScoringContext) -> ScoreResult:
            return ScoreResult(1.0, True)

    assert CitationCountScorer.name == "citation_count"

    class HTTPStatusScorer(Scorer):  # an acronym is one word: not h_t_t_p_status
        def score(self, output: str, reference: object, context: ScoringContext) -> ScoreResult:
            return ScoreResult(1.0, True)

    assert HTTPStatusScorer.name == "http_status"


def test_a_scorer_that_needs_arguments_is_a_problem_naming_its_class(tmp_path: Path) -> None:
    found = scorers_in(
        tmp_path,
        {
            "needy.py": """
            from pytest_arena import Scorer


            class NeedyScorer(Scorer):
                def __init__(self, floor):
                    self.floor = floor

                def score(self, output, reference, context):
                    raise AssertionError
            """
        },
    )
    (problem,) = found.problems
    assert problem.format(tmp_path).startswith(
        "scorers/needy.py:5: scorer NeedyScorer cannot be created without arguments"
    )
    assert "needy" not in found.entries


def test_a_project_scorer_may_not_take_a_builtin_name(tmp_path: Path) -> None:
    found = scorers_in(
        tmp_path,
        {
            "mine.py": """
            from pytest_arena import Scorer, ScoreResult


            class MyExact(Scorer):
                name = "exact_match"

                def score(self, output, reference, context):
                    return ScoreResult(1.0, True)
            """
        },
    )
    (problem,) = found.problems
    assert "scorer name 'exact_match' of MyExact is already taken by a builtin" in problem.message


def test_an_edited_scorer_file_is_read_afresh(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Edited within the second at the same size, the file ran as it had been: Python's
    bytecode cache keys a file by its size and its time to the second (this test failed
    so under the README's command, which writes bytecode)."""
    import os
    import sys

    monkeypatch.setattr(sys, "dont_write_bytecode", False)
    source = """
    from pytest_arena import Scorer, ScoreResult


    class Fixed(Scorer):
        name = "fixed"

        def score(self, output, reference, context):
            return ScoreResult({value}, True)
    """
    first = scorers_in(tmp_path, {"fixed.py": source.format(value=0.25)})
    written = (tmp_path / "scorers" / "fixed.py").stat().st_mtime
    (tmp_path / "scorers" / "fixed.py").write_text(textwrap.dedent(source.format(value=0.75)))
    os.utime(tmp_path / "scorers" / "fixed.py", (written, written))  # the same second
    second = scorers_in(tmp_path, {})
    context = ScoringContext()
    assert first.entries["fixed"].scorer.score("", None, context).score == 0.25
    assert second.entries["fixed"].scorer.score("", None, context).score == 0.75


def test_each_builtin_is_registered_under_its_own_name() -> None:
    assert [cls.name for cls in builtin_classes()] == list(BUILTINS)


def test_a_builtin_is_imported_when_a_project_first_uses_it(tmp_path: Path) -> None:
    """A run that only compares text does not load the other builtins' modules (and their
    libraries): part of what a run costs before its first call."""
    script = """
import sys
from pathlib import Path

import pytest
from pytest_arena.scorers.builtins import BUILTINS
from pytest_arena.scorers.discovery import discover
FAMILIES = {"equality", "matching", "numeric", "similarity", "json_schema", "llm_judge", "tool_use"}
def loaded():
    names = [m.removeprefix("pytest_arena.scorers.") for m in sys.modules]
    return sorted(name for name in names if name in FAMILIES)
found = discover(Path(sys.argv[1]), "p", BUILTINS)
print(loaded())
found.get("exact_match")
print(loaded())
found.get("numeric_match")
print(loaded())
"""
    done = subprocess.run(
        [sys.executable, "-c", script, str(tmp_path)], capture_output=True, text=True, check=True
    )
    assert done.stdout.splitlines() == ["[]", "['equality']", "['equality', 'numeric']"]


def test_a_scorer_file_shared_by_symlink_is_the_projects_own(tmp_path: Path) -> None:
    """A scorer file linked into scorers/ from a folder shared by projects failed to import:
    "... is not in the subpath of" the project."""
    shared = tmp_path / "shared"
    shared.mkdir()
    (shared / "polite.py").write_text(
        "from pytest_arena.scorers import Scorer, ScoreResult\n\n"
        "class PoliteScorer(Scorer):\n"
        "    name = 'polite'\n"
        "    def score(self, output, reference, context):\n"
        "        return ScoreResult(1.0, True, 'polite')\n"
    )
    for name in ("one", "two"):
        scorers = tmp_path / name / "scorers"
        scorers.mkdir(parents=True)
        (scorers / "polite.py").symlink_to(shared / "polite.py")
        found = discover(tmp_path / name, project_package(tmp_path / name), BUILTINS)
        assert found.problems == []
        assert "polite" in found.entries


def test_a_dangling_link_or_a_subfolder_in_scorers_is_passed_over(tmp_path: Path) -> None:
    """What is not a file in scorers/ is not a scorer, and not the folder's problem: the
    scorer beside it is found."""
    scorers_in(tmp_path, {"tone.py": POLITE, "words.py": "MARKER = 'please'\n"})
    scorers = tmp_path / "scorers"
    (scorers / "gone.py").symlink_to(tmp_path / "nowhere.py")
    (scorers / "loop.py").symlink_to(scorers / "loop.py")
    (scorers / "kept").mkdir()
    found = discover(tmp_path, project_package(tmp_path), BUILTINS)
    assert found.problems == []
    assert "tone" in found.entries


def test_a_skip_at_a_scorer_files_import_skips_nothing_of_the_benchmark(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    """A unit test kept beside its scorer (scorers/test_tone.py) that called
    pytest.importorskip at import skipped the whole project: the run went green over a
    failing case. pytest's files there are not scorer files; a skip in a scorer file is its
    import problem."""
    make_project(
        "billing",
        "models: [sim_echo]\ntests:\n  - {id: a, input: x?, reference: x}\n",
        files={
            "scorers/test_tone.py": "import pytest\npytest.importorskip('no_such_dep_xyz')\n",
            "scorers/tone.py": "import pytest\npytest.skip('not here', allow_module_level=True)\n",
        },
    )
    result = pytester.runpytest("projects", "-p", "no:randomly")
    result.assert_outcomes(failed=1, errors=1, skipped=1)  # the unit test's own skip
    result.stdout.fnmatch_lines(["*scorer file scorers/tone.py failed to import: *not here*"])


def test_a_scorer_class_imported_into_a_scorer_file_is_said_where_its_name_is_missing(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    pytester.syspathinsert()  # `shared` importable, as a team's own package is
    shared = pytester.mkpydir("shared")
    (shared / "scorers.py").write_text(
        "from pytest_arena.scorers import Scorer, ScoreResult\n\n"
        "class PoliteScorer(Scorer):\n"
        "    name = 'polite'\n"
        "    def score(self, output, reference, context):\n"
        "        return ScoreResult(1.0, True, 'polite')\n"
    )
    make_project(
        "reuse",
        "models: [sim_echo]\nscorers: {default: polite}\ntests:\n  - {id: a, input: x}\n",
        files={"scorers/common.py": "from shared.scorers import PoliteScorer\n"},
    )
    result = pytester.runpytest("projects", "-p", "no:randomly")
    result.stdout.fnmatch_lines(
        [
            "*no scorer is named 'polite'*; scorers/common.py imports PoliteScorer from"
            " shared.scorers, and a class is found only where it is defined: subclass it there*"
        ]
    )


def test_a_helper_module_imported_by_name_is_said_with_its_relative_import(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    """`from textutil import norm` in hooks.py or a scorer failed with ModuleNotFoundError
    and the fix "fix the error and run again"; the project's files import each other
    relatively."""
    for hooks, said in (
        ("from textutil import norm\n", "'from .textutil import ...'"),
        ("from .textutil import norm\n", "'from ..textutil import ...'"),  # the scorer's
    ):
        make_project(
            "shop",
            "models: [sim_perfect]\nscorers: {default: loose}\ntests:\n  - {id: a, input: x}\n",
            files={
                "textutil.py": "def norm(s):\n    return str(s).strip().lower()\n",
                "hooks.py": hooks,
                "scorers/loose.py": "from textutil import norm\n",
            },
        )
        result = pytester.runpytest("-p", "no:cacheprovider")
        result.stdout.fnmatch_lines(
            [
                "*failed to import: ModuleNotFoundError*",
                f"*fix: textutil is the project's own*{said}*",
            ]
        )
    make_project(  # a folder of helpers without __init__.py
        "shop",
        "models: [sim_perfect]\ntests:\n  - {id: a, input: x, reference: x}\n",
        files={
            "util/text.py": "def norm(s):\n    return s\n",
            "hooks.py": "from util.text import norm\n",
        },
    )
    result = pytester.runpytest("-p", "no:cacheprovider")
    result.stdout.fnmatch_lines(["*fix: util is the project's own*'from .util import*"])


def test_pytest_skip_or_fail_in_a_scorer_skips_or_fails_its_case_as_in_a_test(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    """pytest's outcomes go on up to the run: they are not a scorer's mistake."""
    make_project(
        "quiz",
        "models: [sim_perfect]\nscorers: {default: picky}\ntests:\n"
        "  - {id: later, input: x, reference: x}\n  - {id: wrong, input: y, reference: y}\n",
        {
            "scorers/picky.py": """
                import pytest

                from pytest_arena.scorers import Scorer


                class Picky(Scorer):
                    name = "picky"

                    def score(self, output, reference, context):
                        if context.test_case.id == "later":
                            pytest.skip("graded by hand later")
                        pytest.fail("not this one")
            """
        },
    )
    result = pytester.runpytest("-p", "no:cacheprovider", "-rsf")
    result.assert_outcomes(skipped=1, failed=1)
    result.stdout.fnmatch_lines(["SKIPPED * graded by hand later", "FAILED * not this one"])


def test_pytest_exit_in_a_scorer_ends_the_run_as_in_a_test(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    """pytest.exit() (and `q` at a scorer's breakpoint(), which raises it) failed that case,
    'raised Exit', and the run went on: its Exit is an Exception, not an outcome."""
    make_project(
        "quiz",
        "models: [sim_perfect]\nscorers: {default: stopper}\ntests:\n"
        "  - {id: a, input: x, reference: x}\n  - {id: b, input: y, reference: y}\n",
        {
            "scorers/stopper.py": """
                import pytest

                from pytest_arena.scorers import Scorer


                class Stopper(Scorer):
                    name = "stopper"

                    def score(self, output, reference, context):
                        pytest.exit("graded enough", returncode=3)
            """
        },
    )
    result = pytester.runpytest("-p", "no:cacheprovider", "-p", "no:randomly")
    assert result.ret == 3
    result.stdout.fnmatch_lines(["*Exit: graded enough*"])
    assert "raised Exit" not in result.stdout.str()
