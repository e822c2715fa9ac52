"""A choice of a RadioSet (the profile editor's "Token from"): Textual's RadioButton, its mark a
dot when chosen and empty when not, so that the choices differ by shape and not only by colour
(NO_COLOR, a dim screen), as the form's checkboxes do (`marked_checkbox.py`)."""

from __future__ import annotations

from textual.widgets import RadioButton

_ON, _OFF = "●", " "


class MarkedRadioButton(RadioButton):
    """A RadioButton whose mark shows whether it is the choice by shape."""

    def __init__(self, label: str, *, value: bool, id: str) -> None:
        super().__init__(label, value, id=id)
        self.BUTTON_INNER = _ON if value else _OFF

    def watch_value(self) -> None:
        """The mark follows the value; RadioButton then says it changed."""
        self.BUTTON_INNER = _ON if self.value else _OFF
        super().watch_value()
