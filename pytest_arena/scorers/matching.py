"""Builtin scorers that look for something in the output: contains, regex and choice."""

from __future__ import annotations

import re
import string
import unicodedata
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from pytest_arena.scorers.base import ScoreResult, ScoringContext
from pytest_arena.scorers.patterns import compile_pattern, search
from pytest_arena.scorers.text import canonical, excerpt, only_quotes, plain_marks, strip_fence
from pytest_arena.scorers.typed import TypedScorer
from pytest_arena.spec.case import Case, as_text

if TYPE_CHECKING:
    import regex


class _Options(BaseModel):
    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)


def _quoted(items: list[str]) -> str:
    return ", ".join(excerpt(item, 40) for item in items)


class ContainsOptions(_Options):
    values: list[str] | None = Field(None, min_length=1)
    mode: Literal["any", "all"] = "all"
    ignore_case: bool = True
    negate: bool = False

    @field_validator("values")
    @classmethod
    def _no_blank(cls, value: list[str] | None) -> list[str] | None:
        if value is not None and not all(item.strip() for item in value):
            raise ValueError("an empty string is in every output: give text to look for")
        return value


class Contains(TypedScorer[ContainsOptions]):
    """The output contains the reference, or all (or any) of several strings.

    The strings are the option `values`, else the reference (a string or a list;
    its empty items are left out, and an empty reference is unscored).
    Options: `mode` (all: every string, partial credit for the share found;
    any: at least one), `ignore_case` (true), `negate` (false: when true the
    strings must not appear, and `mode` says how many of them must be missing).
    """

    name = "contains"
    options_model = ContainsOptions

    def grade(
        self, output: str, reference: Any, opts: ContainsOptions, context: ScoringContext
    ) -> ScoreResult:
        wanted = opts.values if opts.values is not None else _strings(reference)
        blank = 0
        if opts.values is None and wanted:
            # an empty cell of a dataset: "" is in every output, which would pass them all
            kept = [w for w in wanted if w.strip()]
            if not kept:
                return ScoreResult(
                    0.0, None, "the reference is empty: nothing to look for: unscored"
                )
            blank, wanted = len(wanted) - len(kept), kept
        if not wanted:
            return ScoreResult(0.0, None, "no reference or values to look for: unscored")

        def fold(text: str, quotes: bool = True) -> str:
            text = canonical(text) if quotes else unicodedata.normalize("NFC", text)
            return text.casefold() if opts.ignore_case else text

        folded: dict[bool, str] = {}  # the output, folded once each way

        def found(item: str) -> bool:  # a quote mark alone is looked for as written
            quotes = not only_quotes(item)
            if quotes not in folded:
                folded[quotes] = fold(output, quotes)
            return fold(item, quotes) in folded[quotes]

        hits = [(item, found(item)) for item in wanted]
        present = [item for item, hit in hits if hit]
        absent = [item for item, hit in hits if not hit]
        good, bad = (absent, present) if opts.negate else (present, absent)
        if opts.mode == "all":
            score, passed = len(good) / len(wanted), not bad
        else:
            score, passed = float(bool(good)), bool(good)
        reason = _contains_reason(output, wanted, opts, good, bad)
        if blank:
            reason += f" ({blank} empty item{'s' if blank > 1 else ''} of the reference left out)"
        if not passed and not opts.negate and not opts.ignore_case:
            cased = [item for item in bad if item.casefold() in output.casefold()]
            if cased:
                reason += (
                    f"; {_quoted(cased)} in other letter case: set the option ignore_case: true"
                )
        return ScoreResult(score, passed, reason, {"found": present, "missing": absent})


def _strings(reference: Any) -> list[str]:
    if reference is None:
        return []
    if isinstance(reference, list):
        return [as_text(item) for item in reference]
    return [as_text(reference)]


