"""Models: unknown keys, bad definitions, connectors that cannot be made, agents that fail,
and models that cannot be reached (a missing API key, nothing listening)."""

from __future__ import annotations

import fnmatch
import socket
from collections.abc import Callable

from tests.corpus.kit import OK_CASE, PY, Entry, Outcome, Run, category

# -- models: keys, definitions and connectors ----------------------------------------------

models = category("models")


def defined(name: str, settings: str, extra: str = "") -> str:
    """A project whose only model is `name`, defined with `settings` (flow mapping body)."""
    return f"models:\n  default: [{name}]\n  define:\n    {name}: {{{settings}}}\n{extra}" + OK_CASE


models(
    "models_misspelt_default",
    "models:\n  defaults: [sim_perfect]\n" + OK_CASE,
    "projects/models_misspelt_default/arena.yaml:2: models.defaults: unknown key 'defaults'",
    "  fix: did you mean 'default'? known keys here: default, define",
)
models(
    "models_misspelt_define",
    "models:\n  default: [mine]\n  defin:\n    mine: {profile: sim_perfect}\n" + OK_CASE,
    "projects/models_misspelt_define/arena.yaml:3: models.defin: unknown key 'defin'",
    "  fix: did you mean 'define'? known keys here: default, define",
)
models(
    "models_default_mapping",
    "models:\n  default: {sim_perfect: 1}\n" + OK_CASE,
    "projects/models_default_mapping/arena.yaml:2: models.default: Input should be a valid list*",
)
models(
    "models_define_list",
    "models:\n  default: [sim_perfect]\n  define: [sim_perfect]\n" + OK_CASE,
    "projects/models_define_list/arena.yaml:3: models.define: Input should be a valid dictionary*",
)
models(
    "models_unknown_model",
    "models: [sim_perfec]\n" + OK_CASE,
    "projects/models_unknown_model/arena.yaml:1: model 'sim_perfec' is neither defined in"
    " models.define nor a builtin (sim_small, sim_large, sim_perfect, sim_echo, sim_judge)",
    "  fix: did you mean 'sim_perfect'? define it under 'models: define: sim_perfec:', pick a"
    " known model, or name a provider's model as openai:MODEL or anthropic:MODEL",
)
models(
    "models_unknown_connector",
    defined("mine", "connector: opnai"),
    "projects/models_unknown_connector/arena.yaml:4: models.define.mine.connector: unknown connector 'opnai'",
    "  fix: did you mean 'openai'? connectors: sim, openai, anthropic, python, command",
)
models(
    "models_concurrency_zero",
    defined("mine", "profile: sim_perfect, concurrency: 0"),
    "projects/models_concurrency_zero/arena.yaml:4: models.define.mine.concurrency: Input should be greater than or equal to 1",
    "  fix: use a value of 1 or more",
)
models(
    "models_timeout_negative",
    defined("mine", "profile: sim_perfect, timeout: -1"),
    "projects/models_timeout_negative/arena.yaml:4: models.define.mine.timeout: Input should be greater than 0*",
)
models(
    "models_retries_too_many",
    defined("mine", "profile: sim_perfect, max_retries: 99"),
    "projects/models_retries_too_many/arena.yaml:4: models.define.mine.max_retries: Input should be less than or equal to 20*",
)
models(
    "models_rpm_zero",
    defined("mine", "profile: sim_perfect, rpm: 0"),
    "projects/models_rpm_zero/arena.yaml:4: models.define.mine.rpm: Input should be greater than 0*",
)
models(
    "models_price_misspelt",
    defined("mine", "profile: sim_perfect, price: {input: 1.0}"),
    "projects/models_price_misspelt/arena.yaml:4: models.define.mine.price.input: unknown key 'input'",
    "  fix: known keys here: cached_input_per_mtok, input_per_mtok, output_per_mtok",
)
models(
    "models_price_negative",
    defined("mine", "profile: sim_perfect, price: {input_per_mtok: -1}"),
    "projects/models_price_negative/arena.yaml:4: models.define.mine.price.input_per_mtok: Input should be greater than or equal to 0*",
)
models(
    "models_cache_word",
    defined("mine", "profile: sim_perfect, cache: maybe"),
    "projects/models_cache_word/arena.yaml:4: models.define.mine.cache: Input should be a valid boolean*",
)
models(
    "models_sim_misspelt_setting",
    defined("mine", "profile: sim_perfect, acuracy: 0.9"),
    "projects/models_sim_misspelt_setting/arena.yaml:4: models.define.mine.acuracy: unknown key 'acuracy'",
    "  fix: did you mean 'accuracy'? known keys here: *",
)
models(  # a key every definition takes (read by ModelDef, not the connector): named too
    "models_misspelt_engine_setting",
    defined("mine", "connector: openai, base_url: 'http://127.0.0.1:9/v1', timout: 5"),
    "projects/models_misspelt_engine_setting/arena.yaml:4: models.define.mine.timout: unknown key 'timout'",
    "  fix: did you mean 'timeout'? known keys here: api_key_env, backoff, base_url, cache,"
    " concurrency, connector, headers, max_retries, model, params, price, rpm, tags, timeout, tpm",
)
models(
    "models_sim_misspelt_price",
    defined("mine", "profile: sim_large, prise: 3"),
    "projects/models_sim_misspelt_price/arena.yaml:4: models.define.mine.prise: unknown key 'prise'",
    "  fix: did you mean 'price'? known keys here: accuracy, backoff, cache, concurrency,"
    " connector, correlation, echo, format_noise, latency_jitter_ms, latency_ms, max_retries,"
    " price, profile, rpm, seed, tags, timeout, tpm",
)
models(
    "models_sim_accuracy_above_one",
    defined("mine", "accuracy: 2"),
    "projects/models_sim_accuracy_above_one/arena.yaml:4: models.define.mine.accuracy: Input should be less than or equal to 1*",
)
models(
    "models_sim_unknown_profile",
    defined("mine", "profile: sim_huge"),
    "projects/models_sim_unknown_profile/arena.yaml:4: models.define.mine: unknown sim profile"
    " 'sim_huge'; profiles: sim_small, sim_large, sim_perfect, sim_echo, sim_judge",
)
models(
    "models_temperature_beside_settings",
    defined("mine", "connector: openai, base_url: 'http://127.0.0.1:9/v1', temperature: 0"),
    "projects/models_temperature_beside_settings/arena.yaml:4: models.define.mine.temperature:"
    " 'temperature' is a request parameter, not a connector setting",
    "  fix: put it under params: 'params: {temperature: 0}'",
)
models(
    "models_base_url_not_a_url",
    defined("mine", "connector: openai, base_url: localhost:8000"),
    "projects/models_base_url_not_a_url/arena.yaml:4: models.define.mine.base_url: base_url"
    " 'localhost:8000' is not an http(s) URL; write it as, e.g., 'http://127.0.0.1:8000/v1'",
)
models(
    "models_openai_misspelt_setting",
    defined("mine", "connector: openai, base_url: 'http://127.0.0.1:9/v1', api_key_var: K"),
    "projects/models_openai_misspelt_setting/arena.yaml:4: models.define.mine.api_key_var: unknown key 'api_key_var'",
    "  fix: did you mean 'api_key_env'? known keys here: *",
)
models(
    "models_headers_not_text",
    defined("mine", "connector: openai, base_url: 'http://127.0.0.1:9/v1', headers: {X-Try: [1]}"),
    "projects/models_headers_not_text/arena.yaml:4: models.define.mine.headers.X-Try: Input should be a valid string*",
)
models(
    "models_python_without_callable",
    defined("mine", "connector: python"),
    "projects/models_python_without_callable/arena.yaml:4: 'callable' is required in models.define.mine",
    "  fix: add 'callable: ...'",
)
models(
    "models_python_callable_missing",
    {
        "arena.yaml": defined("mine", "connector: python, callable: 'agent:answr'"),
        "agent.py": "def answer(prompt):\n    return 'x'\n",
    },
    "projects/models_python_callable_missing/arena.yaml:4: models.define.mine.callable: callable"
    " 'agent:answr': module 'agent' (*/agent.py) has no 'answr'",
    "  fix: name a function defined in agent",
)
models(
    "models_python_module_missing",
    defined("mine", "connector: python, callable: 'agnet:answer'"),
    "projects/models_python_module_missing/arena.yaml:4: models.define.mine.callable: callable"
    " 'agnet:answer': no module 'agnet' in * or on the import path",
    "  fix: check the spelling, and that the file sits in the project folder or is installed",
)
models(
    "models_python_callable_raises",
    {
        "arena.yaml": defined("mine", "connector: python, callable: 'agent:answer'"),
        "agent.py": "def answer(prompt):\n    raise RuntimeError('the agent fell over')\n",
    },
    "model 'mine' call failed: agent:answer raised RuntimeError: the agent fell over",
    '  File "*/models_python_callable_raises/agent.py", line 2, in answer',
    traceback=True,
)
models(
    "models_python_callable_returns_number",
    {
        "arena.yaml": defined("mine", "connector: python, callable: 'agent:answer'"),
        "agent.py": "def answer(prompt):\n    return 42\n",
    },
    "model 'mine' call failed: agent:answer returned int; return the output text, a dict with"
    " 'text', or a Response",
)
models(
    "models_command_missing_program",
    defined("mine", "connector: command, command: [no-such-agent-program]"),
    "projects/models_command_missing_program/arena.yaml:4: models.define.mine.command: command"
    " 'no-such-agent-program': program 'no-such-agent-program' not found in * on PATH, or not executable",
    "  fix: give a path relative to the project folder, or a program on PATH",
)
models(
    "models_command_empty",
    defined("mine", "connector: command, command: []"),
    "projects/models_command_empty/arena.yaml:4: models.define.mine.command: the command is empty",
    "  fix: name the program to run",
)
models(
    "models_command_exits",
    defined("mine", f"connector: command, command: ['{PY}', '-c', 'import sys; sys.exit(3)']"),
    "model 'mine' call failed: command '* -c 'import sys; sys.exit(3)'' exited with status 3"
    " and wrote nothing to stderr",
)


