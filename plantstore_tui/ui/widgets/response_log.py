"""The response log: one entry per plant sent; everything from the server is literal text.

An entry can change in place: a queued plant's entry says queued, then sending, then its outcome.
What an entry says is made in `log_entry.py`; this widget lays the entries out and draws them.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Callable, Hashable
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual.events import Resize
from textual.geometry import Size
from textual.scroll_view import ScrollView
from textual.strip import Strip

from plantstore_tui.ui.textual_compat import once_before_frame
from plantstore_tui.ui.widgets.log_entry import STYLE_NAMES, Entry, render_note, render_plant

if TYPE_CHECKING:
    from plantstore_tui.core.sending.queue import QueuedPlant


class ResponseLog(ScrollView, can_focus=True):
    """The log panel: entries rendered once per width, any of them replaceable in place."""

    COMPONENT_CLASSES: ClassVar[set[str]] = {f"response-log--{name}" for name in STYLE_NAMES}

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._entries: list[Entry] = []
        # Entries asked for since the last frame, made once when read: a plant that went from
        # queued to sending to its answer meanwhile is rendered as it stands, not at each state.
        self._pending: dict[int, Callable[[], Entry]] = {}
        self._index: dict[Hashable, int] = {}
        # Each entry's lines at `_width`, in the log's own style (a blank separator line first,
        # but for the first entry), and the log line each entry starts at.
        self._strips: list[list[Strip]] = []
        self._starts: list[int] = []
        self._width = 0
        # Entries changed since the last frame: their lines are made once, before the next one,
        # whatever states they went through meanwhile (queued, sending, the answer).
        self._changed: set[int] = set()
        self._follow = False
        self._style_map: dict[str, Style] | None = None
        # A line below the last entry, in the log's style.
        self._blank: Strip | None = None

    @property
    def entries(self) -> list[Entry]:
        """Every entry, oldest first, as it stands now."""
        if self._pending:
            pending, self._pending = self._pending, {}
            for index, make in pending.items():
                self._entries[index] = make()
        return self._entries

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
        self._put(
            lambda: render_plant(plant, plant.queued_at, self._styles(), after=after),
            ("plant", plant.number),
        )

    def add_note(self, text: str, at: datetime) -> None:
        """Append a line that is not a send attempt."""
        self.put(render_note(text, at, self._styles()))

    def put(self, entry: Entry, key: Hashable | None = None) -> None:
        """Append `entry`; with the `key` of an entry already shown, replace that one in place."""
        self._put(lambda: entry, key)

    def _put(self, make: Callable[[], Entry], key: Hashable | None) -> None:
        # What `make` makes is made once, when the log is next read or drawn.
        index = None if key is None else self._index.get(key)
        if index is None:
            index = len(self._entries)
            self._entries.append(Entry(Text()))
            self._strips.append([])
            self._starts.append(0)
            if key is not None:
                self._index[key] = index
        self._pending[index] = make
        if not self._width:
            return  # drawn whole at the first size (on_resize)
        if self.scroll_offset.y >= self.max_scroll_y or index == len(self._entries) - 1:
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
        self._entries.clear()
        self._pending.clear()
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
        width = self._width
        lines = self.entries[index].lines(self.app.console, width)
        if index:
            lines.insert(0, [Segment(""), Segment(" " * width)])  # a blank line between entries
        # Styled here, once: the log's style changes only with a restyle, which draws every
        # entry again (notify_style_update); each frame that scrolls draws every visible line.
        style = self.rich_style
        return [Strip(line, self._width).apply_style(style) for line in lines]

    def _render_all(self) -> None:
        """Render every entry at the current width and lay out their lines."""
        self._changed.clear()
        for index in range(len(self._entries)):
            self._strips[index] = self._render_entry(index)
        self._lay_out_from(0)

    def _lay_out_from(self, first: int) -> None:
        """Where each entry's lines start, from entry `first` on; the log's height."""
        for index in range(first, len(self._entries)):
            self._starts[index] = (
                self._starts[index - 1] + len(self._strips[index - 1]) if index else 0
            )
        total = self._starts[-1] + len(self._strips[-1]) if self._entries else 0
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
        if self._entries:
            self._render_all()
            self._follow_end()

    def notify_style_update(self) -> None:
        """Styles changed (a theme): the cached lines hold the old ones."""
        super().notify_style_update()
        self._style_map, self._blank = None, None
        if self._width and self._entries:
            self._render_all()

    def render_line(self, y: int) -> Strip:
        """One line of the log at the current scroll position."""
        self._lay_out_changed()  # done already before the frame, on a screen with that hook
        scroll_x, scroll_y = self.scroll_offset
        line = scroll_y + y
        width = self.scrollable_content_region.width
        if not self._entries or line >= self.virtual_size.height:
            if self._blank is None or self._blank.cell_length != width:
                self._blank = Strip.blank(width, self.rich_style)
            return self._blank
        index = bisect_right(self._starts, line) - 1
        strip = self._strips[index][line - self._starts[index]]
        if scroll_x == 0 and width == self._width:
            return strip  # drawn at this width, in this style
        return strip.crop_extend(scroll_x, scroll_x + width, self.rich_style)
