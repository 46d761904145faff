"""YAML that does not parse, or parses into something that is not a project."""

from __future__ import annotations

from tests.corpus.kit import case_yaml, category

# -- YAML syntax ----------------------------------------------------------------------------

yaml = category("yaml")

yaml(
    "yaml_colon_in_value",
    case_yaml('{id: a, input: "x", reference: "x"}') + "  - id: b\n    input: what: is this\n",
    "projects/yaml_colon_in_value/arena.yaml:5: YAML syntax error: mapping values are not allowed*",
    "  fix: quote a value that contains ': ', or fix the indentation of this line",
)
yaml(
    "yaml_tab",
    "models: [sim_perfect]\ntests:\n\t- {id: a, input: x, reference: x}\n",
    "projects/yaml_tab/arena.yaml:3: YAML syntax error: *",
    "  fix: indent with spaces, not tabs",
)
yaml(
    "yaml_unclosed_quote",
    case_yaml('{id: a, input: "x, reference: x}\n{id: b, input: y, reference: y}'),
    "projects/yaml_unclosed_quote/arena.yaml:3: YAML syntax error: while scanning a quoted scalar*",
    "  fix: close the quote that opens on this line",
)
yaml(
    "yaml_unclosed_bracket",
    "models: [sim_perfect\ntests:\n  - {id: a, input: x, reference: x}\n",
    "projects/yaml_unclosed_bracket/arena.yaml:2: YAML syntax error: while parsing a flow sequence*",
    "  fix: check the indentation and quoting around this line",
)
yaml(
    "yaml_unclosed_brace",
    "models: [sim_perfect]\ntests:\n  - {id: a, input: x, reference: x\n  - {id: b, input: y, reference: y}\n",
    "projects/yaml_unclosed_brace/arena.yaml:4: YAML syntax error: while parsing a flow mapping*",
    "  fix: check the indentation and quoting around this line",
)
yaml(
    "yaml_duplicate_key",
    "models: [sim_perfect]\ntests:\n  - {id: a, input: x, reference: x}\nmodels: [sim_echo]\n",
    "projects/yaml_duplicate_key/arena.yaml:4: duplicate key 'models' (first at line 1)",
    "  fix: remove one of the two; YAML would silently keep only the last",
)
yaml(
    "yaml_duplicate_case_key",
    "models: [sim_perfect]\ntests:\n  - id: a\n    input: x\n    reference: x\n    input: y\n",
    "projects/yaml_duplicate_case_key/arena.yaml:6: duplicate key 'input' (first at line 4)",
    "  fix: remove one of the two*",
)
yaml(
    "yaml_bad_indent",
    "models: [sim_perfect]\ntests:\n  - id: a\n    input: x\n   reference: x\n",
    "projects/yaml_bad_indent/arena.yaml:5: YAML syntax error: *did not find expected '-' indicator",
    "  fix: check the indentation and quoting around this line",
)
yaml(
    "yaml_missing_colon",
    "models: [sim_perfect]\ntests\n  - {id: a, input: x, reference: x}\n",
    "projects/yaml_missing_colon/arena.yaml:3: YAML syntax error: *could not find expected ':'",
    "  fix: each key needs a ':' after it; check the line above too",
)
yaml(
    "yaml_tag_wrong_value",
    case_yaml("{id: a, input: x, reference: x, weight: !!int heavy}"),
    "projects/yaml_tag_wrong_value/arena.yaml:3: YAML error: 'heavy' is not a valid !!int",
    "  fix: fix the value, or remove the !!int tag to keep it as text",
)
yaml(
    "yaml_tag_wrong_timestamp",
    case_yaml("{id: a, input: x, reference: x, metadata: {due: !!timestamp soon}}"),
    "projects/yaml_tag_wrong_timestamp/arena.yaml:3: YAML error: 'soon' is not a valid !!timestamp",
    "  fix: fix the value, or remove the !!timestamp tag to keep it as text",
)
yaml(
    "yaml_tag_wrong_binary",
    case_yaml("{id: a, input: x, reference: !!binary 'not base64!'}"),
    "projects/yaml_tag_wrong_binary/arena.yaml:3: YAML error: 'not base64!' is not a valid !!binary",
    "  fix: fix the value, or remove the !!binary tag to keep it as text",
)
yaml(
    "yaml_list_as_key",
    "models: [sim_perfect]\n? [a, b]\n: c\ntests:\n  - {id: a, input: x, reference: x}\n",
    "projects/yaml_list_as_key/arena.yaml:2: a key must be a scalar",
)
yaml(
    "yaml_top_level_list",
    "- models: [sim_perfect]\n- tests: []\n",
    "projects/yaml_top_level_list/arena.yaml:1: arena.yaml must be a mapping of keys",
    "  fix: start with keys such as 'models:', 'scorers:' and 'tests:'",
)
yaml(
    "yaml_top_level_text",
    "just some words about the benchmark\n",
    "projects/yaml_top_level_text/arena.yaml:1: arena.yaml must be a mapping of keys",
    "  fix: start with keys such as 'models:', 'scorers:' and 'tests:'",
)
yaml(
    "yaml_two_documents",
    "models: [sim_perfect]\n---\ntests:\n  - {id: a, input: x, reference: x}\n",
    "projects/yaml_two_documents/arena.yaml:2: YAML syntax error: expected a single document*",
    "  fix: check the indentation and quoting around this line",
)
yaml(
    "yaml_undefined_alias",
    "models: *chosen\ntests:\n  - {id: a, input: x, reference: x}\n",
    "projects/yaml_undefined_alias/arena.yaml:1: YAML syntax error: found undefined alias",
    "  fix: check the indentation and quoting around this line",
)
yaml(
    "yaml_python_tag",
    "models: [sim_perfect]\nname: !!python/name:os.system\ntests:\n  - {id: a, input: x, reference: x}\n",
    "projects/yaml_python_tag/arena.yaml:2: YAML syntax error: *constructor*",
)
yaml(
    "yaml_unknown_escape",
    case_yaml('{id: a, input: "bad \\q escape", reference: x}'),
    "projects/yaml_unknown_escape/arena.yaml:3: YAML syntax error: *escape*",
)
yaml(
    "yaml_control_character",
    'models: [sim_perfect]\ntests:\n  - {id: a, input: "bell \a here", reference: x}\n',
    "projects/yaml_control_character/arena.yaml:3: YAML error: unacceptable character #x0007:*",
    '  fix: remove it, or write it as an escape inside double quotes ("\\x07")',
)
yaml(
    "yaml_block_scalar_indent",
    "models: [sim_perfect]\nprompt:\n  system: |\n  Answer briefly.\ntests:\n  - {id: a, input: x, reference: x}\n",
    "projects/yaml_block_scalar_indent/arena.yaml:5: YAML syntax error: *could not find expected ':'",
    "  fix: each key needs a ':' after it; check the line above too",
)
yaml(
    "yaml_dash_without_space",
    "models: [sim_perfect]\ntests:\n  -id: a\n   input: x\n",
    "projects/yaml_dash_without_space/arena.yaml:4: YAML syntax error: mapping values are not allowed*",
    "  fix: quote a value that contains ': '*",
)
