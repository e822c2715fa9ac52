"""The form's checkboxes (next id, keep tag): Textual's Checkbox, its mark a tick when on and
empty when off, so that on and off differ by shape and not only by colour (NO_COLOR, a dim
screen)."""

from __future__ import annotations

from textual.widgets import Checkbox

_ON, _OFF = "✓", " "


class MarkedCheckbox(Checkbox):
    """A compact Checkbox whose mark shows its value by shape."""

    def __init__(self, label: str, *, value: bool, id: str) -> None:
        super().__init__(label, value, id=id, compact=True)
        self.BUTTON_INNER = _ON if value else _OFF

    def watch_value(self) -> None:
        """The mark follows the value; Checkbox then says it changed."""
        self.BUTTON_INNER = _ON if self.value else _OFF
        super().watch_value()
