"""The Textual app: it owns the send service and hands it to the send screen, which renders
it; the screens and widgets do the rest."""

from __future__ import annotations

import asyncio
import signal
import sys
from collections.abc import Iterable
from datetime import datetime
from typing import TYPE_CHECKING, ClassVar

from rich.text import Text
from textual import events, on, work
from textual.app import App, SystemCommand
from textual.binding import Binding, BindingType
from textual.screen import Screen
from textual.worker import Worker, WorkerState

from plantstore_tui.core.config.errors import ConfigError
from plantstore_tui.core.config.keymap import saved_keymap
from plantstore_tui.core.config.store import ProfileStore
from plantstore_tui.core.config.theme import save_theme, saved_theme
from plantstore_tui.core.plant.form import FormTexts
from plantstore_tui.core.plant.text import plural, visible
from plantstore_tui.core.sending.service import SendService
from plantstore_tui.core.sending.submitted import FromFile, Loaded
from plantstore_tui.ui.browser_keys import alt_key_alone, escape_then_character
from plantstore_tui.ui.commands import ProfileCommands
from plantstore_tui.ui.connection import TargetLabel
from plantstore_tui.ui.findings import tell_findings
from plantstore_tui.ui.keys import apply_keymap
from plantstore_tui.ui.messages import TakingKeys, Told
from plantstore_tui.ui.ordered_input import OrderedInput, OrderedScreen
from plantstore_tui.ui.screens.confirm import Choice, ChoiceScreen
from plantstore_tui.ui.screens.send import SendScreen
from plantstore_tui.ui.shutdown import SignalEnd
from plantstore_tui.ui.textual_compat import KeysFirstApp

if sys.platform != "win32":
    # POSIX only: Textual's Linux and macOS driver, made to cope with the terminal hanging up.
    from textual.drivers.linux_driver import LinuxDriver

    from plantstore_tui.ui.driver import HangupSafeDriver

if TYPE_CHECKING:
    from textual.driver import Driver

    from plantstore_tui.core.config.findings import Finding
    from plantstore_tui.core.http.target import Target
    from plantstore_tui.core.sending.events import Event, PlantView
    from plantstore_tui.core.sending.service import Clock, Connect
    from plantstore_tui.ui.screens.first_run import FirstRunChoice


def _now() -> datetime:
    return datetime.now().astimezone()


