"""The response log: one entry per send attempt; everything from the server is literal text."""

from __future__ import annotations

import json
from collections.abc import Mapping
from datetime import datetime
from typing import TYPE_CHECKING, Any, ClassVar

from rich.highlighter import JSONHighlighter
from rich.style import Style
from rich.text import Text
from textual.events import Resize
from textual.widgets import RichLog

from plantstore_tui.core.text import shorten, visible

if TYPE_CHECKING:
    from plantstore_tui.core.outcome import Outcome

# Enough for any Plant or Error; a longer body is cut, saying how much was left out.
BODY_SHOWN = 2000
# A JSON object this short reads best on one line; anything longer or nested is indented.
_ONE_LINE_JSON = 60
_INDENT = "    "

_json_highlighter = JSONHighlighter()

# Style names the renderer asks for; the widget fills them from app.tcss component classes.
STYLE_NAMES = ("time", "created", "rejected", "failed", "label", "fate", "advice", "note")


def _style(styles: Mapping[str, Style], name: str) -> Style:
    return styles.get(name, Style.null())


def _json_block(data: Any) -> Text:
    """`data` as highlighted JSON, one line when short and flat, else indented; always literal."""
    flat = json.dumps(data, ensure_ascii=False)
    nested = isinstance(data, dict) and any(isinstance(v, dict | list) for v in data.values())
    dumped = flat if len(flat) <= _ONE_LINE_JSON and not nested else json.dumps(data, indent=2)
    # json.dumps escapes C0 but lets DEL, C1 and bidi controls through: visible() catches those.
    text = Text(visible(shorten(dumped, BODY_SHOWN), keep_newlines=True))
    _json_highlighter.highlight(text)
    return text


def _body_block(body: str) -> Text:
    """A response body: pretty JSON when it parses, else the raw text, cut for display."""
    size = len(body.encode("utf-8", errors="replace"))
    try:
        data = json.loads(body)
    except (ValueError, RecursionError):
        data = None
        block = Text(visible(shorten(body, BODY_SHOWN), keep_newlines=True))
    else:
        block = _json_block(data)
    if len(body) > BODY_SHOWN:
        block.append(f"\n({size:,} bytes in all)")
    return block


def _status_words(outcome: Outcome) -> str:
    status = outcome.status
    return "no answer" if status is None else str(status)


def _outcome_style_name(outcome: Outcome) -> str:
    from plantstore_tui.core.outcome import Created, Rejected

    if isinstance(outcome, Created):
        return "created"
    if isinstance(outcome, Rejected):
        return "rejected"
    return "failed"


def _labelled(entry: Text, label: str, block: Text, styles: Mapping[str, Style]) -> None:
    entry.append(f"\n  {label:<6}", _style(styles, "label"))
    lines = block.split("\n", allow_blank=True)
    for index, line in enumerate(lines):
        if index:
            entry.append("\n  " + _INDENT)
        entry.append_text(line)


def render_outcome(
    outcome: Outcome, at: datetime, styles: Mapping[str, Style] | None = None
) -> Text:
    """One log entry for one send attempt, as a Rich `Text` built without interpreting markup."""
    from plantstore_tui.core.outcome import Created, Failed, Rejected, fate_sentence

    styles = styles or {}
    kind = _outcome_style_name(outcome)
    entry = Text()
    entry.append(at.strftime("%H:%M:%S"), _style(styles, "time"))
    entry.append("  POST ")
    entry.append(visible(outcome.url))
    entry.append("  ")
    entry.append(_status_words(outcome), _style(styles, kind))
    if outcome.elapsed_ms is not None:
        entry.append(f"  {outcome.elapsed_ms:.1f} ms", _style(styles, "time"))
    mark = {"created": "✔", "rejected": "✖", "failed": "⚠"}[kind]
    entry.append(f"\n  {mark} ", _style(styles, kind))
    entry.append(visible(outcome.headline), _style(styles, kind))
    _labelled(entry, "sent", _json_block(outcome.sent.to_body()), styles)
    match outcome:
        case Created():
            _labelled(entry, "plant", _json_block(outcome.plant.model_dump()), styles)
        case Rejected() if outcome.error is not None:
            _labelled(entry, "error", _json_block(outcome.error.model_dump()), styles)
        case Rejected() | Failed() if outcome.body:
            _labelled(entry, "body", _body_block(outcome.body), styles)
        case _:
            pass
    if isinstance(outcome, Failed) and outcome.location:
        _labelled(entry, "to", Text(visible(shorten(outcome.location, BODY_SHOWN))), styles)
    if not isinstance(outcome, Created):
        entry.append("\n  ")
        entry.append(fate_sentence(outcome.fate), _style(styles, "fate"))
        if outcome.advice:
            entry.append(" ")
            entry.append(visible(outcome.advice), _style(styles, "advice"))
    return entry


def render_note(text: str, at: datetime, styles: Mapping[str, Style] | None = None) -> Text:
    """A log line that is not a send attempt (a configuration problem, a send refused)."""
    styles = styles or {}
    entry = Text()
    entry.append(at.strftime("%H:%M:%S"), _style(styles, "time"))
    entry.append("  ")
    entry.append(visible(text), _style(styles, "note"))
    return entry


class ResponseLog(RichLog):
    """The log panel: keeps its entries so it can re-wrap them, clear them and save them."""

    COMPONENT_CLASSES: ClassVar[set[str]] = {f"response-log--{name}" for name in STYLE_NAMES}

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(wrap=True, markup=False, highlight=False, id=id)
        self.entries: list[Text] = []
        self._written_width = 0

    def _styles(self) -> dict[str, Style]:
        return {
            name: self.get_component_rich_style(f"response-log--{name}") for name in STYLE_NAMES
        }

    def add_outcome(self, outcome: Outcome, at: datetime) -> None:
        """Append the entry of one send attempt."""
        self._add(render_outcome(outcome, at, self._styles()))

    def add_note(self, text: str, at: datetime) -> None:
        """Append a line that is not a send attempt."""
        self._add(render_note(text, at, self._styles()))

    def _add(self, entry: Text) -> None:
        if self.entries:
            self.write(Text(""))
        self.entries.append(entry)
        self.write(entry)

    def clear_entries(self) -> None:
        """Forget every entry."""
        self.entries.clear()
        self.clear()

    def plain_text(self) -> str:
        """Every entry as plain text, for saving; the log never holds the token."""
        return "\n\n".join(entry.plain for entry in self.entries) + ("\n" if self.entries else "")

    def on_resize(self, event: Resize) -> None:
        """Re-wrap the entries to the new width (RichLog keeps lines wrapped at the old one)."""
        width, self._written_width = self._written_width, event.size.width
        # Before the first size is known RichLog itself renders the deferred writes.
        if not self._size_known or event.size.width == width:
            return
        self.clear()
        for index, entry in enumerate(self.entries):
            if index:
                self.write(Text(""))
            self.write(entry)
