"""The suite's own layout: what test modules share lives in conftest.py or a helper module
(projects.py, reports.py, fake_llm_server.py), never in another test module."""

from __future__ import annotations

import ast
from pathlib import Path

from tests.conftest import ROOT

TESTS = ROOT / "tests"
VENDORED = TESTS / "clients" / "python_files"  # a copy of VS Code's, not ours
REFERENCES = TESTS / "references"  # copies of the benchmarks' graders, not ours


def imported_modules(path: Path, root: Path = ROOT) -> list[str]:
    """The modules `path` imports, relative imports resolved against its package."""
    package = path.parent.relative_to(root).parts
    found: list[str] = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = package[: len(package) - node.level + 1] if node.level else ()
            module = ".".join([*base, *([node.module] if node.module else [])])
            found.append(module)
            found += [f"{module}.{alias.name}" for alias in node.names]  # `from tests import x`
    return found


def test_no_test_module_imports_another() -> None:
    modules = [
        p for p in TESTS.rglob("*.py") if VENDORED not in p.parents and REFERENCES not in p.parents
    ]
    assert len(modules) > 40  # the glob found the suite
    wrong = [
        f"{path.relative_to(ROOT)} imports {name}"
        for path in modules
        for name in imported_modules(path)
        if name.rsplit(".", 1)[-1].startswith("test_")
    ]
    assert wrong == []


def test_the_check_sees_every_way_of_importing_a_test_module(tmp_path: Path) -> None:
    folder = tmp_path / "tests"
    folder.mkdir()
    path = folder / "test_b.py"
    path.write_text(
        "import tests.test_a\nfrom tests.test_c import X\nfrom tests import test_d\n"
        "from . import test_e\nfrom .test_f import Y\nfrom tests.projects import Z\n"
    )
    names = [
        n for n in imported_modules(path, tmp_path) if n.rsplit(".", 1)[-1].startswith("test_")
    ]
    assert names == [
        "tests.test_a",
        "tests.test_c",
        "tests.test_d",
        "tests.test_e",
        "tests.test_f",
    ]