# -- models that cannot be reached: said once, fast -----------------------------------------


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])  # nothing listens on it once closed


def one_reason(model: str, reason: str, cases: int) -> Callable[[Outcome, Entry], None]:
    """Each of the entry's `cases` failed on `model`, all for the one `reason` (fnmatch)."""

    def check(outcome: Outcome, entry: Entry) -> None:
        reasons = [
            r["reason"]
            for r in outcome.records
            if r["project"] == entry.name and r["model"] == model
        ]
        assert len(reasons) == cases and len(set(reasons)) == 1, reasons
        assert fnmatch.fnmatch(reasons[0], reason), reasons[0]

    return check


def unreachable(name: str, settings: str, cases: int) -> dict[str, str]:
    tests = "".join(f"  - {{id: c{i}, input: 'q{i}', reference: a}}\n" for i in range(cases))
    return {
        "arena.yaml": f"models:\n  default: [{name}]\n  define:\n    {name}: {{{settings}}}\ntests:\n{tests}"
    }


NO_KEY = (
    "model 'keyless' call failed: the API key variable ARENA_CORPUS_UNSET_KEY is not set; export"
    " ARENA_CORPUS_UNSET_KEY=... (or set api_key_env to the variable that holds it)"
)
category("model_without_key", Run(seconds=15, env={"ARENA_CORPUS_UNSET_KEY": None}))(
    "model_missing_key",
    unreachable(
        "keyless",
        f"connector: openai, base_url: 'http://127.0.0.1:{free_port()}/v1',"
        " api_key_env: ARENA_CORPUS_UNSET_KEY",
        5,
    ),
    NO_KEY,
    check=one_reason("keyless", NO_KEY, 5),
)
DOWN = (
    "model 'down' call failed: 127.0.0.1:*: cannot connect: connection refused (5 tries in a row"
    " could not connect: the model's calls are no longer tried); fix: start the server, or"
    " correct base_url"
)
category("model_down", Run(seconds=12))(
    "model_nothing_listening",
    unreachable("down", f"connector: openai, base_url: 'http://127.0.0.1:{free_port()}/v1'", 20),
    DOWN,
    check=one_reason("down", DOWN, 20),
)
