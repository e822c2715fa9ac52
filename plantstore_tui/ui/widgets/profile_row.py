"""One row of the profiles screen: a saved profile's markers, name, URL, token source and test,
and the widths its columns take (`fit_columns`), the same for the titles and every row."""

from __future__ import annotations

from collections.abc import Mapping

from rich.cells import cell_len
from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.widgets import ListItem, Static

from plantstore_tui.core.config.profiles import Profile
from plantstore_tui.core.plant.text import visible

# Each column's cells have the class `profile-<column>`, in this order.
COLUMNS = ("marks", "name", "url", "token", "badge", "test")
# The cells a column takes when it has anything to show ("PROTECTED" with its margin; the
# longest short verdict, "not tested"); a name gets up to _NAME_MOST, more from the room left
# over. Each includes the gap after.
_FIXED = {"marks": 5, "badge": 12, "test": 12}
_NAME_MOST = 16


def fit_columns(room: int, widest: Mapping[str, int]) -> dict[str, int]:
    """The cells each column takes in a row `room` cells wide, from the widest text each has
    to show (its title included). A column with nothing to show (no profile protected, none
    tested) takes none. The base URL and the token's source share the rest: each whole when
    both fit, else the one that fits in half whole, else half each."""
    widths = {
        "marks": _FIXED["marks"],
        "name": min(widest.get("name", 0) + 1, _NAME_MOST),
        "badge": _FIXED["badge"] if widest.get("badge") else 0,
        "test": _FIXED["test"] if widest.get("test") else 0,
    }
    rest = max(room - sum(widths.values()), 0)
    url, token = widest.get("url", 0) + 1, widest.get("token", 0) + 1
    if url + token <= rest:
        # A long name takes what is left over, up to its whole; the rest stays at the end of
        # the row, so the badge and the test stay close to the profile they belong to.
        widths.update(url=url, token=token)
        spare = rest - url - token
        widths["name"] = min(widths["name"] + spare, widest.get("name", 0) + 1)
    else:
        widths["url"] = min(url, max(rest // 2, rest - token))
        widths["token"] = rest - widths["url"]
    return widths


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
        self._test_words = ""

    @property
    def texts(self) -> dict[str, str]:
        """What each column of the row shows, as drawn."""
        profile = self.profile
        return {
            "marks": ("● " if self._active else "  ") + ("*" if self._default else " "),
            "name": visible(self.profile_name),
            "url": visible("(cannot be used)" if profile is None else profile.base_url),
            "token": visible(self._token_words),
            "badge": "PROTECTED" if profile is not None and profile.protected else "",
            "test": self._test_words,
        }

    def widest(self) -> dict[str, int]:
        """The cells each column's text takes."""
        return {column: cell_len(text) for column, text in self.texts.items()}

    def compose(self) -> ComposeResult:
        """One cell per column, as literal text."""
        with Horizontal(classes="profile-cells"):
            for column, text in self.texts.items():
                yield Static(Text(text), classes=f"profile-{column}")

    def show_test(self, words: str, kind: str) -> None:
        """Show the short verdict of a test, coloured by kind (ok, bad, busy)."""
        self._test_words = words
        cell = self.query_one(".profile-test", Static)
        cell.update(Text(words))
        for other in ("ok", "bad", "busy"):
            cell.set_class(other == kind, f"-{other}")
