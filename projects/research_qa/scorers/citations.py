"""Is every sentence of the answer backed by a source the model was given?

The answer cites its sources in brackets, as in "ENIAC was announced in 1946 [doc3].".
The case's metadata says what a good answer must contain and may cite, as text split
on ';' (that is how a CSV dataset's extra columns arrive) or as lists:

    sources: "doc3;doc4"        # the documents the model was given
    facts: "1946;firing tables" # phrases a correct answer contains

The scorer emits two leaderboard metrics:

    citation_rate      cited sentences / sentences
    hallucinated_refs  distinct cited ids that are not among the sources

The score is `citation_rate * share of facts present`, or 0 when the answer cites a
source it was not given. An answer passes when it holds every fact, cites no unknown
source, and cites at least `floor` (default 0.8) of its sentences:

    scorers:
      options:
        citations:
          floor: 0.8
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from pytest_arena.scorers import Scorer, ScoreResult, ScoringContext

_BRACKETS = re.compile(r"\[([^\[\]\n]+)\]")
_REF = re.compile(r"[A-Za-z][A-Za-z_-]*\d+")
# a sentence ends at . ! or ? (with the citations right after it) before a space,
# or at a line break
_SENTENCE_END = re.compile(r"[.!?]+(?:\s*\[[^\[\]\n]*\])*(?=\s|$)|\n+")
_LETTER = re.compile(r"[^\W\d_]")


def sentences(text: str) -> list[str]:
    """The sentences of `text`; lines without a letter (fences, rules) are not sentences."""
    found, start = [], 0
    for match in _SENTENCE_END.finditer(text):
        found.append(text[start : match.end()])
        start = match.end()
    found.append(text[start:])
    return [s.strip() for s in found if _LETTER.search(s)]


def refs(text: str) -> list[str]:
    """The source ids cited in `text`, in order: "[doc1]", "[doc1][doc2]", "[doc1, doc2]"."""
    cited = []
    for group in _BRACKETS.findall(text):
        parts = [p.strip() for p in re.split(r"[,;]", group)]
        if parts and all(_REF.fullmatch(p) for p in parts):
            cited.extend(parts)
    return cited


def listed(metadata: Mapping[str, Any], key: str) -> list[str] | None:
    """A metadata list, given as a list or as text split on ';'; None when absent."""
    value = metadata.get(key)
    if value is None:
        return None
    items = value.split(";") if isinstance(value, str) else [str(v) for v in value]
    return [item.strip() for item in items if item.strip()]


def _squash(text: str) -> str:
    return " ".join(text.split()).casefold()


class CitationsScorer(Scorer):
    name = "citations"

    def score(self, output: str, reference: Any, context: ScoringContext) -> ScoreResult:
        floor = float(context.options.get("floor", 0.8))
        metadata = context.test_case.metadata if context.test_case is not None else {}
        allowed = listed(metadata, "sources")
        facts = listed(metadata, "facts") or []

        parts = sentences(output)
        cited = [s for s in parts if refs(s)]
        citation_rate = len(cited) / len(parts) if parts else 0.0
        unknown = []
        if allowed is not None:
            known = {a.casefold() for a in allowed}
            for ref in refs(output):
                if ref.casefold() not in known and ref not in unknown:
                    unknown.append(ref)
        text = _squash(output)
        missing = [f for f in facts if _squash(f) not in text]
        fact_share = (len(facts) - len(missing)) / len(facts) if facts else 1.0

        score = 0.0 if unknown else citation_rate * fact_share
        passed = not unknown and not missing and bool(parts) and citation_rate >= floor

        noun = "sentence" if len(parts) == 1 else "sentences"
        cited_text = f"{len(cited)} of {len(parts)} {noun} cited"
        if parts and citation_rate < floor:
            cited_text += f" ({citation_rate:.2f}, below the floor {floor:.2f})"
        facts_text = (
            f"missing fact{'s' if len(missing) > 1 else ''} {_quoted(missing)}"
            if missing
            else f"{len(facts)} of {len(facts)} fact{'s' if len(facts) > 1 else ''} present"
            if facts
            else ""
        )
        findings = [cited_text if parts else "the answer has no sentences", facts_text]
        if missing:
            findings.reverse()
        if unknown:
            sources = ", ".join(allowed or [])
            findings.insert(0, f"cites {', '.join(unknown)}, not among the sources {sources}")
        return ScoreResult(
            score=score,
            passed=passed,
            reason="; ".join(f for f in findings if f),
            detail={
                "sentences": len(parts),
                "cited": len(cited),
                "uncited": [s for s in parts if not refs(s)],
                "unknown_refs": unknown,
                "missing_facts": missing,
                "fact_share": fact_share,
            },
            metrics={"citation_rate": citation_rate, "hallucinated_refs": len(unknown)},
        )


def _quoted(items: list[str]) -> str:
    return ", ".join(f"'{item}'" for item in items)
