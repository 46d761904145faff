"""Benchmarks' own answer graders, behaving exactly as their scripts do.

Each function here gives the same result as the named benchmark's grader on
every input (tests/test_grader_parity.py checks them against copies of the
originals):

- GSM8K (github.com/openai/grade-school-math, `dataset.py`): `extract_answer`
  reads the first "#### N" (digits, ".", ","; commas dropped), else "[invalid]";
  an answer is right when that text equals the reference's.
- lm-evaluation-harness (github.com/EleutherAI/lm-evaluation-harness,
  `lm_eval/tasks/gsm8k/gsm8k.yaml`): "strict-match" is the first "#### N",
  "flexible-extract" the last number-like run; then `exact_match` with
  `regexes_to_ignore` (",", "$", everything up to a "#### ", a final ".") and
  `ignore_case`, applied to the answer and the reference alike.
- MATH (github.com/hendrycks/math, `modeling/math_equivalence.py` and
  `dataset/util.py`): the last "\\boxed{…}" (or "\\fbox"), compared by
  `is_equiv` after `_strip_string` (no "\\!", "\\left", "\\right", "^\\circ",
  "\\$", "\\%", spaces or right-hand "\\text{ units}"; "\\dfrac" and "\\tfrac"
  as "\\frac"; "\\frac12" as "\\frac{1}{2}", "a/b" and "0.5" as fractions).
"""

from __future__ import annotations

import re

INVALID = "[invalid]"

_GSM8K = re.compile(r"#### (\-?[0-9\.\,]+)")
_FLEXIBLE = re.compile(r"(-?[$0-9.,]{2,})|(-?[0-9]+)")
_LM_EVAL_IGNORED = (
    re.compile(","),
    re.compile(r"\$"),
    re.compile(r"(?s).*#### "),
    re.compile(r"\.$"),
)


def gsm8k_answer(text: str) -> str:
    """GSM8K's answer in a completion: the first "#### N" without commas, else "[invalid]"."""
    match = _GSM8K.search(text)
    return match[1].strip().replace(",", "") if match else INVALID


def gsm8k_reference(text: str) -> str:
    """The answer of a reference: GSM8K's reading of a full solution, else the text itself
    (stripped, without commas)."""
    return gsm8k_answer(text) if _GSM8K.search(text) else text.strip().replace(",", "")


def lm_eval_gsm8k_answer(text: str, flexible: bool = False) -> str:
    """lm-evaluation-harness's gsm8k filters: strict-match or flexible-extract."""
    if not flexible:
        found = _GSM8K.findall(text)
        return found[0].strip() if found else INVALID
    runs = _FLEXIBLE.findall(text)
    if not runs:
        return INVALID
    groups = [group for group in runs[-1] if group]
    return groups[0].strip() if groups else INVALID


def lm_eval_exact_match(answer: str, reference: str) -> bool:
    """lm-evaluation-harness's exact_match with gsm8k's regexes_to_ignore and ignore_case."""
    for pattern in _LM_EVAL_IGNORED:
        answer, reference = pattern.sub("", answer), pattern.sub("", reference)
    # numpy's string arrays, which the harness compares, drop trailing NUL characters
    return answer.lower().rstrip("\0") == reference.lower().rstrip("\0")


def last_boxed(text: str) -> str | None:
    """The last "\\boxed…" (else "\\fbox…") up to the brace that closes its first one."""
    start = text.rfind("\\boxed")
    if start < 0:
        start = text.rfind("\\fbox")
        if start < 0:
            return None
    depth = 0
    for index in range(start, len(text)):
        if text[index] == "{":
            depth += 1
        elif text[index] == "}":
            depth -= 1
            if depth == 0:
                return text[start : index + 1]
    return None


def math_answer(text: str, reference: bool = False) -> str | None:
    """The inside of the last "\\boxed{…}"; a reference without one is its own answer."""
    if reference and "\\boxed" not in text and "\\fbox" not in text:
        return text
    boxed = last_boxed(text)
    if boxed is None or not boxed.startswith("\\boxed{"):
        return None
    return boxed[len("\\boxed{") : -1]


def math_equiv(first: str | None, second: str | None) -> bool:
    """MATH's is_equiv: equal after `_strip_string`; the raw texts when that fails."""
    if first is None or second is None:
        return first is None and second is None
    try:
        return math_strip(first) == math_strip(second)
    except (AssertionError, IndexError, ValueError):
        return first == second


_REMOVED = ("\\left", "\\right", "^{\\circ}", "^\\circ", "\\$")


def math_strip(text: str) -> str:
    """MATH's `_strip_string`; raises where it does (is_equiv then compares raw texts)."""
    text = text.replace("\n", "").replace("\\!", "").replace("\\\\", "\\")
    text = text.replace("tfrac", "frac").replace("dfrac", "frac")
    for removed in _REMOVED:
        text = text.replace(removed, "")
    if "\\text{ " in text:
        parts = text.split("\\text{ ")
        if len(parts) != 2:
            raise AssertionError("MATH allows one '\\text{ ' unit")
        text = parts[0]
    text = text.replace("\\%", "").replace(" .", " 0.").replace("{.", "{0.")
    if not text:
        return text
    if text[0] == ".":
        text = "0" + text
    sides = text.split("=")
    if len(sides) == 2 and len(sides[0]) <= 2:
        text = sides[1]
    text = _braced_sqrt(text).replace(" ", "")
    text = _braced_fracs(text)
    if text == "0.5":
        text = "\\frac{1}{2}"
    return _slash_as_frac(text)


def _braced_sqrt(text: str) -> str:
    if "\\sqrt" not in text:
        return text
    first, *rest = text.split("\\sqrt")
    out = [first]
    for part in rest:
        if part[0] != "{":  # IndexError on a trailing \sqrt, as in MATH
            part = "{" + part[0] + "}" + part[1:]
        out.append("\\sqrt" + part)
    return "".join(out)


def _braced_fracs(text: str) -> str:
    first, *rest = text.split("\\frac")
    out = [first]
    for part in rest:
        out.append("\\frac")
        if part[0] == "{":  # IndexError on a trailing \frac, as in MATH
            out.append(part)
            continue
        if len(part) < 2:
            return text
        numerator, denominator, after = part[0], part[1], part[2:]
        if denominator != "{":
            out.append("{" + numerator + "}{" + denominator + "}" + after)
        else:
            out.append("{" + numerator + "}" + denominator + after)
    return "".join(out)


def _slash_as_frac(text: str) -> str:
    parts = text.split("/")
    if len(parts) != 2:
        return text
    try:
        numerator, denominator = int(parts[0]), int(parts[1])
    except ValueError:
        return text
    if text != f"{numerator}/{denominator}":
        return text
    return "\\frac{" + str(numerator) + "}{" + str(denominator) + "}"
