"""Images in chat messages: the arena form (`{image: FILE_OR_URL, alt: ...}`) made into
OpenAI's content parts, with files sent inline as base64, and the text a part stands for."""

from __future__ import annotations

import base64
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from pytest_arena.spec.errors import SpecError
from pytest_arena.spec.text_files import is_file

MEDIA_TYPES = {
    ".png": "image/png",
    ".jpg": "image/jpeg",
    ".jpeg": "image/jpeg",
    ".gif": "image/gif",
    ".webp": "image/webp",
}
MAX_IMAGE_BYTES = 20 * 1024 * 1024  # what OpenAI and Anthropic accept at most, about
REMOTE = ("http://", "https://", "data:")
IMAGE_TOKENS = 85  # what the simulated models count an image as (OpenAI's low detail)


class ImageProblem(ValueError):
    """An image part that cannot be sent; the message says why and the fix."""

    def __init__(self, message: str, hint: str) -> None:
        super().__init__(message)
        self.hint = hint


def image_part(source: str, root: Path, alt: str | None, detail: str | None) -> dict[str, Any]:
    """The OpenAI content part for `source`: a URL as it is, a file of the project (relative
    to `root`) read now and sent as a base64 data URL. ImageProblem if the file cannot be."""
    if source.startswith(REMOTE):
        url = source
    else:
        path = root / source
        media = MEDIA_TYPES.get(path.suffix.lower())
        if media is None:
            raise ImageProblem(
                f"image '{source}' is not a PNG, JPEG, GIF or WebP file (by its suffix)",
                "name a .png, .jpg, .gif or .webp file, or give an http(s) URL",
            )
        try:
            if not is_file(path):
                raise ImageProblem(
                    f"image file '{source}' does not exist (looked in {root})",
                    "paths are relative to the folder holding arena.yaml",
                )
            data = path.read_bytes()
        except SpecError as exc:  # a folder on its way that cannot be entered
            (problem,) = exc.problems
            raise ImageProblem(f"image file '{source}': {problem.message}", problem.hint) from None
        except OSError as exc:  # the file itself cannot be read
            raise ImageProblem(
                f"image file '{source}': cannot read the file: {exc.strerror or exc}",
                "let the file be read (chmod u+r)",
            ) from None
        if len(data) > MAX_IMAGE_BYTES:
            raise ImageProblem(
                f"image file '{source}' is {len(data) / 2**20:.1f} MiB ({len(data):,} bytes);"
                f" providers take up to {MAX_IMAGE_BYTES // 2**20} MiB",
                "make the image smaller",
            )
        url = f"data:{media};base64,{base64.b64encode(data).decode('ascii')}"
    image: dict[str, Any] = {"url": url}
    if detail is not None:
        image["detail"] = detail
    part: dict[str, Any] = {"type": "image_url", "image_url": image}
    if alt is not None:
        part["alt"] = alt
    return part


def content_text(content: Any) -> str:
    """The text of a message's content: a string as it is; of parts, the text parts joined,
    each image as `[image: its alt text]`."""
    if isinstance(content, str):
        return content
    if not isinstance(content, Sequence):
        return ""
    out = []
    for part in content:
        if not isinstance(part, Mapping):
            continue
        if part.get("type") == "text":
            out.append(str(part.get("text", "")))
        elif part.get("type") == "image_url":
            out.append(f"[image: {part.get('alt') or 'no description'}]")
    return "\n".join(out)


def image_count(messages: Sequence[Mapping[str, Any]]) -> int:
    return sum(
        1
        for m in messages
        if isinstance(m.get("content"), list)
        for p in m["content"]
        if isinstance(p, Mapping) and p.get("type") == "image_url"
    )


def without_alt(messages: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """The messages as OpenAI takes them: image parts without arena's `alt`."""
    out = []
    for m in messages:
        content = m.get("content")
        if isinstance(content, list):
            content = [
                {k: v for k, v in p.items() if k != "alt"} if isinstance(p, Mapping) else p
                for p in content
            ]
        out.append({**m, "content": content})
    return out


def anthropic_content(content: Any) -> Any:
    """A message's content in Anthropic's form: text stays text; parts become text blocks
    and image blocks (a data URL as a base64 source, any other URL as a url source)."""
    if not isinstance(content, list):
        return content
    blocks: list[dict[str, Any]] = []
    for part in content:
        if part.get("type") == "text":
            blocks.append({"type": "text", "text": part.get("text", "")})
        elif part.get("type") == "image_url":
            url = str(part["image_url"]["url"])
            if url.startswith("data:"):
                head, _, data = url.partition(",")
                media = head.removeprefix("data:").split(";")[0]
                source = {"type": "base64", "media_type": media, "data": data}
            else:
                source = {"type": "url", "url": url}
            blocks.append({"type": "image", "source": source})
    return blocks


def shortened(messages: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """The messages as records keep them: an inline image's base64 replaced by its size."""
    out = []
    for m in messages:
        content = m.get("content")
        if isinstance(content, list):
            content = [_short(p) for p in content]
        out.append({**m, "content": content})
    return out


def _short(part: Any) -> Any:
    if not isinstance(part, Mapping) or part.get("type") != "image_url":
        return part
    url = str(part["image_url"].get("url", ""))
    if not url.startswith("data:"):
        return dict(part)
    head, _, data = url.partition(",")
    size = len(data) * 3 // 4 - (len(data) - len(data.rstrip("=")))  # less the padding
    return {**part, "image_url": {**part["image_url"], "url": f"{head},... ({size} bytes)"}}
