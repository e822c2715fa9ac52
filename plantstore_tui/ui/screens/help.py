"""The help screen (F1): what the keys do and what the log means."""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from plantstore_tui.ui.browser_keys import key_to_press

KEYS = (
    ("Tab / Shift+Tab", "next / previous field"),
    ("Enter", "next field; on Tag, send"),
    ("Ctrl+S", "send the plant (it joins the queue; type the next one at once)"),
    ("Ctrl+D", "same as last: the focused field gets the last plant's value (the ditto key)"),
    ("Esc", "cancel the send in flight; asks before holding the rest of the queue"),
    ("Ctrl+R", "after a refused token: read it again and resume; while unreachable: try now"),
    ("F4", "needs attention: load a plant that did not go through, or dismiss it"),
    ("Ctrl+N", "turn moving the ID on after a send on or off"),
    ("Ctrl+T", "turn keeping the tag after a send on or off"),
    ("Ctrl+L", "clear the log"),
    ("Ctrl+O", "save the log to a text file in the current directory"),
    ("Ctrl+P", "command palette: every action by name"),
    ("F1", "this help (Esc closes it)"),
    ("F2", "profiles: list, add, edit, delete, test, use (or click the target above)"),
    ("F3", "history: every send kept, to show, load into the form, resend or copy as curl"),
    ("F5", "import a file of plants (CSV, TSV, JSON Lines): checked whole, then sent"),
    ("F6", "probe: POST /plants exactly as typed (any body, token), read by the spec"),
    ("F7", "shift summary: today's plants created, rejected and per hour, the time to the answer"),
    ("Ctrl+Q", "quit"),
)

ABOUT = (
    "The form. Name is required; ID is a whole number in the int64 range; an empty Tag is "
    "left out. The line under a field says what is wrong as you type, and nothing invalid is "
    "ever sent. Tag suggests the tags of plants created since this session started, the most "
    "recent first: press → to take the suggestion.",
    "Sending. A plant handed over joins a queue and the form is ready for the next one at "
    "once, however fast you type or however slow the deployment: plants go one at a time, in "
    "the order sent. Each has its log entry from the start: queued, sending, then its answer. "
    "A plant that was refused, or whose fate is unknown (a timeout, a dropped connection, "
    "Esc), waits in needs attention (F4) with its fields as typed, while the queue goes on: it "
    "is never sent again by itself. A paste of several lines is refused (bulk entry is a "
    "separate command).",
    "When the queue stops. Nothing leaves it while a question about it is open. A refused "
    "token (401, 403) stops it, the refused plant first in line: fix the token (F2), then "
    "Ctrl+R sends it and the rest. A deployment that cannot be reached (or answers 429 or "
    "503) keeps the plants waiting in line: they go by themselves, in order, as soon as it "
    "answers (Ctrl+R tries now). The status line says which, with its counts.",
    "Nothing is lost. A plant is in the ledger on disk before the form clears, so a crash, "
    "a closed terminal or a power cut loses none: the next start offers what was left in "
    "needs attention and sends nothing by itself. With plants queued, in flight or needing "
    "attention, Ctrl+Q asks first.",
    "The log. One entry per attempt: time, POST and the URL, the status, the time taken, "
    "the outcome marked ✔ created (green), ✖ refused (yellow) or ⚠ no usable answer (red), "
    "the plant sent and what came back. Text from the server is shown literally; control "
    "characters appear as escapes such as \\e or \\x9b. The status line shows where plants go "
    "and where the token comes from, never the token (at most its last four characters).",
    "Profiles. A profile is a saved base URL and where its token comes from. A token you give "
    "a profile is kept in the system keyring, or where there is none in a credentials file "
    "only you can read (mode 0600); a profile may read it from an environment variable or a "
    "command instead. It is never in profiles.toml, which can be shared, and "
    "$PLANTSTORE_TOKEN is never saved. F2 lists them; the palette's Use profile switches "
    "at once. A protected profile shows in red, and every send to it asks first: A in that "
    "question stops asking for that profile until you quit.",
)


class HelpScreen(ModalScreen[None]):
    """Keys and meanings, over the main screen."""

    CSS_PATH = "../help.tcss"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,f1,q", "dismiss", "Close help"),
    ]

    def compose(self) -> ComposeResult:
        """The keys in two columns, then a few paragraphs."""
        with VerticalScroll(id="help-panel") as panel:
            panel.border_title = "Help"
            panel.border_subtitle = "Esc closes"
            in_browser = self.app.is_web
            for key, what in KEYS:
                with Horizontal(classes="help-row"):
                    shown = key_to_press(key, in_browser=in_browser)
                    yield Static(Text(shown), classes="help-key")
                    yield Static(Text(what), classes="help-what")
            for paragraph in ABOUT:
                yield Static(Text(paragraph), classes="help-text")
