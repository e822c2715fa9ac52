"""The response log: one entry per plant sent; everything from the server is literal text.

An entry can change in place: a queued plant's entry says queued, then sending, then its outcome.
"""

from __future__ import annotations

import json
from bisect import bisect_right
from collections.abc import Hashable, Mapping
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from rich.console import Group, RenderableType
from rich.highlighter import JSONHighlighter
from rich.padding import Padding
from rich.segment import Segment
from rich.style import Style
from rich.table import Table
from rich.text import Text
from textual.events import Resize
from textual.geometry import Size
from textual.scroll_view import ScrollView
from textual.strip import Strip

from plantstore_tui.core.plant.text import BLOCK_SHOWN, bounded_json, shorten, visible
from plantstore_tui.ui.textual_compat import once_before_frame

if TYPE_CHECKING:
    from plantstore_tui.core.plant.outcome import Outcome
    from plantstore_tui.core.sending.queue import QueuedPlant

# A JSON object this short reads best on one line; anything longer or nested is indented.
_ONE_LINE_JSON = 60
# "to send " is the longest label; values start one column after it.
_LABEL_WIDTH = 8  # "to send" and a space

_json_highlighter = JSONHighlighter()

# Style names the renderer asks for; the widget fills them from app.tcss component classes.
STYLE_NAMES = (
    "time",
    "number",
    "created",
    "rejected",
    "failed",
    "label",
    "fate",
    "advice",
    "note",
    "pending",
    "attention",
)


def _style(styles: Mapping[str, Style], name: str) -> Style:
    return styles.get(name, Style.null())


def _json_block(data: Any) -> Text:
    """`data` as highlighted JSON, one line when short and flat, else indented; always literal.

    Each text in it is cut to a few hundred characters, and each cut named below it: a server's
    megabyte name is never held or drawn whole.
    """
    shown, notes = bounded_json(data)
    flat = json.dumps(shown, ensure_ascii=False)
    nested = isinstance(shown, dict) and any(isinstance(v, dict | list) for v in shown.values())
    if len(flat) <= _ONE_LINE_JSON and not nested:
        dumped = flat
    else:
        dumped = json.dumps(shown, indent=2, ensure_ascii=False)
    # json.dumps escapes C0 but lets DEL, C1 and bidi controls through: visible() catches those.
    text = Text(visible(shorten(dumped, BLOCK_SHOWN, what="the JSON"), keep_newlines=True))
    _json_highlighter.highlight(text)
    for note in notes:
        text.append(f"\n({visible(note)})")
    return text


def _body_block(body: str) -> Text:
    """A response body: pretty JSON when it parses, else the raw text, cut for display."""
    try:
        data = json.loads(body)
    except (ValueError, RecursionError):
        return Text(visible(shorten(body, what="the body"), keep_newlines=True))
    return _json_block(data)


def _status_words(outcome: Outcome) -> str:
    status = outcome.status
    return "no answer" if status is None else str(status)


def _outcome_style_name(outcome: Outcome) -> str:
    from plantstore_tui.core.plant.outcome import Created, Rejected

    if isinstance(outcome, Created):
        return "created"
    if isinstance(outcome, Rejected):
        return "rejected"
    return "failed"


# A labelled row of an entry: its label (maybe empty), then its value.
Row = tuple[Text, Text]


@dataclass(frozen=True, slots=True)
class Entry:
    """One log entry: a header line, then labelled rows (a label may be empty)."""

    header: Text
    rows: tuple[Row, ...] = ()

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


def _header(at: datetime, number: int | None, url: str, styles: Mapping[str, Style]) -> Text:
    header = Text()
    header.append(at.strftime("%H:%M:%S"), _style(styles, "time"))
    if number is not None:
        header.append(f"  #{number}", _style(styles, "number"))
    header.append("  POST ")
    header.append(visible(url))
    header.append("  ")
    return header


def _outcome_rows(outcome: Outcome, header: Text, styles: Mapping[str, Style]) -> list[Row]:
    """What came of one send attempt: its status on the header, and the rows under it; built
    from Text without interpreting any markup."""
    from plantstore_tui.core.plant.outcome import Created, Failed, Rejected, fate_sentence

    kind = _outcome_style_name(outcome)
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
        labelled("to", Text(visible(shorten(outcome.location, what="Location"))))
    if outcome.off_spec:
        off_spec = Text(
            visible("off spec: " + "; ".join(outcome.off_spec)), _style(styles, "advice")
        )
        rows.append((Text("≠", _style(styles, "advice")), off_spec))
    if not isinstance(outcome, Created):
        fate = Text()
        fate.append(fate_sentence(outcome.fate), _style(styles, "fate"))
        if outcome.advice:
            fate.append(" ")
            fate.append(visible(outcome.advice), _style(styles, "advice"))
        rows.append((Text(""), fate))
    return rows


