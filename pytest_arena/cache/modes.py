"""How a run uses the response cache."""

from __future__ import annotations

import enum


class CacheMode(str, enum.Enum):
    """How a run uses the cache (`--arena-cache`)."""

    USE = "use"  # read hits, write misses
    OFF = "off"  # neither read nor write
    REFRESH = "refresh"  # never read; write every answer, replacing what was there
    REPLAY = "replay"  # read only; a miss is a failure (ReplayMiss)
