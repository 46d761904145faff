"""Files that are not what they claim: not UTF-8, binary, YAML alias bombs, nesting without
end, huge CSV cells (which must load), byte-order marks."""

from __future__ import annotations

from tests.corpus.kit import HOOKED, OK_CASE, ROWS, case_yaml, category, scored, with_data

# -- files that are not what they claim -----------------------------------------------------

files = category("files")


def alias_bomb(levels: int = 9) -> str:
    rows = ["a0: &a0 [x, x, x, x, x, x, x, x, x, x]"]
    for i in range(1, levels):
        rows.append(f"a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 10)}]")
    return "models: [sim_perfect]\nprompt:\n" + "".join(f"  {r}\n" for r in rows) + OK_CASE


files(
    "file_arena_latin1",
    {"arena.yaml": case_yaml("{id: a, input: 'caf\xe9', reference: x}").encode("latin-1")},
    "projects/file_arena_latin1/arena.yaml:3: not UTF-8 text: byte 0xe9 at column 24",
    "  fix: save the file as UTF-8 (most editors offer it under 'Save with encoding')",
)
files(
    "file_arena_binary",
    {"arena.yaml": b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"},
    "projects/file_arena_binary/arena.yaml:3: a binary file, not text (it holds a NUL byte)",
    "  fix: save the file as UTF-8*",
)
files(
    "file_arena_utf16",
    {"arena.yaml": case_yaml("{id: a, input: x, reference: x}").encode("utf-16")},
    "projects/file_arena_utf16/arena.yaml:1: UTF-16 text: save it as UTF-8",
    "  fix: most editors offer UTF-8 under 'Save with encoding'; or run iconv*",
)
files(
    "file_arena_utf8_bom",
    {"arena.yaml": b"\xef\xbb\xbf" + case_yaml("{id: a, input: x, reference: x}").encode()},
    kind="runs",
)
files(
    "file_alias_bomb",
    alias_bomb(),
    "projects/file_alias_bomb/arena.yaml:3: YAML aliases expand to more than 100,000 values (the"
    " anchor on this line is used again and again)",
    "  fix: write the values out, or use fewer nested aliases",
)
files(
    "file_alias_bomb_in_dataset",
    with_data(
        "q.yaml",
        alias_bomb()
        .replace("models: [sim_perfect]\nprompt:\n", "- id: a\n  input: x\n  metadata:\n")
        .split("tests:")[0],
    ),
    "projects/file_alias_bomb_in_dataset/q.yaml:4: YAML aliases expand to more than 100,000 values*",
)
files(
    "file_huge_csv_cell",
    with_data(
        "q.csv",
        'id,input,reference\nsmall,1,1\nlarge,"' + "x" * 300_000 + '",' + "x" * 300_000 + "\n",
    ),
    kind="runs",
)
files(
    "file_deep_nesting",
    case_yaml("{id: a, input: x, reference: x, metadata: {deep: " + "[" * 5000 + "]" * 5000 + "}}"),
    "projects/file_deep_nesting/arena.yaml:3: *",
)
files(
    "file_hooks_latin1",
    {
        "arena.yaml": HOOKED,
        "hooks.py": "def post_process(output, case, context):\n    return output + 'caf\xe9'\n".encode(
            "latin-1"
        ),
    },
    # Python 3.10 and 3.11+ word the SyntaxError differently
    "projects/file_hooks_latin1/hooks.py:*: hooks.py failed to import: SyntaxError:*",
)
files(
    "file_hooks_binary",
    {"arena.yaml": HOOKED, "hooks.py": b"\x00\x01\x02\x03"},
    # a SyntaxError from Python 3.12 on, a ValueError before
    "projects/file_hooks_binary/hooks.py:1: hooks.py failed to import: *: source code"
    " string cannot contain null bytes",
)
files(
    "file_rubric_latin1",
    {
        "arena.yaml": scored(
            "{default: llm_judge, options: {llm_judge: {rubric_file: rubric.md}}}"
        ),
        "rubric.md": "Pass a caf\xe9 answer.\n".encode("latin-1"),
    },
    "projects/file_rubric_latin1/rubric.md:1: not UTF-8 text: byte 0xe9 at column 11",
    "  fix: save the file as UTF-8*",
    "  (the rubric_file of llm_judge, named at projects/file_rubric_latin1/arena.yaml:2:"
    " scorers.options.llm_judge)",
)
files(
    "file_schema_latin1",
    {
        "arena.yaml": scored(
            "{default: json_schema, options: {json_schema: {schema_file: s.json}}}"
        ),
        "s.json": '{"type": "object", "description": "caf\xe9"}\n'.encode("latin-1"),
    },
    "projects/file_schema_latin1/s.json:1: not UTF-8 text: byte 0xe9 at column 39",
    "  fix: save the file as UTF-8*",
)
files(
    "file_jsonl_bom",
    with_data("q.jsonl", b"\xef\xbb\xbf" + ROWS.encode()),
    kind="runs",
)
