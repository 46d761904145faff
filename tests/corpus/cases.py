"""Cases written in `tests:`: missing or duplicate ids, a missing input, bad tags, weights,
thresholds, options and scoring contracts."""

from __future__ import annotations

from tests.corpus.kit import case_yaml, category

# -- cases ----------------------------------------------------------------------------------

cases = category("cases")


def one_bad(case: str) -> str:
    """A project of one good case (line 3) and `case` (line 4)."""
    return case_yaml("{id: fine, input: x, reference: x}\n" + case)


cases(
    "case_missing_id",
    one_bad("{input: y, reference: y}"),
    "projects/case_missing_id/arena.yaml:4: 'id' is required in tests[[]1]",
    "  fix: add 'id: ...'",
)
cases(
    "case_missing_input",
    one_bad("{id: b, reference: y}"),
    "projects/case_missing_input/arena.yaml:4: 'input' is required in tests[[]1]",
    "  fix: add 'input: ...'",
)
cases(
    "case_duplicate_id",
    one_bad("{id: fine, input: y, reference: y}"),
    "projects/case_duplicate_id/arena.yaml:4: duplicate case id 'fine' (first at line 3)",
    "  fix: give every case in a project its own id",
)
cases(
    "case_id_with_space",
    one_bad("{id: 'has space', input: y, reference: y}"),
    "projects/case_id_with_space/arena.yaml:4: tests[[]1].id: case id 'has space' may hold only"
    " ASCII letters, digits, '_', '.' and '-'; write it as 'has-space'",
)
cases(
    "case_id_bool",
    one_bad("{id: true, input: y, reference: y}"),
    "projects/case_id_bool/arena.yaml:4: tests[[]1].id: Input should be a valid string (got bool True)",
    "  fix: write a string; quote it*",
)
cases(
    "case_misspelt_input",
    one_bad("{id: b, inptu: y, reference: y}"),
    "projects/case_misspelt_input/arena.yaml:4: tests[[]1].inptu: unknown key 'inptu'",
    "  fix: did you mean 'input'? known keys here: *",
)
cases(
    "case_unknown_key_like_a_type_name",
    one_bad("{id: b, input: y, str: y, '[': y}"),
    "projects/case_unknown_key_like_a_type_name/arena.yaml:4: tests[[]1].str: unknown key 'str'",
    "  fix: known keys here: *",
    "projects/case_unknown_key_like_a_type_name/arena.yaml:4: tests[[]1].[[]: unknown key '[[]'",
)
cases(
    "case_not_a_mapping",
    one_bad("just the question"),
    "projects/case_not_a_mapping/arena.yaml:4: a case must be a mapping with 'id' and 'input'",
)
cases(
    "case_empty_entry",
    "models: [sim_perfect]\ntests:\n  - {id: fine, input: x, reference: x}\n  -\n",
    "projects/case_empty_entry/arena.yaml:4: a case must be a mapping with 'id' and 'input'",
)
cases(
    "case_tags_mapping",
    one_bad("{id: b, input: y, reference: y, tags: {topic: geo}}"),
    "projects/case_tags_mapping/arena.yaml:4: tests[[]1].tags: Input should be a valid list (got a mapping)",
    "  fix: write a list*",
)
cases(
    "case_tags_nested",
    one_bad("{id: b, input: y, reference: y, tags: [[geo, easy]]}"),
    "projects/case_tags_nested/arena.yaml:4: tests[[]1].tags[[]0]: Input should be a valid string (got a list)",
)
cases(
    "case_weight_negative",
    one_bad("{id: b, input: y, reference: y, weight: -1}"),
    "projects/case_weight_negative/arena.yaml:4: tests[[]1].weight: Input should be greater than or equal to 0",
    "  fix: use a value of 0 or more",
)
cases(
    "case_weight_word",
    one_bad("{id: b, input: y, reference: y, weight: heavy}"),
    "projects/case_weight_word/arena.yaml:4: tests[[]1].weight: Input should be a valid number*",
    "  fix: write a number, such as 0.5",
)
cases(
    "case_weight_nan",
    one_bad("{id: b, input: y, reference: y, weight: .nan}"),
    "projects/case_weight_nan/arena.yaml:4: tests[[]1].weight: Input should be a finite number",
    "  fix: write a finite number, such as 1 or 0.5",
)
cases(  # two of them crashed the leaderboard: an overflow in its sums
    "case_weight_past_a_billion",
    one_bad("{id: b, input: y, reference: y, weight: 1e308}"),
    "projects/case_weight_past_a_billion/arena.yaml:4: tests[[]1].weight: Input should be less"
    " than or equal to 1000000000",
    "  fix: use a value of 1e+09 or less",
)
cases(
    "case_weight_infinite",
    one_bad("{id: b, input: y, reference: y, weight: .inf}"),
    "projects/case_weight_infinite/arena.yaml:4: tests[[]1].weight: Input should be a finite number",
    "  fix: write a finite number, such as 1 or 0.5",
)
cases(
    "case_threshold_above_one",
    one_bad("{id: b, input: y, reference: y, threshold: 1.5}"),
    "projects/case_threshold_above_one/arena.yaml:4: tests[[]1].threshold: Input should be less than or equal to 1",
)
cases(
    "case_input_number",
    one_bad("{id: b, input: 42, reference: '42'}"),
    "projects/case_input_number/arena.yaml:4: tests[[]1].input: Input should be a valid string (got int 42)",
    "  fix: write a string; quote it if YAML reads it as a number or a date",
)
cases(
    "case_message_bad_role",
    one_bad("{id: b, input: [{role: robot, content: hi}], reference: y}"),
    "projects/case_message_bad_role/arena.yaml:4: tests[[]1].input[[]0].role: Input should be"
    " 'system', 'user' or 'assistant' (got str 'robot')",
)
cases(
    "case_message_without_content",
    one_bad("{id: b, input: [{role: user}], reference: y}"),
    "projects/case_message_without_content/arena.yaml:4: 'content' is required in tests[[]1].input[[]0]",
)
cases(
    "case_options_list",
    one_bad("{id: b, input: y, reference: y, options: [ignore_case]}"),
    "projects/case_options_list/arena.yaml:4: tests[[]1].options: Input should be a valid dictionary (got a list)",
)
cases(
    "case_metadata_text",
    one_bad("{id: b, input: y, reference: y, metadata: from the web}"),
    "projects/case_metadata_text/arena.yaml:4: tests[[]1].metadata: Input should be a valid dictionary*",
)
cases(
    "case_unknown_eval_type",
    one_bad("{id: b, input: y, reference: y, eval_type: json_mach}"),
    "projects/case_unknown_eval_type/arena.yaml:4: eval_type: no scorer is named 'json_mach'"
    " (did you mean 'json_match'?); known scorers: choice, contains,*",
)
cases(
    "case_misspelt_option",
    one_bad("{id: b, input: y, reference: y, eval_type: contains, options: {ignorecase: true}}"),
    "projects/case_misspelt_option/arena.yaml:4: scorer 'contains': unknown option 'ignorecase'"
    " (valid options: values, mode, ignore_case, negate)",
)
cases(
    "case_scoring_empty_component",
    one_bad("{id: b, input: y, reference: y, scoring: [{}]}"),
    "projects/case_scoring_empty_component/arena.yaml:4: tests[[]1].scoring[[]0]: give each"
    " component either 'scorer: NAME' or 'command: PROGRAM'",
)
cases(
    "case_scoring_scorer_and_command",
    one_bad("{id: b, input: y, reference: y, scoring: [{scorer: exact_match, command: check.sh}]}"),
    "projects/case_scoring_scorer_and_command/arena.yaml:4: tests[[]1].scoring[[]0]: give each"
    " component either 'scorer: NAME' or 'command: PROGRAM'",
)
cases(
    "case_scoring_unknown_scorer",
    one_bad("{id: b, input: y, reference: y, scoring: [{scorer: exact_mach}]}"),
    "projects/case_scoring_unknown_scorer/arena.yaml:4: scoring: no scorer is named 'exact_mach'"
    " (did you mean 'exact_match'?)*",
)
cases(
    "case_scoring_misspelt_key",
    one_bad("{id: b, input: y, reference: y, scoring: [{scorer: exact_match, wieght: 2}]}"),
    "projects/case_scoring_misspelt_key/arena.yaml:4: tests[[]1].scoring[[]0].wieght: unknown key 'wieght'",
    "  fix: did you mean 'weight'? known keys here: *",
)
cases(
    "case_scoring_weight_negative",
    one_bad("{id: b, input: y, reference: y, scoring: [{scorer: exact_match, weight: -2}]}"),
    "projects/case_scoring_weight_negative/arena.yaml:4: tests[[]1].scoring[[]0].weight: Input"
    " should be greater than or equal to 0",
)
cases(
    "case_scoring_timeout_zero",
    one_bad("{id: b, input: y, reference: y, scoring: [{scorer: exact_match, timeout: 0}]}"),
    "projects/case_scoring_timeout_zero/arena.yaml:4: tests[[]1].scoring[[]0].timeout: Input"
    " should be greater than 0",
)
cases(
    "case_scoring_params_list",
    one_bad("{id: b, input: y, reference: y, scoring: [{scorer: contains, params: [x]}]}"),
    "projects/case_scoring_params_list/arena.yaml:4: tests[[]1].scoring[[]0].params: Input should"
    " be a valid dictionary (got a list)",
)
cases(
    "case_contract_all_weights_zero",
    one_bad("{id: b, input: y, reference: y, scoring: [{scorer: exact_match, weight: 0}]}"),
    "projects/case_contract_all_weights_zero/arena.yaml:4: tests[[]1].scoring: every component's"
    " weight is 0, so the contract's score is always 0: give at least one component a weight"
    " above 0",
)
