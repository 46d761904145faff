"""Letters the case's options and puts them under the question, as a quiz would print them.

The options come from the case's metadata (`choices`, a list of texts); the choice
scorer reads the same list, so "B" and "Mitochondrion" are graded as one answer.
"""

from string import ascii_uppercase


def lettered(choices):
    """'A) first\\nB) second...' for a list of option texts."""
    return "\n".join(f"{ascii_uppercase[i]}) {text}" for i, text in enumerate(choices))


def pre_request(request, case, context):
    choices = case.metadata.get("choices")
    if not isinstance(choices, list) or not choices:
        raise ValueError(f"case '{case.id}' has no list of choices in its metadata")
    request.messages[-1]["content"] += "\n\n" + lettered(choices)
    return request
