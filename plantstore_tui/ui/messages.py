"""The app's own messages, in one place: what the send service told, and what a screen or
widget tells the app or its screen."""

from __future__ import annotations

from textual.message import Message

from plantstore_tui.core.sending.events import Event


class Told(Message):
    """What the send service told (`core/sending/events.py`), for the send screen to render."""

    def __init__(self, event: Event) -> None:
        super().__init__()
        self.event = event


class TakingKeys(Message):
    """A screen that applies keys in order takes keys again: the keys the app held meanwhile can
    be applied, in order."""


class TargetClicked(Message):
    """The operator clicked the target in the status line: they want to see or switch
    profiles."""
