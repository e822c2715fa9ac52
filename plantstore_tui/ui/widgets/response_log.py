"""The response log: one entry per send attempt; everything from the server is literal text."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any, ClassVar

from rich.console import Group, RenderableType
from rich.highlighter import JSONHighlighter
from rich.padding import Padding
from rich.style import Style
from rich.table import Table
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
# "plant " is the longest label; values start one column after it.
_LABEL_WIDTH = 6

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


@dataclass(frozen=True, slots=True)
class Entry:
    """One log entry: a header line, then labelled rows (a label may be empty)."""

    header: Text
    rows: tuple[tuple[Text, Text], ...] = ()

    def text(self) -> Text:
        """The entry as one Text: what is saved, with the values indented under their labels."""
        out = self.header.copy()
        for label, value in self.rows:
            out.append("\n  ")
            out.append_text(label)
            out.append(" " * (_LABEL_WIDTH - label.cell_len))
            for index, line in enumerate(value.split("\n", allow_blank=True)):
                if index:
                    out.append("\n  " + " " * _LABEL_WIDTH)
                out.append_text(line)
        return out

    def renderable(self) -> RenderableType:
        """The entry for the screen: long values wrap inside their column, under their label."""
        if not self.rows:
            return self.header
        grid = Table.grid(padding=(0, 1), expand=True)
        grid.add_column(width=_LABEL_WIDTH - 1, no_wrap=True)
        grid.add_column(ratio=1, overflow="fold")
        for label, value in self.rows:
            grid.add_row(label, value)
        return Group(self.header, Padding(grid, (0, 0, 0, 2)))


def render_outcome(
    outcome: Outcome, at: datetime, styles: Mapping[str, Style] | None = None
) -> Entry:
    """One log entry for one send attempt, built from Text without interpreting any markup."""
    from plantstore_tui.core.outcome import Created, Failed, Rejected, fate_sentence

    styles = styles or {}
    kind = _outcome_style_name(outcome)
    header = Text()
    header.append(at.strftime("%H:%M:%S"), _style(styles, "time"))
    header.append("  POST ")
    header.append(visible(outcome.url))
    header.append("  ")
    header.append(_status_words(outcome), _style(styles, kind))
    if outcome.elapsed_ms is not None:
        header.append(f"  {outcome.elapsed_ms:.1f} ms", _style(styles, "time"))
    mark = {"created": "✔", "rejected": "✖", "failed": "⚠"}[kind]
    rows = [
        (Text(mark, _style(styles, kind)), Text(visible(outcome.headline), _style(styles, kind)))
    ]

    def labelled(label: str, value: Text) -> None:
        rows.append((Text(label, _style(styles, "label")), value))

    labelled("sent", _json_block(outcome.sent.to_body()))
    match outcome:
        case Created():
            labelled("plant", _json_block(outcome.plant.as_received()))
        case Rejected() if outcome.error is not None:
            labelled("error", _json_block(outcome.error.as_received()))
        case Rejected() | Failed() if outcome.body:
            labelled("body", _body_block(outcome.body))
        case _:
            pass
    if isinstance(outcome, Failed) and outcome.location:
        labelled("to", Text(visible(shorten(outcome.location, BODY_SHOWN))))
    if not isinstance(outcome, Created):
        fate = Text()
        fate.append(fate_sentence(outcome.fate), _style(styles, "fate"))
        if outcome.advice:
            fate.append(" ")
            fate.append(visible(outcome.advice), _style(styles, "advice"))
        rows.append((Text(""), fate))
    return Entry(header, tuple(rows))


def render_note(text: str, at: datetime, styles: Mapping[str, Style] | None = None) -> Entry:
    """A log line that is not a send attempt (a configuration problem, a send refused)."""
    styles = styles or {}
    header = Text()
    header.append(at.strftime("%H:%M:%S"), _style(styles, "time"))
    header.append("  ")
    header.append(visible(text), _style(styles, "note"))
    return Entry(header)


class ResponseLog(RichLog):
    """The log panel: keeps its entries so it can re-wrap them, clear them and save them."""

    COMPONENT_CLASSES: ClassVar[set[str]] = {f"response-log--{name}" for name in STYLE_NAMES}

    def __init__(self, *, id: str | None = None) -> None:
        # min_width: RichLog renders at least 78 cells wide unless told; the panel is narrower.
        super().__init__(wrap=True, markup=False, highlight=False, min_width=20, id=id)
        self.entries: list[Entry] = []
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

    def _add(self, entry: Entry) -> None:
        self._write(entry, separated=bool(self.entries))
        self.entries.append(entry)

    def _write(self, entry: Entry, *, separated: bool) -> None:
        renderable = entry.renderable()
        if separated:
            renderable = Group(Text(""), renderable)
        if not self._size_known:
            # Deferred by RichLog until the first size is known; it scrolls to the end then.
            self.write(renderable, expand=True)
            return
        # RichLog would scroll only after the refresh that draws the new lines, so the entry
        # would show a frame later; the log's height is fixed, so its end is known already
        # (force: the scrollbar that allows scrolling appears only at that refresh).
        self.write(renderable, expand=True, scroll_end=False)
        if self.auto_scroll:
            self.scroll_end(animate=False, immediate=True, x_axis=False, force=True)

    def clear_entries(self) -> None:
        """Forget every entry."""
        self.entries.clear()
        self.clear()

    def plain_text(self) -> str:
        """Every entry as plain text, for saving; the log never holds the token."""
        return "\n\n".join(entry.text().plain for entry in self.entries) + (
            "\n" if self.entries else ""
        )

    def on_resize(self, event: Resize) -> None:
        """Re-wrap the entries to the new width (RichLog keeps lines wrapped at the old one)."""
        width, self._written_width = self._written_width, event.size.width
        # Before the first size is known RichLog itself renders the deferred writes.
        if not self._size_known or event.size.width == width:
            return
        self.clear()
        for index, entry in enumerate(self.entries):
            self._write(entry, separated=index > 0)