def _contains_reason(
    output: str, wanted: list[str], opts: ContainsOptions, good: list[str], bad: list[str]
) -> str:
    got = excerpt(output)
    several = len(wanted) > 1
    if not opts.negate:
        if not bad:
            return f"found all of {_quoted(good)}" if several else f"found {_quoted(good)}"
        if opts.mode == "any" and good:
            return f"found {_quoted(good)}"
        if opts.mode == "any":
            return f"none of {_quoted(wanted)} found in {got}"
        if several:
            return f"missing {_quoted(bad)} (found {len(good)} of {len(wanted)}) in {got}"
        return f"{_quoted(bad)} not found in {got}"
    if not bad:
        return (
            f"none of {_quoted(wanted)} appears"
            if several
            else f"{_quoted(wanted)} does not appear"
        )
    if opts.mode == "any" and good:
        return f"{_quoted(good)} does not appear"
    if opts.mode == "any":
        return f"all of {_quoted(wanted)} appear, and one must not, in {got}"
    return f"{_quoted(bad)} must not appear, found in {got}"


class RegexOptions(_Options):
    pattern: str | None = None
    group: int | str | None = None
    ignore_case: bool = False
    multiline: bool = False
    dotall: bool = False

    @field_validator("pattern")
    @classmethod
    def _compiles(cls, value: str | None) -> str | None:
        if value is not None and not value:
            raise ValueError("an empty pattern matches every output: give a pattern")
        if value is not None:
            compile_pattern(value, 0)
        return value


class Regex(TypedScorer[RegexOptions]):
    """The output matches a regular expression (re.search), or a group of it equals the reference.

    Options: `pattern` (default: the reference is the pattern; an empty reference is
    unscored), `group` (a group
    number or name: extract it from the first match and compare it, stripped,
    with the reference), `ignore_case`, `multiline`, `dotall` (all false).
    """

    name = "regex"
    options_model = RegexOptions

    def case_problem(self, reference: Any, tools: Sequence[str] | None) -> tuple[str, str] | None:
        opts = self.options
        if opts is None or opts.group is None:
            return None
        if opts.pattern is None:
            return "group", (
                "the option group needs the option pattern: the reference is what the group"
                " is compared with\n  fix: give a pattern with the group, such as"
                " pattern: 'Answer: (\\w+)'"
            )
        try:
            _group_of(compile_pattern(opts.pattern, 0), opts.group)
        except ValueError as exc:
            return "group", str(exc)
        return None

    def grade(
        self, output: str, reference: Any, opts: RegexOptions, context: ScoringContext
    ) -> ScoreResult:
        flags = (
            (re.IGNORECASE if opts.ignore_case else 0)
            | (re.MULTILINE if opts.multiline else 0)
            | (re.DOTALL if opts.dotall else 0)
        )  # the same values in the regex module
        if opts.group is not None:
            if opts.pattern is None:
                raise ValueError(
                    "the option group needs the option pattern:"
                    " the reference is what the group is compared with"
                )
            return _extract(
                output, reference, compile_pattern(opts.pattern, flags), opts.group, opts
            )
        pattern = opts.pattern
        if pattern is None and reference is not None:
            pattern = as_text(reference)
            if not pattern.strip():  # an empty dataset cell: "" matches every output
                return ScoreResult(
                    0.0, None, "the reference is empty: no pattern to match: unscored"
                )
        if pattern is None:
            return ScoreResult(
                0.0, None, "no pattern to match: unscored; set the option pattern or a reference"
            )
        match = search(compile_pattern(pattern, flags), output)
        if match is None:
            return ScoreResult(
                0.0, False, f"pattern {excerpt(pattern)} did not match {excerpt(output)}"
            )
        return ScoreResult(1.0, True, f"pattern {excerpt(pattern)} matched {excerpt(match[0])}")


def _group_of(pattern: regex.Pattern[str], group: int | str) -> int | str:
    """The group `group` names in `pattern` ("2" is group 2); ValueError if it has none."""
    shown = excerpt(pattern.pattern)
    if isinstance(group, str) and group.isdigit():
        group = int(group)
    if isinstance(group, int) and not 0 <= group <= pattern.groups:
        raise ValueError(
            f"pattern {shown} has {pattern.groups} group(s): there is no group {group}"
        )
    if isinstance(group, str) and group not in pattern.groupindex:
        raise ValueError(f"pattern {shown} has no group named '{group}'")
    return group


