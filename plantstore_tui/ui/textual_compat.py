"""The one module that touches Textual's private API, for the Textual range pyproject.toml pins.

Each private name used here is listed in `PRIVATE_NAMES`, with the behaviour that needs it and the
upstream issue; tests/ui/test_textual_compat.py fails, naming the symbol, when a Textual upgrade
removes or renames one. Everywhere else uses the functions and the base class below.
"""

from __future__ import annotations

import importlib
import io
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, ClassVar, TypeVar

from textual import events
from textual.app import App
from textual.widgets import Input

if TYPE_CHECKING:
    from textual.drivers.linux_driver import LinuxDriver

ReturnType = TypeVar("ReturnType")

# (module, class, attribute): the private names this module relies on, each for a behaviour
# users need that Textual offers no public way to get.
PRIVATE_NAMES: tuple[tuple[str, str, str], ...] = (
    # Keys bound to actions run in the order typed, among the characters of a burst:
    # Textualize/textual#6605 (bindings run after the characters typed after them).
    ("textual.app", "App", "on_event"),
    ("textual.app", "App", "_check_bindings"),
    # The cursor shown at once for a character applied in order (#6605 again: Input's key
    # handler, which does this, runs too late).
    ("textual.widgets", "Input", "_restart_blink"),
    # A crash report without each frame's local variables, where a token may be: Textual's
    # report has no option for it (upstream: none found; Rich's view is Textualize/rich#2408).
    ("textual.app", "App", "_fatal_error"),
    # The writer that survives a hung-up terminal: Textual's writer thread dies at its first
    # failed write and the exit blocks on its full queue (upstream: none found; the input
    # thread's side is Textualize/textual#6690).
    ("textual.drivers.linux_driver", "LinuxDriver", "_file"),
)


def missing() -> list[str]:
    """The names of `PRIVATE_NAMES` the installed Textual lacks, as `module.Class.attribute`."""
    absent = []
    for module_name, class_name, attribute in PRIVATE_NAMES:
        if module_name == "textual.drivers.linux_driver" and sys.platform == "win32":
            continue
        owner = getattr(importlib.import_module(module_name), class_name, None)
        # An instance attribute is found among the names its class's __init__ assigns.
        if owner is None or not (
            hasattr(owner, attribute) or attribute in owner.__init__.__code__.co_names
        ):
            absent.append(f"{module_name}.{class_name}.{attribute}")
    return absent


async def check_bindings(app: App[Any], key: str, *, priority: bool = False) -> bool:
    """Run the bindings lookup Textual runs for a key (priority ones, or the chain from the focused
    widget up to the app); True if a binding took it. Keymaps and check_action apply."""
    return await app._check_bindings(key, priority=priority)


def replace_writer_file(
    driver: LinuxDriver, replace: Callable[[io.TextIOWrapper[Any]], io.TextIOWrapper[Any]]
) -> None:
    """Give the driver's writer thread `replace(file)` to write to instead of its terminal file."""
    output = driver._file
    if output is not None:
        driver._file = replace(output)


class KeysFirstApp(App[ReturnType]):
    """Textual's App with two hooks into its internals: keys taken before Textual delivers them,
    and a crash report that may leave out every frame's locals."""

    # Textual's crash report shows every frame's local variables.
    crash_report_shows_locals: ClassVar[bool] = True

    async def take_key_first(self, event: events.Key | events.Paste) -> bool:
        """Apply a key or paste as the app reads it; False leaves it to Textual's delivery."""
        return False

    async def deliver(self, event: events.Event) -> None:
        """Textual's own handling of an event, as `on_event` gives it when `take_key_first`
        declines (for a key kept and applied later)."""
        await super().on_event(event)

    async def on_event(self, event: events.Event) -> None:
        """Keys and pastes go to `take_key_first` before Textual's own handling."""
        if (
            isinstance(event, events.Key | events.Paste)
            and not event.is_forwarded
            and await self.take_key_first(event)
        ):
            return
        await super().on_event(event)

    def _fatal_error(self) -> None:
        if self.crash_report_shows_locals:
            super()._fatal_error()
            return
        # An optional feature, a crash's traceback: Rich's, with pygments, would weigh on every
        # start (benchmarks/README.md, "Imports kept out of the start").
        import rich.traceback

        self.bell()
        self.panic(rich.traceback.Traceback(show_locals=False, width=None, suppress=[rich]))


def restart_blink(field: Input) -> None:
    """Show the field's cursor and start its blink over, as Input does for each key it handles:
    for a key applied without Input's own key handler."""
    field._restart_blink()
