"""Reduces an answer to the bare number, so exact_match compares numbers, not wording.

"Answer: 42", "The answer is 42.", a fenced "42", "1,200" and "42.0" all become the
digits the reference is written in. An answer without a number is left as it is,
so the failure shows what the model said. Cases graded by numeric_match are left
alone: that scorer finds the number in the reply by itself.
"""

import re
from decimal import Decimal

_FENCE = re.compile(r"^```[\w+-]*[ \t]*\n(.*?)\n?```$", re.S)
_NUMBER = re.compile(r"(?<![\w.,])-?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?![\d,]*\d)")


def bare_number(text):
    """The last number in `text`, without thousands separators or a zero fraction."""
    found = _NUMBER.findall(text)
    if not found:
        return None
    value = Decimal(found[-1].replace(",", ""))
    if value == value.to_integral_value():
        return str(int(value))
    return format(value.normalize(), "f")


def post_process(output, case, context):
    if case.eval_type == "numeric_match":
        return output
    text = output.strip()
    fenced = _FENCE.match(text)
    if fenced:
        text = fenced.group(1).strip()
    number = bare_number(text)
    return text if number is None else number
