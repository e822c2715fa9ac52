"""The floor of any Plant Store TUI: the bare app (bare_app.py) with httpx and Pydantic imported,
building nothing with them. startup.py and memory.py measure the TUI against it."""

from __future__ import annotations

import httpx  # noqa: F401
import pydantic  # noqa: F401
from textual.app import App, ComposeResult
from textual.widgets import Button, Input, RichLog


class FloorApp(App[None]):
    """The bare app's three widgets, after httpx and Pydantic were imported."""

    def compose(self) -> ComposeResult:
        """An Input, a Button and a RichLog."""
        yield Input(placeholder="floor app ready")
        yield Button("Send")
        yield RichLog()


if __name__ == "__main__":
    FloorApp().run()
