"""An Input that never writes a control or bidi character to the terminal."""

from __future__ import annotations

from typing import Any

from rich.highlighter import Highlighter
from rich.text import Text
from textual.widgets import Input

from plantstore_tui.core.plant.form import is_forbidden_char


def _symbol(char: str) -> str:
    # One narrow symbol per character, so the cursor still lands where Input computes it.
    code = ord(char)
    if code < 0x20:
        return chr(0x2400 + code)  # the Control Pictures block: ␛ for ESC, ␀ for NUL, ...
    if code == 0x7F:
        return "\u2421"  # ␡
    return "\ufffd"


class VisibleControls(Highlighter):
    """Draws each forbidden character as a reversed symbol (Input draws its value through its
    highlighter); the value itself is unchanged."""

    def highlight(self, text: Text) -> None:
        """Replace each forbidden character of `text` with its symbol, reversed."""
        plain = text.plain
        if plain.isprintable():
            return
        text.plain = "".join(_symbol(char) if is_forbidden_char(char) else char for char in plain)
        for index, char in enumerate(plain):
            if is_forbidden_char(char):
                text.stylize("reverse", index, index + 1)


class SafeInput(Input):
    """Shows a pasted ESC, C1, DEL or bidi control as a visible symbol; the value is unchanged.

    The form refuses such text and names the character; this keeps it off the terminal meanwhile.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.highlighter = VisibleControls()
