"""Keys and pastes applied in the order the terminal sent them, whatever the typing speed.

Textual forwards each key to the widget focused when the app *reads* it; that widget applies it
later, in its own task, and a focus move bound to Tab or Enter happens later still, once the key
has bubbled back up to the app. A burst (a scanner, a keyboard macro, a fast typist, type-ahead
while the app is busy) is read whole before any of it is applied, so every key of it lands in the
field that was focused when it began (Textualize/textual#6605, shown on a bare app in
tests/ui/test_upstream.py, which fails the day a Textual release changes it).

A screen that implements `OrderedInput` is handed each key and paste instead, in the app's own
task, and applies it completely (the text edit, the focus move, the submit) before the app reads
the next one. A screen with fields opts in by being an `OrderedScreen`, its text fields
`TypedInput`s (or `TypedTextArea`s, any `TypesNow`): the send screen, the profile editor, the
history, the import screen, the probe screen.

Textual's loop takes the next key of a burst before anything else runs: a long burst would hold
the sends (until they time out) and every frame until its end. Every `TURN_SECONDS` of keys
applied, the rest of the app gets its turn (the sends, the timers, a frame).

`apply_key` does what Textual does for a key, in the same order, but to the end: priority
bindings, then the focused widget's own handling of a typed character, then the bindings from the
focused widget up to the app.
"""

from __future__ import annotations

import asyncio
import time
from typing import TYPE_CHECKING, Protocol, TypeVar, runtime_checkable

from textual import events
from textual.screen import Screen

from plantstore_tui.ui.messages import TakingKeys
from plantstore_tui.ui.textual_compat import check_bindings
from plantstore_tui.ui.widgets.typed_input import TypedInput

if TYPE_CHECKING:
    from collections.abc import Callable

    from textual.app import App
    from textual.widget import Widget

ReturnType = TypeVar("ReturnType")

# How long the keys of a burst are applied before the rest of the app gets a turn.
TURN_SECONDS = 0.1


@runtime_checkable
class TypesNow(Protocol):
    """A field an ordered screen hands typed characters and pastes to, applied at once."""

    def type_now(self, event: events.Key) -> bool:
        """Apply a typed character now; False if the key is not one the field types."""
        ...

    def paste_now(self, text: str) -> str | None:
        """Apply a paste now; the words saying why it was refused, if it was."""
        ...


@runtime_checkable
class OrderedInput(Protocol):
    """A screen whose keys and pastes are applied in order (see the module's docstring)."""

    async def take_in_order(self, event: events.Key | events.Paste) -> bool:
        """Apply the event completely, now; False leaves it to Textual's usual delivery."""
        ...


async def apply_key(
    app: App[object], event: events.Key, typed: Callable[[events.Key], bool]
) -> bool:
    """Textual's handling of a key, finished before returning; False if nothing took it.

    `typed` applies a typed character to the focused widget at once (True if it did).
    """
    # The lookup Textual itself runs for a key (priority, then the chain from the focused widget
    # up): calling it here keeps keymaps and check_action intact.
    if await check_bindings(app, event.key, priority=True):
        return True
    if typed(event):
        return True
    return await check_bindings(app, event.key)


class OrderedScreen(Screen[ReturnType]):
    """A screen whose keys and pastes are applied in order, its text fields `TypedInput`s.

    A screen with fields opts in by subclassing it in place of `Screen`, or after another
    Textual screen class (`class Editor(ModalScreen[R], OrderedScreen[R])`): Textual takes a
    screen's default CSS along its first base only."""

    _turn_at = 0.0
    taking_keys = False
    """True while the screen applies keys as they come: from when it is mounted with its first
    field focused, but for the time it `hold_keys`. The app holds the keys read meanwhile (while
    the screen opens: `F2 a name…` in one write) until `TakingKeys`."""

    def on_mount(self) -> None:
        """Ready for keys. Textual calls this after the screen's own `on_mount` (a base class's
        handler comes after its subclass's), which focuses the first field."""
        self.take_keys()

    def hold_keys(self) -> None:
        """Hold the keys read from now on, in order, until `take_keys`: what they mean depends on
        something on its way (the key applied now waits for it too)."""
        self.taking_keys = False

    def take_keys(self) -> None:
        """Apply the keys held, in the order read, before any read after this."""
        self.taking_keys = True
        self.post_message(TakingKeys())

    async def take_in_order(self, event: events.Key | events.Paste) -> bool:
        """Apply a key or paste completely before the app reads the next (`OrderedInput`); the
        rest of the app has its turn every `TURN_SECONDS` of a burst."""
        taken = await self._apply(event)
        if taken and time.monotonic() >= self._turn_at:
            await asyncio.sleep(0)
            self._turn_at = time.monotonic() + TURN_SECONDS
        return taken

    async def _apply(self, event: events.Key | events.Paste) -> bool:
        focused = self.focused
        if isinstance(event, events.Paste):
            if not isinstance(focused, TypesNow):
                return False
            problem = focused.paste_now(event.text)
            if problem is not None:
                self.notify(problem, title="Not pasted", severity="warning")
            return True
        if self.maximized is not None:
            return False
        return await apply_key(self.app, event, self._type_now)

    def _type_now(self, event: events.Key) -> bool:
        focused = self.focused
        return isinstance(focused, TypesNow) and focused.type_now(event)

    def set_focus(
        self, widget: Widget | None, scroll_visible: bool = True, from_app_focus: bool = False
    ) -> None:
        """Focus a widget; a field gets its text selected at once, as the focus moves."""
        previous = self.focused
        super().set_focus(widget, scroll_visible, from_app_focus)
        if (
            isinstance(widget, TypedInput)
            and widget is self.focused
            and widget is not previous
            and not from_app_focus
        ):
            widget.select_all()
