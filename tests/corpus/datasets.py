"""`datasets:` entries and the dataset files they name: missing files, unknown formats, rows
that cannot be read (JSONL, CSV, YAML), bytes that are not UTF-8."""

from __future__ import annotations

from tests.corpus.kit import OK_CASE, ROWS, category, with_data

# -- datasets: the entries of `datasets:` ---------------------------------------------------

datasets = category("datasets")


datasets(
    "datasets_misspelt_field",
    {
        "arena.yaml": "models: [sim_perfect]\ndatasets:\n  - path: q.jsonl\n    fields: {inptu: question}\n",
        "q.jsonl": ROWS,
    },
    "projects/datasets_misspelt_field/arena.yaml:4: datasets[[]0].fields.inptu: unknown key 'inptu'",
    "  fix: did you mean 'input'? known keys here: eval_type, id, input, models, reference, tags, weight",
)
datasets(
    "datasets_unknown_format",
    {
        "arena.yaml": "models: [sim_perfect]\ndatasets:\n  - {path: q.jsonl, format: xml}\n",
        "q.jsonl": ROWS,
    },
    "projects/datasets_unknown_format/arena.yaml:3: datasets[[]0].format: Input should be 'yaml',"
    " 'jsonl', 'csv' or 'tsv' (got str 'xml')",
)
datasets(
    "datasets_without_path",
    {
        "arena.yaml": "models: [sim_perfect]\ndatasets:\n  - {fields: {id: qid}}\n",
        "q.jsonl": ROWS,
    },
    "projects/datasets_without_path/arena.yaml:3: 'path' is required in datasets[[]0]",
    "  fix: add 'path: ...'",
)
datasets(
    "datasets_tags_text",
    {
        "arena.yaml": "models: [sim_perfect]\ndatasets:\n  - {path: q.jsonl, tags: math}\n",
        "q.jsonl": ROWS,
    },
    "projects/datasets_tags_text/arena.yaml:3: datasets[[]0].tags: Input should be a valid list*",
)
datasets(
    "datasets_threshold_above_one",
    {
        "arena.yaml": "models: [sim_perfect]\ndatasets:\n  - {path: q.jsonl, threshold: 3}\n",
        "q.jsonl": ROWS,
    },
    "projects/datasets_threshold_above_one/arena.yaml:3: datasets[[]0].threshold: Input should be"
    " less than or equal to 1",
)
datasets(
    "datasets_path_number",
    {"arena.yaml": "models: [sim_perfect]\ndatasets:\n  - 42\n"},
    "projects/datasets_path_number/arena.yaml:3: datasets[[]0]: Input should be a valid dictionary*(got int 42)",
)

# -- dataset files --------------------------------------------------------------------------

data = category("data")


