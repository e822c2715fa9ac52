"""A log entry: one plant's send attempt (queued, sending, its outcome) or a note, as rich Text.

Everything from the server is literal text: built from Text, never from markup, each value cut
for display. The response log (`response_log.py`) draws these entries.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import TYPE_CHECKING, Any, NamedTuple

from rich.console import Console, Group, RenderableType
from rich.highlighter import JSONHighlighter
from rich.padding import Padding
from rich.segment import Segment
from rich.style import Style
from rich.table import Table
from rich.text import Span, Text

from plantstore_tui.core.plant.outcome import Created, Failed, Rejected, fate_sentence
from plantstore_tui.core.plant.text import (
    ShownBody,
    shorten,
    shown_body,
    shown_json,
    visible,
)
from plantstore_tui.core.store.records import PlantState

if TYPE_CHECKING:
    from plantstore_tui.core.plant.outcome import Outcome
    from plantstore_tui.core.sending.events import PlantView

# "to send " is the longest label; values start one column after it.
_LABEL_WIDTH = 8  # "to send" and a space
# The rows are indented under the header by this many columns.
_INDENT = 2

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


def _block(shown: ShownBody) -> Text:
    """A body as every front end shows it (`core.plant.text.shown_body`), JSON highlighted;
    always literal."""
    text = Text(shown.text)
    if shown.is_json:
        _json_highlighter.highlight(text)
    for note in shown.notes:
        text.append(f"\n({note})")
    return text


def _json_block(data: Any) -> Text:
    """`data` as highlighted JSON, one line when short and flat, else indented, each cut named."""
    return _block(shown_json(data))


def body_block(body: str) -> Text:
    """A response body: pretty JSON when it parses, else the raw text, cut for display."""
    return _block(shown_body(body))


def _status_words(outcome: Outcome) -> str:
    status = outcome.status
    return "no answer" if status is None else str(status)


def _outcome_style_name(outcome: Outcome) -> str:

    if isinstance(outcome, Created):
        return "created"
    if isinstance(outcome, Rejected):
        return "rejected"
    return "failed"


# A labelled row of an entry: its label (maybe empty), then its value.
Row = tuple[Text, Text]


class Entry(NamedTuple):
    """One log entry: a header line, then labelled rows (a label may be empty)."""

    header: Text
    rows: tuple[Row, ...] = ()
    # Where the header's state begins ("200  412.7 ms", "queued"): a header too long for the
    # log is broken there, not in the middle of the state or its time (0: never broken there).
    state_at: int = 0
    # When it happened: the header shows the time of day (`shown_time`), a saved log the date
    # and the UTC offset too (`saved_text`).
    at: datetime | None = None

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

    def saved_text(self) -> str:
        """The entry as a saved log has it: `text()`, its time with the date and UTC offset."""
        plain = self.text().plain
        if self.at is not None and plain.startswith(shown := shown_time(self.at)):
            return saved_time(self.at) + plain[len(shown) :]
        return plain

    def restyle(self, new: Mapping[Style, Style]) -> None:
        """Give each part of the entry drawn in a style of `new`'s keys that key's value (the
        styles of another theme), in place."""
        for text in (self.header, *(part for row in self.rows for part in row)):
            if isinstance(text.style, Style):
                text.style = new.get(text.style, text.style)
            text.spans = [
                Span(span.start, span.end, new.get(span.style, span.style))
                if isinstance(span.style, Style)
                else span
                for span in text.spans
            ]

    def renderable(self) -> RenderableType:
        """The entry for the screen: long values wrap inside their column, under their label."""
        if not self.rows:
            return self.header
        grid = Table.grid(padding=(0, 1), expand=True)
        grid.add_column(width=_LABEL_WIDTH - 1, no_wrap=True)
        grid.add_column(ratio=1, overflow="fold")
        for label, value in self.rows:
            grid.add_row(label, value)
        return Group(self.header, Padding(grid, (0, 0, 0, _INDENT)))

    def lines(self, console: Console, width: int) -> list[list[Segment]]:
        """The lines `renderable()` draws at `width`, cell for cell and style for style (but for
        a header too long for `width`, broken before its state: `state_at`), each `width` wide,
        made without a table (which measured and laid out every cell: a third of
        the cost of an answer's entry)."""
        options = console.options.update_width(width)
        # The label's column, then one column between it and the value's.
        value_width = width - _INDENT - _LABEL_WIDTH
        if value_width < 1 or not self.rows:
            return _cropped(console, self.renderable(), width)
        lines = self._header_lines(console, width)
        plain = Style()
        indent, gap = Segment(" " * _INDENT, plain), Segment(" ", plain)
        labels = options.update(width=_LABEL_WIDTH - 1, no_wrap=True, height=None, justify="left")
        values = options.update(
            width=value_width, no_wrap=False, overflow="fold", height=None, justify="left"
        )
        no_label = [Segment(" " * (_LABEL_WIDTH - 1), plain)]
        no_value = [Segment(" " * value_width, plain)]
        for label, value in self.rows:
            label_lines = console.render_lines(label, labels, pad=True)
            value_lines = console.render_lines(value, values, pad=True)
            for row in range(max(len(label_lines), len(value_lines))):
                line = [indent, *(label_lines[row] if row < len(label_lines) else no_label), gap]
                line += value_lines[row] if row < len(value_lines) else no_value
                lines.append(list(Segment.adjust_line_length(line, width, pad=True)))
        return lines

    def _header_lines(self, console: Console, width: int) -> list[list[Segment]]:
        header, at = self.header, self.state_at
        if not at or header.cell_len <= width or width <= _INDENT:
            return _cropped(console, header, width)
        head, state = header[:at], Text(" " * _INDENT)
        head.rstrip()
        state.append_text(header[at:])
        return _cropped(console, head, width) + _cropped(console, state, width)


def _cropped(console: Console, renderable: RenderableType, width: int) -> list[list[Segment]]:
    """`renderable` in lines exactly `width` wide."""
    rendered = console.render(renderable, console.options.update_width(width))
    return [
        list(line)
        for line in Segment.split_and_crop_lines(rendered, width, pad=True, include_new_lines=False)
    ]


def shown_time(at: datetime) -> str:
    """The time of an entry on the screen: `14:03:07`."""
    return at.strftime("%H:%M:%S")


def saved_time(at: datetime) -> str:
    """The time of an entry in a saved log, ISO 8601 with its UTC offset:
    `2026-11-26T14:03:07+01:00` (a naive time is taken as local)."""
    return (at if at.tzinfo is not None else at.astimezone()).isoformat(timespec="seconds")


def _header(at: datetime, number: int | None, url: str, styles: Mapping[str, Style]) -> Text:
    header = Text()
    header.append(shown_time(at), _style(styles, "time"))
    if number is not None:
        header.append(f"  #{number}", _style(styles, "number"))
    header.append("  POST ")
    header.append(visible(url))
    header.append("  ")
    return header


def _outcome_rows(outcome: Outcome, header: Text, styles: Mapping[str, Style]) -> list[Row]:
    """What came of one send attempt: its status on the header, and the rows under it; built
    from Text without interpreting any markup."""

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
            labelled("body", body_block(outcome.body))
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
    plant: PlantView,
    at: datetime,
    styles: Mapping[str, Style] | None = None,
    *,
    after: str | None = None,
) -> Entry:
    """The entry of a submitted plant as it stands: queued, sending, its outcome, then what the
    operator did about it (`after`) if it needed attention. `at` is when it was taken; an answer
    shows its own time, and the time taken under it where the two differ."""
    styles = styles or {}
    if plant.outcome is not None:
        taken, at = at, plant.answered_at or at
        header = _header(at, plant.number, plant.outcome.url, styles)
        state_at = len(header)
        rows = _outcome_rows(plant.outcome, header, styles)
        if shown_time(taken) != shown_time(at):
            rows.insert(1, (Text("taken", _style(styles, "label")), Text(shown_time(taken))))
        if plant.note and not plant.settled:
            # Answered, and back in line: it goes again (a refused token, no deployment).
            rows.append((Text("↻", _style(styles, "pending")), Text(visible(plant.note))))
    else:
        header = _header(at, plant.number, f"{plant.base_url.rstrip('/')}/plants", styles)
        state_at = len(header)
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
    return Entry(header, tuple(rows), state_at, at)


def render_note(text: str, at: datetime, styles: Mapping[str, Style] | None = None) -> Entry:
    """A log line that is not a send attempt (a configuration problem, a send refused)."""
    styles = styles or {}
    header = Text()
    header.append(shown_time(at), _style(styles, "time"))
    header.append("  ")
    header.append(visible(text), _style(styles, "note"))
    return Entry(header, at=at)
