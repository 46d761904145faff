"""The names of the files a project is made of."""

PROJECT_FILE = "arena.yaml"  # a folder holding one is a project
MISNAMED_FILE = "arena.yml"  # not read: said as a problem, since it is surely meant as one
# the formats of dataset files, by suffix (a dataset may also declare its format)
DATASET_FORMATS = {
    ".yaml": "yaml",
    ".yml": "yaml",
    ".jsonl": "jsonl",
    ".ndjson": "jsonl",
    ".csv": "csv",
    ".tsv": "tsv",
}
