"""Reshapes model output before it is graded."""


def post_process(output, case, context):
    # Strip a markdown fence before json_match sees it.
    text = output.strip()
    if text.startswith("```"):
        text = text.split("\n", 1)[1].rsplit("```", 1)[0]
    return text
