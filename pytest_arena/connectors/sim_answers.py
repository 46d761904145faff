"""How a simulated model writes right answers, other surface forms, and wrong answers."""

from __future__ import annotations

import json
import random
import re
from typing import Any

from pytest_arena.spec.case import as_text

_MONEY = re.compile(
    r"^\s*(?:(?P<code1>USD|EUR|GBP)\s*)?(?P<sym>[$€£])?\s*(?P<num>\d{1,3}(?:,\d{3})+|\d+)"
    r"(?P<frac>\.\d+)?\s*(?P<code2>USD|EUR|GBP)?\s*$"
)
_NUMBER = re.compile(r"(?<![\w.])(\d{1,3}(?:,\d{3})+|\d+)(\.\d+)?(?![\w])")
_CODES = {"$": "USD", "€": "EUR", "£": "GBP"}
_FINAL = re.compile(r"####\s*")

OFF_TOPIC = (
    "I'm sorry, I can't help with that request.",
    "Could you clarify what you mean?",
    "As an AI model, I don't have access to that information.",
    "Here is a summary of the document: it discusses several topics in detail.",
    "The weather today is sunny with a light breeze.",
)


def variant(reference: Any, rng: random.Random) -> tuple[str, str]:
    """The right answer in another surface form, and the form's name."""
    text = as_text(reference)
    forms: list[tuple[str, str]] = []
    if isinstance(reference, dict):
        keys = list(reference)
        rng.shuffle(keys)
        if len(keys) > 1 and keys == list(reference):
            keys.reverse()
        shuffled = json.dumps({k: reference[k] for k in keys}, ensure_ascii=False)
        forms += [
            ("reordered_keys", shuffled),
            ("json_fence", f"```json\n{text}\n```"),
            ("pretty_json", json.dumps(reference, indent=2, ensure_ascii=False)),
        ]
    elif isinstance(reference, list):
        forms += [
            ("json_fence", f"```json\n{text}\n```"),
            ("pretty_json", json.dumps(reference, indent=2, ensure_ascii=False)),
        ]
    else:
        money = _MONEY.match(text) if isinstance(reference, str) else None
        if money and (money["sym"] or money["code1"] or money["code2"] or money["frac"]):
            whole = money["num"].replace(",", "")
            frac = money["frac"] or ""
            plain = whole if frac.strip(".0") == "" else whole + frac
            code = money["code1"] or money["code2"] or _CODES.get(money["sym"] or "", "USD")
            forms += [("bare_amount", plain), ("currency_code", f"{code} {plain}")]
            if len(whole) > 3:
                forms.append(("thousands", f"{int(whole):,}{frac}"))
        elif isinstance(reference, int | float) and not isinstance(reference, bool):
            if abs(reference) >= 1000:
                forms.append(("thousands", f"{reference:,}"))
            if isinstance(reference, int):
                forms.append(("decimal", f"{reference}.0"))
        forms += [
            ("answer_prefix", f"Answer: {text}"),
            ("fence", f"```\n{text}\n```"),
            ("sentence", f"The answer is {text}."),
        ]
    name, form = rng.choice(forms)
    return form, name


def wrong(reference: Any, rng: random.Random) -> tuple[str, str]:
    """A realistic wrong answer derived from the reference, and its kind."""
    if rng.random() < 0.1:
        return rng.choice(OFF_TOPIC), "off_topic"
    if isinstance(reference, bool):
        return json.dumps(not reference), "negated"
    if isinstance(reference, int | float):
        return as_text(_perturb_number(reference, rng)), "changed_number"
    if isinstance(reference, dict) and reference:
        return json.dumps(_wrong_mapping(reference, rng), ensure_ascii=False), "changed_field"
    if isinstance(reference, list) and reference:
        items = list(reference)
        if len(items) > 1 and rng.random() < 0.5:
            items.pop(rng.randrange(len(items)))
            return json.dumps(items, ensure_ascii=False), "missing_item"
        index = rng.randrange(len(items))
        items[index] = _wrong_value(items[index], rng)
        return json.dumps(items, ensure_ascii=False), "changed_item"
    text = as_text(reference) if reference is not None else ""
    if len(text) == 1 and text.isascii() and text.isalpha():  # a multiple-choice letter
        last = max("d", text.lower())
        others = [c for c in "abcdefghijklmnopqrstuvwxyz" if c <= last and c != text.lower()]
        pick = rng.choice(others)
        return (pick.upper() if text.isupper() else pick), "other_choice"
    numbers = list(_NUMBER.finditer(text))
    final = _FINAL.search(text)
    if final is not None:  # a worked solution ("… #### 72"): its answer comes out wrong
        numbers = [n for n in numbers if n.start() >= final.end()] or numbers
        return _change_number_in(text, numbers[0], rng), "changed_answer"
    if numbers:
        return _change_number_in(text, rng.choice(numbers), rng), "changed_number"
    words = text.split()
    if len(words) >= 6:
        keep = max(2, int(len(words) * rng.uniform(0.3, 0.6)))
        return " ".join(words[:keep]), "truncated"
    return rng.choice(OFF_TOPIC), "off_topic"


