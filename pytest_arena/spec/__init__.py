"""Loading and validating projects; knows nothing about pytest."""

from pytest_arena.spec.case import Case
from pytest_arena.spec.errors import Problem, SpecError
from pytest_arena.spec.project import PROJECT_FILE, CaseProblem, ProjectFile, load_project
from pytest_arena.spec.schema import ModelDef, ProjectSpec

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