data(
    "data_missing_file",
    {"arena.yaml": "models: [sim_perfect]\ndatasets:\n  - path: data/absent.jsonl\n" + OK_CASE},
    "projects/data_missing_file/arena.yaml:3: datasets[[]0].path: dataset file 'data/absent.jsonl'"
    " does not exist (looked in *)",
    "  fix: paths are relative to the folder holding arena.yaml",
)
data(
    "data_names_its_own_project_file",
    {"arena.yaml": "models: [sim_perfect]\ndatasets:\n  - path: arena.yaml\n" + OK_CASE},
    "projects/data_names_its_own_project_file/arena.yaml:3: datasets[[]0].path: dataset path"
    " 'arena.yaml' names a project file (arena.yaml), not a dataset file",
    "  fix: list files that hold cases alone here*",
)
data(  # the file named beside it hid the missing one's error: the run went green
    "data_own_project_file_hides_nothing",
    {
        "arena.yaml": "models: [sim_perfect]\ndatasets:\n  - data/absent.jsonl\n"
        "  - arena.yaml\n" + OK_CASE
    },
    "projects/data_own_project_file_hides_nothing/arena.yaml:3: datasets[[]0].path: dataset"
    " file 'data/absent.jsonl' does not exist (looked in *)",
    "projects/data_own_project_file_hides_nothing/arena.yaml:4: datasets[[]1].path: dataset"
    " path 'arena.yaml' names a project file (arena.yaml), not a dataset file",
)
data(
    "data_path_is_a_folder",
    {"arena.yaml": "models: [sim_perfect]\ndatasets:\n  - path: data\n", "data/q.jsonl": ROWS},
    "projects/data_path_is_a_folder/arena.yaml:3: datasets[[]0].path: dataset path 'data' names a"
    " folder, not a file",
    "  fix: name a file in it, such as data/cases.jsonl",
)
data(
    "data_unknown_suffix",
    with_data("data/q.txt", ROWS),
    "projects/data_unknown_suffix/arena.yaml:3: *cannot tell the format of 'q.txt' from its suffix",
    "  fix: name it .yaml, .jsonl, .csv or .tsv, or set 'format:' on the dataset",
)
data(
    "data_jsonl_bad_json",
    with_data("q.jsonl", ROWS + '{"id": "r2", "input": "y", "reference": "y"\n'),
    "projects/data_jsonl_bad_json/q.jsonl:2: not valid JSON: Expecting ',' delimiter (column *)",
    "  fix: each line of a .jsonl file holds one JSON object",
)
data(
    "data_jsonl_not_object",
    with_data("q.jsonl", ROWS + '["r2", "y", "y"]\n'),
    "projects/data_jsonl_not_object/q.jsonl:2: a JSONL row must be a JSON object {...}",
)
data(
    "data_jsonl_without_input",
    with_data("q.jsonl", ROWS + '{"id": "r2", "question": "y", "reference": "y"}\n'),
    "projects/data_jsonl_without_input/q.jsonl:2: row has no 'input' field for the case input"
    " (it has id, question, reference)",
    "  fix: add 'input' to the row, or map another field with 'fields: {input: ...}'",
)
data(
    "data_jsonl_whole_file_json",
    with_data("q.jsonl", '[\n  {"id": "r1", "input": "x", "reference": "x"}\n]\n'),
    "projects/data_jsonl_whole_file_json/q.jsonl:1: not valid JSON: Expecting value (column 2)",
    "  fix: each line of a .jsonl file holds one JSON object",
)
data(
    "data_jsonl_bad_weight",
    with_data("q.jsonl", ROWS + '{"id": "r2", "input": "y", "reference": "y", "weight": "x"}\n'),
    "projects/data_jsonl_bad_weight/q.jsonl:2: weight: Input should be a valid number*",
)
data(
    "data_jsonl_bad_id",
    with_data("q.jsonl", ROWS + '{"id": "r 2", "input": "y", "reference": "y"}\n'),
    "projects/data_jsonl_bad_id/q.jsonl:2: id: case id 'r 2' may hold only ASCII letters, digits,*",
)
data(
    "data_csv_extra_cells",
    with_data("q.csv", "id,input,reference\nr1,x,x\nr2,1,000,y\n"),
    "projects/data_csv_extra_cells/q.csv:3: this row has more cells than the header has columns",
    "  fix: quote cells that contain commas",
)
data(
    "data_csv_bad_weight",
    with_data("q.csv", "id,input,reference,weight\nr1,x,x,1\nr2,y,y,heavy\n"),
    "projects/data_csv_bad_weight/q.csv:3: weight: Input should be a valid number*",
)
data(
    "data_csv_unclosed_quote",
    with_data("q.csv", 'id,input,reference\nr1,x,x\nr2,"y,y\nr3,z,z\n'),
    "projects/data_csv_unclosed_quote/q.csv:3: a quote opened in this row is never closed, so the"
    " rest of the file would be one cell; rows after it are not read",
    '  fix: close the quote; write a quote inside a quoted cell as two: ""',
)
data(
    "data_csv_no_input_column",
    with_data("q.csv", "id,question,reference\nr1,x,x\n"),
    "projects/data_csv_no_input_column/q.csv:2: row has no 'input' field for the case input"
    " (it has id, question, reference)",
    "  fix: add 'input' to the row*",
)
data(
    "data_yaml_not_a_list",
    with_data("q.yaml", "id: r1\ninput: x\nreference: x\n"),
    "projects/data_yaml_not_a_list/q.yaml:1: a YAML dataset must be a list of cases",
    "  fix: write one '- id: ...' per case, or put the list under 'tests:'",
)
data(
    "data_yaml_rows_not_mappings",
    with_data("q.yaml", "- {id: r1, input: x, reference: x}\n- just text\n"),
    "projects/data_yaml_rows_not_mappings/q.yaml:2: each case must be a mapping of keys",
)
data(
    "data_yaml_syntax_error",
    with_data("q.yaml", "- {id: r1, input: x, reference: x}\n- id: r2\n  input: a: b\n"),
    "projects/data_yaml_syntax_error/q.yaml:3: YAML syntax error: mapping values are not allowed*",
    "  fix: quote a value that contains ': '*",
)
data(
    "data_yaml_misspelt_key",
    with_data("q.yaml", "- {id: r1, input: x, reference: x}\n- {id: r2, input: y, refrence: y}\n"),
    "projects/data_yaml_misspelt_key/q.yaml:2: refrence: unknown key 'refrence' (did you mean"
    " 'reference'?); the case would have no reference",
    "  fix: rename it to 'reference'; a row's other keys are kept as the case's metadata",
)
data(  # the field's own name, where fields maps it to another column: the case went unscored
    "data_misspelt_mapped_field",
    {
        "arena.yaml": "models: [sim_perfect]\ndatasets:\n"
        "  - {path: q.jsonl, fields: {id: qid, input: question, reference: answer}}\n",
        "q.jsonl": '{"qid": "two", "question": "1 + 1?", "answer": 2}\n'
        '{"qid": "four", "question": "2 + 2?", "refrence": 4}\n',
    },
    "projects/data_misspelt_mapped_field/q.jsonl:2: refrence: unknown key 'refrence' (did you"
    " mean 'answer'?); the case would have no reference (fields maps reference to 'answer')",
    "  fix: rename it to 'answer'; a row's other keys are kept as the case's metadata",
)
data(
    "data_duplicate_id_across_files",
    {
        "arena.yaml": "models: [sim_perfect]\ndatasets: [q.jsonl]\n" + OK_CASE,
        "q.jsonl": '{"id": "a", "input": "x", "reference": "x"}\n',
    },
    "projects/data_duplicate_id_across_files/q.jsonl:1: duplicate case id 'a' (first at arena.yaml:4)",
    "  fix: give every case in a project its own id",
)
data(
    "data_input_fields_missing",
    {
        "arena.yaml": "models: [sim_perfect]\nprompt: {template: '{q} / {ctx}'}\ndatasets:\n"
        "  - {path: q.jsonl, fields: {input: [q, ctx]}}\n",
        "q.jsonl": '{"id": "r1", "q": "x", "ctx": "c", "reference": "x"}\n'
        '{"id": "r2", "q": "y", "reference": "y"}\n',
    },
    "projects/data_input_fields_missing/q.jsonl:2: row has no 'ctx' field; fields.input builds the"
    " case's input from q, ctx (the row has id, q, reference)",
    "  fix: add 'ctx' to the row, or take ctx out of fields.input (and {ctx} out of the prompt)",
)
data(
    "data_wrong_format_declared",
    with_data("q.csv", "id,input,reference\nr1,x,x\n", "{path: q.csv, format: jsonl}"),
    "projects/data_wrong_format_declared/q.csv:1: not valid JSON: Expecting value (column 1)",
    "  fix: each line of a .jsonl file holds one JSON object",
)
data(
    "data_csv_latin1",
    with_data("q.csv", "id,input,reference\nr1,caf\xe9,x\n".encode("latin-1")),
    "projects/data_csv_latin1/q.csv:2: not UTF-8 text: byte 0xe9 at column 7",
    "  fix: save the file as UTF-8*",
)
data(
    "data_yaml_latin1",
    with_data("q.yaml", "- {id: r1, input: caf\xe9, reference: x}\n".encode("latin-1")),
    "projects/data_yaml_latin1/q.yaml:1: not UTF-8 text: byte 0xe9*",
    "  fix: save the file as UTF-8*",
)
data(
    "data_jsonl_latin1_row",
    with_data("q.jsonl", ROWS.encode() + b'{"id": "r2", "input": "caf\xe9", "reference": "y"}\n'),
    "projects/data_jsonl_latin1_row/q.jsonl:2: not UTF-8 text: byte 0xe9*",
)
data(
    "data_binary_jsonl",
    with_data("q.jsonl", b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00"),
    "projects/data_binary_jsonl/q.jsonl:1: not UTF-8 text: byte 0x89 at column 1",
    "projects/data_binary_jsonl/q.jsonl:3: a binary file, not text (it holds a NUL byte)",
)
data(
    "data_binary_csv",
    with_data("q.csv", b"id,input,reference\nr1,\x00\x01\x02,x\n"),
    "projects/data_binary_csv/q.csv:2: a binary file, not text (it holds a NUL byte)",
    "  fix: save the file as UTF-8*",
)
data(
    "data_utf16_csv",
    with_data("q.csv", "id,input,reference\nr1,x,x\n".encode("utf-16")),
    "projects/data_utf16_csv/q.csv:1: UTF-16 text: save it as UTF-8",
    "  fix: most editors offer UTF-8 under 'Save with encoding'; or run iconv*",
)
