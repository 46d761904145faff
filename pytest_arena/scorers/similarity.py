"""Builtin scorers of closeness to the reference: token_f1 and edit_similarity."""

from __future__ import annotations

import re
import string
import unicodedata
from collections import Counter
from typing import Any, Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Field

from pytest_arena.numbers import at_least
from pytest_arena.scorers.base import ScoreResult, ScoringContext, shown_score
from pytest_arena.scorers.text import canonical, excerpt
from pytest_arena.scorers.typed import TypedScorer
from pytest_arena.spec.case import as_text


class _Options(BaseModel):
    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)


def _references(reference: Any) -> list[str]:
    if reference is None:
        return []
    if isinstance(reference, list):
        return [as_text(item) for item in reference]
    return [as_text(reference)]


_OptionsT = TypeVar("_OptionsT", bound=_Options)


class _Closeness(TypedScorer[_OptionsT]):
    """Scores against the best of one or more references: none (or an empty list) is unscored."""

    needs_reference = True

    def lacks_reference(self, reference: Any) -> bool:
        return not _references(reference)


class TokenF1Options(_Options):
    threshold: float = Field(0.5, ge=0, le=1)
    normalize: Literal["unicode", "squad_v1", "squad_v2"] = "unicode"


class TokenF1(_Closeness[TokenF1Options]):
    """SQuAD-style F1 of the words shared by the output and the reference.

    Both are lowercased and stripped of punctuation, articles (a, an, the) and
    extra whitespace; the score is the F1 of their common words, counted with
    repeats. A list of references scores against the best one.
    Options: `threshold` (0.5): the F1 needed to pass; `normalize` (unicode:
    Unicode punctuation too, and an empty answer to an empty reference scores 1;
    squad_v1: exactly SQuAD v1.1's evaluate-v1.1.py, ASCII punctuation only and
    an empty answer scores 0; squad_v2: exactly SQuAD v2.0's evaluate-v2.0.py,
    ASCII punctuation only and empty against empty scores 1).
    """

    name = "token_f1"
    options_model = TokenF1Options

    def grade(
        self, output: str, reference: Any, opts: TokenF1Options, context: ScoringContext
    ) -> ScoreResult:
        references = _references(reference)
        ascii_only = opts.normalize != "unicode"
        words = squad_tokens(output, ascii_only)
        empty_same = opts.normalize != "squad_v1"
        if opts.normalize == "squad_v2":
            # evaluate-v2.0.py keeps the answers that normalise to some text, else ""
            references = [text for text in references if squad_tokens(text, True)] or [""]
        scored = [
            (_f1(words, squad_tokens(text, ascii_only), empty_same), text) for text in references
        ]
        (f1, precision, recall), best = max(scored, key=lambda item: item[0][0])
        passed = at_least(f1, opts.threshold)
        reason = (
            f"token F1 {shown_score(f1)} (precision {shown_score(precision)},"
            f" recall {shown_score(recall)})"
            f" against {excerpt(best)}"
        )
        if not passed:
            reason += f", below {opts.threshold:g}: got {excerpt(output)}"
        detail = {"precision": precision, "recall": recall, "reference": best}
        return ScoreResult(f1, passed, reason, detail)


_ARTICLES = re.compile(r"\b(?:a|an|the)\b")


def squad_tokens(text: str, ascii_only: bool = False) -> list[str]:
    """`text` lowercased, without punctuation (ASCII only, as SQuAD's scripts, or
    Unicode's too) and articles, split into words."""
    if not ascii_only:  # SQuAD's own scripts compare the text as it is
        text = unicodedata.normalize("NFKC", text)
    text = "".join(
        ch
        for ch in text.lower()
        if ch not in string.punctuation
        and (ascii_only or not unicodedata.category(ch).startswith("P"))
    )
    return _ARTICLES.sub(" ", text).split()


def _f1(words: list[str], wanted: list[str], empty_same: bool) -> tuple[float, float, float]:
    if not words or not wanted:
        # SQuAD v2.0 scores agreeing emptiness 1; v1.1 scores any empty side 0
        same = float(words == wanted and empty_same)
        return same, same, same
    common = sum((Counter(words) & Counter(wanted)).values())
    if not common:
        return 0.0, 0.0, 0.0
    precision, recall = common / len(words), common / len(wanted)
    return 2 * precision * recall / (precision + recall), precision, recall


class EditSimilarityOptions(_Options):
    threshold: float = Field(0.8, ge=0, le=1)
    ignore_case: bool = False
    normalize_whitespace: bool = True


class EditSimilarity(_Closeness[EditSimilarityOptions]):
    """The output is close to the reference in edit distance.

    The score is rapidfuzz's `Levenshtein.normalized_similarity`: 1 minus the
    edits needed (insertions, deletions, substitutions) over the longer text's
    length. Surrounding whitespace is ignored. A list of references scores
    against the closest one.
    Options: `threshold` (0.8): the similarity needed to pass; `ignore_case`
    (false); `normalize_whitespace` (true: runs of whitespace count as one space).
    """

    name = "edit_similarity"
    options_model = EditSimilarityOptions

    def grade(
        self, output: str, reference: Any, opts: EditSimilarityOptions, context: ScoringContext
    ) -> ScoreResult:
        references = _references(reference)
        from rapidfuzz.distance import Levenshtein  # loaded by the projects that use it

        got = _prepare(output, opts)
        similar = Levenshtein.normalized_similarity
        scored = [(similar(got, _prepare(t, opts)), t) for t in references]
        similarity, best = max(scored, key=lambda item: item[0])
        passed = at_least(similarity, opts.threshold)
        reason = f"edit similarity {shown_score(similarity)} to {excerpt(best)}"
        if not passed:
            reason += f", below {opts.threshold:g}: got {excerpt(output)}"
        return ScoreResult(similarity, passed, reason, {"reference": best})


def _prepare(text: str, opts: EditSimilarityOptions) -> str:
    text = canonical(text)
    text = " ".join(text.split()) if opts.normalize_whitespace else text.strip()
    return text.casefold() if opts.ignore_case else text
