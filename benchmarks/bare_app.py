"""The yardstick for startup: a bare Textual app with one Input, one Button and one RichLog."""

from __future__ import annotations

from textual.app import App, ComposeResult
from textual.widgets import Button, Input, RichLog


class BareApp(App[None]):
    """Nothing but the three widgets the TUI's screen is built around."""

    def compose(self) -> ComposeResult:
        """An Input, a Button and a RichLog."""
        yield Input(placeholder="bare app ready")
        yield Button("Send")
        yield RichLog()


if __name__ == "__main__":
    BareApp().run()
