"""The profiles screen: every saved profile, where its token comes from, and what to do with it."""

from __future__ import annotations

import asyncio
import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import ClassVar

from rich.cells import cell_len
from rich.text import Text
from textual import events, on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal
from textual.screen import Screen
from textual.widgets import Footer, Label, ListView, Static
from textual.worker import Worker, WorkerState

from plantstore_tui.core.config.errors import ConfigError
from plantstore_tui.core.config.options import TOKEN_ENV
from plantstore_tui.core.config.profiles import Profile
from plantstore_tui.core.config.store import ProfileStore, SavedProfiles, SaveReport
from plantstore_tui.core.config.targets import profile_target
from plantstore_tui.core.http.check_report import CheckReport
from plantstore_tui.core.http.target import Target
from plantstore_tui.core.plant.text import visible
from plantstore_tui.ui.screens.check import CheckScreen
from plantstore_tui.ui.screens.confirm import Answer, ConfirmScreen
from plantstore_tui.ui.screens.profile_editor import ProfileEditor
from plantstore_tui.ui.widgets.profile_row import COLUMNS, ProfileRow, fit_columns

_UNREADABLE = (
    "No profile can be used, added or changed until profiles.toml is fixed by hand (it is never "
    "rewritten). Meanwhile: `plantstore-tui demo`, or `plantstore-tui --base-url URL` for a "
    "deployment without a profile."
)
_DOING = {"load": "reading the profiles", "change": "saving the change", "test": "testing"}
_VERDICT_KIND = {"pass": "ok", "warn": "busy", "fail": "bad"}
# The column titles; a column with nothing in any row (protected, last test) shows no title.
_TITLES = {
    "marks": "",
    "name": "Name",
    "url": "Base URL",
    "token": "Token from",
    "badge": "",
    "test": "Last test",
}


@dataclass(frozen=True, slots=True)
class Listing:
    """What the screen shows: the file's profiles and, for each, where its token comes from (in
    a few words for the list, and whole, with a file's path, for the details)."""

    saved: SavedProfiles
    token_words: Mapping[str, str]
    token_whole: Mapping[str, str]
    override: bool


@dataclass(frozen=True, slots=True)
class _TestShown:
    """A test's verdict as the screen shows it: in full, in a word or two, and its colour."""

    words: str
    short: str
    kind: str


@dataclass(frozen=True, slots=True)
class _Tested:
    """A profile's target, resolved for its test, or why it could not be."""

    name: str
    target: Target | None
    problem: str | None = None


