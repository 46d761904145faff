"""From records to what people read: the leaderboard and its composite, text tables, gates,
the JSON report and its schema, JUnit records and the GitHub job summary. Pure functions:
no pytest, no run state."""
