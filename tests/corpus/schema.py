"""Keys of arena.yaml that do not fit its schema: unknown keys (with a did-you-mean), wrong
types and bad values at the top level and in `scorers`, `metrics`, `gate`, `judge` and
`prompt`; and the settings only the end of a run can check."""

from __future__ import annotations

from tests.corpus.kit import OK_CASE, category, scored

# -- the top level of arena.yaml ------------------------------------------------------------

top = category("top")


top(
    "top_misspelt_key",
    "model: [sim_perfect]\n" + OK_CASE,
    "projects/top_misspelt_key/arena.yaml:1: model: unknown key 'model'",
    "  fix: did you mean 'models'? known keys here: budget, datasets, description, flaky, gate,*",
)
top(
    "top_unknown_key",
    "models: [sim_perfect]\ncolour: blue\n" + OK_CASE,
    "projects/top_unknown_key/arena.yaml:2: colour: unknown key 'colour'",
    "  fix: known keys here: budget, datasets, description, flaky, gate,*",
)
top(
    "top_tests_mapping",
    "models: [sim_perfect]\ntests:\n  id: a\n  input: x\n",
    "projects/top_tests_mapping/arena.yaml:2: tests: Input should be a valid list (got a mapping)",
    "  fix: write a list, such as [a, b] or one '- item' per line",
)
top(
    "top_tests_empty_value",
    "models: [sim_perfect]\ntests:\n",
    "projects/top_tests_empty_value/arena.yaml:2: tests: Input should be a valid list (got nothing)",
    "  fix: write a list*",
)
top(
    "top_name_list",
    "name: [a, b]\nmodels: [sim_perfect]\n" + OK_CASE,
    "projects/top_name_list/arena.yaml:1: name: Input should be a valid string (got a list)",
    "  fix: write a string*",
)
top(
    "top_description_mapping",
    "description: {what: sums}\nmodels: [sim_perfect]\n" + OK_CASE,
    "projects/top_description_mapping/arena.yaml:1: description: Input should be a valid string*",
)
top(
    "top_threshold_above_one",
    "models: [sim_perfect]\nthreshold: 2\n" + OK_CASE,
    "projects/top_threshold_above_one/arena.yaml:2: threshold: Input should be less than or equal to 1*",
)
top(
    "top_budget_negative",
    "models: [sim_perfect]\nbudget: {max_cost: -1}\n" + OK_CASE,
    "projects/top_budget_negative/arena.yaml:2: budget.max_cost: Input should be greater than or equal to 0*",
    "  fix: use a value of 0 or more",
)
top(
    "top_budget_misspelt",
    "models: [sim_perfect]\nbudget: {max: 1}\n" + OK_CASE,
    "projects/top_budget_misspelt/arena.yaml:2: budget.max: unknown key 'max'",
    "  fix: known keys here: max_cost",
)
top(
    "top_budget_number",
    "models: [sim_perfect]\nbudget: 5\n" + OK_CASE,
    "projects/top_budget_number/arena.yaml:2: budget: Input should be a valid dictionary*(got int 5)",
)
top(
    "top_datasets_string",
    "models: [sim_perfect]\ndatasets: data/q.jsonl\n" + OK_CASE,
    "projects/top_datasets_string/arena.yaml:2: datasets: Input should be a valid list*",
)
top(
    "top_scoring_mapping",
    "models: [sim_perfect]\nscoring: {scorer: exact_match}\n" + OK_CASE,
    "projects/top_scoring_mapping/arena.yaml:2: scoring: Input should be a valid list*",
)
top(
    "top_models_number",
    "models: 3\n" + OK_CASE,
    "projects/top_models_number/arena.yaml:1: models: Input should be a valid dictionary*(got int 3)",
)
top(
    "top_gate_list",
    "models: [sim_perfect]\ngate: [accuracy]\n" + OK_CASE,
    "projects/top_gate_list/arena.yaml:2: gate: Input should be a valid dictionary*(got a list)",
)
top(
    "top_key_is_number",
    "models: [sim_perfect]\n1: one\n" + OK_CASE,
    "projects/top_key_is_number/arena.yaml:2: *Keys should be strings",
)


# -- scorers: the block, and the options of each scorer -------------------------------------

scorers_block = category("scorers_block")


