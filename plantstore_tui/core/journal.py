"""`Journal`: how front ends record their sends in the history without ever being stopped by it.

History is on unless `PLANTSTORE_NO_HISTORY=1` or the profile says `history = false`. A history
that cannot be opened or written (locked too long, read-only, corrupt) turns itself off for the
rest of the run: the send goes on, and the operator is told once why, with the file's path. The
file is never overwritten or deleted.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING

from plantstore_tui.core.history import DEFAULT_LIMIT, History, HistoryEntry, HistoryError

if TYPE_CHECKING:
    from pydantic import SecretStr

    from plantstore_tui.core.models import NewPlant
    from plantstore_tui.core.outcome import Outcome
    from plantstore_tui.core.target import Target

NO_HISTORY_ENV = "PLANTSTORE_NO_HISTORY"
# What stands where a server echoed the token back.
_REDACTED = "[token]"


@dataclass(frozen=True, slots=True)
class HistorySettings:
    """Whether sends to a profile are recorded, and how many rows the history keeps."""

    enabled: bool = True
    limit: int = DEFAULT_LIMIT


def history_settings(profile: str | None) -> HistorySettings:
    """The settings in force: the environment, then profiles.toml (never raises)."""
    from plantstore_tui.core.profiles import ProfileStore

    if os.environ.get(NO_HISTORY_ENV, "").strip() not in ("", "0"):
        return HistorySettings(enabled=False)
    saved = ProfileStore().load()
    chosen = None if profile is None else saved.get(profile)
    enabled = chosen is None or chosen.history
    return HistorySettings(enabled=enabled, limit=saved.history_limit)


def off_message(error: HistoryError) -> str:
    """The one notice that history is off for this run, and why."""
    return (
        f"History is off for this run: {error.path}: {error.reason}. "
        "Sends go on; the file is left as it is."
    )


def _redact(text: str, token: SecretStr | None) -> str:
    if token is None or not token.get_secret_value():
        return text
    return text.replace(token.get_secret_value(), _REDACTED)


class Journal:
    """The history as a front end writes it: every failure turns it off, said once via `warn`.

    Safe to call from several threads of one process (the TUI writes from a worker thread).
    """

    def __init__(
        self,
        source: str,
        history: History | None,
        *,
        warn: Callable[[str], None] | None = None,
        problem: str | None = None,
    ) -> None:
        self.source = source
        self._history = history
        self._warn = warn
        self._lock = threading.Lock()
        self.problem: str | None = None
        """Why history is off for this run after a failure (None: on, or turned off by choice)."""
        if problem is not None:
            self._turn_off(problem)

    @classmethod
    def open(
        cls, source: str, profile: str | None, *, warn: Callable[[str], None] | None = None
    ) -> Journal:
        """The history for sends of `source` to `profile`, or an inactive journal saying why."""
        settings = history_settings(profile)
        if not settings.enabled:
            return cls(source, None, warn=warn)
        try:
            return cls(source, History(limit=settings.limit), warn=warn)
        except HistoryError as exc:
            return cls(source, None, warn=warn, problem=off_message(exc))

    @property
    def active(self) -> bool:
        """True while sends are being recorded."""
        return self._history is not None

    @property
    def history(self) -> History | None:
        """The open history, while active."""
        return self._history

    def _turn_off(self, message: str) -> None:
        with self._lock:
            if self.problem is not None:
                return
            self.problem = message
            history, self._history = self._history, None
        if history is not None:
            history.close()
        if self._warn is not None:
            self._warn(message)

    def begin(self, target: Target, plant: NewPlant, *, log_ref: str | None = None) -> int | None:
        """Record a send about to go out; its entry number, or None when history is off."""
        history = self._history
        if history is None:
            return None
        try:
            return history.begin(
                source=self.source,
                profile=target.profile,
                base_url=target.base_url,
                plant=plant,
                log_ref=log_ref,
            )
        except HistoryError as exc:
            self._turn_off(off_message(exc))
            return None

    def settle(self, entry: int | None, outcome: Outcome, token: SecretStr | None) -> None:
        """Record how the send `entry` ended; a server that echoed `token` has it taken out."""
        history = self._history
        if history is None or entry is None:
            return
        try:
            history.settle(entry, outcome, redact=lambda text: _redact(text, token))
        except HistoryError as exc:
            self._turn_off(off_message(exc))

    def close(self) -> None:
        """Close the history file; sends after this are not recorded (and nothing is said)."""
        with self._lock:
            history, self._history = self._history, None
        if history is not None:
            history.close()

    def for_target(self, target: Target) -> TargetJournal:
        """This journal bound to one target, as a send queue uses it."""
        return TargetJournal(self, target)

    def earlier_sends(self, base_url: str, plant_id: int) -> list[HistoryEntry]:
        """Sends of this id to this base URL that created it or may have (empty when off)."""
        history = self._history
        if history is None:
            return []
        try:
            return history.sent_before(base_url, plant_id)
        except HistoryError as exc:
            self._turn_off(off_message(exc))
            return []


class TargetJournal:
    """A journal bound to one target: what `SendQueue` calls before and after each send."""

    def __init__(self, journal: Journal, target: Target) -> None:
        self.journal = journal
        self._target = target

    def begin(self, plant: NewPlant, log_ref: str | None = None) -> int | None:
        """Record a send about to go out."""
        return self.journal.begin(self._target, plant, log_ref=log_ref)

    def settle(self, entry: int | None, outcome: Outcome) -> None:
        """Record how it ended."""
        self.journal.settle(entry, outcome, self._target.token)

    def close(self) -> None:
        """Close the journal's history file."""
        self.journal.close()


def duplicate_warning(earlier: list[HistoryEntry], now: datetime | None = None) -> str | None:
    """Words saying that history shows this id created (or maybe created) here already."""
    if not earlier:
        return None
    created = next((entry for entry in earlier if entry.fate == "created"), None)
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