class PlantStoreApp(KeysFirstApp[None]):
    """plantstore-tui: a form, a send that never freezes the screen, and a log of the answers."""

    CSS_PATH = "app.tcss"
    TITLE = "plantstore-tui"
    # Textual's crash report shows every frame's locals, and a token may be among them: the report
    # here shows the code path only.
    crash_report_shows_locals = False
    COMMANDS: ClassVar = App.COMMANDS | {ProfileCommands}
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("f1", "help", "Help", id="app.help"),
        Binding("f2", "profiles", "Profiles", id="app.profiles"),
        # Not in the footer, which keeps to the keys of every plant: the palette and help name it.
        Binding("f5", "import", "Import", show=False, id="app.import"),
    ]

    def __init__(
        self,
        connect: Connect | None,
        label: TargetLabel,
        *,
        clock: Clock = _now,
        note: str | None = None,
        throwaway: bool = False,
        verify: bool = False,
    ) -> None:
        """`connect` None means no target yet: the app opens on the first-run screen. `note`
        is put in the log at the start (the demo says there that it is a sandbox). `throwaway`:
        the ledger is deleted when the app ends (the demo's), so quitting loses what it holds."""
        super().__init__()
        self._throwaway = throwaway
        self._connect = connect
        self._label = label
        self._clock = clock
        self._note = note
        self.service = SendService(
            self._tell,
            clock,
            self._confirm_queued,
            connect=connect,
            base_url=label.base_url,
            profile=label.profile,
            verify=verify,
        )
        """The send service: every plant goes its way through it; closed as the app ends."""
        self._send_screen = SendScreen(self.service, label, clock)
        self.demo_chosen = False
        """True when the operator chose the demo on the first-run screen: the app ends, and the
        front door starts the demo in a sandbox of its own (nothing of this run reaches it)."""
        # Made now, before the app takes the terminal: its last resort keeps the modes to restore.
        self._signal_end = SignalEnd(self._ended_by_signal, signal.SIGTERM, signal.SIGHUP)
        self._early_keys: list[events.Key | events.Paste] = []
        self._first_run: Screen[FirstRunChoice] | None = None
        # The theme profiles.toml keeps (the palette's Theme changes it), in place before the
        # first frame; a name this Textual does not know is said with the file's other
        # mistakes once the app runs (`_read_findings`).
        self._kept_theme = saved_theme()
        if self._kept_theme in self.available_themes:
            self.theme = self._kept_theme
        else:
            self._kept_theme = None
        self.operator_keymap = saved_keymap()
        """profiles.toml's `[keymap]` as it can be applied (its mistakes are said with the
        file's others, `_read_findings`)."""

    def get_driver_class(self) -> type[Driver]:
        """Textual's driver; on Linux and macOS one that copes with the terminal hanging up."""
        driver_class = super().get_driver_class()
        if sys.platform != "win32" and driver_class is LinuxDriver:
            return HangupSafeDriver
        return driver_class

    def get_default_screen(self) -> Screen[None]:
        """The send screen."""
        return self._send_screen

    async def take_key_first(self, event: events.Key | events.Paste) -> bool:
        """Keys and pastes go to a screen that applies them in order, if the screen can."""
        alone = alt_key_alone(event) if self.is_web else None
        if alone is not None:
            if not await self.take_key_first(alone):
                await self.deliver(alone)
            return True
        typed = None if self.is_web else escape_then_character(event)
        if typed is not None:
            # Esc keeps its meaning in a terminal (it closes the screen, cancels the send), and
            # the letter goes where the focus is after it.
            for key in typed:
                if not await self.take_key_first(key):
                    await self.deliver(key)
            return True
        screen = self.screen
        if isinstance(screen, OrderedScreen) and not screen.taking_keys:
            # Typed while the screen opens (the app starting, F2 then a name in one write):
            # kept, and applied in the order read as soon as it is there (`_take_early_keys`).
            self._early_keys.append(event)
            return True
        if self._early_keys:
            await self._take_early_keys()
        if not isinstance(screen, OrderedInput):
            return False  # Textual delivers it (a question over the send screen)
        return await screen.take_in_order(event)

    @on(TakingKeys)
    async def _take_early_keys(self) -> None:
        early, self._early_keys = self._early_keys, []
        for event in early:
            if not await self.take_key_first(event):
                await self.deliver(event)

    def on_mount(self) -> None:
        """Stop at once on SIGTERM and SIGHUP (every plant taken is on disk already); in a
        browser, take the keys the page receives; on a first run, offer to create a profile or
        to start the demo."""
        self._signal_end.install(asyncio.get_running_loop())
        # The operator's keymap over the defaults (a browser's in a browser), before any key
        # is applied: keys read earlier wait for the screen (`TakingKeys`), which the app
        # handles after this.
        apply_keymap(self)
        self.call_after_refresh(self._read_findings, frozenset(self.available_themes))
        if self._note is not None:
            self.call_after_refresh(self._put_note, self._note)
        if self._connect is None:
            # An optional feature, the first-run screen: opened only without a target.
            from plantstore_tui.ui.screens.first_run import FirstRunScreen

            self._first_run = FirstRunScreen()
            self.push_screen(self._first_run, self._first_run_chosen)

    def _tell(self, event: Event) -> None:
        # The service tells on the event loop; the send screen renders it in its own turn.
        self._send_screen.post_message(Told(event))

    async def _confirm_queued(self, target: Target, plant: PlantView) -> bool:
        return await self._send_screen.confirm_queued(target, plant)

    def _first_run_chosen(self, choice: FirstRunChoice | None) -> None:
        if choice is not None and choice.profile is not None:
            self.use_profile(choice.profile.name)
        else:
            # The demo is not started in this app: its session and ledger are the operator's.
            self.demo_chosen = choice is not None and choice.demo
            self.exit()

    def watch_theme(self, theme: str) -> None:
        """Keep a theme chosen (the palette's Theme) for the next start, in profiles.toml."""
        if theme != self._kept_theme:
            self._kept_theme = theme
            self._keep_theme(theme)

    @work(thread=True, exclusive=True, exit_on_error=False, name="keep theme", group="theme")
    def _keep_theme(self, theme: str) -> None:
        # The file's lock and its fsync: never on the UI thread.
        save_theme(theme)

    @on(Worker.StateChanged)
    def _theme_not_kept(self, event: Worker.StateChanged) -> None:
        worker = event.worker
        if worker.group == "theme" and event.state == WorkerState.ERROR:
            error = worker.error
            why = (
                visible(str(error))
                if isinstance(error, ConfigError)
                else f"unexpected error {type(error).__name__}"
            )
            self.notify(
                f"The theme is used until you quit, but it is not kept: {why}",
                title="Theme",
                severity="warning",
                timeout=10,
            )

    @work(thread=True, exit_on_error=False, name="read findings", group="findings")
    def _read_findings(self, themes: frozenset[str]) -> None:
        # After the first frame, in a thread: the file's checks are the profile store's.
        findings = ProfileStore().load(themes=themes).findings
        if findings:
            self.call_from_thread(self._tell_findings, findings)

    def _tell_findings(self, findings: tuple[Finding, ...]) -> None:
        tell_findings(self._send_screen.log_panel, self.notify, self._clock(), findings)

    def _put_note(self, note: str) -> None:
        self._send_screen.log_panel.add_note(note, self._clock())

    # Quitting: signals and the quit question -------------------------------------------------

    def _ended_by_signal(self, signum: signal.Signals) -> None:
        # The terminal may be gone (SIGHUP): nobody can be asked, and nothing needs writing.
        self.exit(return_code=128 + signum)

    async def action_quit(self) -> None:
        """Quit; with plants queued, in flight or needing attention, ask what becomes of them."""

        service = self.service
        status = service.status()
        unsettled = sum(status.counts)
        if not unsettled:
            self.exit()
            return
        if isinstance(self.screen, ChoiceScreen) and self.screen.id == "quit-question":
            return
        queued, sending, attention = status.counts
        counts = [
            f"{count} {words}"
            for count, words in (
                (queued, "queued"),
                (sending, "being sent"),
                (attention, "needing attention"),
            )
            if count
        ]

        def answered(choice: str) -> None:
            if choice == "drop":
                service.drop_unsettled()
            if choice in ("keep", "drop"):
                self.exit()

        stay = Choice("Keep working", "Esc", "stay", "quit-stay")
        one = unsettled == 1
        them, they = ("it", "It is") if one else ("them", "They are")
        plants = "a plant" if one else "plants"
        if status.in_memory or self._throwaway:
            title = f"Quit and lose {plants} not settled?"
            lost = (
                f"This is the demo: quitting deletes its ledger, and {them} with it."
                if self._throwaway
                else "The ledger is in memory only (its file could not be used): quitting "
                f"loses {them}."
            )
            explanation = f"{lost} Deal with {them} in needs attention (F4) first."
            choices = [Choice(f"Quit, lose {them}", "d", "drop", "quit-drop", "error"), stay]
        else:
            title = f"Quit with {plants} not settled?"
            explanation = (
                f"{they} in the ledger: the next plantstore-tui offers {them} in needs attention "
                f"(never sends {them} without you). A plant being sent may or may not arrive."
            )
            choices = [
                Choice(f"Quit, offer {them} next time", "s", "keep", "quit-save", "primary"),
                Choice(f"Quit, drop {them}", "d", "drop", "quit-drop", "error"),
                stay,
            ]
        subject = Text(f"{plural(unsettled, 'plant')}: " + ", ".join(counts))
        question = ChoiceScreen(
            title, subject, explanation, choices, cancel="stay", answered=answered
        )
        question.id = "quit-question"
        self._send_screen.ask(question)

    async def on_unmount(self) -> None:
        """Let the send in flight say its fate, close the connections, end the session (the
        screens are gone by now); give the signals back."""
        try:
            await self.service.close()
        finally:
            self._signal_end.uninstall()

    def action_profiles(self) -> None:
        """Open the profiles screen; choosing one there sends to it from now on."""
        # An optional feature, a screen opened on demand (F2).
        from plantstore_tui.ui.screens.profiles import ProfilesScreen

        if isinstance(self.screen, ProfilesScreen):
            return
        self.push_screen(ProfilesScreen(active=self.active_profile()), self._profile_chosen)

    def _profile_chosen(self, name: str | None) -> None:
        if name is None:
            return
        if self._first_run is not None and self.screen is self._first_run:
            # F2 from the first-run screen (a profiles.toml fixed meanwhile): the choice made.
            self.pop_screen()
        self.use_profile(name)

    def active_profile(self) -> str | None:
        """The name of the profile plants go to now, if any."""
        target = self.service.status().target
        return None if target is None else target.profile

    def use_profile(self, name: str) -> bool:
        """Send to the saved profile `name` from now on (its token is read off the UI thread);
        True: at once, False: once the operator says what becomes of the plants in line."""
        label = TargetLabel(base_url="loading…", token_source="the profile", profile=name)
        return self._send_screen.switch(
            label,
            lambda asked: self.service.switch_profile(name, label.base_url, asked=asked),
        )

    def action_check(self) -> None:
        """Run the conformance check on the deployment plants go to now."""
        # An optional feature, a screen opened on demand (the palette's Check).
        from plantstore_tui.ui.screens.check import CheckScreen

        target = self.service.status().target
        if target is None:
            self.notify("There is no deployment to check yet.", title="Check")
        elif not isinstance(self.screen, CheckScreen):
            self.push_screen(CheckScreen(target))

    def action_import(self) -> None:
        """Open the import screen for the deployment plants go to now (from the send screen:
        not over a question, nor over another screen)."""
        # An optional feature, a screen opened on demand (F5).
        from plantstore_tui.ui.screens.import_screen import ImportScreen

        if self.screen is not self._send_screen:
            return
        target = self.service.status().target
        if target is None:
            self.notify("There is no deployment to import to yet.", title="Import")
        else:
            self.push_screen(ImportScreen(target, self._load_into_form))

    def _load_into_form(self, texts: FormTexts, may_exist: bool) -> bool:
        # A row of the import screen (Enter on a row left unsent).
        loading = self._send_screen.load(FromFile(texts, may_exist))
        return isinstance(loading, Loaded)

    def action_help(self) -> None:
        """Show the help screen (once)."""
        # A screen opened on demand (F1): the first frame does not wait for it (its cost:
        # benchmarks/README.md, "Imports kept out of the start").
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
                "Turn moving the ID on after a send on or off",
                screen.action_toggle_next_id,
            )
            yield SystemCommand(
                "Toggle verified entry",
                "Key each plant twice, the second time blind, and send it once both agree",
                screen.action_toggle_verify,
            )
            yield SystemCommand(
                "Toggle keep tag",
                "Turn keeping the tag after a send on or off",
                screen.action_toggle_keep_tag,
            )
            yield SystemCommand(
                "History",
                "Every send kept: search, show, load into the form, resend, copy as curl",
                screen.action_history,
            )
            yield SystemCommand(
                "Needs attention",
                "The plants that did not go through: load one into the form or dismiss it",
                screen.action_attention,
            )
            yield SystemCommand(
                "Probe a request",
                "Send POST /plants exactly as typed (any body, token or header); never queued",
                screen.action_probe,
            )
            yield SystemCommand(
                "Shift summary",
                "Today's plants: created, rejected, per hour, the time to the answer",
                screen.action_summary,
            )
            yield SystemCommand(
                "Import plants from a file",
                "CSV, TSV or JSON Lines: checked whole first, resumable, never a row twice",
                self.action_import,
            )
        yield SystemCommand(
            "Profiles", "List, add, edit, test and switch profiles", self.action_profiles
        )
        yield SystemCommand(
            "Check this deployment",
            "Probe POST /plants against the spec, creating nothing",
            self.action_check,
        )
        yield SystemCommand("Help", "Keys and what the log means", self.action_help)
        yield from super().get_system_commands(screen)
