"""Command-line values that cannot work: usage errors (exit status 4) before anything runs."""

from __future__ import annotations

from tests.corpus.kit import Run, case_yaml, category

# -- command-line flags: usage errors (exit status 4) before anything runs -------------------

FLAGGED = case_yaml("{id: a, input: x, reference: x}")


def flag(name: str, *args: str, said: str) -> None:
    category(name, Run(args=args))(name, FLAGGED, said, kind="usage")


flag(
    "flag_max_cost_negative",
    "--arena-max-cost=-1",
    said="ERROR: --arena-max-cost -1: give the most the run may spend as a finite number of"
    " dollars, 0 or more (leave the option out for no limit)",
)
flag(
    "flag_max_cost_nan",
    "--arena-max-cost=nan",
    said="ERROR: --arena-max-cost nan: give the most the run may spend as a finite number*",
)
flag(
    "flag_max_cost_word",
    "--arena-max-cost=lots",
    said="*--arena-max-cost: invalid float value: 'lots'",
)
flag(
    "flag_models_empty",
    "--arena-models=",
    said="ERROR: --arena-models '' names no model: give model keys, comma separated"
    " (--arena-models sim_small,sim_large), or leave the option out to run each project's own models",
)
flag(
    "flag_models_commas",
    "--arena-models= , ,",
    said="ERROR: --arena-models ' , ,' names no model*",
)
flag(
    "flag_json_folder",
    "--arena-json=projects",
    said="ERROR: --arena-json projects is a folder: give the path of a file, such as --arena-json"
    " projects/arena.json",
)
flag(
    "flag_json_empty",
    "--arena-json=",
    said="ERROR: --arena-json is empty: give the path of a file, such as --arena-json arena.json",
)
flag(
    "flag_json_under_a_file",
    "--arena-json=projects/flag_json_under_a_file/arena.yaml/out.json",
    said="ERROR: --arena-json projects/flag_json_under_a_file/arena.yaml/out.json: *arena.yaml"
    " is a file, not a folder; give a path in a folder",
)
flag(
    "flag_cache_mode",
    "--arena-cache=sometimes",
    said="*--arena-cache: invalid choice: 'sometimes'*",
)
flag(
    "flag_cache_path_folder",
    "--arena-cache-path=projects",
    said="ERROR: --arena-cache-path projects is a folder: give the path of a file, such as"
    " --arena-cache-path projects/responses.sqlite3",
)

# A model that --arena-models names and no project knows: every project's error, no line
# (the key comes from the command line). The good project cannot run it either.
category("flag_unknown_model", Run(args=("--arena-models=sim_perfec",), good=False))(
    "flag_models_unknown",
    FLAGGED,
    "projects/flag_models_unknown/arena.yaml: model 'sim_perfec' (from --arena-models) is neither"
    " defined in models.define nor a builtin (sim_small, sim_large, sim_perfect, sim_echo, sim_judge)",
    "  fix: did you mean 'sim_perfect'? define it under 'models: define: sim_perfec:', pick a"
    " known model, or name a provider's model as openai:MODEL or anthropic:MODEL",
)
