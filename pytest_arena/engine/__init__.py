"""The engine: model calls made concurrently ahead of pytest's items, within each model's
limits and the run's budgets, and what they cost. Knows nothing of pytest or scorers."""