def render_plant(
    plant: QueuedPlant,
    at: datetime,
    styles: Mapping[str, Style] | None = None,
    *,
    after: str | None = None,
) -> Entry:
    """The entry of a submitted plant as it stands: queued, sending, its outcome, then what the
    operator did about it (`after`) if it needed attention."""
    from plantstore_tui.core.store.records import PlantState

    styles = styles or {}
    if plant.outcome is not None:
        header = _header(at, plant.number, plant.outcome.url, styles)
        rows = _outcome_rows(plant.outcome, header, styles)
    else:
        header = _header(at, plant.number, f"{plant.base_url.rstrip('/')}/plants", styles)
        words = (
            "held"
            if plant.held
            else {
                PlantState.QUEUED: "queued",
                PlantState.SENDING: "sending…",
            }.get(plant.state, plant.state.value)
        )
        header.append(words, _style(styles, "pending"))
        # Not "sent": it has not gone out yet.
        rows = [(Text("to send", _style(styles, "label")), _json_block(plant.plant.to_body()))]
        if plant.note:
            rows.append((Text("⚠", _style(styles, "failed")), Text(visible(plant.note))))
    if after is not None:
        rows.append(
            (Text("⚑", _style(styles, "label")), Text(visible(after), _style(styles, "label")))
        )
    elif plant.needs_attention:
        flag = Text("needs attention: ", _style(styles, "attention"))
        flag.append("F4 to load it into the form or dismiss it", _style(styles, "label"))
        # Said once: a note (a restart, a cancel) may have said it already.
        if plant.fate_unknown and not any("may exist" in row[1].plain for row in rows):
            flag.append(" (it may exist already)", _style(styles, "label"))
        rows.append((Text("⚑", _style(styles, "attention")), flag))
    return Entry(header, tuple(rows))


def render_note(text: str, at: datetime, styles: Mapping[str, Style] | None = None) -> Entry:
    """A log line that is not a send attempt (a configuration problem, a send refused)."""
    styles = styles or {}
    header = Text()
    header.append(at.strftime("%H:%M:%S"), _style(styles, "time"))
    header.append("  ")
    header.append(visible(text), _style(styles, "note"))
    return Entry(header)


