"""Evaluation: a loaded project and its plan, its `hooks.py`, the judge, and one case run on
one model from request to record. Knows nothing of pytest."""
