"""One row of the profiles screen: a saved profile's markers, name, URL, token source and test."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.widgets import ListItem, Static

from plantstore_tui.core.config.profiles import Profile
from plantstore_tui.core.plant.text import visible


class ProfileRow(ListItem):
    """One profile: markers, name, base URL, token source and the last test's verdict."""

    def __init__(
        self, name: str, profile: Profile | None, token_words: str, *, default: bool, active: bool
    ) -> None:
        classes = [
            "-protected" if profile is not None and profile.protected else "",
            "-default" if default else "",
            "-active" if active else "",
            "-broken" if profile is None else "",
        ]
        super().__init__(classes=" ".join(part for part in classes if part))
        self.profile_name = name
        self.profile = profile
        self._token_words = token_words
        self._default = default
        self._active = active

    def compose(self) -> ComposeResult:
        """One cell per column, as literal text."""
        profile = self.profile
        with Horizontal(classes="profile-cells"):
            yield Static(
                Text(("● " if self._active else "  ") + ("*" if self._default else " ")),
                classes="profile-marks",
            )
            yield Static(Text(visible(self.profile_name)), classes="profile-name")
            url = "(cannot be used)" if profile is None else profile.base_url
            yield Static(Text(visible(url)), classes="profile-url")
            yield Static(Text(visible(self._token_words)), classes="profile-token")
            badge = "PROTECTED" if profile is not None and profile.protected else ""
            yield Static(Text(badge), classes="profile-badge")
            yield Static("", classes="profile-test")

    def show_test(self, words: str, kind: str) -> None:
        """Show the short verdict of a test, coloured by kind (ok, bad, busy)."""
        cell = self.query_one(".profile-test", Static)
        cell.update(Text(words))
        for other in ("ok", "bad", "busy"):
            cell.set_class(other == kind, f"-{other}")
