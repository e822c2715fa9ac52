"""What the operator is shown: the notifications an app was asked to show (recorded as
`App.notify` is called, for every app a test runs: the autouse fixture in conftest.py), and the
text a field draws."""

from __future__ import annotations

from typing import Any

from textual.app import App
from textual.notifications import Notification
from textual.widgets import Input


def record_notifications(monkeypatch: Any) -> None:
    """From now on, every app keeps each notification it is asked to show (`notifications_of`)."""
    notify = App.notify

    def recorded(self: App[Any], message: str, **options: Any) -> None:
        title = options.get("title", "")
        severity = options.get("severity", "information")
        vars(self).setdefault("recorded_notifications", []).append(
            Notification(message, title, severity)
        )
        notify(self, message, **options)

    monkeypatch.setattr(App, "notify", recorded)


def notifications_of(app: App[Any]) -> list[Notification]:
    """Every notification `app` was asked to show, oldest first."""
    notes: list[Notification] = vars(app).get("recorded_notifications", [])
    return notes


def drawn_text(field: Input) -> str:
    """The text the field draws on its line: its value, and the suggestion after it."""
    return "".join(segment.text for segment in field.render_line(0)).strip()
