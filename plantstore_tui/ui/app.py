"""The Textual app: wiring only. The screens and widgets do the work."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime
from typing import TYPE_CHECKING, ClassVar

from textual.app import App, SystemCommand
from textual.binding import Binding, BindingType
from textual.screen import Screen

from plantstore_tui.ui.commands import ProfileCommands
from plantstore_tui.ui.connection import Connect, Connection, TargetLabel
from plantstore_tui.ui.screens.send import Clock, SendScreen

if TYPE_CHECKING:
    from plantstore_tui.server.demo import ThrowawayServer
    from plantstore_tui.ui.screens.first_run import FirstRunChoice


def _now() -> datetime:
    return datetime.now().astimezone()


class PlantStoreApp(App[None]):
    """plantstore-tui: a form, a send that never freezes the screen, and a log of the answers."""

    CSS_PATH = "app.tcss"
    TITLE = "plantstore-tui"
    COMMANDS: ClassVar = App.COMMANDS | {ProfileCommands}
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("f1", "help", "Help"),
        Binding("f2", "profiles", "Profiles"),
    ]

    def __init__(self, connect: Connect | None, label: TargetLabel, *, clock: Clock = _now) -> None:
        """`connect` None means no target yet: the app opens on the first-run screen."""
        super().__init__()
        self._connect = connect
        self._label = label
        self._clock = clock
        self._send_screen = SendScreen(connect, label, clock)
        self._demo: ThrowawayServer | None = None

    def get_default_screen(self) -> Screen[None]:
        """The send screen."""
        return self._send_screen

    def on_mount(self) -> None:
        """On a first run, offer to create a profile or to start the demo."""
        if self._connect is None:
            from plantstore_tui.ui.screens.first_run import FirstRunScreen

            self.push_screen(FirstRunScreen(), self._first_run_chosen)

    def _first_run_chosen(self, choice: FirstRunChoice | None) -> None:
        if choice is not None and choice.profile is not None:
            self.use_profile(choice.profile.name)
        elif choice is not None and choice.demo:
            label = TargetLabel(base_url="starting…", token_source="the demo")
            self._send_screen.reconnect(self._start_demo, label)
        else:
            self.exit()

    def _start_demo(self) -> Connection:
        # Runs in the connect thread; the server stops when the app is done (stop_demo).
        from plantstore_tui.server.demo import ThrowawayServer
        from plantstore_tui.ui.connection import connect_to

        self._demo = ThrowawayServer()
        return connect_to(self._demo.start())

    def stop_demo(self) -> None:
        """Stop a demo server started from the first-run screen, if any."""
        if self._demo is not None:
            self._demo.stop()

    def action_profiles(self) -> None:
        """Open the profiles screen; choosing one there sends to it from now on."""
        from plantstore_tui.ui.screens.profiles import ProfilesScreen

        if isinstance(self.screen, ProfilesScreen):
            return
        self.push_screen(ProfilesScreen(active=self.active_profile()), self._profile_chosen)

    def _profile_chosen(self, name: str | None) -> None:
        if name is not None:
            self.use_profile(name)

    def active_profile(self) -> str | None:
        """The name of the profile plants go to now, if any."""
        target = self._send_screen.target
        return None if target is None else target.profile

    def use_profile(self, name: str) -> None:
        """Send to the saved profile `name` from now on (its token is read off the UI thread)."""
        from plantstore_tui.ui.connection import connect_to_profile

        label = TargetLabel(base_url="loading…", token_source="the profile", profile=name)
        self._send_screen.reconnect(lambda: connect_to_profile(name), label)

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
        yield SystemCommand(
            "Profiles", "List, add, edit, test and switch profiles", self.action_profiles
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
