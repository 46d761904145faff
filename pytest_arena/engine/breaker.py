"""A provider that cannot be called is said once: its remaining calls fail at once, with one
reason, instead of each retrying and failing with a copy of it."""

from __future__ import annotations

from dataclasses import dataclass

BREAK_AFTER = 5  # tries in a row that could not connect before a provider is taken as down


@dataclass
class Breaker:
    """Whether a provider's calls are still made, and why not if they are not.

    Open from the start when the connector's `preflight` gives a reason (an API key variable
    that is not set): no call is made. Opens after BREAK_AFTER tries in a row that could not
    connect (refused, unknown host, TLS), with no reply in between, once one of them was a
    retry (so a moment's hiccup does not count); or, when the provider has already replied
    in this run, once a call has used up its retries that way. Once open it stays open for
    the run, so every call it stops fails with the same reason.
    """

    reason: str | None = None
    in_a_row: int = 0
    replied_once: bool = False

    def replied(self) -> None:
        """The provider answered, even if with an error status: it can be reached."""
        self.in_a_row = 0
        self.replied_once = True

    def cannot_connect(self, failure: str, retries: int, last_try: bool) -> None:
        """A try could not connect: `failure` says why, after `retries` earlier tries of its
        call; `last_try` when its call has no retry left."""
        self.in_a_row += 1
        long_enough = last_try if self.replied_once else retries > 0 or last_try
        if self.reason is None and self.in_a_row >= BREAK_AFTER and long_enough:
            self.reason = (
                f"{failure} ({BREAK_AFTER} tries in a row could not connect: the model's calls"
                " are no longer tried)"
            )
