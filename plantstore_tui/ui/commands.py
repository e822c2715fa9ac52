"""Command palette entries that switch the profile plants go to, one per saved profile."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from functools import partial
from typing import Protocol, runtime_checkable

from rich.text import Text
from textual.command import DiscoveryHit, Hit, Hits, Provider

from plantstore_tui.core.config.store import ProfileStore
from plantstore_tui.core.plant.text import visible


@runtime_checkable
class ProfileUser(Protocol):
    """The app's side: which profile is in use, and switching to another."""

    def active_profile(self) -> str | None:
        """The name of the profile plants go to now, if any."""
        ...

    def use_profile(self, name: str) -> None:
        """Send to profile `name` from now on."""
        ...


def _saved_profiles() -> tuple[tuple[str, str], ...]:
    saved = ProfileStore().load()
    return tuple((profile.name, profile.base_url) for profile in saved.profiles)


class ProfileCommands(Provider):
    """`Use profile NAME` for every saved profile but the one in use."""

    async def startup(self) -> None:
        """Read the saved profiles off the UI thread (a file read under a lock)."""
        self._profiles = await asyncio.to_thread(_saved_profiles)

    def _choices(self) -> list[tuple[str, str, Callable[[], None]]]:
        user = self.app
        if not isinstance(user, ProfileUser):
            return []
        active = user.active_profile()
        return [
            (f"Use profile {visible(name)}", visible(base_url), partial(user.use_profile, name))
            for name, base_url in self._profiles
            if name != active
        ]

    async def discover(self) -> Hits:
        """Every other profile, before anything is typed."""
        for words, help_text, command in self._choices():
            yield DiscoveryHit(Text(words), command, text=words, help=help_text)

    async def search(self, query: str) -> Hits:
        """The profiles whose command matches what was typed."""
        matcher = self.matcher(query)
        for words, help_text, command in self._choices():
            score = matcher.match(words)
            if score > 0:
                yield Hit(score, matcher.highlight(words), command, text=words, help=help_text)
