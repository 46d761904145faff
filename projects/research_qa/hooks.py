"""Puts the case's source documents into the prompt, as a retriever would.

Each case names its sources in its metadata ("doc1;doc3"); their text comes from
corpus/<id>.md and is appended to the question, each under its id in brackets.
"""

from pathlib import Path

CORPUS = "corpus"


def source_ids(case):
    value = case.metadata.get("sources", "")
    items = value.split(";") if isinstance(value, str) else value
    return [str(item).strip() for item in items if str(item).strip()]


def pre_request(request, case, context):
    root = Path(context.project_root) / CORPUS
    blocks = []
    for doc_id in source_ids(case):
        path = root / f"{doc_id}.md"
        if not path.is_file():
            raise FileNotFoundError(
                f"case '{case.id}' names source {doc_id}, but {path} is missing"
            )
        blocks.append(f"[{doc_id}]\n{path.read_text(encoding='utf-8').strip()}")
    if blocks:
        request.messages[-1]["content"] += "\n\nSources:\n\n" + "\n\n".join(blocks)
    return request
