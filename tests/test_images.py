"""Images in chat input: arena's form and OpenAI's, sent to OpenAI and Anthropic in their
own formats, read by the sims, in the cache key; bad or refused images said clearly."""

from __future__ import annotations

import base64
import json
import re
from pathlib import Path

import pytest

from pytest_arena.spec import load_project
from pytest_arena.spec.images import ImageProblem, image_part
from tests.conftest import MakeProject
from tests.fake_llm_server import FakeLLMServer

SECRET = "sk-image-secret-4242"
PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="
)


def photo(openai_url: str, anthropic_url: str, models: str, extra: str = "") -> str:
    return f"""
models:
  default: [{models}]
  define:
    gpt:
      connector: openai
      base_url: {openai_url}
      api_key_env: ARENA_IMAGE_KEY
      model: vision
      max_retries: 0
    claude:
      connector: anthropic
      base_url: {anthropic_url}
      api_key_env: ARENA_IMAGE_KEY
      model: vision
      max_retries: 0
tests:
  - id: bike
    input:
      - role: user
        content:
          - {{type: text, text: "[[answer=a red bicycle]] What is in the picture?"}}
          - {{image: images/bike.png, alt: a red bicycle against a wall}}
          - {{type: image_url, image_url: {{url: "https://example.com/cat.png", detail: low}}}}
    reference: a red bicycle
{extra}"""


@pytest.fixture
def server(fake_llm: FakeLLMServer, monkeypatch: pytest.MonkeyPatch) -> FakeLLMServer:
    monkeypatch.setenv("ARENA_IMAGE_KEY", SECRET)
    fake_llm.reset()
    return fake_llm


