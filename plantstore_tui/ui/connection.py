"""What the TUI sends through: a target and its long-lived client, built after the first frame."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from plantstore_tui.core.plant.text import visible

if TYPE_CHECKING:
    from plantstore_tui.core.http.target import Target
    from plantstore_tui.core.sending.queue import PlantSender


@dataclass(frozen=True, slots=True)
class Connection:
    """A resolved target and the one client that sends to it for the whole session."""

    target: Target
    client: PlantSender


@dataclass(frozen=True, slots=True)
class TargetLabel:
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

    def describe(self, token_hint: str | None = None) -> str:
        """`profile · http://host/ · token from SOURCE …abcd · proxy http://proxy:3128`: never
        the token itself, nor the proxy's password."""
        hint = f" {token_hint}" if token_hint else ""
        profile = ""
        if self.profile is not None:
            marker = " PROTECTED" if self.protected else ""
            profile = f"{visible(self.profile)}{marker} · "
        proxy = "" if self.proxy is None else f" · proxy {visible(self.proxy)}"
        return (
            f"{profile}{visible(self.base_url)} · token from {visible(self.token_source)}{hint}"
            f"{proxy}"
        )


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
