"""What the operator is shown: the notifications an app was asked to show (recorded as
`App.notify` is called, for every app a test runs: the autouse fixture in conftest.py), the
text a field draws, and the whole screen as text."""

from __future__ import annotations

import html
import re
from typing import Any

from textual.app import App
from textual.notifications import Notification
from textual.widgets import Input

from plantstore_tui.ui.widgets.status_line import StatusLine


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


_SPAN = re.compile(
    r'<text class="[^"]*" x="([\d.]+)" y="[\d.]+" textLength="[\d.]+" '
    r'clip-path="url\(#[\w-]+-line-(\d+)\)">([^<]*)</text>'
)


def _rows(app: App[Any]) -> dict[int, str]:
    """The terminal's rows that show text, by number, rebuilt from the SVG screenshot."""
    width = app.size.width
    lines: dict[int, list[str]] = {}
    for x, line, text in _SPAN.findall(app.export_screenshot()):
        row = lines.setdefault(int(line), [" "] * width)
        column = round(float(x) / 12.2)
        for offset, char in enumerate(html.unescape(text).replace("\xa0", " ")):
            if column + offset < width:
                row[column + offset] = char
    return {number: "".join(chars).rstrip() for number, chars in lines.items()}


def screen_text(app: App[Any]) -> str:
    """What the terminal shows, line by line, rebuilt from the SVG screenshot's text runs."""
    rows = _rows(app)
    return "\n".join(rows[number] for number in sorted(rows))


def status_text(app: App[Any]) -> str:
    """The send screen's status line as the terminal shows it now (its row of the screen, which
    a dialog over the form leaves in sight): the target, the queue's state and its counts."""
    line = app.get_default_screen().query_one(StatusLine)
    return _rows(app).get(line.region.y, "")
