"""Images in chat input: arena's form and OpenAI's, sent to OpenAI and Anthropic in their
own formats, read by the sims, in the cache key; bad or refused images said clearly."""

from __future__ import annotations

import base64
import json

import pytest

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
