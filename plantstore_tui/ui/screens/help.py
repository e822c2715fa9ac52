"""The help screen (F1): what the keys do and what the log means."""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Markdown

HELP = """\
# plantstore-tui

Fill in the form and send: each attempt gets one entry in the log on the right.

| Key | What it does |
|---|---|
| `Tab` / `Shift+Tab` | next / previous field |
| `Enter` | next field; on **Tag**, send |
| `Ctrl+S` | send the plant |
| `Esc` | cancel the send in flight (the plant may or may not be created) |
| `Ctrl+N` | turn *Next id after success* on or off |
| `Ctrl+L` | clear the log |
| `Ctrl+O` | save the log to a text file in the current directory |
| `Ctrl+P` | command palette |
| `F1` | this help |
| `Ctrl+Q` | quit |

**The form.** Name is required; ID is a whole number in the int64 range; an empty Tag is left
out. A message under a field says what is wrong as you type; nothing invalid is ever sent.
Tag suggests the tags sent this session: press `→` to accept.

**While a send is in flight** you can keep typing. A second send is refused until the first
one is answered or cancelled, so nothing is sent twice by accident.

**The log** shows the time, `POST <url>`, the status (green created, yellow rejected,
red no usable answer), the time taken, the plant sent and what came back. Text from the
server is shown literally: control characters appear as escapes such as `\\e` or `\\x9b`.
When a send fails, the entry says whether the plant was created, was not, or may have been.

Press `Esc` or `F1` to close this help.
"""


class HelpScreen(ModalScreen[None]):
    """Keys and meanings, over the main screen."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,f1,q", "dismiss", "Close help"),
    ]

    def compose(self) -> ComposeResult:
        """The help text in a scrollable panel."""
        with VerticalScroll(id="help-panel") as panel:
            panel.border_title = "Help"
            yield Markdown(HELP)
