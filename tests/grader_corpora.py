"""Generated outputs and references for the parity of the builtins with the benchmarks'
own graders (copied in tests/references/), and each side's verdict on one pair.

tests/test_grader_parity.py asserts that each convention agrees with its reference on
every generated pair; benchmarks/grader_agreement.py counts the agreement on larger
corpora, for the conventions and for pytest-arena's own defaults.
"""

from __future__ import annotations

import warnings
from pathlib import Path
from types import ModuleType, SimpleNamespace
from typing import Any

from hypothesis import strategies as st

from pytest_arena import Case
from pytest_arena.scorers import ScoringContext
from pytest_arena.scorers.matching import Choice
from pytest_arena.scorers.numeric import NumericMatch
from pytest_arena.scorers.similarity import TokenF1
from tests.references.gsm8k import dataset as gsm8k
from tests.references.inspect_ai import multiple_choice as inspect_mc
from tests.references.lm_eval import gsm8k as lm_eval
from tests.references.squad import v1 as squad_v1
from tests.references.squad import v2 as squad_v2


def _load_math_reference() -> ModuleType:
    """hendrycks/math's code, compiled here: its "\\%" is an invalid escape sequence, which
    Python 3.10 and 3.11 warn of as a DeprecationWarning (an error in this suite)."""
    path = Path(__file__).parent / "references" / "math" / "equivalence.py"
    module = ModuleType("tests.references.math.equivalence")
    module.__file__ = str(path)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        code = compile(path.read_text(encoding="utf-8"), str(path), "exec")
    exec(code, module.__dict__)
    return module


math_ref = _load_math_reference()

# --- text ---------------------------------------------------------------------------

_WORDS = ["the", "a", "an", "The", "Paris", "paris", "Eiffel", "tower", "1889", "U.S.", "and"]
_PUNCT = [*".,;:!?'\"()-–—“”‘’«»…¿¡·/", "...", " - ", "n't"]
_SPACE = [" ", "  ", "\t", "\n", ""]


def _join(parts: list[str]) -> str:
    return "".join(parts)


_piece = st.one_of(
    st.sampled_from(_WORDS),
    st.sampled_from(_PUNCT),
    st.sampled_from(_SPACE),
    st.text(alphabet="abcAB É1ßİ", max_size=3),
    st.text(max_size=3),
)
squad_text = st.lists(_piece, max_size=12).map(_join)


@st.composite
def squad_pair(draw: st.DrawFn) -> tuple[str, list[str]]:
    """An answer and 1-3 references, often sharing words."""
    references = draw(st.lists(squad_text, min_size=1, max_size=3))
    if draw(st.booleans()):
        words = references[0].split()
        kept = draw(st.lists(st.sampled_from(words), max_size=6)) if words else []
        extra = draw(squad_text)
        return " ".join(kept) + extra, references
    return draw(squad_text), references


# --- numbers in GSM8K's and MATH's formats -------------------------------------------


@st.composite
def _number_text(draw: st.DrawFn) -> str:
    value = draw(st.integers(-20000, 20000))
    forms = [str(value), f"{value:,}", f"{value}.0", f"{value}.", f"${value}", f"{value}.5"]
    form = draw(st.sampled_from(forms))
    return draw(st.sampled_from(["", "-", " "])) + form if draw(st.booleans()) else form


_gsm8k_piece = st.one_of(
    _number_text(),
    st.sampled_from(
        [
            "#### ",
            "####",
            "#### -",
            "\n",
            " ",
            ".",
            ",",
            " clips",
            " = ",
            " + ",
            "<<48/2=24>>",
            "\nQuestion: Tom has 3 apples.\nAnswer:",
            "The answer is ",
            "$",
            "So she has ",
        ]
    ),
    st.text(max_size=4),  # anything at all, NUL and other scripts' digits among it
)
gsm8k_output = st.lists(_gsm8k_piece, max_size=10).map(_join)


@st.composite
def gsm8k_reference(draw: st.DrawFn) -> str:
    """A GSM8K solution: reasoning, then "#### N"."""
    value = draw(st.integers(-500, 20000))
    return f"{draw(gsm8k_output)}\n#### {draw(st.sampled_from([str(value), f'{value:,}']))}"


_math_answer = st.sampled_from(
    [
        "\\frac12",
        "\\frac{1}{2}",
        "\\dfrac{1}{2}",
        "\\tfrac12",
        "0.5",
        ".5",
        "1/2",
        "10,\\!000",
        "10,000",
        "10000",
        "\\left( 3, 4 \\right)",
        "(3,4)",
        "5\\text{ cm}",
        "5",
        "50\\%",
        "50",
        "90^\\circ",
        "90^{\\circ}",
        "\\$1.50",
        "x = 3",
        "3",
        "\\sqrt2",
        "\\sqrt{2}",
        "\\frac{\\sqrt{3}}{2}",
        "\\frac",
        "\\sqrt",
        "\\text{ a}\\text{ b}",
        "k=\\frac{1}{2}",
        "",
        " ",
        "\\\\frac{1}{2}",
        "x^2 + 1",
        "-1/2",
        "01/2",
        "\\frac1",
    ]
)
_math_piece = st.one_of(
    _math_answer.map(lambda a: "\\boxed{" + a + "}"),
    _math_answer,
    st.sampled_from(
        [
            "\\boxed{",
            "}",
            "{",
            "\\fbox{2}",
            "\\boxed 3",
            "The answer is ",
            "$",
            " so ",
            "\n",
            "\\boxed{\\frac{1}{2}}",
            "\\boxed{{1}}",
        ]
    ),
    st.text(alphabet=st.characters(codec="utf-8"), max_size=3),
)
math_output = st.lists(_math_piece, max_size=6).map(_join)
math_reference = st.one_of(
    _math_answer.map(lambda a: "The solution gives $\\boxed{" + a + "}$."), _math_answer
)


