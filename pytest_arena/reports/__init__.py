"""What a run leaves behind besides the terminal: JUnit properties, the JSON report, CI
summaries, gates, and the glue that carries records across pytest-xdist workers."""
