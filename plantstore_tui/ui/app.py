"""The Textual app: wiring only. The screens and widgets do the work."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime
from typing import ClassVar

from textual.app import App, SystemCommand
from textual.binding import Binding, BindingType
from textual.screen import Screen

from plantstore_tui.ui.connection import Connect, TargetLabel
from plantstore_tui.ui.screens.send import Clock, SendScreen


def _now() -> datetime:
    return datetime.now().astimezone()


class PlantStoreApp(App[None]):
    """plantstore-tui: a form, a send that never freezes the screen, and a log of the answers."""

    CSS_PATH = "app.tcss"
    TITLE = "plantstore-tui"
    BINDINGS: ClassVar[list[BindingType]] = [Binding("f1", "help", "Help")]

    def __init__(self, connect: Connect, label: TargetLabel, *, clock: Clock = _now) -> None:
        super().__init__()
        self._connect = connect
        self._label = label
        self._clock = clock

    def get_default_screen(self) -> Screen[None]:
        """The send screen."""
        return SendScreen(self._connect, self._label, self._clock)

    def action_help(self) -> None:
        """Show the help screen (once)."""
        from plantstore_tui.ui.screens.help import HelpScreen

        if not isinstance(self.screen, HelpScreen):
            self.push_screen(HelpScreen())

    def get_system_commands(self, screen: Screen[object]) -> Iterable[SystemCommand]:
        """The palette: the main actions of the send screen, then Textual's own."""
        if isinstance(screen, SendScreen):
            yield SystemCommand("Send plant", "Check the form and send it", screen.action_send)
            yield SystemCommand(
                "Cancel send", "Cancel the send in flight", screen.action_cancel_send
            )
            yield SystemCommand("Clear log", "Empty the response log", screen.action_clear_log)
            yield SystemCommand(
                "Save log", "Write the log to a text file here", screen.action_save_log
            )
            yield SystemCommand(
                "Toggle next id",
                "Turn moving to the next id after a success on or off",
                screen.action_toggle_next_id,
            )
        yield SystemCommand("Help", "Keys and what the log means", self.action_help)
        yield from super().get_system_commands(screen)

    def _fatal_error(self) -> None:
        # Textual's crash report shows every frame's locals; a token may be among them, so the
        # report here shows the code path only.
        from rich.segment import Segments
        from rich.traceback import Traceback

        self.bell()
        traceback = Traceback(show_locals=False, width=None)
        self._exit_renderables.append(
            Segments(self.console.render(traceback, self.console.options))
        )
        self._close_messages_no_wait()