def _extract(
    output: str, reference: Any, pattern: regex.Pattern[str], group: int | str, opts: RegexOptions
) -> ScoreResult:
    shown = excerpt(pattern.pattern)
    group = _group_of(pattern, group)
    if reference is None:
        return ScoreResult(0.0, None, "no reference to compare the extracted answer with: unscored")
    match = search(pattern, output)
    if match is None:
        return ScoreResult(
            0.0, False, f"no answer found: pattern {shown} did not match {excerpt(output)}"
        )
    found = match.group(group)
    if found is None:
        reason = (
            f"no answer found: group {group} of pattern {shown} is empty in {excerpt(match[0])}"
        )
        return ScoreResult(0.0, False, reason)
    got, want = found.strip(), as_text(reference).strip()
    detail = {"extracted": got}
    same = got.casefold() == want.casefold() if opts.ignore_case else got == want
    if same:
        return ScoreResult(1.0, True, f"extracted {excerpt(got)}, as expected", detail)
    reason = f"expected {excerpt(want)}, extracted {excerpt(got)} from {excerpt(output)}"
    return ScoreResult(0.0, False, reason, detail)


class ChoiceOptions(_Options):
    choices: list[str] | None = Field(None, min_length=1, max_length=26)
    convention: Literal["auto", "inspect"] = "auto"


class Choice(TypedScorer[ChoiceOptions]):
    """Multiple choice: the letter the output chooses is the reference's.

    The reference is the right letter ("B") or the right option's text. The
    choices are the option `choices`, else the case's `metadata.choices`, and
    get the letters A, B, C… in order. The output may give a bare letter
    ("B", "(B)", "b."), mark it ("Answer: B", "the answer is (B)", "I'd go
    with option B", "ANSWER: $B$", "\\boxed{B}"), or write an option's text.
    Where several answers are marked, the last line starting "Answer:" is the
    answer, else the last "answer:", else the last other mark (a letter weighed
    in the reasoning does not count against it); two different
    letters given as one answer ("A or B") are ambiguous and fail.
    Options: `choices`; `convention` (auto; inspect: exactly inspect_ai's
    multiple_choice parse_answers, the last "ANSWER: X" line, nothing else).
    """

    name = "choice"
    options_model = ChoiceOptions
    needs_reference = True

    def problem_in(self, case: Case, tools: Sequence[str] | None) -> tuple[str, str] | None:
        """A reference that is no choice of the case, said once when the plan is made."""
        opts = self.options
        if opts is None or self.lacks_reference(case.reference):
            return None
        try:
            choices = opts.choices
            if choices is None:
                choices = _choices_in(case.metadata)
        except ValueError as exc:
            return (
                "metadata",
                f"{exc}\n  fix: give metadata choices as a list, such as [Paris, Rome]",
            )
        try:
            _expected_letter(case.reference, choices)
        except ValueError as exc:
            return "reference", f"{exc}\n  fix: give the right choice's letter, or its text"
        return None

    def grade(
        self, output: str, reference: Any, opts: ChoiceOptions, context: ScoringContext
    ) -> ScoreResult:
        choices = opts.choices if opts.choices is not None else _metadata_choices(context)
        expected = _expected_letter(reference, choices)
        if opts.convention == "inspect":
            letters = inspect_answer(output, len(choices) if choices else len(_LETTERS))
        else:  # "**Answer**: B" and a "## Answer" heading are answer marks too
            letters = _chosen(plain_marks(output), choices)
        if not letters:
            found_no = (
                "no 'ANSWER: X' line found" if opts.convention == "inspect" else "no choice found"
            )
            return ScoreResult(0.0, False, f"{found_no} in {excerpt(output)}")
        if len(letters) > 1:
            either = " or ".join(_label(letter, choices) for letter in letters)
            return ScoreResult(
                0.0, False, f"ambiguous: {either} in {excerpt(output)}", {"chosen": letters}
            )
        chosen = letters[0]
        detail = {"chosen": chosen, "expected": expected}
        if chosen == expected:
            return ScoreResult(1.0, True, f"chose {_label(chosen, choices)}", detail)
        reason = f"expected {_label(expected, choices)}, chose {_label(chosen, choices)}"
        return ScoreResult(0.0, False, reason, detail)


