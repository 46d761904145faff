"""`arena models` says of each model what the run would do with it."""

from __future__ import annotations

import pytest

from tests.conftest import ARENA, MakeProject

MODELS = """
models:
  define:
    pasted:  # a key pasted where the variable's name goes
      connector: openai
      base_url: "http://127.0.0.1:7/v1"
      model: llama
      api_key_env: "sk-proj-PASTEDSECRET-abc123"
    passworded:
      connector: openai
      base_url: "http://alice:hunter2pass@127.0.0.1:9/v1"
      model: llama
tests:
  - {id: a, input: x, reference: x}
"""


def test_models_says_the_problem_of_a_key_pasted_as_api_key_env_as_the_run_does(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    """The model was listed as usable, "(api_key_env) (not set)", while the run refused it
    with a configuration error."""
    make_project("mine", MODELS)
    listed = pytester.run(*ARENA, "models", "--project", "projects/mine")
    assert "PASTEDSECRET" not in listed.stdout.str() + listed.stderr.str()
    listed.stdout.fnmatch_lines(
        ["pasted *api_key_env names the environment variable that holds the key*out of arena.yaml*"]
    )
    run = pytester.runpytest_subprocess("projects", "--arena-models", "pasted", "-q")
    run.stdout.fnmatch_lines(["*api_key_env names the environment variable that holds the key*"])


def test_models_says_a_password_in_base_url_is_sent_never_showing_it(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    """It said "none sent (set api_key_env to send one)" of a base_url with user:password,
    which is sent as an Authorization header."""
    make_project("mine", MODELS)
    listed = pytester.run(*ARENA, "models", "--project", "projects/mine")
    assert "hunter2pass" not in listed.stdout.str()
    listed.stdout.fnmatch_lines(
        ["passworded *http://127.0.0.1:9/v1*base_url's user:password (sent as Authorization)"]
    )
