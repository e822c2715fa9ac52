"""The profile form: add a profile or edit one, checked as you type with the core's own words."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar

from pydantic import SecretStr
from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Label, RadioSet, Static, Switch
from textual.worker import Worker, WorkerState

from plantstore_tui.core.config.errors import ConfigError
from plantstore_tui.core.config.profiles import FIELDS, Profile, profile_from_table
from plantstore_tui.core.config.store import ProfileStore, SaveReport
from plantstore_tui.core.http.proxy import shown_proxy
from plantstore_tui.core.http.target import Limits
from plantstore_tui.core.plant.text import visible
from plantstore_tui.ui.ordered_input import OrderedScreen
from plantstore_tui.ui.screens.profile_checks import (
    CHECKED,
    EditorTexts,
    TokenChoice,
    choice_of,
    problems,
    profile_table,
    typed_token,
)
from plantstore_tui.ui.widgets.marked_radio_button import MarkedRadioButton
from plantstore_tui.ui.widgets.typed_input import TypedInput

if TYPE_CHECKING:
    from plantstore_tui.core.config.tokens import TokenSource


# Fewer rows than this (the form needs 31 with fields of three rows) and each field takes one.
COMPACT_BELOW = 34
_CHOICE_LABELS = {
    TokenChoice.TYPED: "Typed here",
    TokenChoice.ENV: "Environment variable",  # the three fit 80 columns in a row
    TokenChoice.COMMAND: "Command",
}


@dataclass(frozen=True, slots=True)
class _TokenPlaces:
    """Where a typed token would be kept, and where the edited profile's token is now."""

    home: TokenSource
    current: TokenSource | None


