"""The help screen (F1): what the keys do and what the log means."""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from plantstore_tui.core.config.keymap import BY_ID
from plantstore_tui.ui.keys import key_in_force

# Each row's binding ids (its keys are the ones in force: profiles.toml's [keymap] may move
# them), or the words of a key Textual keeps.
KEYS: tuple[tuple[str, str], ...] = (
    ("Tab / Shift+Tab", "next / previous field"),
    ("form.enter", "next field; on Tag, send"),
    ("send.send", "send the plant (it joins the queue; type the next one at once)"),
    (
        "send.same_as_last",
        "same as last: the focused field gets the last plant's value (the ditto key)",
    ),
    ("send.cancel", "cancel the send in flight; asks before holding the rest of the queue"),
    (
        "send.resume,send.try_now",
        "after a refused token: read it again and resume; while unreachable: try now",
    ),
    ("send.attention", "needs attention: load a plant that did not go through, or dismiss it"),
    ("send.next_id", "turn moving the ID on after a send on or off"),
    ("send.keep_tag", "turn keeping the tag after a send on or off"),
    ("send.clear_log", "clear the log"),
    ("send.save_log", "save the log to a text file in the current directory"),
    ("Ctrl+P", "command palette: every action by name"),
    ("app.help", "this help ({close} closes it)"),
    ("app.profiles", "profiles: list, add, edit, delete, test, use (or click the target above)"),
    (
        "send.history",
        "history: every send kept, to show, load into the form, resend or copy as curl",
    ),
    ("app.import", "import a file of plants (CSV, TSV, JSON Lines): checked whole, then sent"),
    (
        "send.probe",
        "probe: a request exactly as typed (any method, path, body, token), read by the spec; "
        "its Kept probes opens one sent before, to change and send again",
    ),
    (
        "send.summary",
        "shift summary: today's plants created, rejected and per hour, the time to the answer",
    ),
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
    "{cancel}), waits in needs attention ({attention}) with its fields as typed, while the "
    "queue goes on: it is never sent again by itself. A paste of several lines is refused: a "
    "file of plants is imported ({import_}).",
    "When the queue stops. Nothing leaves it while a question about it is open. A refused "
    "token (401, 403) stops it, the refused plant first in line: fix the token ({profiles}), "
    "then {resume} sends it and the rest. A deployment that cannot be reached (or answers 429 or "
    "503) keeps the plants waiting in line: they go by themselves, in order, as soon as it "
    "answers ({try_now} tries now). The status line says which, with its counts.",
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
    "$PLANTSTORE_TOKEN is never saved. {profiles} lists them; the palette's Use profile switches "
    "at once. A protected profile shows in red, and every send to it asks first: A in that "
    "question stops asking for that profile until you quit.",
)


class HelpScreen(ModalScreen[None]):
    """Keys and meanings, over the main screen."""

    CSS_PATH = "../help.tcss"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,f1,q", "dismiss", "Close help", id="help.close"),
    ]

    def compose(self) -> ComposeResult:
        """The keys in two columns, then a few paragraphs."""
        with VerticalScroll(id="help-panel") as panel:
            panel.border_title = "Help"
            words = {
                name: key_in_force(self.app, f"send.{name}")
                for name in ("cancel", "attention", "resume", "try_now")
            }
            words["profiles"] = key_in_force(self.app, "app.profiles")
            words["import_"] = key_in_force(self.app, "app.import")
            words["close"] = key_in_force(self.app, "help.close").split(" / ")[0]
            panel.border_subtitle = f"{words['close']} closes"
            for keys, what in KEYS:
                with Horizontal(classes="help-row"):
                    yield Static(Text(self._keys_said(keys)), classes="help-key")
                    yield Static(Text(what.format_map(words)), classes="help-what")
            for paragraph in ABOUT:
                yield Static(Text(paragraph.format_map(words)), classes="help-text")

    def _keys_said(self, keys: str) -> str:
        ids = keys.split(",")
        if not all(binding_id in BY_ID for binding_id in ids):
            return keys
        said = (key_in_force(self.app, binding_id) for binding_id in ids)
        return " / ".join(dict.fromkeys(said))
