"""A text area of an ordered screen: typed characters, Enter and pastes go in at once, as they
are applied (`ui/ordered_input.py`), so a key bound to an action (an arrow, Backspace, Tab) acts
where the keys typed before it left the cursor, at any typing speed."""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.widgets import TextArea

if TYPE_CHECKING:
    from textual import events


class TypedTextArea(TextArea):
    """A TextArea whose typed characters and pastes an ordered screen applies at once."""

    def type_now(self, event: events.Key) -> bool:
        """Apply a typed character or Enter, as TextArea would in its own time; False if the
        key is neither."""
        if event.key == "enter":
            text = "\n"
        elif event.is_printable and event.character is not None:
            text = event.character
        else:
            return False
        self.paste_now(text)
        return True

    def paste_now(self, text: str) -> str | None:
        """Put `text` in place of the selection, the cursor after it; None: nothing to say."""
        if not self.read_only:
            result = self.replace(text, *self.selection, maintain_selection_offset=False)
            self.move_cursor(result.end_location)
        return None