class ResponseLog(ScrollView, can_focus=True):
    """The log panel: entries rendered once per width, any of them replaceable in place."""

    COMPONENT_CLASSES: ClassVar[set[str]] = {f"response-log--{name}" for name in STYLE_NAMES}

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.entries: list[Entry] = []
        self._index: dict[Hashable, int] = {}
        # Each entry's lines at `_width` (a blank separator line first, but for the first entry),
        # and the log line each entry starts at.
        self._strips: list[list[Strip]] = []
        self._starts: list[int] = []
        self._width = 0
        # Entries changed since the last frame: their lines are made once, before the next one,
        # whatever states they went through meanwhile (queued, sending, the answer).
        self._changed: set[int] = set()
        self._follow = False
        self._style_map: dict[str, Style] | None = None

    @property
    def lines(self) -> list[Strip]:
        """Every line the log draws, top to bottom."""
        self._lay_out_changed()
        return [strip for strips in self._strips for strip in strips]

    def _styles(self) -> dict[str, Style]:
        # Kept until the styles change (notify_style_update): the same eleven for every entry.
        if self._style_map is None:
            self._style_map = {
                name: self.get_component_rich_style(f"response-log--{name}") for name in STYLE_NAMES
            }
        return self._style_map

    def show_plant(self, plant: QueuedPlant, after: str | None = None) -> None:
        """Show a submitted plant's entry as it stands now, in place once it has one."""
        self.put(
            render_plant(plant, plant.queued_at, self._styles(), after=after),
            ("plant", plant.number),
        )

    def add_note(self, text: str, at: datetime) -> None:
        """Append a line that is not a send attempt."""
        self.put(render_note(text, at, self._styles()))

    def put(self, entry: Entry, key: Hashable | None = None) -> None:
        """Append `entry`; with the `key` of an entry already shown, replace that one in place."""
        index = None if key is None else self._index.get(key)
        if index is None:
            index = len(self.entries)
            self.entries.append(entry)
            self._strips.append([])
            self._starts.append(0)
            if key is not None:
                self._index[key] = index
        else:
            self.entries[index] = entry
        if not self._width:
            return  # drawn whole at the first size (on_resize)
        if self.scroll_offset.y >= self.max_scroll_y or index == len(self.entries) - 1:
            self._follow = True
        self._changed.add(index)
        once_before_frame(self, self._lay_out_changed)

    def _lay_out_changed(self) -> None:
        """Draw the entries changed since the last frame and lay out the lines after them."""
        if not self._changed:
            return
        changed, self._changed = self._changed, set()
        if not self._width:
            return
        for index in sorted(changed):
            self._strips[index] = self._render_entry(index)
        self._lay_out_from(min(changed))
        follow, self._follow = self._follow, False
        if follow:
            self._follow_end()

    def clear_entries(self) -> None:
        """Forget every entry."""
        self.entries.clear()
        self._index.clear()
        self._strips.clear()
        self._starts.clear()
        self._changed.clear()
        self.virtual_size = Size(self._width, 0)
        self.scroll_to(0, 0, animate=False, immediate=True)
        self.refresh()

    def plain_text(self) -> str:
        """Every entry as plain text, for saving; the log never holds the token."""
        return "\n\n".join(entry.text().plain for entry in self.entries) + (
            "\n" if self.entries else ""
        )

    def save(self, path: Path) -> None:
        """Write the log as plain text to the new file `path`, and say where (or why not)."""
        text = self.plain_text()
        if not text:
            self.notify("The log is empty: nothing to save.", title="Log not saved")
            return
        try:
            with path.open("x", encoding="utf-8") as file:
                file.write(text)
        except OSError as exc:
            self.notify(
                f"Could not write {path}: {exc.strerror or exc}",
                title="Log not saved",
                severity="error",
            )
            return
        self.notify(f"Saved to {path.resolve()}", title="Log saved")

    def _render_entry(self, index: int) -> list[Strip]:
        renderable = self.entries[index].renderable()
        if index:
            renderable = Group(Text(""), renderable)
        console = self.app.console
        options = console.options.update_width(self._width)
        lines = Segment.split_and_crop_lines(
            console.render(renderable, options), self._width, pad=True, include_new_lines=False
        )
        return [Strip(line, self._width) for line in lines]

    def _render_all(self) -> None:
        """Render every entry at the current width and lay out their lines."""
        self._changed.clear()
        for index in range(len(self.entries)):
            self._strips[index] = self._render_entry(index)
        self._lay_out_from(0)

    def _lay_out_from(self, first: int) -> None:
        """Where each entry's lines start, from entry `first` on; the log's height."""
        for index in range(first, len(self.entries)):
            self._starts[index] = (
                self._starts[index - 1] + len(self._strips[index - 1]) if index else 0
            )
        total = self._starts[-1] + len(self._strips[-1]) if self.entries else 0
        self.virtual_size = Size(self._width, total)
        self.refresh()

    def _follow_end(self) -> None:
        if self.auto_scroll:
            # The log's height is fixed, so its end is known before the next refresh draws it
            # (force: the scrollbar that allows scrolling only appears at that refresh).
            self.scroll_end(animate=False, immediate=True, x_axis=False, force=True)

    auto_scroll = True

    def on_resize(self, event: Resize) -> None:
        """Render every entry again at the new width."""
        width = self.scrollable_content_region.width
        if width == self._width or width <= 0:
            return
        self._width = width
        if self.entries:
            self._render_all()
            self._follow_end()

    def notify_style_update(self) -> None:
        """Styles changed (a theme): the cached lines hold the old ones."""
        super().notify_style_update()
        self._style_map = None
        if self._width and self.entries:
            self._render_all()

    def render_line(self, y: int) -> Strip:
        """One line of the log at the current scroll position."""
        self._lay_out_changed()  # done already before the frame, on a screen with that hook
        scroll_x, scroll_y = self.scroll_offset
        line = scroll_y + y
        width = self.scrollable_content_region.width
        if not self.entries or line >= self.virtual_size.height:
            return Strip.blank(width, self.rich_style)
        index = bisect_right(self._starts, line) - 1
        strip = self._strips[index][line - self._starts[index]]
        return strip.crop_extend(scroll_x, scroll_x + width, self.rich_style).apply_style(
            self.rich_style
        )
