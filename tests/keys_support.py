"""Keys as a terminal delivers them to the TUI under Pilot: a burst posted whole, the keys of
records, and the wait until every plant typed has settled."""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence
from typing import Any

from burst_support import Record
from snapshot_apps.support import settled, until
from textual import events
from textual.app import App

from plantstore_tui.ui.app import PlantStoreApp
from plantstore_tui.ui.screens.send import SendScreen


def _key(name: str) -> events.Key:
    # As the driver builds them: a printable key carries its character, a named key none.
    if len(name) == 1:
        return events.Key(name if name.isalnum() else _punctuation(name), name)
    character = {"tab": "\t", "enter": "\r"}.get(name)
    return events.Key(name, character)


def _punctuation(char: str) -> str:
    return unicodedata.name(char).lower().replace(" ", "_").replace("-", "_")


def burst(app: App[Any], keys: Sequence[str]) -> None:
    """Post every key at once, before the app has read the first: one write of a terminal."""
    for name in keys:
        app.post_message(_key(name))


def keys_of(records: Sequence[Record], submit: str = "enter") -> list[str]:
    """Name, Tab, ID, Tab, Tag and `submit` for each record, key by key."""
    keys: list[str] = []
    for name, plant_id, tag in records:
        keys += [*name, "tab", *plant_id, "tab", *tag, submit]
    return keys


async def drained(app: PlantStoreApp, pilot: Any, plants: int) -> SendScreen:
    """Wait until `plants` plants have entries and nothing is queued or in flight."""
    screen = app.get_default_screen()
    assert isinstance(screen, SendScreen)
    # Bounded: a key lost or misread would otherwise leave the test waiting forever.
    await until(pilot, lambda: len(screen.log_panel.entries) >= plants, f"{plants} entries")
    return await settled(app, pilot)
