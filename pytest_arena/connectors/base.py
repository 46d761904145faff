"""What every connector takes and gives back."""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import Any, ClassVar

from pydantic import BaseModel

from pytest_arena.spec.case import Case
from pytest_arena.spec.schema import Price


@dataclass
class Request:
    """One call to a model: the rendered messages and the case they came from."""

    model: str
    messages: list[dict[str, str]]
    case: Case
    sample: int = 0
    params: dict[str, Any] = field(default_factory=dict)

    @property
    def prompt(self) -> str:
        """The content of the last user message."""
        for message in reversed(self.messages):
            if message.get("role") == "user":
                return message.get("content", "")
        return ""


@dataclass
class Response:
    """A model's answer and what it cost."""

    text: str
    tokens_in: int = 0
    tokens_out: int = 0
    latency_ms: float | None = None  # None: the engine measures the call
    cost: float | None = None  # set by connectors that are told the cost; else priced
    retries: int = 0
    meta: dict[str, Any] = field(default_factory=dict)


class Connector(ABC):
    """How one model key is reached. Knows nothing about scorers or pytest."""

    name: ClassVar[str]
    settings_model: ClassVar[type[BaseModel]]
    default_price: ClassVar[Price | None] = None

    def __init__(self, key: str, settings: BaseModel, price: Price | None = None) -> None:
        self.key = key
        self.settings = settings
        self.price = price or self.default_price or Price()

    @classmethod
    def settings_data(cls, key: str, raw: dict[str, Any]) -> tuple[dict[str, Any], Price | None]:
        """The settings to validate for model `key`, and a default price for it."""
        return raw, cls.default_price

    @abstractmethod
    def complete(self, request: Request) -> Response:
        """Ask the model and return its response."""

    def cost_of(self, response: Response) -> float:
        if response.cost is not None:
            return response.cost
        return (
            response.tokens_in * self.price.input_per_mtok
            + response.tokens_out * self.price.output_per_mtok
        ) / 1_000_000


def estimate_tokens(text: str) -> int:
    """About four characters a token, as tokenizers of English text give."""
    return max(1, (len(text) + 3) // 4) if text else 0
