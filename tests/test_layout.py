"""The folders are the layers: the import rules hold, and the README's layout table lists
every module of the package (a module added without a line fails here)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

import pytest_arena
from tests.conftest import ROOT

# the package as it is imported: the source tree, or the installed wheel in CI
PACKAGE = Path(pytest_arena.__file__).resolve().parent
MODULES = sorted(PACKAGE.rglob("*.py"))


def rel(path: Path) -> str:
    return path.relative_to(PACKAGE.parent).as_posix()


def imports(path: Path) -> set[str]:
    """Every module `path` imports, at any depth of its code (TYPE_CHECKING included)."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
            found.update(f"{node.module}.{alias.name}" for alias in node.names)
    return found


def layer(path: Path) -> str:
    parts = path.relative_to(PACKAGE).parts
    return parts[0] if len(parts) > 1 else path.name


def uses(names: set[str], package: str) -> bool:
    return any(n == package or n.startswith(package + ".") for n in names)


@pytest.mark.parametrize("path", MODULES, ids=rel)
def test_only_the_plugin_and_the_cli_import_pytest(path: Path) -> None:
    if layer(path) in ("plugin", "cli.py"):
        return
    names = imports(path)
    assert not (uses(names, "pytest") or uses(names, "_pytest")), f"{rel(path)} imports pytest"


@pytest.mark.parametrize("path", MODULES, ids=rel)
def test_the_layers_below_the_plugin_do_not_reach_up_or_across(path: Path) -> None:
    names = imports(path)
    here = layer(path)
    if here != "plugin":
        assert not uses(names, "pytest_arena.plugin"), f"{rel(path)} imports the plugin"
    if here == "connectors":
        assert not uses(names, "pytest_arena.scorers"), f"{rel(path)} imports scorers"
    if here == "scorers":
        assert not uses(names, "pytest_arena.connectors"), f"{rel(path)} imports connectors"
    if here in ("spec", "connectors", "scorers", "cache", "engine", "reports"):
        assert not uses(names, "pytest_arena.evaluation"), f"{rel(path)} imports evaluation"


def layout_table() -> list[str]:
    text = (ROOT / "README.md").read_text()
    section = text[text.index("## Layout") :]
    return re.findall(r"^\| `(pytest_arena/[^`]+\.py)` \|", section, re.M)


def test_the_readme_layout_lists_every_module_once_and_nothing_else() -> None:
    listed = layout_table()
    assert len(listed) == len(set(listed)), "a module is listed twice"
    assert sorted(listed) == [rel(p) for p in MODULES]


def test_no_two_modules_share_a_name() -> None:
    # `base` is the same thing in connectors/ and scorers/: the API a package's classes extend
    names = [p.stem for p in MODULES if p.stem not in ("__init__", "__main__", "base")]
    assert sorted(n for n in set(names) if names.count(n) > 1) == []
