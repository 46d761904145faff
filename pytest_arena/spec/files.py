"""The names of the files a project is made of."""

PROJECT_FILE = "arena.yaml"  # a folder holding one is a project