_LETTERS = string.ascii_uppercase
_ALONE = re.compile(
    r"(?:(?:option|choice)\s+)?[(\[]?[a-z][)\]]?"
    r"(?:\s*(?:,|/|\bor\b|\band\b)\s*[(\[]?[a-z][)\]]?)*[.:]?",
    re.I,
)
_SINGLE = re.compile(r"\b[A-Za-z]\b")
_MARKER = re.compile(
    r"\b(?:answer|choice|option)\s*(?:is\s*:?|:|=)"
    r"|\b(?:go(?:ing)?\s+with|choose|chose|pick(?:ed)?|select(?:ed)?)\b"
    # "it's B", not "it is A that most people pick" (a cleft sentence names no answer)
    r"|\bit(?:['\u2019]s|\s+is)\b(?!\s*[(\[]?[A-Za-z][)\]]?\s+(?:that|who|which|whom)\b)"
    r"|(?=\\boxed\s*\{)",
    re.I,
)
_ONE = re.compile(
    r"[\s*_$]*(?:\\(?:boxed|textbf|mathbf|mathrm|text)\s*\{\s*)?(?:(?i:option|choice)\s+)?"
    r"([(\[])?([A-Za-z])(?![\w'\u2019])[)\]]?(?:\s*\})?[$*_]*"
)
_JOIN = re.compile(r"\s*(?:,|/|or\b|and\b)\s*", re.I)
_PRONOUN = re.compile(r"\s+(?!(?:or|and)\b)[a-z]")
_SENTENCE_END = re.compile(r"\s*(?:$|[.,;:!?)])")
# "B, not C": the first letter, the second named only to be ruled out
_RULED_OUT = re.compile(
    r"[(\[]?([A-Za-z])[)\]]?\s*[,;\u2013\u2014-]?\s*not\s+[(\[]?[A-Za-z][)\]]?[.!]?", re.I
)
_LEAD = re.compile(r"[(\[]?([A-Za-z])[)\].:]\s+\S[^\n]*")
_MENTION = re.compile(r"[(\[]([A-Z])[)\]]|\b(?i:option|choice)\s+([A-Z])(?![\w'\u2019])")


def _metadata_choices(context: ScoringContext) -> list[str] | None:
    return None if context.test_case is None else _choices_in(context.test_case.metadata)


def _choices_in(metadata: Mapping[str, Any]) -> list[str] | None:
    if "choices" not in metadata:
        return None
    value = metadata["choices"]
    if not isinstance(value, list) or not value:
        raise ValueError(f"metadata choices must be a list of option texts, got {excerpt(value)}")
    return [as_text(item) for item in value]


def _label(letter: str, choices: list[str] | None) -> str:
    if choices is None:
        return letter
    index = _LETTERS.index(letter)
    if index >= len(choices):
        return f"{letter}, which is not one of A-{_LETTERS[len(choices) - 1]}"
    return f"{letter} ({choices[index]})"


def _expected_letter(reference: Any, choices: list[str] | None) -> str:
    text = as_text(reference).strip()
    if choices is not None:
        for index, option in enumerate(choices):
            if text.casefold() == option.strip().casefold():
                return _LETTERS[index]
    letter = re.fullmatch(r"[(\[]?([A-Za-z])[)\].]?", text)
    if letter is None:
        if choices is None:
            raise ValueError(
                f"reference {excerpt(reference)} is not a choice letter;"
                " to give the answer as text, give the choices too"
            )
        raise ValueError(
            f"reference {excerpt(reference)} is neither a choice letter"
            f" nor one of the choices {_quoted(choices)}"
        )
    expected = letter[1].upper()
    if choices is not None and _LETTERS.index(expected) >= len(choices):
        raise ValueError(
            f"reference {excerpt(reference)} is not one of the letters"
            f" A-{_LETTERS[len(choices) - 1]} of the {len(choices)} choices"
        )
    return expected


