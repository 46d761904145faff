"""Images in chat messages: the arena form (`{image: FILE_OR_URL, alt: ...}`) made into
OpenAI's content parts, with files sent inline as base64, and the text a part stands for."""

from __future__ import annotations

import base64
import binascii
import os
from collections import OrderedDict
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
REMOTE = ("http://", "https://", "data:")  # a URL's scheme, in any case (RFC 3986)
IMAGE_TOKENS = 85  # what the simulated models count an image as (OpenAI's low detail)


class ImageProblem(ValueError):
    """An image part that cannot be sent; the message says why and the fix."""

    def __init__(self, message: str, hint: str) -> None:
        super().__init__(message)
        self.hint = hint


def image_part(source: str, root: Path, alt: str | None, detail: str | None) -> dict[str, Any]:
    """The OpenAI content part for `source`: a URL as it is (its scheme in small letters), a
    file of the project (relative to `root`) read now (once a run: cases that show it share
    its text) and sent as a base64 data URL of the type its first bytes say. ImageProblem if
    the file cannot be, or holds no PNG, JPEG, GIF or WebP image."""
    if is_data_url(source):
        url = checked_data_url(source)
    elif is_url(source):
        scheme, colon, rest = source.partition(":")
        url = scheme.lower() + colon + rest  # `HTTPS:` as providers expect it: `https:`
    else:
        path = root / source
        if path.suffix.lower() not in MEDIA_TYPES:
            raise ImageProblem(
                f"image '{source}' is not a PNG, JPEG, GIF or WebP file (by its suffix)",
                "name a .png, .jpg, .gif or .webp file, or give an http(s) URL",
            )
        url = _data_url(source, path, root)
    image: dict[str, Any] = {"url": url}
    if detail is not None:
        image["detail"] = detail
    part: dict[str, Any] = {"type": "image_url", "image_url": image}
    if alt is not None:
        part["alt"] = alt
    return part


def is_url(source: str) -> bool:
    """Whether `source` is an http(s) or data URL rather than a file: its scheme written in
    any case (`HTTPS://`, `Data:`), as URLs' schemes are (RFC 3986)."""
    return source[:8].lower().startswith(REMOTE)


def is_data_url(url: str) -> bool:
    """Whether `url` is a data URL (the image itself, inline), `data:` in any case."""
    return url[:5].lower() == "data:"


_DATA_URL_FIX = (
    "write it as a base64 data URL of a PNG, JPEG, GIF or WebP image"
    " (data:image/png;base64,...), or give the image's file instead"
)


def checked_data_url(source: str) -> str:
    """The data URL `source` as providers take it (`data:<media type>;base64,<data>`, in
    small letters up to the comma, of the type its bytes say); ImageProblem for one of
    another form (not base64, a type providers do not take), invalid base64 or no image."""
    head, comma, data = source.partition(",")
    shown = f"{head[:40]},{data[:12]}..." if comma else source[:52]
    params = [p.strip().lower() for p in head[5:].split(";")]
    media = params[0]
    if comma and params[-1] == "base64" and len(params) > 2:
        raise ImageProblem(
            f"image data URL '{shown}' has parameters besides its type and ';base64'"
            f" ({';'.join(params[1:-1])})",
            _DATA_URL_FIX,
        )
    if not comma or params[1:] != ["base64"]:
        raise ImageProblem(
            f"image data URL '{shown}' is not base64-encoded (it needs ';base64' just before"
            " its comma)",
            _DATA_URL_FIX,
        )
    if media not in MEDIA_TYPES.values() and media != "image/jpg":  # (JPEG's usual slip)
        what = f"is of type {media}" if media else "has no media type"
        raise ImageProblem(
            f"image data URL '{shown}' {what}; providers take image/png, image/jpeg,"
            " image/gif or image/webp",
            _DATA_URL_FIX,
        )
    try:
        image = base64.b64decode(data, validate=True)
    except (binascii.Error, ValueError) as exc:  # ValueError: a character not ASCII
        raise ImageProblem(
            f"image data URL '{shown}' does not hold valid base64 ({exc})", _DATA_URL_FIX
        ) from None
    if len(image) > MAX_IMAGE_BYTES:
        raise ImageProblem(
            f"image data URL '{shown}' holds {len(image) / 2**20:.1f} MiB ({len(image):,}"
            f" bytes); providers take up to {MAX_IMAGE_BYTES // 2**20} MiB",
            "make the image smaller",
        )
    real = image_type(image)
    if real is None:
        what, _ = _not_an_image(image)
        raise ImageProblem(f"image data URL '{shown}' {what}", _DATA_URL_FIX)
    return f"data:{real};base64,{data}"  # as its bytes say, as a file's is sent


# data URLs made this run, by file (its real path, inode, times and size): 200 cases that
# show one chart share its text rather than each holding a copy (1 GiB for a 5 MiB chart)
_ENCODED: OrderedDict[tuple[str, int, int, int, int], str] = OrderedDict()
_ENCODED_MAX = 512 * 2**20  # characters kept at most; the oldest go first


