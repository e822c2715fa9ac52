"""A switch of the form (next id, keep tag): `▐✓▌ Next id ^N`, focusable, toggled by Enter, Space
or a click.

Drawn as Textual's Checkbox draws itself in the form, on and off shown by the mark's shape (a
tick, or an empty box), not only by its colour; but one widget with no parts of its own to style:
the Checkbox's style sheet, its module and the two styled parts of each switch cost the first
frame about 20M instructions. Its colours are the theme's, named in the markup.
"""

from __future__ import annotations

from typing import ClassVar

from rich.cells import cell_len
from textual import events, on
from textual.binding import Binding, BindingType
from textual.content import Content
from textual.markup import escape
from textual.widget import Widget

_BUTTON = "[$panel]▐[/][{mark} on $panel]{inner}[/][$panel]▌[/]"
_ON = ("$text-success", "✓")
_OFF = ("$panel-darken-2", " ")
_FOCUSED = "$block-cursor-foreground on $block-cursor-background $block-cursor-text-style"
_HOVERED = "on $block-hover-background"


class Switch(Widget, can_focus=True):
    """On or off, with its words; `value` is which, `toggle()` flips it."""

    ALLOW_SELECT = False
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter,space", "flip", "Toggle", show=False),
    ]

    def __init__(self, label: str, *, value: bool, id: str) -> None:
        super().__init__(id=id)
        self._width = 3 + cell_len(label) + 2  # the box, the words with a space each side
        self._words = escape(label)
        self.value = value

    def toggle(self) -> None:
        """Flip it (Enter, Space, a click)."""
        self.value = not self.value
        self.refresh()

    action_flip = toggle

    def on_click(self) -> None:
        """A click flips it."""
        self.toggle()

    def render(self) -> Content:
        """The mark in its box, then the words, highlighted when focused or under the mouse."""
        mark, inner = _ON if self.value else _OFF
        label = _FOCUSED if self.has_focus else _HOVERED if self.mouse_hover else ""
        words = f"[{label}] {self._words} [/]" if label else f" {self._words} "
        return Content.from_markup(_BUTTON.format(mark=mark, inner=inner) + words)

    def get_content_width(self, container: object, viewport: object) -> int:
        """The box (3 cells) and the words with a space each side."""
        return self._width

    def get_content_height(self, container: object, viewport: object, width: int) -> int:
        """One line."""
        return 1

    @on(events.Focus)
    @on(events.Blur)
    @on(events.Enter)
    @on(events.Leave)
    def _redraw(self) -> None:
        # The words are highlighted while it has the focus or the mouse.
        self.refresh()