class ProfileEditor(ModalScreen[SaveReport | None], OrderedScreen[SaveReport | None]):
    """Add a profile (`profile=None`) or edit one; dismisses with the `SaveReport`, or None.

    Its keys are applied in order (`OrderedScreen`): a password manager's auto-type or a macro
    (name, Tab, URL, Tab, Tab, token) fills each field with its own text."""

    CSS_PATH = "../profiles.tcss"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "Cancel", id="editor.cancel"),
        Binding("ctrl+s", "save", "Save", id="editor.save"),
        Binding("ctrl+r", "reveal", "Show/hide token", id="editor.reveal"),
    ]

    def __init__(self, store: ProfileStore, profile: Profile | None = None) -> None:
        super().__init__()
        self._store = store
        self._profile = profile
        self._choice = choice_of(profile)
        self._places: _TokenPlaces | None = None
        # A field's message shows once it has held text (or Save was pressed): no wall of red.
        self._touched: set[str] = set()
        self._saving = False

    def compose(self) -> ComposeResult:
        """The fields, each with its message line, then the form's message and the buttons."""
        profile = self._profile
        with VerticalScroll(id="editor-panel") as panel:
            panel.border_title = Text(
                "New profile" if profile is None else f"Edit profile {visible(profile.name)}"
            )
            yield from self._field(
                "name",
                "Name",
                "" if profile is None else profile.name,
                "e.g. local, staging, prod",
                disabled=profile is not None,
            )
            yield from self._field(
                "base_url",
                "Base URL",
                "" if profile is None else profile.base_url,
                "e.g. https://plants.example.com",
            )
            with Horizontal(classes="editor-row"):
                yield Label("Token from", classes="editor-label")
                with RadioSet(id="editor-choice"):
                    for choice, label in _CHOICE_LABELS.items():
                        yield MarkedRadioButton(
                            label, value=choice is self._choice, id=f"editor-choice-{choice.value}"
                        )
            with Horizontal(classes="editor-row", id="editor-token-row"):
                yield Label("Token", classes="editor-label")
                yield TypedInput(
                    placeholder=self._token_placeholder(),
                    password=True,
                    id="editor-token",
                )
                yield Switch(False, id="editor-reveal", tooltip="Show the token (Ctrl+R)")
                yield Label("Show", classes="editor-switch-label")
            yield Static("", id="editor-token-message", classes="editor-message")
            yield Static("", id="editor-token-home", classes="editor-hint")
            yield from self._field(
                "token_env",
                "Variable",
                (profile.token_env if profile else None) or "",
                "e.g. PROD_TOKEN: read whenever a token is needed",
            )
            yield from self._field(
                "token_command",
                "Command",
                (profile.token_command if profile else None) or "",
                "e.g. pass show plants/prod: its output is the token",
            )
            with Horizontal(classes="editor-row"):
                yield Label("Protected", classes="editor-label")
                yield Switch(profile is not None and profile.protected, id="editor-protected")
                yield Label("ask before every send", classes="editor-switch-label")
            with Horizontal(classes="editor-row"):
                yield Label("Verified", classes="editor-label")
                yield Switch(profile is not None and profile.verify, id="editor-verify")
                yield Label(
                    "key each plant twice, the second time blind", classes="editor-switch-label"
                )
            yield from self._field(
                "ids",
                "Ids",
                "" if profile is None or profile.ids is None else profile.ids,
                "empty: any id; else FIRST-LAST, e.g. 70000-70999",
            )
            defaults = Limits()
            yield from self._field(
                "timeout",
                "Timeout (s)",
                "" if profile is None or profile.timeout is None else f"{profile.timeout:g}",
                f"empty: the defaults (whole send {defaults.deadline:g} s)",
            )
            yield from self._field(
                "ca_bundle",
                "CA bundle",
                "" if profile is None or profile.ca_bundle is None else profile.ca_bundle,
                "empty: the OS trust store (else a PEM file's path)",
            )
            yield from self._field(
                "proxy",
                "Proxy",
                "" if profile is None or profile.proxy is None else shown_proxy(profile.proxy),
                "empty: $HTTPS_PROXY...; else http://host:port, or none",
            )
            with Horizontal(classes="editor-row"):
                yield Label("Plain http", classes="editor-label")
                yield Switch(
                    profile is not None and profile.allow_insecure_http, id="editor-insecure"
                )
                yield Label(
                    "allow http:// beyond this machine (token unencrypted)",
                    classes="editor-switch-label",
                )
            yield Static("", id="editor-form-message", classes="editor-message")
            # Its own line: a failed save stays in view while the fields are corrected.
            yield Static("", id="editor-save-message", classes="editor-message")
            with Horizontal(id="editor-buttons"):
                yield Button(Text("Save  [Ctrl+S]"), id="editor-save", variant="primary")
                yield Button(Text("Cancel  [Esc]"), id="editor-cancel")

    def _field(
        self, key: str, label: str, value: str, placeholder: str, *, disabled: bool = False
    ) -> ComposeResult:
        with Horizontal(classes="editor-row", id=f"editor-{key}-row"):
            yield Label(label, classes="editor-label")
            yield TypedInput(value, placeholder=placeholder, id=f"editor-{key}", disabled=disabled)
        yield Static("", id=f"editor-{key}-message", classes="editor-message")

    def _token_placeholder(self) -> str:
        if self._profile is not None and self._profile.keeps_token:
            return "empty: keep the saved token"
        return "pasted or typed; never shown"

    def on_resize(self) -> None:
        """Under COMPACT_BELOW rows each field takes one row (compact): the form fits 24."""
        compact = self.size.height < COMPACT_BELOW
        self.set_class(compact, "-compact")
        for widget in self.query("Input, RadioSet, Button"):
            if isinstance(widget, Input | RadioSet | Button):
                widget.compact = compact

    def on_mount(self) -> None:
        """Show only the token field the choice needs; find where tokens live, off the UI."""
        self._show_choice()
        # At once, not after the next messages: a key read meanwhile lands in this field.
        self.set_focus(self._input("base_url" if self._profile else "name"))
        self._find_token_places()

    @work(thread=True, exclusive=True, exit_on_error=False, name="token places")
    def _find_token_places(self) -> _TokenPlaces:
        # Keyring backends can talk to a daemon: never on the UI thread.
        current = None if self._profile is None else self._store.token_source(self._profile)
        return _TokenPlaces(self._store.token_home(), current)

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        """The token places arrive, and saves end, here."""
        worker, state = event.worker, event.state
        if worker.name == "token places" and state == WorkerState.SUCCESS:
            assert isinstance(worker.result, _TokenPlaces)
            self._places = worker.result
            self._show_token_home()
        elif worker.name == "token places" and state == WorkerState.ERROR:
            words = f"Where tokens are kept is unknown: {visible(str(worker.error))}"
            self.query_one("#editor-token-home", Static).update(Text(words))
        elif worker.name == "save" and state == WorkerState.SUCCESS:
            assert isinstance(worker.result, SaveReport)
            self.dismiss(worker.result)
        elif worker.name == "save" and state == WorkerState.ERROR:
            self._saving = False
            self.query_one("#editor-save", Button).disabled = False
            error = worker.error
            words = (
                visible(str(error))
                if isinstance(error, ConfigError)
                else f"Not saved: unexpected error {type(error).__name__}"
            )
            self._show_message("save", words)

    def _show_token_home(self) -> None:
        places = self._places
        if places is None:
            return
        kept = self._profile is not None and self._profile.keeps_token
        if kept and places.current is not None:
            words = f"Saved in: {places.current}; a new token would be saved in: {places.home}"
        else:
            words = f"A typed token is saved in: {places.home}"
        self.query_one("#editor-token-home", Static).update(Text(visible(words)))

    def _input(self, key: str) -> Input:
        return self.query_one(f"#editor-{key}", Input)

    def _show_choice(self) -> None:
        for choice in TokenChoice:
            self.set_class(choice is self._choice, f"-{choice.value}")

    @on(RadioSet.Changed, "#editor-choice")
    def _choice_changed(self, event: RadioSet.Changed) -> None:
        self._choice = TokenChoice(str(event.pressed.id).removeprefix("editor-choice-"))
        self._show_choice()
        self._check()

    @on(Input.Changed)
    def _typed(self, event: Input.Changed) -> None:
        key = (event.input.id or "").removeprefix("editor-")
        if event.value:
            self._touched.add(key)
        self._check()

    @on(Switch.Changed, "#editor-insecure")
    def _insecure_changed(self) -> None:
        self._check()

    @on(Switch.Changed, "#editor-reveal")
    def _reveal_changed(self, event: Switch.Changed) -> None:
        self._input("token").password = not event.value

    def action_reveal(self) -> None:
        """Show or hide the typed token."""
        self.query_one("#editor-reveal", Switch).toggle()

    def _texts(self) -> EditorTexts:
        """What the fields hold now."""
        profile = self._profile
        return EditorTexts(
            name=profile.name if profile is not None else self._input("name").value,
            base_url=self._input("base_url").value,
            choice=self._choice,
            token=self._input("token").value,
            token_env=self._input("token_env").value,
            token_command=self._input("token_command").value,
            protected=self.query_one("#editor-protected", Switch).value,
            verify=self.query_one("#editor-verify", Switch).value,
            ids=self._input("ids").value,
            insecure=self.query_one("#editor-insecure", Switch).value,
            timeout=self._input("timeout").value,
            ca_bundle=self._input("ca_bundle").value,
            proxy=self._input("proxy").value,
        )

    def _check(self, *, everything: bool = False) -> bool:
        """Show the problems of the fields touched (all of them with `everything`); True if none."""
        if everything:
            self._touched.update(CHECKED)
        found, overall = problems(self._texts(), self._profile)
        for key in CHECKED:
            shown = found.get(key) if key in self._touched else None
            self._show_message(key, shown)
            self._input(key).set_class(shown is not None, "-invalid")
        self._show_message("form", overall if self._touched else None)
        if everything:
            first = next((key for key in CHECKED if key in found), None)
            if first is not None:
                self.set_focus(self._input(first))
        return not found and overall is None

    def _show_message(self, key: str, words: str | None) -> None:
        message = self.query_one(f"#editor-{key}-message", Static)
        message.update(Text(visible(words or "")))
        message.set_class(words is not None, "-error")

    @on(Button.Pressed, "#editor-cancel")
    def action_cancel(self) -> None:
        """Close without saving."""
        self.dismiss(None)

    @on(Button.Pressed, "#editor-save")
    def action_save(self) -> None:
        """Check everything; save in a thread if it all passes, else say why and stay."""
        if self._saving or not self._check(everything=True):
            return
        self._saving = True
        self.query_one("#editor-save", Button).disabled = True
        self._show_message("save", None)
        texts = self._texts()
        self._save(texts.name, profile_table(texts, self._profile), typed_token(texts))

    @work(thread=True, exclusive=True, exit_on_error=False, name="save")
    def _save(self, name: str, table: dict[str, object], token: SecretStr | None) -> SaveReport:
        # File locks, fsync and the keyring can all take a while: never on the UI thread.
        profile = profile_from_table(name, table)
        if self._profile is None:
            return self._store.add(profile, token=token)
        changes = {
            key: getattr(profile, key) or None
            for key in FIELDS
            if getattr(profile, key) != getattr(self._profile, key)
        }
        return self._store.edit(name, changes, token=token)
