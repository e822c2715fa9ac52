"""What the TUI sends through: a target and its long-lived client, built after the first frame."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, NamedTuple

from plantstore_tui.core.plant.text import visible
from plantstore_tui.ui.widgets.status_line import StatusPart, joined

if TYPE_CHECKING:
    from plantstore_tui.core.http.target import Target
    from plantstore_tui.core.sending.queue import PlantSender


# Named tuples, not dataclasses: a frozen dataclass compiles its methods at import (3.5M
# instructions each before the first frame), a named tuple needs none of that.
class Connection(NamedTuple):
    """A resolved target and the one client that sends to it for the whole session."""

    target: Target
    client: PlantSender


class TargetLabel(NamedTuple):
    """What the status line can say about the target before it is resolved."""

    base_url: str
    token_source: str
    profile: str | None = None
    protected: bool = False
    # The proxy sends go through (no user or password); None: direct.
    proxy: str | None = None

    @classmethod
    def of(cls, target: Target) -> TargetLabel:
        """The label of a resolved target."""
        return cls(
            base_url=target.base_url,
            token_source=target.token_source,
            profile=target.profile,
            protected=target.protected,
            proxy=None if target.proxy is None else target.proxy.url,
        )

    def parts(self, token_hint: str | None = None) -> list[StatusPart]:
        """`profile · http://host/ · token from SOURCE …abcd · proxy http://proxy:3128` as
        status line parts: never the token itself, nor the proxy's password. Narrow, the hint
        goes first, then the URL's middle (with a profile, the URL itself), the proxy's
        middle, the end of the profile's name; the token's source is shortened last."""
        parts = []
        if self.profile is not None:
            parts.append(StatusPart(visible(self.profile), 4, "end", 8))
            if self.protected:
                parts.append(StatusPart("PROTECTED", 9, "keep", glue=" "))
        # With a profile, its name says where plants go: the URL may go when room is short.
        drop_rank = 2 if self.profile is not None else None
        parts.append(StatusPart(visible(self.base_url), 1, "middle", 20, drop_rank))
        parts.append(StatusPart(f"token from {visible(self.token_source)}", 5, "end", 14))
        if token_hint:
            parts.append(StatusPart(token_hint, 0, glue=" "))
        if self.proxy is not None:
            parts.append(StatusPart(f"proxy {visible(self.proxy)}", 3, "middle", 16))
        return parts

    def describe(self, token_hint: str | None = None) -> str:
        """The parts in full: `profile · http://host/ · token from SOURCE …abcd · proxy …`."""
        return joined(self.parts(token_hint))


# Runs in a thread after the first frame: it may import httpx and Pydantic and read files.
# It raises (e.g. click's ConfigProblem) with words for the operator when the target is unusable.
Connect = Callable[[], Connection]


def connect_to(target: Target) -> Connection:
    """Build the session's client for a resolved target."""
    from plantstore_tui.core.http.client import PlantStoreClient

    return Connection(
        target,
        PlantStoreClient.for_target(target),
    )


def connect_to_profile(name: str) -> Connection:
    """Resolve a saved profile (reading its token source) and build its client; may block."""
    from plantstore_tui.core.config.store import ProfileStore

    store = ProfileStore()
    return connect_to(store.target(store.get(name)))
