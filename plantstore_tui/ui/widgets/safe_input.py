"""An Input that never writes a control or bidi character to the terminal."""

from __future__ import annotations

from rich.text import Text

from plantstore_tui.core.plant.form import is_forbidden_char
from plantstore_tui.ui.textual_compat import CompatInput


def _symbol(char: str) -> str:
    # One narrow symbol per character, so the cursor still lands where Input computes it.
    code = ord(char)
    if code < 0x20:
        return chr(0x2400 + code)  # the Control Pictures block: ␛ for ESC, ␀ for NUL, ...
    if code == 0x7F:
        return "\u2421"  # ␡
    return "\ufffd"


class SafeInput(CompatInput):
    """Shows a pasted ESC, C1, DEL or bidi control as a visible symbol; the value is unchanged.

    The form refuses such text and names the character; this keeps it off the terminal meanwhile.
    """

    def shown(self, text: Text) -> Text:
        """Input's text, with each forbidden character drawn as a reversed symbol."""
        plain = text.plain
        if self.password or plain.isprintable():
            return text
        shown = Text(
            "".join(_symbol(char) if is_forbidden_char(char) else char for char in plain),
            no_wrap=True,
            overflow="ignore",
            end="",
        )
        for index, char in enumerate(plain):
            if is_forbidden_char(char):
                shown.stylize("reverse", index, index + 1)
        return shown
