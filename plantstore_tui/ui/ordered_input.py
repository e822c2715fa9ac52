"""Keys and pastes applied in the order the terminal sent them, whatever the typing speed.

Textual forwards each key to the widget focused when the app *reads* it; that widget applies it
later, in its own task, and a focus move bound to Tab or Enter happens later still, once the key
has bubbled back up to the app. A burst (a scanner, a keyboard macro, a fast typist, type-ahead
while the app is busy) is read whole before any of it is applied, so every key of it lands in the
field that was focused when it began.

A screen that implements `OrderedInput` is handed each key and paste instead, in the app's own
task, and applies it completely (the text edit, the focus move, the submit) before the app reads
the next one. `apply_key` does what Textual does for a key, in the same order, but to the end:
priority bindings, then the focused widget's own handling of a typed character, then the bindings
from the focused widget up to the app. A screen may keep a run of typed characters read together
and put them in the field as one change, provided it does so before any other key acts, before
anything reads the field, and before the next frame (`FieldInput.type_now`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol, runtime_checkable

from plantstore_tui.ui.textual_compat import check_bindings

if TYPE_CHECKING:
    from collections.abc import Callable

    from textual import events
    from textual.app import App


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