def _chosen(output: str, choices: list[str] | None) -> list[str]:
    """The letters the output gives as its answer, from the most to the least explicit form."""
    inner = strip_fence(output)
    text = (output if inner is None else inner).strip().strip("*_$").strip()
    if _ALONE.fullmatch(text):
        return _unique(_SINGLE.findall(text))
    ruled_out = _RULED_OUT.fullmatch(text)
    if ruled_out:
        return [ruled_out[1].upper()]
    for finder in (_marked, _led, _mentioned):
        letters = finder(text)
        if letters:
            return _unique(letters)
    return _by_text(text, choices) if choices else []


def _unique(letters: list[str]) -> list[str]:
    return list(dict.fromkeys(letter.upper() for letter in letters))


def _marked(text: str) -> list[str]:
    """The letters of the last marked answer ("Answer: B", "I choose A or C"): the last
    line that starts "Answer:", else the last "answer:" anywhere, else the last other mark
    ("the answer is B", "I choose A", "it's B") wins, as inspect_ai reads "ANSWER: X"
    lines."""
    markers = list(_MARKER.finditer(text))
    colon = [m for m in markers if _COLON.fullmatch(m[0])]
    line_start = [m for m in colon if _LINE_START.match(text, 0, m.start())]
    tiers = (line_start, colon, markers)
    for tier in tiers:
        letters = _last_marked(text, tier)
        if letters:
            return letters
    return []


_COLON = re.compile(r"answer\s*:", re.I)


class _LineStart:
    """Whether only whitespace or markdown emphasis comes before a position on its line."""

    _BEFORE = re.compile(r"[ \t*_#>]*")

    def match(self, text: str, start: int, end: int) -> bool:
        line_start = text.rfind("\n", start, end) + 1
        return self._BEFORE.fullmatch(text, line_start, end) is not None


_LINE_START = _LineStart()


def _last_marked(text: str, markers: list[re.Match[str]]) -> list[str]:
    for marker in reversed(markers):
        letters: list[str] = []
        position = marker.end()
        while (one := _ONE.match(text, position)) and _is_letter(one, text):
            letters.append(one[2])
            join = _JOIN.match(text, one.end())
            if join is None:
                break
            position = join.end()
        if letters:
            return letters
    return []


_INSPECT_LINE = re.compile(r"(?i)^ANSWER\s*:\s*([A-Za-z\d ,]+)\s*(?:$|\n|\.)", re.M)
_INSPECT_ANYWHERE = re.compile(r"(?i)ANSWER\s*:\s*([A-Za-z\d ,]+)(?:[^\w]|\n|$|\.)")


def inspect_answer(text: str, count: int) -> list[str]:
    """inspect_ai's multiple_choice `parse_answers` with one correct answer among `count`
    choices: the last "ANSWER: X" line (else the last "ANSWER: X" anywhere), one letter."""
    found = _INSPECT_LINE.findall(text) or _INSPECT_ANYWHERE.findall(text)
    if not found:
        return []
    said = found[-1].strip().rstrip(".").upper()
    tokens = [token for token in said.split(",") if token]
    if len(tokens) == 1 and tokens[0] in _LETTERS[:count]:
        return tokens
    return []


def _is_letter(match: re.Match[str], text: str) -> bool:
    if match[1]:
        return True
    rest = text[match.end() :]
    if match[2].isupper():
        return not (match[2] == "I" and _PRONOUN.match(rest))
    return _SENTENCE_END.match(rest) is not None


def _led(text: str) -> list[str]:
    match = _LEAD.fullmatch(text)
    return [match[1]] if match else []


def _mentioned(text: str) -> list[str]:
    return [m[1] or m[2] for m in _MENTION.finditer(text)]


def _by_text(text: str, choices: list[str]) -> list[str]:
    said = text.rstrip(".!").strip().casefold()
    for index, option in enumerate(choices):
        if said == option.strip().casefold():
            return [_LETTERS[index]]
    found = {
        index: option.strip().casefold()
        for index, option in enumerate(choices)
        if option.strip()
        and re.search(rf"(?<!\w){re.escape(option.strip())}(?!\w)", text, re.I) is not None
    }
    kept = [
        index
        for index, option in found.items()
        if not any(option != other and option in other for other in found.values())
    ]
    return [_LETTERS[index] for index in kept]
