"""The corpus of defective inputs that tests/test_corpus.py runs.

`kit` says what an entry and a category are; each other module is a table of entries on
one subject. Importing this package fills `ENTRIES` and `CATEGORIES` with all of them.
"""

from __future__ import annotations

from tests.corpus import (  # noqa: F401  (each adds its entries)
    cases,
    datasets,
    empty,
    files,
    flags,
    hooks,
    models,
    schema,
    scorers,
    scripts,
    yaml_syntax,
)
from tests.corpus.kit import CATEGORIES, ENTRIES, GOOD, Entry, Outcome, Run

__all__ = ["CATEGORIES", "ENTRIES", "GOOD", "Entry", "Outcome", "Run"]
