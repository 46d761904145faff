"""The simulator: deterministic, offline, free models for demos and tests."""

from __future__ import annotations

import asyncio
import hashlib
import random
import time
from statistics import NormalDist
from typing import Any, ClassVar

from pydantic import BaseModel, ConfigDict, Field

from pytest_arena.connectors.base import Connector, Request, Response, estimate_tokens
from pytest_arena.connectors.sim_answers import OFF_TOPIC, judge_reply, variant, wrong
from pytest_arena.connectors.sim_tools import answer_of, expected_calls, tool_turn
from pytest_arena.connectors.tool_format import render_calls
from pytest_arena.record import json_safe
from pytest_arena.spec.case import Case, as_text
from pytest_arena.spec.images import IMAGE_TOKENS, content_text, image_count
from pytest_arena.spec.schema import Price


class SimSettings(BaseModel):
    """A simulated model's profile. Every field can be set in `arena.yaml`."""

    model_config = ConfigDict(extra="forbid")

    profile: str | None = None
    accuracy: float = Field(0.7, ge=0, le=1)
    format_noise: float = Field(0.2, ge=0, le=1)
    correlation: float = Field(0.5, ge=0, le=1)
    echo: bool = False
    latency_ms: float = Field(0.0, ge=0)
    latency_jitter_ms: float = Field(0.0, ge=0)
    seed: int = 0


PROFILES: dict[str, tuple[SimSettings, Price]] = {
    "sim_small": (
        SimSettings(accuracy=0.6, format_noise=0.3),
        Price(input_per_mtok=0.15, output_per_mtok=0.6),
    ),
    "sim_large": (
        SimSettings(accuracy=0.9, format_noise=0.15),
        Price(input_per_mtok=3.0, output_per_mtok=15.0),
    ),
    "sim_perfect": (SimSettings(accuracy=1.0, format_noise=0.0), Price()),
    "sim_echo": (SimSettings(echo=True, format_noise=0.0), Price()),
    "sim_judge": (
        SimSettings(accuracy=0.95, format_noise=0.3),
        Price(input_per_mtok=1.0, output_per_mtok=4.0),
    ),
}

_NORMAL = NormalDist()
JUDGE_MARK = "<arena-judge>"  # the judge's prompts start with it: the sim then grades


def _unit(text: str) -> float:
    """A number in (0, 1) fixed by `text`."""
    digest = hashlib.blake2b(text.encode(), digest_size=8).digest()
    return (int.from_bytes(digest, "big") + 0.5) / 2**64


class SimConnector(Connector):
    """Answers right with the profile's accuracy, else wrong in a realistic way.

    Whether a case is answered right is drawn from a per-case difficulty shared
    by all simulated models (weighted by `correlation`) and a per-model draw, so
    a stronger profile tends to get right what a weaker one gets right, and each
    model's share of right answers matches its accuracy.
    """

    name: ClassVar[str] = "sim"
    settings_model: ClassVar[type[BaseModel]] = SimSettings
    settings: SimSettings

    @classmethod
    def settings_data(cls, key: str, raw: dict[str, Any]) -> tuple[dict[str, Any], Price | None]:
        base = raw.get("profile") or (key if key in PROFILES else "sim_small")
        if base not in PROFILES:
            raise ValueError(f"unknown sim profile '{base}'; profiles: {', '.join(PROFILES)}")
        settings, price = PROFILES[base]
        return {**settings.model_dump(), **raw, "profile": base}, price

    cacheable: ClassVar[bool] = False
    takes_tools: ClassVar[bool] = True

    def cache_identity(self) -> dict[str, Any]:
        """With `cache: true`: every setting of its profile (accuracy, latency, seed...)."""
        return {**super().cache_identity(), "settings": self.settings.model_dump(mode="json")}

    def cache_case(self, case: Case) -> dict[str, Any]:
        """What it answers from beside the messages: the case's project, id and reference."""
        about = {"project": case.project, "id": case.id, "reference": case.reference}
        return json_safe(about)  # type: ignore[no-any-return]

    def is_inline(self) -> bool:
        return not (self.settings.latency_ms or self.settings.latency_jitter_ms)

    def complete(self, request: Request) -> Response:
        started = time.perf_counter()
        response = self._answer(request)
        remaining = (response.latency_ms or 0) / 1000 - (time.perf_counter() - started)
        if remaining > 0:
            time.sleep(remaining)
        return response

    async def acomplete(self, request: Request) -> Response:
        started = time.perf_counter()
        response = self._answer(request)
        remaining = (response.latency_ms or 0) / 1000 - (time.perf_counter() - started)
        if remaining > 0:
            await asyncio.sleep(remaining)
        return response

    def _answer(self, request: Request) -> Response:
        s = self.settings
        case = request.case
        where = f"{s.seed}|{case.project}|{case.id}"
        draw = f"{where}|{self.key}|{request.sample}"
        rng = random.Random(draw)
        meta: dict[str, Any] = {}
        reference = answer_of(case.reference)
        if request.tools and expected_calls(case.reference) is not None and not s.echo:
            offered = [t["name"] for t in request.tools]
            calls, text, meta["verdict"] = tool_turn(
                case.reference, request.messages, offered, self._right(where, draw), rng
            )
            if calls:
                meta.update(tool_calls=calls, rendered_calls=True, finish_reason="tool_calls")
                text = render_calls(calls)
            else:
                meta["finish_reason"] = "stop"
        elif s.echo:
            text, meta["verdict"] = request.prompt, "echo"
        elif JUDGE_MARK in request.prompt:
            text, meta["form"] = judge_reply(
                request.prompt, self._right(where + "|judge", draw), rng, s.format_noise
            )
            meta["verdict"] = "judged"
        elif self._right(where, draw):
            if reference is None:
                text, meta["verdict"] = f"Here is my reply to: {request.prompt[:80]}", "right"
            elif rng.random() < s.format_noise:
                text, meta["form"] = variant(reference, rng)
                meta["verdict"] = "variant"
            else:
                text, meta["verdict"] = as_text(reference), "right"
        elif reference is None:
            text, meta["verdict"] = rng.choice(OFF_TOPIC), "wrong"
        else:
            text, meta["form"] = wrong(reference, rng)
            meta["verdict"] = "wrong"
        latency = s.latency_ms
        if s.latency_jitter_ms:
            latency = max(0.0, latency + rng.uniform(-s.latency_jitter_ms, s.latency_jitter_ms))
        tokens_in = sum(
            estimate_tokens(content_text(m.get("content", ""))) + 4 for m in request.messages
        )
        tokens_in += IMAGE_TOKENS * image_count(request.messages)
        return Response(
            text=text,
            tokens_in=tokens_in,
            tokens_out=estimate_tokens(text),
            latency_ms=latency,
            meta=meta,
        )

    def _right(self, where: str, draw: str) -> bool:
        accuracy = self.settings.accuracy
        if accuracy >= 1.0:
            return True
        if accuracy <= 0.0:
            return False
        rho = self.settings.correlation
        z = rho**0.5 * _NORMAL.inv_cdf(_unit(where)) + (1 - rho) ** 0.5 * _NORMAL.inv_cdf(
            _unit(draw)
        )
        return _NORMAL.cdf(z) < accuracy