class ProfilesScreen(Screen[str | None]):
    """List, add, edit, delete, make default, test and use saved profiles.

    Dismisses with the name of the profile to use from now on, or None when closed without one.
    """

    CSS_PATH = "../profiles.tcss"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("u", "use", "Use", id="profiles.use"),
        Binding("a", "add", "Add", id="profiles.add"),
        Binding("e", "edit", "Edit", id="profiles.edit"),
        Binding("d,delete", "delete", "Delete", id="profiles.delete"),
        Binding("s", "set_default", "Set default", id="profiles.set_default"),
        Binding("t", "test", "Test", id="profiles.test"),
        Binding("escape", "close", "Close", id="profiles.close"),
    ]

    def __init__(
        self,
        store: ProfileStore | None = None,
        *,
        active: str | None = None,
        environ: Mapping[str, str] | None = None,
    ) -> None:
        super().__init__()
        self._store = store if store is not None else ProfileStore()
        self._active = active
        self._environ = os.environ if environ is None else environ
        self._listing: Listing | None = None
        self._tests: dict[str, _TestShown] = {}
        # The row to highlight once the list is next drawn (a profile just saved, or the same).
        self._wanted: str | None = active

    def compose(self) -> ComposeResult:
        """File, problems, column titles, the list, the highlighted profile's details, footer."""
        yield Static(Text(f"Profiles in {visible(str(self._store.path))}"), id="profiles-file")
        yield Static("", id="profiles-problems")
        with Horizontal(id="profiles-columns", classes="profile-cells"):
            for column in COLUMNS:
                yield Label(_TITLES[column], classes=f"profile-{column}")
        yield ListView(id="profiles-list")
        yield Static(Text("Reading profiles…"), id="profiles-detail")
        yield Static(
            Text("● in use   * default   Enter: use the highlighted profile"),
            id="profiles-legend",
        )
        yield Footer(compact=True, show_command_palette=False)  # every key at 80 columns

    @property
    def highlighted(self) -> ProfileRow | None:
        """The row under the cursor."""
        item = self.query_one(ListView).highlighted_child
        return item if isinstance(item, ProfileRow) else None

    def on_mount(self) -> None:
        """Read the profiles, off the UI thread."""
        self.query_one(ListView).focus()
        self.reload()

    def reload(self) -> None:
        """Read profiles.toml again and redraw the list."""
        self._load()

    @work(thread=True, exclusive=True, exit_on_error=False, name="load", group="profiles-io")
    def _load(self) -> Listing:
        # The keyring and the file lock can block: this runs in a thread.
        saved = self._store.load()
        words, whole = {}, {}
        for profile in saved.profiles:
            words[profile.name] = self._store.token_status(profile, self._environ, brief=True)
            whole[profile.name] = self._store.token_status(profile, self._environ)
        return Listing(saved, words, whole, bool(self._environ.get(TOKEN_ENV, "").strip()))

    @work(thread=True, exclusive=True, exit_on_error=False, name="change", group="profiles-io")
    def _set_default(self, name: str) -> str:
        chosen = self._store.set_default(name)
        return f"{chosen.name} is the default profile: it is used when none is chosen."

    @work(thread=True, exclusive=True, exit_on_error=False, name="change", group="profiles-io")
    def _remove(self, name: str) -> str:
        warning = self._store.remove(name)
        return warning or f"Removed profile {name} and the token kept for it."

    async def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        """Reads and changes end here: a listing is drawn, a change is said and then reread."""
        worker, state = event.worker, event.state
        if worker.name == "load" and state == WorkerState.SUCCESS:
            assert isinstance(worker.result, Listing)
            await self._show(worker.result)
        elif worker.name == "change" and state == WorkerState.SUCCESS:
            self.notify(visible(str(worker.result)), title="Profiles")
            self.reload()
        elif worker.name == "test" and state == WorkerState.SUCCESS:
            assert isinstance(worker.result, _Tested)
            self._show_test(worker.result)
        elif state == WorkerState.ERROR:
            self._show_failure(worker.name, worker.error)

    def _show_failure(self, what: str, error: BaseException | None) -> None:
        if isinstance(error, ConfigError):
            words = visible(str(error))
        else:
            # A bug, not a configuration problem: name it rather than crash the screen.
            words = f"Unexpected error while {_DOING.get(what, what)}: {type(error).__name__}"
        self.notify(words, title="Profiles", severity="error", timeout=10)
        if what == "change":
            self.reload()

    async def _show(self, listing: Listing) -> None:
        self._listing = listing
        saved = listing.saved
        problems = [visible(problem) for problem in saved.problems]
        if listing.override:
            problems.append(f"{TOKEN_ENV} is set: in this run it is the token of every profile.")
        problem_panel = self.query_one("#profiles-problems", Static)
        problem_panel.update(Text("\n".join(problems)))
        problem_panel.set_class(bool(problems), "-shown")

        rows = [
            ProfileRow(
                profile.name,
                profile,
                listing.token_words.get(profile.name, ""),
                default=profile.name == saved.default,
                active=profile.name == self._active,
            )
            for profile in saved.profiles
        ]
        rows += [
            ProfileRow(name, None, "cannot be used", default=False, active=name == self._active)
            for name in saved.broken
        ]
        view = self.query_one(ListView)
        await view.clear()
        await view.extend(rows)
        names = [row.profile_name for row in rows]
        if rows:
            view.index = names.index(self._wanted) if self._wanted in names else 0
        for row in rows:
            shown = self._tests.get(row.profile_name)
            if shown is not None:
                row.show_test(shown.short, shown.kind)
        self._show_detail()
        self.call_after_refresh(self._fit_columns)

    def on_resize(self, _event: events.Resize) -> None:
        """The columns share the new width."""
        self.call_after_refresh(self._fit_columns)

    def _fit_columns(self) -> None:
        # The widths depend on every row's texts: a CSS width in cells or fractions would keep
        # room for a long URL or an empty column whether or not any row has one.
        room = self.query_one(ListView).scrollable_content_region.width
        if room <= 0:
            return
        rows = [row.widest() for row in self.query(ProfileRow)]
        widest = {column: max((row[column] for row in rows), default=0) for column in COLUMNS}
        for column in ("name", "url", "token"):
            widest[column] = max(widest[column], cell_len(_TITLES[column]))
        for column, width in fit_columns(room, widest).items():
            for cell in self.query(f".profile-{column}"):
                cell.display = width > 0
                if width:
                    cell.styles.width = width - cell.styles.margin.right

    @on(ListView.Highlighted)
    def _moved(self, event: ListView.Highlighted) -> None:
        if isinstance(event.item, ProfileRow):
            self._wanted = event.item.profile_name
        self._show_detail()

    def _show_detail(self) -> None:
        detail = self.query_one("#profiles-detail", Static)
        listing = self._listing
        if listing is None:
            return
        row = self.highlighted
        if row is None:
            detail.update(
                Text("No profiles yet. Press A to add one.")
                if listing.saved.error is None
                else Text(_UNREADABLE)
            )
            return
        if row.profile is None:
            reason = listing.saved.broken.get(row.profile_name, "")
            detail.update(Text(f"{visible(reason)}\nFix it in profiles.toml, or delete it with D."))
            return
        profile = row.profile
        lines = [f"{visible(profile.name)}: {visible(profile.base_url)}"]
        if profile.token_command is not None:
            lines.append(f"Token command: {visible(profile.token_command)}")
        else:
            lines.append(f"Token from: {visible(listing.token_whole.get(profile.name, ''))}")
        settings = ["protected: sends ask first" if profile.protected else "not protected"]
        settings.append(
            "default timeouts" if profile.timeout is None else f"timeout {profile.timeout:g} s"
        )
        if profile.allow_insecure_http:
            settings.append("plain http allowed (the token travels unencrypted)")
        if profile.ids is not None:
            settings.append(f"ids {profile.ids}")
        lines.append(" · ".join(settings))
        test = self._tests.get(profile.name)
        lines.append(
            "Not tested yet: T tests it, creating no plant." if test is None else test.words
        )
        detail.update(Text("\n".join(lines)))

    def _chosen(self, *, usable: bool = True) -> ProfileRow | None:
        """The highlighted row; with `usable`, only a profile that can be used (else say why)."""
        row = self.highlighted
        if row is None:
            self.notify("There is no profile yet: press A to add one.", title="Profiles")
            return None
        if usable and row.profile is None:
            self.notify(
                f"Profile {visible(row.profile_name)} cannot be used: fix it in profiles.toml.",
                title="Profiles",
                severity="warning",
            )
            return None
        return row

    @on(ListView.Selected)
    def _selected(self) -> None:
        self.action_use()

    def action_use(self) -> None:
        """Close the screen, switching to the highlighted profile."""
        row = self._chosen()
        if row is not None:
            self.dismiss(row.profile_name)

    def action_close(self) -> None:
        """Close the screen, keeping the profile in use."""
        self.dismiss(None)

    def action_add(self) -> None:
        """Open the form for a new profile."""
        self.app.push_screen(ProfileEditor(self._store), self._saved)

    def action_edit(self) -> None:
        """Open the form on the highlighted profile."""
        row = self._chosen()
        if row is not None and row.profile is not None:
            self.app.push_screen(ProfileEditor(self._store, row.profile), self._saved)

    def _saved(self, report: SaveReport | None) -> None:
        if report is None:
            return
        lines = [f"Saved profile {report.profile.name}: {visible(report.profile.base_url)}"]
        if report.token_source is not None:
            lines.append(f"Token saved in: {visible(str(report.token_source))}")
        if report.notice is not None:
            lines.append(visible(report.notice))
        if report.made_default:
            lines.append(f"{report.profile.name} is the default profile.")
        self.notify("\n".join(lines), title="Profile saved")
        self._tests.pop(report.profile.name, None)
        self._wanted = report.profile.name
        self.reload()

    def action_delete(self) -> None:
        """Ask, then delete the highlighted profile and the token kept for it."""
        row = self._chosen(usable=False)
        if row is None:
            return
        name = row.profile_name
        subject = Text(visible(name), style="bold")
        if row.profile is not None:
            subject.append(f"\n{visible(row.profile.base_url)}", style="not bold")
        detail = "Its saved token is deleted too. profiles.toml keeps your other profiles."
        if name == self._active:
            detail = f"It is the profile in use. {detail}"

        def answered(answer: Answer | None) -> None:
            if answer is not None and answer.confirmed:
                self._tests.pop(name, None)
                self._remove(name)

        self.app.push_screen(
            ConfirmScreen("Delete this profile?", subject, detail, yes="Delete", danger=True),
            answered,
        )

    def action_set_default(self) -> None:
        """Make the highlighted profile the one used when none is chosen."""
        row = self._chosen()
        if row is not None:
            self._set_default(row.profile_name)

    def action_test(self) -> None:
        """Run the conformance check, creating nothing, on the highlighted profile's deployment."""
        row = self._chosen()
        if row is None or row.profile is None:
            return
        words = f"Checking POST {visible(row.profile.base_url)}/plants, creating nothing…"
        self._tests[row.profile_name] = _TestShown(words, "testing…", "busy")
        row.show_test("testing…", "busy")
        self._show_detail()
        self._test(row.profile)

    @work(exit_on_error=False, name="test", group="test")
    async def _test(self, profile: Profile) -> _Tested:
        try:
            # Resolving may run the token command or ask the keyring: in a thread.
            target = await asyncio.to_thread(
                profile_target, profile, self._store.tokens, self._environ
            )
        except ConfigError as exc:
            return _Tested(profile.name, None, visible(str(exc)))
        return _Tested(profile.name, target)

    def _show_test(self, tested: _Tested) -> None:
        if tested.target is None:
            self._tested(
                tested.name, _TestShown(f"Not tested: {tested.problem}", "not tested", "bad")
            )
            return

        def checked(report: CheckReport | None) -> None:
            if report is None:
                self._tested(tested.name, _TestShown("The check was left unfinished.", "", "busy"))
                return
            verdict = report.verdict.value if report.reachable else "no answer"
            failed = [result.probe for result in report.results if result.verdict.value != "pass"]
            words = f"Check: {verdict}" + (f" ({', '.join(failed)})" if failed else "")
            words += ". T checks again and shows every probe."
            self._tested(tested.name, _TestShown(words, verdict, _VERDICT_KIND.get(verdict, "bad")))

        self.app.push_screen(CheckScreen(tested.target), checked)

    def _tested(self, name: str, shown: _TestShown) -> None:
        self._tests[name] = shown
        short, kind = shown.short, shown.kind
        for row in self.query(ProfileRow):
            if row.profile_name == name:
                row.show_test(short, kind)
        self._show_detail()
        self._fit_columns()
