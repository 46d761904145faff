# Copied unmodified from UKGovernmentBEIS/inspect_ai at commit 499e6152e7b8fc8cbd8ac5283536572aa6e4ab17,
# under its MIT license (LICENSE):
# - answer_character: src/inspect_ai/_util/answer.py, lines 1-10
# - parse_answers: src/inspect_ai/solver/_multiple_choice.py, lines 82-152
#   https://github.com/UKGovernmentBEIS/inspect_ai/blob/499e6152e7b8fc8cbd8ac5283536572aa6e4ab17/src/inspect_ai/solver/_multiple_choice.py
# parse_answers reads only `state.output.completion` and `len(state.choices)`; the tests
# pass a stand-in with those two (TaskState below is a name for its annotation).
from __future__ import annotations

import re
from typing import Any

TaskState = Any


def answer_character(index: int) -> str:
    r"""
    Helper to go from array index to char, for example:

        0 -> 'A', 1 -> 'B', etc
    """
    if index < 26:
        return chr(ord("A") + index)
    else:
        return str(index - 25)


def parse_answers(state: TaskState, multiple_correct: bool) -> set[str]:
    """
    Convenience function for extracting answers from the state output.

    The generated response must be in the format 'ANSWER: <answers>',
    otherwise we can't extract what the model thinks is "true". We can be a
    bit flexible whether these are "AB" vs "A,B" vs "A B".

    However, if the answer isn't in the expected format the model has
    failed in the task so we'll ultimately just mark it as incorrect
    """
    # First check whether the string strictly ends with the expected answer
    # In this case, we're looking for a single line which contains the expected
    # ANSWER: <answer> string with only whitespace or a period/full stop at the end.
    # The CoT templates instruct the model to put the answer on the LAST line,
    # so if there are multiple matching lines we take the last one.
    matches = re.findall(
        r"(?i)^ANSWER\s*:\s*([A-Za-z\d ,]+)\s*(?:$|\n|\.)",
        state.output.completion,
        flags=re.MULTILINE,
    )

    # If we couldn't match the strict version, we can try the less strict
    # version for backward compatibility
    if not matches:
        matches = re.findall(
            r"(?i)ANSWER\s*:\s*([A-Za-z\d ,]+)(?:[^\w]|\n|$|\.)",
            state.output.completion,
        )

    if not matches:
        return set()

    matched = matches[-1]

    # Strip trailing period / full stop, and uppercase so that e.g.
    # "ANSWER: b" is accepted (the regex above is case-insensitive)
    matched = matched.strip()
    matched = matched.rstrip(".")
    matched = matched.upper()

    allowed_options = set(answer_character(i) for i in range(len(state.choices)))

    if multiple_correct:
        # Match must contain only the allowed choices
        # (may be separated by commas, spaces, the word 'and', or nothing at all)

        matched = matched.replace(" AND ", ",")

        matched = matched.replace(" ", "")

        # ignore empty tokens (e.g. from a trailing or Oxford comma)
        split_comma = set(x for x in matched.split(",") if x)
        if split_comma.issubset(allowed_options):
            answers = split_comma
            return answers

        split_nothing = set(matched)
        if split_nothing.issubset(allowed_options):
            answers = split_nothing
            return answers

    else:
        # Match must contain a single letter in the allowed choices; tolerate a
        # stray comma (e.g. "ANSWER: A,") the way the multiple_correct branch does
        single_tokens = [token for token in matched.split(",") if token]
        if len(single_tokens) == 1 and single_tokens[0] in allowed_options:
            answers = {single_tokens[0]}
            return answers

    return set()