@st.composite
def choice_output(draw: st.DrawFn) -> str:
    """Reasoning lines and "ANSWER: …" lines, as models write them."""
    letter = st.sampled_from(list("ABCDEFabcdef"))
    answer = st.builds(
        lambda prefix, space, said, end: f"{prefix}{space}{said}{end}",
        st.sampled_from(["ANSWER:", "Answer:", "answer :", "ANSWER :", "The answer is", "ANSWER"]),
        st.sampled_from(["", " ", "  "]),
        st.one_of(
            letter,
            letter.map(lambda x: f"${x}$"),
            letter.map(lambda x: f"\\boxed{{{x}}}"),
            letter.map(lambda x: f"({x})"),
            st.tuples(letter, letter).map(lambda xy: f"{xy[0]}, {xy[1]}"),
            st.tuples(letter, letter).map(lambda xy: f"{xy[0]} and {xy[1]}"),
            letter.map(lambda x: f"{x},"),
            st.just("I think B"),
        ),
        st.sampled_from(["", ".", " ", "\n", ". It is the capital.", "!"]),
    )
    reasoning = st.sampled_from(
        [
            "Let us check whether the answer is B. It is not.",
            "Option C is wrong.",
            "Paris is the capital of France.",
            "So (A) fails and D holds.",
            "",
        ]
    )
    anything = st.text(max_size=8)
    lines = draw(st.lists(st.one_of(answer, reasoning, anything), min_size=1, max_size=4))
    return "\n".join(lines)


# --- each side's verdict ----------------------------------------------------------------


def _context(reference: Any, options: dict[str, Any]) -> ScoringContext:
    return ScoringContext(options=options, test_case=Case("c", "q", reference))


def ours_token_f1(output: str, references: list[str], normalize: str) -> float:
    options = {"normalize": normalize}
    return TokenF1().score(output, references, _context(references, options)).score


def reference_token_f1(output: str, references: list[str], normalize: str) -> float:
    if normalize == "squad_v1":
        return float(squad_v1.metric_max_over_ground_truths(squad_v1.f1_score, output, references))
    answers = [{"text": text} for text in references]
    dataset = [{"paragraphs": [{"qas": [{"id": "q", "answers": answers}]}]}]
    return float(squad_v2.get_raw_scores(dataset, {"q": output})[1]["q"])


def ours_numeric(output: str, reference: str, convention: str) -> bool:
    options = {"convention": convention}
    return bool(NumericMatch().score(output, reference, _context(reference, options)).passed)


def reference_numeric(output: str, reference: str, convention: str) -> bool:
    if convention == "gsm8k":
        return bool(gsm8k.is_correct(output, {"answer": reference}))
    if convention == "math":
        found = math_ref.remove_boxed(math_ref.last_boxed_only_string(output))
        if "\\boxed" in reference or "\\fbox" in reference:
            expected = math_ref.remove_boxed(math_ref.last_boxed_only_string(reference))
        else:
            expected = reference
        return bool(math_ref.is_equiv(found, expected))
    pick = lm_eval.STRICT_MATCH if convention == "lm_eval_strict" else lm_eval.FLEXIBLE_EXTRACT
    [[answer]] = pick.apply([[output]], [{}])
    scored = lm_eval.exact_match_hf_evaluate([answer], [reference], **lm_eval.EXACT_MATCH_OPTIONS)
    return bool(scored["exact_match"] == 1.0)


def math_reference_has_answer(reference: str) -> bool:
    if "\\boxed" not in reference and "\\fbox" not in reference:
        return True
    return math_ref.remove_boxed(math_ref.last_boxed_only_string(reference)) is not None


CHOICES = ["London", "Paris", "Rome", "Berlin"]


def ours_choice(output: str, expected: str, convention: str) -> bool:
    options = {"choices": CHOICES, "convention": convention}
    return bool(Choice().score(output, expected, _context(expected, options)).passed)


def reference_choice(output: str, expected: str) -> bool:
    state = SimpleNamespace(output=SimpleNamespace(completion=output), choices=CHOICES)
    return inspect_mc.parse_answers(state, multiple_correct=False) == {expected}


def inspect_found_one(output: str) -> bool:
    state = SimpleNamespace(output=SimpleNamespace(completion=output), choices=CHOICES)
    return len(inspect_mc.parse_answers(state, multiple_correct=False)) == 1
