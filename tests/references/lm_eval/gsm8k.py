# Copied unmodified from EleutherAI/lm-evaluation-harness at commit
# 4e7e0d47f33bc71070c1d38394bafbb52b117163, under its MIT license (LICENSE.md):
# - RegexFilter: lm_eval/filters/extraction.py, lines 15-62
#   https://github.com/EleutherAI/lm-evaluation-harness/blob/4e7e0d47f33bc71070c1d38394bafbb52b117163/lm_eval/filters/extraction.py
# - exact_match_hf_evaluate: lm_eval/api/metrics.py, lines 194-243 (itself from Hugging Face
#   evaluate, under the Apache License 2.0, as its header below says)
# - the gsm8k task's filters and metric options: lm_eval/tasks/gsm8k/gsm8k.yaml, as Python
#   values below (the YAML's own text is in the comments beside them).
# Only `Filter` and `register_filter`, which RegexFilter names, are stand-ins here.
from __future__ import annotations

import re
import string
import sys
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence


class Filter:  # stand-in for lm_eval.api.filter.Filter
    pass


def register_filter(name):  # stand-in for lm_eval.api.registry.register_filter
    return lambda cls: cls


@register_filter("regex")
class RegexFilter(Filter):
    """A filter that extracts values from text using regex pattern matching.

    This filter applies a regex pattern to each model response and extracts matched values.
    If no match is found, returns a fallback value. Useful for extracting structured data
    (like numbers) from unstructured model outputs.
    """

    def __init__(
        self,
        regex_pattern: str = r"#### (\-?[0-9\.\,]+)",
        group_select: int = 0,
        fallback: str = "[invalid]",
    ) -> None:
        """Compile `regex_pattern` and set the fallback for non-matches.

        `fallback` defines the output returned if no matches for the regex are located.
        """
        self.regex_pattern = regex_pattern
        self.regex = re.compile(regex_pattern)
        self.group_select = group_select
        self.fallback = fallback

    def apply(
        self, resps: Iterable[Sequence[str]], docs: Sequence[dict[str, Any]]
    ) -> Iterable[list[str]]:
        def filter_set(inst: Sequence[str]) -> list[str]:
            filtered = []
            for resp in inst:
                if not isinstance(resp, str):
                    resp = ""
                match = self.regex.findall(resp)
                if match:
                    match = match[self.group_select]
                    if isinstance(match, tuple):
                        match = [m for m in match if m]
                        if match:
                            match = match[0]
                        else:
                            match = self.fallback
                    match = match.strip()
                else:
                    match = self.fallback
                filtered.append(match)
            return filtered

        return [filter_set(x) for x in resps]


### which is under the apache license.

# Copyright 2020 The HuggingFace Datasets Authors and the current dataset script contributor.

# Licensed under the Apache License, Version 2.0 (the "License");
# you may not use this file except in compliance with the License.
# You may obtain a copy of the License at

#     http://www.apache.org/licenses/LICENSE-2.0


# Unless required by applicable law or agreed to in writing, software
# distributed under the License is distributed on an "AS IS" BASIS,
# WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
# See the License for the specific language governing permissions and
# limitations under the License.
def exact_match_hf_evaluate(
    predictions,
    references,
    regexes_to_ignore=None,
    ignore_case=False,
    ignore_punctuation=False,
    ignore_numbers=False,
):
    if regexes_to_ignore is not None:
        for s in regexes_to_ignore:
            predictions = np.array([re.sub(s, "", x) for x in predictions])
            references = np.array([re.sub(s, "", x) for x in references])
    else:
        predictions = np.asarray(predictions)
        references = np.asarray(references)

    if ignore_case:
        predictions = np.char.lower(predictions)
        references = np.char.lower(references)

    if ignore_punctuation:
        repl_table = string.punctuation.maketrans("", "", string.punctuation)
        predictions = np.char.translate(predictions, table=repl_table)
        references = np.char.translate(references, table=repl_table)

    if ignore_numbers:
        repl_table = string.digits.maketrans("", "", string.digits)
        predictions = np.char.translate(predictions, table=repl_table)
        references = np.char.translate(references, table=repl_table)

    score_list = predictions == references

    return {"exact_match": np.mean(score_list)}



# gsm8k.yaml, filter_list:
#   - name: "strict-match"
#     filter:
#       - function: "regex"
#         regex_pattern: "#### (\\-?[0-9\\.\\,]+)"
#       - function: "take_first"
#   - name: "flexible-extract"
#     filter:
#       - function: "regex"
#         group_select: -1
#         regex_pattern: "(-?[$0-9.,]{2,})|(-?[0-9]+)"
#       - function: "take_first"
STRICT_MATCH = RegexFilter(regex_pattern="#### (\\-?[0-9\\.\\,]+)")
FLEXIBLE_EXTRACT = RegexFilter(group_select=-1, regex_pattern="(-?[$0-9.,]{2,})|(-?[0-9]+)")

# gsm8k.yaml, metric_list:
#   - metric: exact_match
#     ignore_case: true
#     ignore_punctuation: false
#     regexes_to_ignore:
#       - ","
#       - "\\$"
#       - "(?s).*#### "
#       - "\\.$"
EXACT_MATCH_OPTIONS = dict(
    regexes_to_ignore=[",", "\\$", "(?s).*#### ", "\\.$"],
    ignore_case=True,
    ignore_punctuation=False,
)