def _data_url(source: str, path: Path, root: Path) -> str:
    """The data URL of the image file `path` (written `source`), made once per version of
    the file; ImageProblem if it cannot be read or holds no image."""
    try:
        if not is_file(path):
            raise ImageProblem(
                f"image file '{source}' does not exist (looked in {root})",
                "paths are relative to the folder holding arena.yaml",
            )
        stat = path.stat()
        key = (
            os.path.realpath(path),
            stat.st_ino,
            stat.st_mtime_ns,
            stat.st_ctime_ns,
            stat.st_size,
        )
        if key in _ENCODED:
            _ENCODED.move_to_end(key)
            return _ENCODED[key]
        if stat.st_size > MAX_IMAGE_BYTES:
            raise _too_large(source, stat.st_size)
        data = path.read_bytes()
    except SpecError as exc:  # a folder on its way that cannot be entered
        (problem,) = exc.problems
        raise ImageProblem(f"image file '{source}': {problem.message}", problem.hint) from None
    except OSError as exc:  # the file itself cannot be read
        raise ImageProblem(
            f"image file '{source}': cannot read the file: {exc.strerror or exc}",
            "let the file be read (chmod u+r)",
        ) from None
    if len(data) > MAX_IMAGE_BYTES:  # it grew since
        raise _too_large(source, len(data))
    media = image_type(data)
    if media is None:
        what, hint = _not_an_image(data)
        raise ImageProblem(f"image file '{source}' {what}", hint)
    url = f"data:{media};base64,{base64.b64encode(data).decode('ascii')}"
    _ENCODED[key] = url
    total = sum(len(kept) for kept in _ENCODED.values())
    while total > _ENCODED_MAX and len(_ENCODED) > 1:
        total -= len(_ENCODED.popitem(last=False)[1])
    return url


def _too_large(source: str, size: int) -> ImageProblem:
    return ImageProblem(
        f"image file '{source}' is {size / 2**20:.1f} MiB ({size:,} bytes);"
        f" providers take up to {MAX_IMAGE_BYTES // 2**20} MiB",
        "make the image smaller",
    )


def image_type(data: bytes) -> str | None:
    """The media type of an image in `data`, by its first bytes (whatever the file's suffix
    says): PNG, JPEG, GIF or WebP, which providers take; None for anything else."""
    if data.startswith(b"\x89PNG\r\n\x1a\n"):
        return "image/png"
    if data.startswith(b"\xff\xd8\xff"):
        return "image/jpeg"
    if data.startswith((b"GIF87a", b"GIF89a")):
        return "image/gif"
    if data.startswith(b"RIFF") and data[8:12] == b"WEBP":
        return "image/webp"
    return None


_FIX = "convert it to PNG, JPEG, GIF or WebP, and name that file"
_OTHER_IMAGES = (  # (first bytes, where, what) of images providers do not take
    (b"BM", 0, "a BMP image"),
    (b"II*\x00", 0, "a TIFF image"),
    (b"MM\x00*", 0, "a TIFF image"),
    (b"ftypheic", 4, "a HEIC image (as iPhones take photos)"),
    (b"ftypheix", 4, "a HEIC image (as iPhones take photos)"),
    (b"ftypmif1", 4, "a HEIF image"),
    (b"ftypavif", 4, "an AVIF image"),
    (b"\x00\x00\x01\x00", 0, "an ICO icon"),
)


def _not_an_image(data: bytes) -> tuple[str, str]:
    """What `data`, which is no PNG, JPEG, GIF or WebP image, is instead, and the fix."""
    if not data:
        return "is empty (0 bytes), not an image", "save the image into it again"
    if data.startswith(b"version https://git-lfs.github.com/spec/"):
        return (
            "is a Git LFS pointer, not the image: the image itself was never downloaded",
            "run git lfs pull (in CI: check out with LFS files, e.g. actions/checkout's lfs: true)",
        )
    for magic, at, what in _OTHER_IMAGES:
        if data[at : at + len(magic)] == magic:
            return f"is {what}, which providers do not take", _FIX
    head = data[:512].lstrip(b"\xef\xbb\xbf \t\r\n").lower()
    if head.startswith((b"<svg", b"<?xml")) and b"<svg" in head:
        return "is an SVG drawing, which providers do not take", _FIX
    if head.startswith((b"<!doctype html", b"<html")):
        return (
            "is an HTML page, not an image (a download that saved the page that links to it?)",
            "download the image itself into the file",
        )
    first = " ".join(f"{byte:02x}" for byte in data[:8])
    return (
        f"is not a PNG, JPEG, GIF or WebP image (its first bytes are {first})",
        "check that the file holds the image its name says: " + _FIX,
    )


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
            if is_data_url(url):
                head, _, data = url.partition(",")
                media = head[5:].split(";")[0].lower()
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
    if not is_data_url(url):
        return dict(part)
    head, _, data = url.partition(",")
    size = len(data) * 3 // 4 - (len(data) - len(data.rstrip("=")))  # less the padding
    return {**part, "image_url": {**part["image_url"], "url": f"{head},... ({size} bytes)"}}
