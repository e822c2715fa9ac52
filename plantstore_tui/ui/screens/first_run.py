"""First run, with no profile yet: create one, or try the product on the demo server. A
profiles.toml that cannot be read opens here too: what is wrong with it, what works meanwhile."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.screen import Screen
from textual.widgets import Button, Static
from textual.worker import Worker, WorkerState

from plantstore_tui.core.config.files import PROFILES_FILE
from plantstore_tui.core.config.profiles import Profile
from plantstore_tui.core.config.store import ProfileStore, SavedProfiles, SaveReport
from plantstore_tui.core.plant.text import visible
from plantstore_tui.ui.screens.profile_editor import ProfileEditor

_WELCOME = (
    "plantstore-tui adds plants to a Plant Store deployment. Save the deployment as a profile: "
    "its base URL and where its token comes from. The token never goes into profiles.toml: it "
    "stays in the OS keyring (or a private file), an environment variable or a command of yours. "
    "Or try everything first on a throwaway demo server on this machine."
)
_UNREADABLE = (
    "No profile can be used until the file is fixed by hand: plantstore-tui never rewrites a "
    "file it cannot read. Fix it in an editor, then press R to read it again. Meanwhile, try "
    "the product on the demo (D, or `plantstore-tui demo`), or quit and send to a deployment "
    "without a profile: `plantstore-tui --base-url URL` (the token from $PLANTSTORE_TOKEN or a "
    "hidden prompt)."
)


@dataclass(frozen=True, slots=True)
class FirstRunChoice:
    """What to start with: the profile just saved, the demo, or neither (quit)."""

    profile: Profile | None = None
    demo: bool = False


class FirstRunScreen(Screen[FirstRunChoice]):
    """Offers to create a profile (in the editor) or to start the demo."""

    CSS_PATH = "../profiles.tcss"
    AUTO_FOCUS = "#first-run-create"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("c", "create", "Create a profile", id="first_run.create"),
        Binding("d", "demo", "Start the demo", id="first_run.demo"),
        Binding("r", "read_again", "Read profiles.toml again", id="first_run.read_again"),
        Binding("q,escape", "quit_first_run", "Quit", id="first_run.quit"),
    ]

    def __init__(self, store: ProfileStore | None = None) -> None:
        super().__init__()
        self._store = store if store is not None else ProfileStore()
        # profiles.toml cannot be read: nothing can be saved in it until it is fixed by hand.
        self._unreadable = False
        # R was pressed: the file may have been fixed, and may name a profile to use now.
        self._read_again = False

    def compose(self) -> ComposeResult:
        """A few words, where profiles live, what is wrong with the file if anything, choices."""
        with Vertical(id="first-run-panel") as panel:
            panel.border_title = "Welcome to plantstore-tui"
            yield Static(Text("No profile yet."), id="first-run-headline")
            yield Static(Text(_WELCOME), id="first-run-text")
            yield Static(
                Text(f"Profiles are kept in {visible(str(self._store.path))}"),
                id="first-run-path",
            )
            yield Static("", id="first-run-problems")
            with Horizontal(id="first-run-buttons"):
                yield Button(
                    Text("Create a profile  [C]"), id="first-run-create", variant="primary"
                )
                yield Button(Text("Start the demo  [D]"), id="first-run-demo")
                yield Button(Text("Read it again  [R]"), id="first-run-read")
                yield Button(Text("Quit  [Q]"), id="first-run-quit")

    def on_mount(self) -> None:
        """Look for problems with the file (an unreadable one is why there seem to be none)."""
        self._load()

    @work(thread=True, exclusive=True, exit_on_error=False, name="load")
    def _load(self) -> SavedProfiles:
        return self._store.load()

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        """Show what is wrong with profiles.toml, if anything; read again (R) once fixed, the
        default profile it names is the choice."""
        if event.worker.name == "load" and event.state == WorkerState.SUCCESS:
            saved = event.worker.result
            assert isinstance(saved, SavedProfiles)
            default = None if saved.default is None else saved.get(saved.default)
            if self._read_again and default is not None:
                self.dismiss(FirstRunChoice(profile=default))
                return
            self._show(saved)

    def _show(self, saved: SavedProfiles) -> None:
        self._unreadable = saved.error is not None
        self.set_class(self._unreadable, "-unreadable")
        if self._unreadable:
            headline, words = f"{PROFILES_FILE} cannot be read.", _UNREADABLE
        elif self._read_again and saved.profiles:
            headline, words = "No default profile.", "F2 lists the saved profiles: U uses one."
        else:
            headline, words = "No profile yet.", _WELCOME
        self.query_one("#first-run-headline", Static).update(Text(headline))
        self.query_one("#first-run-text", Static).update(Text(words))
        problems = "\n".join(visible(problem) for problem in saved.problems)
        panel = self.query_one("#first-run-problems", Static)
        panel.update(Text(problems))
        panel.set_class(bool(problems), "-shown")
        focus = "#first-run-read" if self._unreadable else "#first-run-create"
        self.set_focus(self.query_one(focus, Button))

    @on(Button.Pressed, "#first-run-create")
    def action_create(self) -> None:
        """Open the profile form; a saved profile is the choice."""
        if self._unreadable:
            self.notify(
                f"{PROFILES_FILE} cannot be read, so a profile cannot be saved in it: fix the "
                "file by hand first (R reads it again).",
                title="Profiles",
                severity="warning",
            )
            return
        self.app.push_screen(ProfileEditor(self._store), self._saved)

    @on(Button.Pressed, "#first-run-read")
    def action_read_again(self) -> None:
        """Read profiles.toml again (fixed meanwhile in an editor, say)."""
        self._read_again = True
        self._load()

    def _saved(self, report: SaveReport | None) -> None:
        if report is not None:
            self.dismiss(FirstRunChoice(profile=report.profile))

    @on(Button.Pressed, "#first-run-demo")
    def action_demo(self) -> None:
        """Choose the demo."""
        self.dismiss(FirstRunChoice(demo=True))

    @on(Button.Pressed, "#first-run-quit")
    def action_quit_first_run(self) -> None:
        """Choose neither."""
        self.dismiss(FirstRunChoice())
