"""The response log: one entry per plant sent; everything from the server is literal text.

An entry can change in place: a queued plant's entry says queued, then sending, then its outcome.
What an entry says is made in `log_entry.py`; this widget lays the entries out and draws them.
Only the entries the log shows are drawn: one that changes while scrolled out of view keeps
the height it had, and is drawn (and the lines after it laid out anew) when it comes into view;
reading `entries` or `lines` still gives every entry whole.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Callable, Hashable, Iterable
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

from plantstore_tui.ui.widgets.log_entry import STYLE_NAMES, Entry, render_note, render_plant

if TYPE_CHECKING:
    from plantstore_tui.core.sending.events import PlantView


class ResponseLog(ScrollView, can_focus=True):
    """The log panel: entries drawn when shown, once per state and width, any of them
    replaceable in place."""

    # The entries' styles, from app.tcss's `ResponseLog > .response-log--NAME` rules.
    COMPONENT_CLASSES: ClassVar[set[str]] = {f"response-log--{name}" for name in STYLE_NAMES}

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._entries: list[Entry] = []
        # Entries asked for since the last frame, made once when read: a plant that went from
        # queued to sending to its answer meanwhile is rendered as it stands, not at each state.
        self._pending: dict[int, Callable[[], Entry]] = {}
        self._index: dict[Hashable, int] = {}
        # Each entry's lines at `_width`, in the log's own style (a blank separator line first,
        # but for the first entry), None until it is drawn as it stands; its height (as last
        # drawn, or guessed from the entry before it); the log line each entry starts at.
        self._strips: list[list[Strip] | None] = []
        self._heights: list[int] = []
        self._starts: list[int] = []
        self._width = 0
        # Entries changed since the last frame: laid out once before the next one, whatever
        # states they went through meanwhile (queued, sending, the answer), and drawn if shown.
        self._changed: set[int] = set()
        # True when the lines shown may hold entries not drawn yet (a scroll, a new height).
        self._unseen = False
        self._follow = False
        self._style_map: dict[str, Style] | None = None
        # The styles the entries were made in, when a restyle dropped them (notify_style_update).
        self._old_style_map: dict[str, Style] | None = None
        # A line below the last entry, in the log's style.
        self._blank: Strip | None = None

    @property
    def entries(self) -> list[Entry]:
        """Every entry, oldest first, as it stands now."""
        for index in list(self._pending):
            self._entry(index)
        return self._entries

    def _entry(self, index: int) -> Entry:
        """Entry `index` as it stands now (made now if it changed since it was last made)."""
        make = self._pending.pop(index, None)
        if make is not None:
            self._entries[index] = make()
        return self._entries[index]

    @property
    def lines(self) -> list[Strip]:
        """Every line the log draws, top to bottom (every entry drawn now if it is not)."""
        self._lay_out_changed()
        if self._width:
            at_end = self.scroll_offset.y >= self.max_scroll_y
            self._draw(range(len(self._entries)))
            if at_end:
                self._follow_end()
        return [strip for strips in self._strips for strip in strips or ()]

    def _styles(self) -> dict[str, Style]:
        # Kept until the styles change (notify_style_update): the same eleven for every entry.
        if self._style_map is None:
            self._style_map = {
                name: self.get_component_rich_style(f"response-log--{name}") for name in STYLE_NAMES
            }
            # Entries made in the styles before a restyle (a theme) take the new ones. Names
            # with one rule in app.tcss share one style, so each old style has one new one.
            old, self._old_style_map = self._old_style_map, None
            if old is not None and old != self._style_map:
                new = {old[name]: self._style_map[name] for name in STYLE_NAMES}
                for entry in self._entries:
                    entry.restyle(new)
        return self._style_map

    def show_plant(self, plant: PlantView, after: str | None = None) -> None:
        """Show a submitted plant's entry as it stands now, in place once it has one."""
        self._put(
            lambda: render_plant(plant, plant.queued_at, self._styles(), after=after),
            ("plant", plant.number),
        )

    def add_note(self, text: str, at: datetime) -> None:
        """Append a line that is not a send attempt."""
        self._put(lambda: render_note(text, at, self._styles()), None)

    def put(self, entry: Entry, key: Hashable | None = None) -> None:
        """Append `entry`; with the `key` of an entry already shown, replace that one in place."""
        self._put(lambda: entry, key)

    def _put(self, make: Callable[[], Entry], key: Hashable | None) -> None:
        # What `make` makes is made once, when the log is next read or drawn.
        index = None if key is None else self._index.get(key)
        if index is None:
            index = len(self._entries)
            self._entries.append(Entry(Text()))
            self._strips.append(None)
            self._heights.append(self._heights[-1] if self._heights else 1)
            self._starts.append(0)
            if key is not None:
                self._index[key] = index
        self._pending[index] = make
        self._strips[index] = None
        if not self._width:
            return  # drawn whole at the first size (on_resize)
        last = index == len(self._entries) - 1
        if not last and index not in self._changed and self._hidden(index):
            return  # it keeps its height, and is drawn when shown: nothing to lay out or paint
        if last:
            self._follow = True  # (a log shown to its end follows it anyway: `_lay_out_changed`)
        self._changed.add(index)
        self._lay_out_changed()

    def _hidden(self, index: int) -> bool:
        """True when no line of entry `index` is shown at the scroll position."""
        top = self.scroll_offset.y
        start = self._starts[index]
        return start + self._heights[index] <= top or (
            start >= top + self.scrollable_content_region.height
        )

    def _lay_out_changed(self) -> None:
        """Lay out the lines after the entries changed since the last frame, and draw the
        entries the log shows that are not drawn as they stand (only those)."""
        if not self._changed and not self._unseen:
            return
        changed, self._changed, self._unseen = self._changed, set(), False
        if not self._width:
            return
        # A log shown down to its end keeps its end in view, whatever changed: an entry put, a
        # new width or style, the scrollbar dragged to its bottom (the heights of the entries it
        # brings in were guesses, and drawn taller they would leave it short of the end).
        at_end = self.scroll_offset.y >= self.max_scroll_y
        if changed:
            self._lay_out_from(min(changed))
        follow, self._follow = self._follow or at_end, False
        follow = follow and self.auto_scroll
        view = self.scrollable_content_region.height
        count = len(self._entries)
        if follow:
            # The last entries, up to the log's height, from the end.
            first, shown = count, 0
            while first > 0 and shown < view:
                first -= 1
                if self._strips[first] is None:
                    self._draw_one(first)
                shown += self._heights[first]
            self._lay_out_from(first)
            self._follow_end()
            return
        # The entries from the first line shown down, which keeps its place (the entries above
        # it are not drawn, so their heights do not change).
        top = self.scroll_offset.y
        anchor = max(0, bisect_right(self._starts, top) - 1)
        offset = top - self._starts[anchor] if count else 0
        index, shown, drawn = anchor, -offset, False
        while index < count and shown < view:
            if self._strips[index] is None:
                self._draw_one(index)
                drawn = True
            shown += self._heights[index]
            index += 1
        if drawn:
            # The scroll position is left as it is (a scroll on its way goes on).
            self._lay_out_from(anchor)

    def _draw_one(self, index: int) -> None:
        strips = self._strips[index] = self._render_entry(index)
        self._heights[index] = len(strips)

    def _draw(self, indexes: range) -> None:
        """Draw the entries of `indexes` not drawn as they stand, and lay out the lines after."""
        stale = [index for index in indexes if self._strips[index] is None]
        for index in stale:
            self._draw_one(index)
        if stale:
            self._lay_out_from(stale[0])

    def clear_entries(self, kept: Iterable[PlantView] = ()) -> None:
        """Forget every entry; the plants `kept` (those that may still change: queued, in
        flight, needing attention) are shown anew."""
        self._entries.clear()
        self._pending.clear()
        self._index.clear()
        self._strips.clear()
        self._heights.clear()
        self._starts.clear()
        self._changed.clear()
        self.virtual_size = Size(self._width, 0)
        self.scroll_to(0, 0, animate=False, immediate=True)
        self.refresh()
        for plant in kept:
            self.show_plant(plant)

    def plain_text(self) -> str:
        """Every entry as plain text, as the screen shows it; the log never holds the token."""
        return "\n\n".join(entry.text().plain for entry in self.entries) + (
            "\n" if self.entries else ""
        )

    def saved_text(self) -> str:
        """Every entry as plain text, each time with its date and UTC offset: a saved log is read
        on another day, maybe in another time zone."""
        return "\n\n".join(entry.saved_text() for entry in self.entries) + (
            "\n" if self.entries else ""
        )

    def save(self, path: Path) -> None:
        """Write the log as plain text to the new file `path`, and say where (or why not)."""
        text = self.saved_text()
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
        entry = self._entry(index)
        if self._old_style_map is not None:
            self._styles()  # the entries take the styles of a restyle (a theme) since made
        lines = entry.lines(self.app.console, width)
        if index:
            lines.insert(0, [Segment(""), Segment(" " * width)])  # a blank line between entries
        # Styled here, once: the log's style changes only with a restyle, which draws every
        # entry again (notify_style_update); each frame that scrolls draws every visible line.
        style = self.rich_style
        return [Strip(line, self._width).apply_style(style) for line in lines]

    def _redraw_all(self, follow: bool) -> None:
        """Every entry to be drawn again (a new width or style) when it is next shown; the log
        follows its end if `follow`."""
        self._strips = [None] * len(self._entries)
        self._changed.add(0)
        self._follow = self._follow or follow
        self._lay_out_changed()

    def _lay_out_from(self, first: int) -> None:
        """Where each entry's lines start, from entry `first` on; the log's height."""
        for index in range(first, len(self._entries)):
            self._starts[index] = self._starts[index - 1] + self._heights[index - 1] if index else 0
        total = self._starts[-1] + self._heights[-1] if self._entries else 0
        self.virtual_size = Size(self._width, total)
        self.refresh()

    def _follow_end(self) -> None:
        if self.auto_scroll:
            # The log's height is fixed, so its end is known before the next refresh draws it
            # (force: the scrollbar that allows scrolling only appears at that refresh).
            self.scroll_end(animate=False, immediate=True, x_axis=False, force=True)

    auto_scroll = True

    def on_resize(self, event: Resize) -> None:
        """Draw the entries shown again at the new width (the others when they are shown)."""
        width = self.scrollable_content_region.width
        if width <= 0:
            return
        if not self._entries:
            self._width = width
            return
        if width != self._width:
            first = not self._width
            self._width = width
            self._redraw_all(follow=first)
        else:
            self._shown_moved()

    def watch_scroll_y(self, old_value: float, new_value: float) -> None:
        """Entries scrolled into view are drawn before the next frame."""
        super().watch_scroll_y(old_value, new_value)
        if round(old_value) != round(new_value):
            # The first line shown keeps its place as they are drawn (a page down never skips
            # a line); entries put while the log shows its end are followed (`_put`).
            self._shown_moved()

    def action_scroll_end(self) -> None:
        """End: the log's last lines, once the entries they hold are drawn (a scroll to the end
        the undrawn entries' heights were guessed for would stop short of it)."""
        super().action_scroll_end()
        if self._width and self._entries:
            self._follow = True
            self._shown_moved()

    def _shown_moved(self) -> None:
        if self._width and self._entries:
            self._unseen = True
            self._lay_out_changed()

    def notify_style_update(self) -> None:
        """Styles changed (a theme): the cached lines hold the old ones."""
        super().notify_style_update()
        if self._style_map is not None:
            self._old_style_map = self._style_map
        self._style_map, self._blank = None, None
        if self._width and self._entries:
            self._redraw_all(follow=False)

    def render_line(self, y: int) -> Strip:
        """One line of the log at the current scroll position."""
        scroll_x, scroll_y = self.scroll_offset
        line = scroll_y + y
        width = self.scrollable_content_region.width
        if not self._entries or line >= self.virtual_size.height:
            if self._blank is None or self._blank.cell_length != width:
                self._blank = Strip.blank(width, self.rich_style)
            return self._blank
        index = bisect_right(self._starts, line) - 1
        strips = self._strips[index]
        if strips is None:  # not drawn yet (shown before its layout)
            self._draw(range(index, index + 1))
            strips = self._strips[index]
            assert strips is not None
        if line - self._starts[index] >= len(strips):
            return self.render_line(y)  # the entry was drawn shorter than its guessed height
        strip = strips[line - self._starts[index]]
        if scroll_x == 0 and width == self._width:
            return strip  # drawn at this width, in this style
        return strip.crop_extend(scroll_x, scroll_x + width, self.rich_style)
