"""Whether a profile's plants stay in the history once settled, how many rows the ledger keeps,
and the words that warn of an id sent here before."""

from __future__ import annotations

import os
from datetime import datetime
from typing import NamedTuple

from plantstore_tui.core.config.files import PROFILES_FILE, config_dir
from plantstore_tui.core.config.store import ProfileStore
from plantstore_tui.core.store.ledger import DEFAULT_LIMIT
from plantstore_tui.core.store.records import HistoryEntry, PlantState

NO_HISTORY_ENV = "PLANTSTORE_NO_HISTORY"


class HistorySettings(NamedTuple):
    """Whether settled plants of a profile are kept, and how many rows the ledger keeps."""

    enabled: bool = True
    limit: int = DEFAULT_LIMIT


def history_settings(profile: str | None) -> HistorySettings:
    """The settings in force: the environment, then profiles.toml (never raises)."""
    no_history = os.environ.get(NO_HISTORY_ENV, "").strip() not in ("", "0")
    if not (config_dir() / PROFILES_FILE).exists():
        # No profiles.toml (a start on --base-url): the defaults.
        return HistorySettings(enabled=not no_history)
    saved = ProfileStore().load()
    if no_history:
        return HistorySettings(enabled=False, limit=saved.history_limit)
    chosen = None if profile is None else saved.get(profile)
    enabled = chosen is None or chosen.history
    return HistorySettings(enabled=enabled, limit=saved.history_limit)


def duplicate_warning(earlier: list[HistoryEntry], now: datetime | None = None) -> str | None:
    """Words saying that the ledger shows this id created (or maybe created) here already."""
    if not earlier:
        return None
    created = next((entry for entry in earlier if entry.state is PlantState.CREATED), None)
    if created is not None:
        return f"plant {created.plant_id} was created here at {_when(created.time, now)} (history)"
    unknown = earlier[0]
    return (
        f"plant {unknown.plant_id} may have been created here at {_when(unknown.time, now)} "
        "(history: no clear answer)"
    )


def _when(moment: datetime, now: datetime | None) -> str:
    local = moment.astimezone()
    today = (now or datetime.now()).astimezone().date()
    return f"{local:%H:%M}" if local.date() == today else f"{local:%Y-%m-%d %H:%M}"