scorers_block(
    "scorers_misspelt_options",
    "models: [sim_perfect]\nscorers:\n  default: exact_match\n  option:\n"
    "    exact_match: {ignore_case: true}\n" + OK_CASE,
    "projects/scorers_misspelt_options/arena.yaml:4: scorers.option: unknown key 'option'",
    "  fix: did you mean 'options'? known keys here: default, options",
)
scorers_block(
    "scorers_default_list",
    scored("{default: [exact_match]}"),
    "projects/scorers_default_list/arena.yaml:2: scorers.default: Input should be a valid string (got a list)",
    "  fix: write a string*",
)
scorers_block(
    "scorers_default_unknown",
    scored("{default: exact_mach}"),
    "projects/scorers_default_unknown/arena.yaml:2: scorers.default: no scorer is named"
    " 'exact_mach' (did you mean 'exact_match'?); known scorers: choice, contains,*",
)
scorers_block(
    "scorers_options_not_mapping",
    scored("{options: {exact_match: true}}"),
    "projects/scorers_options_not_mapping/arena.yaml:2: scorers.options.exact_match: Input should be a valid dictionary*",
)
scorers_block(
    "scorers_misspelt_builtin_option",
    scored("{options: {exact_match: {ignorecase: true}}}"),
    "projects/scorers_misspelt_builtin_option/arena.yaml:2: scorers.options.exact_match: scorer"
    " 'exact_match': unknown option 'ignorecase' (valid options: ignore_case, normalize_whitespace)",
)
scorers_block(
    "scorers_option_wrong_type",
    scored("{default: token_f1, options: {token_f1: {threshold: high}}}"),
    "projects/scorers_option_wrong_type/arena.yaml:2: scorers.options.token_f1: scorer 'token_f1':"
    " option 'threshold': Input should be a valid number*",
)
scorers_block(
    "scorers_regex_bad_pattern",
    scored("{default: regex, options: {regex: {pattern: '(unclosed'}}}"),
    "projects/scorers_regex_bad_pattern/arena.yaml:2: scorers.options.regex: scorer 'regex':"
    " option 'pattern': *invalid regex pattern '(unclosed': missing ) at position 9*",
)
scorers_block(
    "scorers_numeric_bad_pick",
    scored("{default: numeric_match, options: {numeric_match: {pick: middle}}}"),
    "projects/scorers_numeric_bad_pick/arena.yaml:2: scorers.options.numeric_match: scorer"
    " 'numeric_match': option 'pick': Input should be 'last' or 'first' (valid options: abs_tol,"
    " rel_tol, pick, partial_credit, convention)",
)
scorers_block(
    "scorers_contains_bad_mode",
    scored("{default: contains, options: {contains: {mode: some}}}"),
    "projects/scorers_contains_bad_mode/arena.yaml:2: scorers.options.contains: scorer 'contains':"
    " option 'mode': Input should be 'any' or 'all' (valid options: values, mode, ignore_case, negate)",
)
scorers_block(
    "scorers_edit_threshold_above_one",
    scored("{default: edit_similarity, options: {edit_similarity: {threshold: 5}}}"),
    "projects/scorers_edit_threshold_above_one/arena.yaml:2: scorers.options.edit_similarity:"
    " scorer 'edit_similarity': option 'threshold': Input should be less than or equal to 1*",
)
scorers_block(
    "scorers_judge_bad_reduce",
    scored("{default: llm_judge, options: {llm_judge: {rubric: be fair, reduce: median}}}"),
    "projects/scorers_judge_bad_reduce/arena.yaml:2: scorers.options.llm_judge: scorer 'llm_judge':"
    " option 'reduce': Input should be 'majority' or 'mean' (valid options: *)",
)
scorers_block(
    "scorers_judge_two_rubrics",
    {
        "arena.yaml": scored(
            "{default: llm_judge, options: {llm_judge: {rubric: be fair, rubric_file: r.md}}}"
        ),
        "r.md": "Be fair.\n",
    },
    "projects/scorers_judge_two_rubrics/arena.yaml:2: scorers.options.llm_judge: scorer"
    " 'llm_judge': give either 'rubric' or 'rubric_file', not both*",
)
scorers_block(
    "scorers_judge_unknown_model",
    scored("{default: llm_judge, options: {llm_judge: {rubric: be fair, model: sim_jugde}}}"),
    "projects/scorers_judge_unknown_model/arena.yaml:2: scorers.options.llm_judge: the judge of"
    " llm_judge: model 'sim_jugde' is neither defined in models.define nor a builtin*",
    "  fix: did you mean 'sim_judge'?*",
)
scorers_block(
    "scorers_missing_rubric_file",
    "models: [sim_perfect]\nscorers:\n  default: llm_judge\n  options:\n"
    "    llm_judge: {rubric_file: rubric.md}\n" + OK_CASE,
    "projects/scorers_missing_rubric_file/arena.yaml:5: scorers.options.llm_judge: rubric_file"
    " 'rubric.md' does not exist (looked in *); paths are relative to the folder holding arena.yaml",
)
scorers_block(
    "scorers_missing_schema_file",
    "models: [sim_perfect]\nscorers:\n  default: json_schema\n  options:\n"
    "    json_schema: {schema_file: schemas/answer.json}\n" + OK_CASE,
    "projects/scorers_missing_schema_file/arena.yaml:5: scorers.options.json_schema: schema_file"
    " 'schemas/answer.json' does not exist*",
)
scorers_block(
    "scorers_schema_file_not_json",
    {
        "arena.yaml": scored(
            "{default: json_schema, options: {json_schema: {schema_file: s.json}}}"
        ),
        "s.json": '{"type": "object", "properties": {\n',
    },
    "projects/scorers_schema_file_not_json/s.json:2: schema_file 's.json' is not valid YAML or"
    " JSON: *",
    "  (the schema_file of json_schema, named at projects/scorers_schema_file_not_json/arena.yaml:2:"
    " scorers.options.json_schema)",
)
scorers_block(
    "scorers_schema_invalid",
    scored("{default: json_schema, options: {json_schema: {schema: {type: nonsense}}}}"),
    "projects/scorers_schema_invalid/arena.yaml:2: scorers.options.json_schema: scorer"
    " 'json_schema': option 'schema': *the option schema is not a valid JSON Schema: $.type:"
    " 'nonsense' is not valid under any of the given schemas (valid options: schema, schema_file, extract)",
)
scorers_block(
    "scorers_option_for_unknown_scorer",
    scored("{options: {exact_mach: {ignore_case: true}}}"),
    "projects/scorers_option_for_unknown_scorer/arena.yaml:2: scorers.options.exact_mach: options"
    " for 'exact_mach', which no scorer is named, would never be used",
    "  fix: did you mean 'exact_match'? known scorers: *",
)

