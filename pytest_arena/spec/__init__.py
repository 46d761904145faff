"""Loading and validating projects; knows nothing about pytest.

Names are imported when first used (the plugin loads this package on every pytest run).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pytest_arena._lazy import lazy_names
from pytest_arena.spec.files import PROJECT_FILE

if TYPE_CHECKING:
    from pytest_arena.spec.case import Case
    from pytest_arena.spec.errors import Problem, SpecError
    from pytest_arena.spec.loader import CaseProblem, ProjectFile, load_project
    from pytest_arena.spec.schema import ModelDef, ProjectSpec

_LAZY = {
    "Case": "pytest_arena.spec.case",
    "CaseProblem": "pytest_arena.spec.loader",
    "ModelDef": "pytest_arena.spec.schema",
    "Problem": "pytest_arena.spec.errors",
    "ProjectFile": "pytest_arena.spec.loader",
    "ProjectSpec": "pytest_arena.spec.schema",
    "SpecError": "pytest_arena.spec.errors",
    "load_project": "pytest_arena.spec.loader",
}

__all__ = [
    "PROJECT_FILE",
    "Case",
    "CaseProblem",
    "ModelDef",
    "Problem",
    "ProjectFile",
    "ProjectSpec",
    "SpecError",
    "load_project",
]


__getattr__ = lazy_names(__name__, _LAZY)