def test_an_image_reaches_openai_and_anthropic_in_their_own_forms(
    pytester: pytest.Pytester, make_project: MakeProject, server: FakeLLMServer
) -> None:
    root = make_project("pics", photo(server.base_url, server.root_url, "gpt, claude, sim_large"))
    (root / "images").mkdir()
    (root / "images" / "bike.png").write_bytes(PNG)
    report = pytester.path / "report.json"
    result = pytester.runpytest("-p", "no:cacheprovider", f"--arena-json={report}", "-v")
    result.assert_outcomes(passed=3)
    data = base64.b64encode(PNG).decode()
    openai = next(
        b
        for b in server.bodies
        if "messages" in b and b["model"] == "vision" and "max_tokens" not in b
    )
    assert openai["messages"][0]["content"] == [
        {"type": "text", "text": "[[answer=a red bicycle]] What is in the picture?"},
        {"type": "image_url", "image_url": {"url": f"data:image/png;base64,{data}"}},
        {"type": "image_url", "image_url": {"url": "https://example.com/cat.png", "detail": "low"}},
    ]
    anthropic = next(b for b in server.bodies if "max_tokens" in b)
    assert anthropic["messages"][0]["content"] == [
        {"type": "text", "text": "[[answer=a red bicycle]] What is in the picture?"},
        {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": data}},
        {"type": "image", "source": {"type": "url", "url": "https://example.com/cat.png"}},
    ]
    records = json.loads(report.read_text())["records"]
    sent = json.dumps([r["messages"] for r in records])
    assert data not in sent and f"data:image/png;base64,... ({len(PNG)} bytes)" in sent


def test_the_sims_answer_as_if_they_saw_the_described_image(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    make_project(
        "seen",
        """
        models: [sim_echo]
        tests:
          - id: look
            input:
              - role: user
                content:
                  - {type: text, text: "Describe it."}
                  - {type: image_url, image_url: {url: "https://example.com/x.png"}, alt: a lighthouse at dusk}
            reference: "Describe it.\\n[image: a lighthouse at dusk]"
        """,
    )
    pytester.runpytest().assert_outcomes(passed=1)


def test_the_cache_key_covers_the_image_bytes(
    pytester: pytest.Pytester, make_project: MakeProject, server: FakeLLMServer
) -> None:
    root = make_project("pics", photo(server.base_url, server.root_url, "gpt"))
    (root / "images").mkdir()
    image = root / "images" / "bike.png"
    image.write_bytes(PNG)
    pytester.runpytest("-p", "no:cacheprovider").assert_outcomes(passed=1)
    assert server.total == 1
    pytester.runpytest("-p", "no:cacheprovider").assert_outcomes(passed=1)
    assert server.total == 1  # answered from the cache
    image.write_bytes(PNG + b"\0")  # the same file name, other bytes
    pytester.runpytest("-p", "no:cacheprovider").assert_outcomes(passed=1)
    assert server.total == 2


def test_a_provider_refusing_images_names_the_case(
    pytester: pytest.Pytester, make_project: MakeProject, server: FakeLLMServer
) -> None:
    text = photo(server.base_url, server.root_url, "gpt, claude").replace(
        "[[answer=a red bicycle]]", "[[fault=400 about=image]]"
    )
    root = make_project("pics", text)
    (root / "images").mkdir()
    (root / "images" / "bike.png").write_bytes(PNG)
    result = pytester.runpytest("-p", "no:cacheprovider")
    result.assert_outcomes(failed=2)
    result.stdout.fnmatch_lines(
        [
            "*HTTP 400: the model refused the image input of case 'bike': fake failure 400:"
            " image input is not supported by this model; use a model that reads images,"
            " or keep this case off this model with 'models:' on the case*"
        ]
    )
    assert SECRET not in result.stdout.str()


def test_a_missing_image_file_is_an_error_at_its_line(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    make_project(
        "pics",
        """
        models: [sim_perfect]
        tests:
          - id: ok
            input: hello
            reference: hello
          - id: gone
            input:
              - role: user
                content:
                  - {type: text, text: "What is it?"}
                  - {image: images/nope.png}
        """,
    )
    result = pytester.runpytest()
    result.assert_outcomes(passed=1, errors=1)
    result.stdout.fnmatch_lines(
        [
            "*projects/pics/arena.yaml:11: input[[]0[]].content[[]1[]]: image file"
            " 'images/nope.png' does not exist (looked in *)",
            "*fix: paths are relative to the folder holding arena.yaml",
        ]
    )


def test_a_content_part_of_no_known_shape_is_said_plainly(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    make_project(
        "pics",
        """
        models: [sim_large]
        tests:
          - id: odd
            input:
              - role: user
                content:
                  - {type: picture, url: x.png}
        """,
    )
    result = pytester.runpytest()
    result.assert_outcomes(errors=1)
    out = result.stdout.str()
    assert "valid string" not in out
    result.stdout.fnmatch_lines(
        ["*arena.yaml:7: *a content part is {type: text, text: ...}, {type: image_url,*"]
    )


def test_an_image_over_the_limit_says_its_size_plainly(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    """A file of 20,972,528 bytes was "20 MiB; providers take up to 20 MiB"."""
    root = make_project(
        "pics",
        """
        models: [sim_perfect]
        tests:
          - id: big
            input:
              - role: user
                content:
                  - {type: text, text: "What is it?"}
                  - {image: huge.png}
        """,
    )
    (root / "huge.png").write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(20 * 2**20 + 1000))
    result = pytester.runpytest()
    result.stdout.fnmatch_lines(
        ["*image file 'huge.png' is 20.0 MiB (20,972,528 bytes); providers take up to 20 MiB*"]
    )


LFS_POINTER = (
    b"version https://git-lfs.github.com/spec/v1\n"
    b"oid sha256:4d7a214614ab2935c943f9e0ff69d22eadbb8f32b1258daaa5e2ca24d17e2393\nsize 12345\n"
)


def test_an_image_file_that_holds_no_image_says_what_it_is(
    pytester: pytest.Pytester, make_project: MakeProject
) -> None:
    """A chart.png that Git LFS left as its pointer (text) was sent as an image, and passed on
    the sims."""
    root = make_project(
        "pics",
        """
        models: [sim_perfect]
        tests:
          - {id: ok, input: hello, reference: hello}
          - id: lfs
            input:
              - role: user
                content:
                  - {type: text, text: "What is in the picture?"}
                  - {image: chart.png, alt: a chart}
            reference: a chart
            eval_type: contains
        """,
    )
    (root / "chart.png").write_bytes(LFS_POINTER)
    result = pytester.runpytest("-p", "no:cacheprovider")
    result.assert_outcomes(passed=1, errors=1)
    result.stdout.fnmatch_lines(
        [
            "projects/pics/arena.yaml:9: input[[]0[]].content[[]1[]]: image file 'chart.png' is"
            " a Git LFS pointer, not the image*",
            "  fix: run git lfs pull*",
        ]
    )


@pytest.mark.parametrize(
    ("content", "said"),
    [
        (b"<!DOCTYPE html><html><body>Not found</body></html>", "is an HTML page, not an image"),
        (b"BM" + bytes(60), "is a BMP image, which providers do not take"),
        (b'<?xml version="1.0"?>\n<svg xmlns="http://www.w3.org/2000/svg"/>', "is an SVG drawing"),
        (b"", "is empty (0 bytes)"),
        (
            b"\x00\x01\x02\x03junk",
            "is not a PNG, JPEG, GIF or WebP image (its first bytes are 00 01",
        ),
    ],
)
def test_a_file_named_as_an_image_is_checked_by_its_first_bytes(
    tmp_path: Path, content: bytes, said: str
) -> None:
    (tmp_path / "a.png").write_bytes(content)
    with pytest.raises(ImageProblem, match=re.escape(f"image file 'a.png' {said}")):
        image_part("a.png", tmp_path, None, None)


def test_an_image_is_sent_as_the_type_its_bytes_say(tmp_path: Path) -> None:
    (tmp_path / "photo.png").write_bytes(b"\xff\xd8\xff\xe0" + bytes(16))  # a JPEG named .png
    part = image_part("photo.png", tmp_path, None, None)
    assert part["image_url"]["url"].startswith("data:image/jpeg;base64,")


def test_an_image_that_many_cases_show_is_read_and_encoded_once(tmp_path: Path) -> None:
    """200 rows showing one 5 MB chart each held their own base64 copy of it: --co took
    1.4 GB. A new version of the file is read again."""
    chart = tmp_path / "chart.png"
    chart.write_bytes(PNG + bytes(100_000))
    row = {
        "input": [
            {"role": "user", "content": [{"type": "text", "text": "?"}, {"image": "chart.png"}]}
        ],
        "reference": "x",
    }
    (tmp_path / "r.jsonl").write_text("".join(json.dumps(row) + "\n" for _ in range(200)))
    (tmp_path / "arena.yaml").write_text("datasets: [r.jsonl]\n")

    def urls() -> list[str]:
        project = load_project(tmp_path / "arena.yaml")
        return [case.input[0]["content"][1]["image_url"]["url"] for case in project.cases]

    first = urls()
    assert len(first) == 200 and all(url is first[0] for url in first)
    chart.write_bytes(PNG + bytes(100_001))
    (again,) = set(urls())
    assert again != first[0] and base64.b64decode(again.partition(",")[2]).endswith(bytes(100_001))


def test_an_image_in_a_system_message_fails_on_anthropic_and_is_not_sent_as_its_alt(
    pytester: pytest.Pytester, make_project: MakeProject, server: FakeLLMServer
) -> None:
    """Anthropic's `system` field takes text alone: the image went there as its alt text
    ("[image: ref pic]") while the record showed the image. OpenAI takes it as it is."""
    project = photo(server.base_url, server.root_url, "gpt, claude").split("tests:")[0]
    make_project(
        "pics",
        project
        + """
tests:
  - id: ref
    input:
      - role: system
        content:
          - {type: text, text: "Look at this reference image"}
          - {image: "https://example.com/ref.png", alt: ref pic}
      - {role: user, content: "[[answer=same]] Is the next one the same?"}
    reference: same
""",
    )
    result = pytester.runpytest("-p", "no:cacheprovider", "-v")
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(
        [
            "*ref?claude? FAILED*",
            "*case 'ref': anthropic takes no image in a system message: move the image into a"
            " user message*",
        ]
    )
    assert not [b for b in server.bodies if "max_tokens" in b]  # nothing else was sent
    openai = next(b for b in server.bodies if b.get("model") == "vision")
    assert openai["messages"][0]["content"][1] == {
        "type": "image_url",
        "image_url": {"url": "https://example.com/ref.png"},
    }


def test_a_url_whose_scheme_is_in_capitals_is_sent_as_a_url_not_read_as_a_file(
    pytester: pytest.Pytester, make_project: MakeProject, server: FakeLLMServer
) -> None:
    """'HTTPS://example.com/a.png' was "image file 'HTTPS://example.com/a.png' does not
    exist": a URL's scheme is written in any case (RFC 3986)."""
    data = base64.b64encode(PNG).decode()
    project = photo(server.base_url, server.root_url, "gpt, claude").split("tests:")[0]
    make_project(
        "pics",
        project
        + f"""
tests:
  - id: caps
    input:
      - role: user
        content:
          - {{type: text, text: "[[answer=three]] How many?"}}
          - {{type: image_url, image_url: {{url: "HTTPS://Example.com/A.png"}}}}
          - {{image: "Http://example.com/b.png"}}
          - {{image: "DATA:image/png;base64,{data}"}}
    reference: three
""",
    )
    report = pytester.path / "report.json"
    result = pytester.runpytest("-p", "no:cacheprovider", f"--arena-json={report}")
    result.assert_outcomes(passed=2)
    openai = next(b for b in server.bodies if b.get("model") == "vision" and "max_tokens" not in b)
    assert [part["image_url"]["url"] for part in openai["messages"][0]["content"][1:]] == [
        "https://Example.com/A.png",
        "http://example.com/b.png",
        f"data:image/png;base64,{data}",
    ]
    anthropic = next(b for b in server.bodies if "max_tokens" in b)
    assert [block["source"] for block in anthropic["messages"][0]["content"][1:]] == [
        {"type": "url", "url": "https://Example.com/A.png"},
        {"type": "url", "url": "http://example.com/b.png"},
        {"type": "base64", "media_type": "image/png", "data": data},
    ]
    sent = json.dumps([r["messages"] for r in json.loads(report.read_text())["records"]])
    assert data not in sent and f"data:image/png;base64,... ({len(PNG)} bytes)" in sent


def test_a_data_url_in_capitals_that_a_hook_adds_is_sent_inline(
    pytester: pytest.Pytester, make_project: MakeProject, server: FakeLLMServer
) -> None:
    """Anthropic got 'DATA:image/png;base64,...' as a url source, which it cannot fetch, and
    the records kept the image's base64."""
    data = base64.b64encode(PNG).decode()
    hooks = (
        "def pre_request(request, case, context):\n"
        f"    url = 'DATA:Image/PNG;base64,{data}'\n"
        "    part = {'type': 'image_url', 'image_url': {'url': url}}\n"
        "    request.messages[-1]['content'].append(part)\n"
    )
    project = photo(server.base_url, server.root_url, "claude").split("tests:")[0]
    make_project(
        "pics",
        project
        + """
tests:
  - id: added
    input:
      - {role: user, content: [{type: text, text: "[[answer=one]] How many?"}]}
    reference: one
""",
        {"hooks.py": hooks},
    )
    report = pytester.path / "report.json"
    result = pytester.runpytest("-p", "no:cacheprovider", f"--arena-json={report}")
    result.assert_outcomes(passed=1)
    anthropic = next(b for b in server.bodies if "max_tokens" in b)
    assert anthropic["messages"][0]["content"][1] == {
        "type": "image",
        "source": {"type": "base64", "media_type": "image/png", "data": data},
    }
    sent = json.dumps([r["messages"] for r in json.loads(report.read_text())["records"]])
    assert data not in sent and f"DATA:Image/PNG;base64,... ({len(PNG)} bytes)" in sent


def test_a_data_url_that_is_no_base64_image_providers_take_is_an_error_at_its_line(
    pytester: pytest.Pytester, make_project: MakeProject, server: FakeLLMServer
) -> None:
    """A data URL was sent as written: 'data:image/svg+xml,<svg ...>' reached Anthropic as a
    base64 source of text that is no base64, and OpenAI as it was; each provider refused it."""
    data = base64.b64encode(PNG).decode()
    project = photo(server.base_url, server.root_url, "gpt, claude").split("tests:")[0]

    def case(name: str, url: str, answer: str = "one") -> str:
        return (
            f"  - id: {name}\n    input:\n      - role: user\n        content:\n"
            f'          - {{type: text, text: "[[answer={answer}]] How many?"}}\n'
            f'          - {{type: image_url, image_url: {{url: "{url}"}}}}\n'
            f"    reference: {answer}\n"
        )

    svg = "data:image/svg+xml,<svg xmlns='http://www.w3.org/2000/svg'/>"
    text = base64.b64encode(b"hello").decode()
    make_project(
        "pics",
        project
        + "tests:\n"
        + case("good", f"Data:Image/PNG;base64,{data}")
        + case("svg", svg)
        + case("plain", f"data:text/plain;base64,{text}")
        + case("bare", f"data:;base64,{data}")
        + case("unencoded", f"data:image/png,{data}")
        + case("garbled", "data:image/png;base64,iVBOR*w0KGgo=")
        + case("text", f"data:image/png;base64,{text}")
        + "  - {id: other, input: '[[answer=hello]] Hi', reference: hello}\n"
        + case("caps", f"DATA:image/gif;base64,{data}", "two")
        + case("jpg", f"data:Image/JPG;base64,{data}", "three"),  # `image/jpg`: a usual slip
    )
    result = pytester.runpytest("-p", "no:cacheprovider")
    result.assert_outcomes(passed=8, errors=6)
    fix = (
        "  fix: write it as a base64 data URL of a PNG, JPEG, GIF or WebP image"
        " (data:image/png;base64,...), or give the image's file instead"
    )
    at = "projects/pics/arena.yaml:{}: input[[]0[]].content[[]1[]]: image data URL '{}*"
    result.stdout.fnmatch_lines(
        [
            at.format(29, "data:image/svg+xml,<svg xmlns='...' is not base64-encoded"),
            fix,
            at.format(36, "data:text/plain;base64,aGVsbG8=...' is of type text/plain;"),
            fix,
            at.format(43, "data:;base64,iVBORw0KGgoA...' has no media type;"),
            fix,
            at.format(50, "data:image/png,iVBORw0KGgoA...' is not base64-encoded"),
            fix,
            at.format(57, "data:image/png;base64,iVBOR*w0KGgo...' does not hold valid base64"),
            fix,
            at.format(64, "data:image/png;base64,aGVsbG8=...' is not a PNG, JPEG, GIF or WebP"),
            fix,
        ],
        consecutive=False,
    )
    # the good ones are sent as providers take them: small letters, the type its bytes say
    images = [b["messages"][0]["content"][1:] for b in server.bodies]
    assert [part["image_url"]["url"] for b in images for part in b if "image_url" in part] == [
        f"data:image/png;base64,{data}"
    ] * 3
    assert [block["source"] for b in images for block in b if "source" in block] == [
        {"type": "base64", "media_type": "image/png", "data": data}
    ] * 3
