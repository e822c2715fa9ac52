"""A field of an ordered screen: typed characters and pastes go in at once, as they are applied.

An `OrderedScreen` (`ui/ordered_input.py`) hands each typed character and paste to the focused
field, which puts it in before the next key acts; the screen, not Textual's Focus handler, selects
the text as the focus arrives, so keys read already replace it as they would if typed slowly.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from plantstore_tui.ui.textual_compat import restart_blink
from plantstore_tui.ui.widgets.safe_input import SafeInput

if TYPE_CHECKING:
    from textual import events
    from textual.suggester import Suggester


class TypedInput(SafeInput):
    """A one-line field whose typed characters and pastes an ordered screen applies at once."""

    def __init__(
        self,
        value: str | None = None,
        placeholder: str = "",
        *,
        password: bool = False,
        suggester: Suggester | None = None,
        id: str | None = None,
        classes: str | None = None,
        disabled: bool = False,
    ) -> None:
        super().__init__(
            value,
            placeholder,
            password=password,
            # Input asks it for a completion at each change of the value: `type_now`'s too.
            suggester=suggester,
            id=id,
            classes=classes,
            disabled=disabled,
            # The screen selects the text as the focus moves (`OrderedScreen.set_focus`): Input
            # would do it later, in its own task, over what the keys after the move typed.
            select_on_focus=False,
            # The screen checks its fields and sets -invalid: Input's own validation, with no
            # validators, would take that class off again at every change and blur.
            validate_on=(),
        )

    def type_now(self, event: events.Key) -> bool:
        """Apply a typed character, as Input would in its own time; False if not one."""
        if not event.is_printable or event.character is None:
            return False
        self._replace_selection(event.character)
        restart_blink(self)  # the cursor stays on while the operator types, as in any Input
        return True

    def several_lines(self, count: int) -> str:
        """What a refused paste of `count` lines says (never the pasted text)."""
        return f"The paste has {count} lines; a field takes one. Nothing was pasted."

    def paste_now(self, text: str) -> str | None:
        """Apply a paste at once: one line is taken as it is; several are refused with words."""
        lines = [line for line in text.splitlines() if line.strip()]
        if len(lines) > 1:
            return self.several_lines(len(lines))
        if lines:
            self._replace_selection(lines[0])
        return None

    def _replace_selection(self, text: str) -> None:
        selection = self.selection
        if selection.is_empty:
            self.insert_text_at_cursor(text)
        else:
            self.replace(text, *selection)

    def on_paste(self, event: events.Paste) -> None:
        """A paste not applied in order (no ordered screen above): applied here, and Input's own
        paste handling is prevented."""
        event.stop()
        event.prevent_default()
        problem = self.paste_now(event.text)
        if problem is not None:
            self.notify(problem, title="Not pasted", severity="warning")
