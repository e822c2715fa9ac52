"""The floor of any Plant Store TUI: the bare app (bare_app.py) with httpx and Pydantic imported,
building nothing with them. startup.py and memory.py measure the TUI against it.

Pydantic is imported as its documentation imports it, `from pydantic import BaseModel`: a bare
`import pydantic` loads only the package's lazy front (its names load at their first use), which
no program that validates anything stops at (2.1 MiB less peak memory, and about 8 ms less
start, than `BaseModel` imported, measured in the same minutes)."""

from __future__ import annotations

import httpx  # noqa: F401
from pydantic import BaseModel  # noqa: F401
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