# -- metrics, gate, judge and prompt --------------------------------------------------------

blocks = category("blocks")

blocks(
    "metrics_misspelt_weights",
    "models: [sim_perfect]\nmetrics:\n  weight: {accuracy: 1}\n" + OK_CASE,
    "projects/metrics_misspelt_weights/arena.yaml:3: metrics.weight: unknown key 'weight'",
    "  fix: did you mean 'weights'? known keys here: lower_is_better, pass_k, weights",
)
blocks(
    "metrics_weight_word",
    "models: [sim_perfect]\nmetrics:\n  weights:\n    accuracy: lots\n" + OK_CASE,
    "projects/metrics_weight_word/arena.yaml:4: metrics.weights.accuracy: Input should be a valid number*",
    "  fix: write a number, such as 0.5",
)
blocks(
    "metrics_weight_negative",
    "models: [sim_perfect]\nmetrics:\n  weights: {accuracy: 1, cost: -0.5}\n" + OK_CASE,
    "projects/metrics_weight_negative/arena.yaml:3: metrics.weights: weight of 'cost' is -0.5;"
    " weights must be 0 or more",
)
blocks(
    "metrics_weight_past_a_billion",
    "models: [sim_perfect]\nmetrics:\n  weights: {accuracy: 1, cost: 1e300}\n" + OK_CASE,
    "projects/metrics_weight_past_a_billion/arena.yaml:3: metrics.weights: weight of 'cost' is"
    " 1e+300; weights are relative, 1e+09 at most",
)
blocks(
    "metrics_lower_is_better_text",
    "models: [sim_perfect]\nmetrics:\n  lower_is_better: cost\n" + OK_CASE,
    "projects/metrics_lower_is_better_text/arena.yaml:3: metrics.lower_is_better: Input should be a valid list*",
)
blocks(
    "metrics_weights_list",
    "models: [sim_perfect]\nmetrics:\n  weights: [accuracy, cost]\n" + OK_CASE,
    "projects/metrics_weights_list/arena.yaml:3: metrics.weights: Input should be a valid dictionary*",
)
blocks(
    "gate_empty",
    "models: [sim_perfect]\ngate: {}\n" + OK_CASE,
    "projects/gate_empty/arena.yaml:2: gate: the gate has no limits; add e.g. 'all: {accuracy:"
    " {min: 0.8}}', 'models: {sim_small: {pass_rate: {min: 0.5}}}' or 'regression: significant'",
)
blocks(  # it never held, and the run said only "short by 89.67"
    "gate_pass_rate_as_percent",
    "models: [sim_perfect]\ngate:\n  all: {pass_rate: {min: 90}}\n" + OK_CASE,
    "projects/gate_pass_rate_as_percent/arena.yaml:3: gate.all: pass_rate min 90 is no"
    " fraction: pass_rate runs from 0 to 1; write 0.9 for 90%",
)
blocks(
    "gate_accuracy_below_zero",
    "models: [sim_perfect]\ngate:\n  models:\n    sim_perfect: {accuracy: {max: -0.5}}\n" + OK_CASE,
    "projects/gate_accuracy_below_zero/arena.yaml:3: gate.models: accuracy max -0.5 is no"
    " fraction: accuracy runs from 0 to 1",
)
blocks(
    "gate_misspelt_all",
    "models: [sim_perfect]\ngate:\n  al: {accuracy: {min: 0.5}}\n" + OK_CASE,
    "projects/gate_misspelt_all/arena.yaml:3: gate.al: unknown key 'al'",
    "  fix: did you mean 'all'? known keys here: all, critical, models, regression,"
    " regression_level",
)
blocks(
    "gate_bound_without_limit",
    "models: [sim_perfect]\ngate:\n  all:\n    accuracy: {}\n" + OK_CASE,
    "projects/gate_bound_without_limit/arena.yaml:4: gate.all.accuracy: give the limit as"
    " 'min: NUMBER', 'max: NUMBER' or both",
)
blocks(
    "gate_min_above_max",
    "models: [sim_perfect]\ngate:\n  all:\n    accuracy: {min: 0.9, max: 0.5}\n" + OK_CASE,
    "projects/gate_min_above_max/arena.yaml:4: gate.all.accuracy: min 0.9 is above max 0.5; no value could pass",
)
blocks(
    "gate_bound_word",
    "models: [sim_perfect]\ngate:\n  all:\n    accuracy: {min: high}\n" + OK_CASE,
    "projects/gate_bound_word/arena.yaml:4: gate.all.accuracy.min: Input should be a valid number*",
)
blocks(
    "gate_misspelt_min",
    "models: [sim_perfect]\ngate:\n  all:\n    accuracy: {minimum: 0.5}\n" + OK_CASE,
    "projects/gate_misspelt_min/arena.yaml:4: gate.all.accuracy.minimum: unknown key 'minimum'",
    "  fix: did you mean 'min'? known keys here: max, min",
)
blocks(
    "gate_bound_number",
    "models: [sim_perfect]\ngate:\n  all:\n    accuracy: 0.8\n" + OK_CASE,
    "projects/gate_bound_number/arena.yaml:4: gate.all.accuracy: Input should be a valid dictionary*",
)
blocks(
    "gate_unknown_model",
    "models: [sim_perfect]\ngate:\n  models:\n    sim_perfec: {accuracy: {min: 0.5}}\n" + OK_CASE,
    "projects/gate_unknown_model/arena.yaml:4: gate.models.sim_perfec: the gate names model"
    " 'sim_perfec', which is neither defined in models.define nor a builtin",
    "  fix: did you mean 'sim_perfect'? known models: *",
)
blocks(
    "judge_misspelt_model",
    "models: [sim_perfect]\njudge:\n  modle: sim_judge\n" + OK_CASE,
    "projects/judge_misspelt_model/arena.yaml:3: judge.modle: unknown key 'modle'",
    "  fix: did you mean 'model'? known keys here: model, reduce, samples",
)
blocks(
    "judge_samples_zero",
    "models: [sim_perfect]\njudge: {samples: 0}\n" + OK_CASE,
    "projects/judge_samples_zero/arena.yaml:2: judge.samples: Input should be greater than or equal to 1",
    "  fix: use a value of 1 or more",
)
blocks(
    "judge_samples_many",
    "models: [sim_perfect]\njudge: {samples: 100}\n" + OK_CASE,
    "projects/judge_samples_many/arena.yaml:2: judge.samples: Input should be less than or equal to 25*",
)
blocks(
    "judge_bad_reduce",
    "models: [sim_perfect]\njudge: {reduce: median}\n" + OK_CASE,
    "projects/judge_bad_reduce/arena.yaml:2: judge.reduce: Input should be 'majority' or 'mean' (got str 'median')",
)
blocks(
    "judge_as_text",
    "models: [sim_perfect]\njudge: sim_judge\n" + OK_CASE,
    "projects/judge_as_text/arena.yaml:2: judge: Input should be a valid dictionary*",
)
blocks(
    "judge_unknown_model",
    "models: [sim_perfect]\njudge: {model: sim_jugde}\nscorers:\n  default: llm_judge\n"
    "  options:\n    llm_judge: {rubric: be fair}\n" + OK_CASE,
    "projects/judge_unknown_model/arena.yaml:2: judge.model: model 'sim_jugde' is neither defined"
    " in models.define nor a builtin*",
    "  fix: did you mean 'sim_judge'?*",
)
blocks(
    "prompt_misspelt_template",
    "models: [sim_perfect]\nprompt:\n  templat: 'Q: {input}'\n" + OK_CASE,
    "projects/prompt_misspelt_template/arena.yaml:3: prompt.templat: unknown key 'templat'",
    "  fix: did you mean 'template'? known keys here: system, template",
)
blocks(
    "prompt_template_list",
    "models: [sim_perfect]\nprompt:\n  template: ['Q: {input}']\n" + OK_CASE,
    "projects/prompt_template_list/arena.yaml:3: prompt.template: Input should be a valid string (got a list)",
)
blocks(
    "prompt_as_text",
    "models: [sim_perfect]\nprompt: 'Q: {input}'\n" + OK_CASE,
    "projects/prompt_as_text/arena.yaml:2: prompt: a prompt is a mapping of 'template' and"
    " 'system', not text: write prompt: {template: \"Q: {input}\"}",
)
blocks(
    "prompt_system_mapping",
    "models: [sim_perfect]\nprompt:\n  system: {role: helper}\n" + OK_CASE,
    "projects/prompt_system_mapping/arena.yaml:3: prompt.system: Input should be a valid string (got a mapping)",
)
blocks(
    "prompt_unclosed_variable",
    "models: [sim_perfect]\nprompt:\n  template: 'Q: {input'\n" + OK_CASE,
    "projects/prompt_unclosed_variable/arena.yaml:3: prompt.template: '{input' is never closed: write '{input}'",
    "  fix: {name} fills in a variable; {{ and }} write a literal brace",
)
blocks(
    "prompt_unclosed_mid_text",
    "models: [sim_perfect]\nprompt:\n  template: 'Q: {input and answer briefly'\n" + OK_CASE,
    "projects/prompt_unclosed_mid_text/arena.yaml:3: prompt.template: '{input' is never closed*",
)
blocks(
    "prompt_unclosed_before_punctuation",
    "models: [sim_perfect]\nprompt:\n  template: 'Q: {input, briefly'\n" + OK_CASE,
    "projects/prompt_unclosed_before_punctuation/arena.yaml:3: prompt.template: '{input' is never closed*",
)
blocks(
    "prompt_jinja_braces",
    "models: [sim_perfect]\nprompt:\n  template: 'Q: {{ input }}'\n" + OK_CASE,
    "projects/prompt_jinja_braces/arena.yaml:3: prompt.template: '{{ input }}' is sent as"
    " '{ input }', braces and all: a variable is written with one brace, '{input}'",
    "  fix: {name} fills in a variable; {{ and }} write a literal brace",
)
blocks(
    "prompt_missing_variable",
    "models: [sim_perfect]\nprompt:\n  template: 'Into {language}: {text}'\ntests:\n"
    "  - {id: ok, input: {language: French, text: cat}, reference: chat}\n"
    "  - {id: lacking, input: {text: dog}, reference: chien}\n",
    "projects/prompt_missing_variable/arena.yaml:6: prompt.template uses {language}, which this"
    " case's input lacks",
    "  fix: give the case an input mapping with that key, or change the template (write {{ and"
    " }} for a literal brace)",
)
blocks(
    "prompt_misspelt_variable",
    "models: [sim_perfect]\nprompt:\n  template: 'Q: {inptu}'\n" + OK_CASE,
    "projects/prompt_misspelt_variable/arena.yaml:5: prompt.template uses {inptu}, which this case's input lacks",
    "  fix: give the case an input mapping with that key, or change the template (write {{ and"
    " }} for a literal brace)",
)


# -- the leaderboard's settings that only the end of the run can check ---------------------

category("gate_at_end")(
    "gate_misspelt_metric",
    "models: [sim_perfect]\ngate:\n  all:\n    acuracy: {min: 0.5}\n" + OK_CASE,
    "*- arena gate: gate_misspelt_metric -*",
    "gate failed: 1 of 1 checks outside their limits",
    "  failed  sim_perfect acuracy (limit min 0.5): no record has a metric 'acuracy' (did you"
    " mean 'accuracy'?); the gate names it at projects/gate_misspelt_metric/arena.yaml:4",
    kind="board",
)
category("metrics_at_end")(
    "metrics_misspelt_metric",
    "models: [sim_perfect]\nmetrics:\n  weights: {acuracy: 0.8, cost: 0.2}\n" + OK_CASE,
    "warning: projects/metrics_misspelt_metric/arena.yaml:3: metrics.weights names 'acuracy',"
    " which no record has (did you mean 'accuracy'?); it is left out of the composite, and the"
    " run fails",
    kind="board",
)