def _wrong_mapping(reference: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    out = dict(reference)
    key = rng.choice(list(out))
    if len(out) > 1 and rng.random() < 0.4:
        del out[key]
    else:
        out[key] = _wrong_value(out[key], rng)
    return out


def _wrong_value(value: Any, rng: random.Random) -> Any:
    if isinstance(value, bool):
        return not value
    if isinstance(value, int | float):
        return _perturb_number(value, rng)
    if isinstance(value, dict) and value:
        return _wrong_mapping(value, rng)
    if isinstance(value, str):
        changed, _ = wrong(value, rng)
        return changed if changed != value else value + "?"
    return None


def _perturb_number(value: float, rng: random.Random) -> float:
    if isinstance(value, int) and abs(value) < 20:
        step = rng.choice([-2, -1, 1, 2, 3])
        return value + (abs(step) if value + step < 0 <= value else step)
    factor = 1 + rng.choice([-1, 1]) * rng.uniform(0.05, 0.3)
    if isinstance(value, int):
        changed = round(value * factor)
        return changed if changed != value else value + 1
    return round(value * factor, 2)


def _change_number_in(text: str, match: re.Match[str], rng: random.Random) -> str:
    whole, frac = match.group(1), match.group(2) or ""
    value = int(whole.replace(",", ""))
    changed = _perturb_number(value, rng)
    digits = f"{int(changed):,}" if "," in whole else str(int(changed))
    return text[: match.start()] + digits + frac + text[match.end() :]


_TAG = re.compile(r"<(answer|reference)>\n(.*?)\n</\1>", re.S)
_WORDS = re.compile(r"[a-z0-9]+")
_ARTICLES = {"a", "an", "the"}
_JUDGE_PREFIXES = ("answer", "final", "is")


def judge_reply(prompt: str, right: bool, rng: random.Random, noise: float) -> tuple[str, str]:
    """A simulated judge's verdict on the answer in a judge prompt, and its surface form.

    It grades by how much of the reference the answer contains (recall, mostly) and,
    when it is not `right`, gets the verdict the wrong way round.
    """
    parts = {m.group(1): m.group(2) for m in _TAG.finditer(prompt)}
    answer = _tokens(parts.get("answer", ""))
    if "reference" in parts:
        reference = _tokens(parts["reference"])
        common = sum(min(answer.count(w), reference.count(w)) for w in set(reference))
        recall = common / len(reference) if reference else float(not answer)
        precision = common / len(answer) if answer else 0.0
        score = round(0.8 * recall + 0.2 * precision, 2)
        why = f"the answer holds {recall:.0%} of the reference"
    else:
        score, why = (0.7 if answer else 0.0), "no reference: judged on having an answer"
    passed = score >= 0.7
    if not right:
        score, passed = round(1 - score, 2), not passed
        why = "misread: " + why
    verdict = {"score": score, "passed": passed, "reason": why}
    text = json.dumps(verdict)
    if rng.random() >= noise:
        return text, "json"
    form = rng.choice(["fence", "prose", "python", "plain"])
    if form == "fence":
        return f"```json\n{json.dumps(verdict, indent=2)}\n```", form
    if form == "prose":
        return f"Here is my assessment.\n{text}\nLet me know if you need more.", form
    if form == "python":
        return repr(verdict), form
    return f"Score: {round(score * 10)}/10 - {'PASS' if passed else 'FAIL'}. {why}", form


def _tokens(text: str) -> list[str]:
    words = _WORDS.findall(text.lower().replace(",", ""))
    return [w for w in words if w not in _ARTICLES and w not in _JUDGE_PREFIXES]
