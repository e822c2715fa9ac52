"""An Input that never writes a control, bidi or other invisible character to the terminal."""

from __future__ import annotations

from typing import Any

from rich.highlighter import Highlighter
from rich.text import Text
from textual.widgets import Input

from plantstore_tui.core.plant.text import is_unseen_char


def _symbol(char: str) -> str:
    # One narrow symbol per character, so the cursor still lands where Input computes it.
    code = ord(char)
    if code < 0x20:
        return chr(0x2400 + code)  # the Control Pictures block: ␛ for ESC, ␀ for NUL, ...
    if code == 0x7F:
        return "\u2421"  # ␡
    return "\ufffd"


class VisibleControls(Highlighter):
    """Draws each character a terminal would not show as itself (`is_unseen_char`, the one
    rule `visible` follows too) as a reversed symbol (Input draws its value through its
    highlighter); the value itself is unchanged."""

    def highlight(self, text: Text) -> None:
        """Replace each unseen character of `text` with its symbol, reversed."""
        plain = text.plain
        if plain.isprintable():
            return
        text.plain = "".join(_symbol(char) if is_unseen_char(char) else char for char in plain)
        for index, char in enumerate(plain):
            if is_unseen_char(char):
                text.stylize("reverse", index, index + 1)


class SafeInput(Input):
    """Shows a pasted ESC, C1, DEL, bidi control or zero-width character as a visible symbol;
    the value is unchanged.

    The form refuses a control character and names it; this keeps it off the terminal meanwhile,
    and shows a zero-width character the form takes, which the name would otherwise hide.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.highlighter = VisibleControls()
