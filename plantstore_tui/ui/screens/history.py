"""History (F3): every send kept in the history, newest first, a page at a time.

The history may hold 100,000 sends: the table holds one page of them, read in a worker thread, so
the screen opens at once and never loads the whole history into widgets; what a server sent is read
only as far as it is shown (`history show` has all of it). For the highlighted send: what it was
below the table, load it into the form, resend it, or copy it as curl (shown whole, to select).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, ClassVar

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import DataTable, Footer, Input, Select, Static

from plantstore_tui.core.http.address import host_port
from plantstore_tui.core.http.export import ExportFormat, export_command
from plantstore_tui.core.http.proxy import through_words
from plantstore_tui.core.plant.text import BLOCK_SHOWN, clipped, shorten, visible
from plantstore_tui.core.store import HistoryFilter, StoreError, open_for_reading
from plantstore_tui.core.store.records import outcome_and_fate, outcome_words
from plantstore_tui.ui.ordered_input import OrderedScreen
from plantstore_tui.ui.widgets.typed_input import TypedInput

if TYPE_CHECKING:
    from plantstore_tui.core.store import HistoryEntry, Ledger

PAGE_SIZE = 100
OUTCOME_CHOICES = (
    ("created", "created"),
    ("rejected", "rejected"),
    ("failed", "failed"),
)
# What the send screen does with a send chosen here; the words say why not, if it did not.
Act = Callable[["HistoryEntry"], str | None]


def describe(entry: HistoryEntry) -> Text:
    """One send as the screen shows it, as literal text (nothing a server sent is interpreted,
    nothing it sent shown whole)."""
    timing = "" if entry.elapsed_ms is None else f" in {entry.elapsed_ms:.1f} ms"
    status = "no answer" if entry.status is None else str(entry.status)
    text = Text()
    text.append(f"History #{entry.entry}", style="bold")
    text.append(f"  {entry.time.astimezone():%Y-%m-%d %H:%M:%S} from {entry.source}")
    if entry.profile:
        text.append(f" (profile {visible(entry.profile)})")
    if entry.log_ref:
        text.append(f" · {visible(entry.log_ref)}")
    text.append(f"\nPOST {visible(entry.url + through_words(entry.proxy))}: {status}{timing}")
    text.append(f"\nsent      {visible(shorten(entry.body.decode('utf-8'), BLOCK_SHOWN))}")
    text.append(f"\noutcome   {outcome_and_fate(entry)}")
    text.append(f"\nmessage   {visible(shorten(entry.message, BLOCK_SHOWN))}")
    if entry.off_spec:
        text.append(f"\noff spec  {visible('; '.join(entry.off_spec))}")
    if entry.response:
        text.append(f"\nreceived  {visible(entry.received)}")
        if entry.response_chars > len(entry.response):
            text.append(f"\n          (all of it: plantstore-tui history show {entry.entry})")
    return text


# OSC 52 asks the terminal to put the text in its clipboard; a terminal (or tmux, or screen) may
# ignore it and none answers, so nothing can tell whether the copy happened.
OFFERED = (
    "Offered to the terminal's clipboard (OSC 52). A terminal may ignore it, and none says "
    "whether it did: if your clipboard does not have it, select it below. It reads the token "
    "from PLANTSTORE_TOKEN when it runs."
)


class CommandScreen(ModalScreen[None]):
    """A command offered to the clipboard, shown whole in a view that scrolls, to select.

    The command's rows hold nothing else (no border, no scrollbar, no screen behind): a
    terminal's mouse selection takes whole rows, and whatever else is on them would be pasted
    into the shell with the command. Its title is a line of its own above it."""

    CSS_PATH = "../history.tcss"
    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "close", "Back", id="command.close")]

    def __init__(self, command: str, title: str) -> None:
        super().__init__()
        self._command = command
        self._title = title

    def compose(self) -> ComposeResult:
        """Its title, what was done with it, the command, the keys."""
        with Vertical(id="command-panel"):
            yield Static(Text(self._title), id="command-title")
            yield Static(Text(OFFERED), id="command-offered")
            with VerticalScroll(id="command-view"):
                yield Static(Text(self._command), id="command-text")
            yield Static(id="command-hint")

    def on_mount(self) -> None:
        """The view has the keys: a long command scrolls at once."""
        view = self.query_one("#command-view", VerticalScroll)
        self.set_focus(view)
        self.watch(view, "scroll_y", self._show_position)
        self.watch(view, "virtual_size", self._show_position)

    def _show_position(self) -> None:
        # No scrollbar beside the command: the hint says which of its rows are in view.
        view = self.query_one("#command-view", VerticalScroll)
        keys = "Esc: back to the history"
        total, shown = view.virtual_size.height, view.scrollable_content_region.height
        if shown and total > shown:
            top = round(view.scroll_y)
            rows = f"rows {top + 1}-{min(top + shown, total)} of {total}"
            keys = f"{rows}, ↑ ↓ PgUp PgDn: scroll · {keys}"
        self.query_one("#command-hint", Static).update(Text(keys))

    def action_close(self) -> None:
        """Back to the history."""
        self.dismiss()


class HistoryTable(DataTable[Text]):
    """The page of sends; its keys act on the highlighted one."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("l", "screen.load", "Load", id="history.load"),
        Binding("r", "screen.resend", "Resend", id="history.resend"),
        Binding("c", "screen.copy_curl", "Copy curl", id="history.copy_curl"),
        Binding("n", "screen.page(1)", "Next page", id="history.next_page"),
        Binding("p", "screen.page(-1)", "Prev page", id="history.prev_page"),
    ]


class HistoryScreen(OrderedScreen[None]):
    """The sends kept in the history, filtered by text, outcome and profile.

    Its keys are applied in order (`OrderedScreen`): Ctrl+F and a search typed after it go in
    the search, never to the table's keys (r resends)."""

    CSS_PATH = "../history.tcss"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,f3", "close", "Close", id="history.close"),
        Binding("ctrl+f", "search", "Search", id="history.search"),
    ]

    def __init__(self, load: Act, resend: Act) -> None:
        super().__init__()
        self._load_into_form = load
        self._resend = resend
        self._store: Ledger | None = None
        self._offset = 0
        self._total = 0
        self._entries: dict[str, HistoryEntry] = {}

    def compose(self) -> ComposeResult:
        """Filters, the page of sends, where the page is, the highlighted send, footer."""
        with Horizontal(id="history-filters"):
            yield TypedInput(placeholder="Search name, tag, id or message", id="history-search")
            yield Select(OUTCOME_CHOICES, prompt="Any outcome", id="history-outcome")
            yield Select([], prompt="Any profile", id="history-profile")
        table = HistoryTable(id="history-table", cursor_type="row", zebra_stripes=True)
        # What an operator scans for first, so it stays in view at 80 columns; where the send
        # came from scrolls off to the right before it.
        labels = ("#", "time", "id", "name", "outcome", "status", "tag", "profile", "target")
        for label in (*labels, "source"):
            table.add_column(label, key=label)
        yield table
        yield Static("Reading the history…", id="history-page")
        with VerticalScroll(id="history-detail-box"):
            yield Static("", id="history-detail")
        yield Footer(compact=True, show_command_palette=False)  # every key at 80 columns

    def on_mount(self) -> None:
        """Read the first page off the UI thread."""
        self.set_focus(self.query_one(HistoryTable))
        self._read()

    def on_unmount(self) -> None:
        """Close the file."""
        if self._store is not None:
            self._store.close()

    @property
    def _table(self) -> HistoryTable:
        return self.query_one(HistoryTable)

    def _filter(self) -> HistoryFilter:
        outcome = self.query_one("#history-outcome", Select).value
        profile = self.query_one("#history-profile", Select).value
        return HistoryFilter(
            text=self.query_one("#history-search", Input).value.strip() or None,
            outcome=outcome if isinstance(outcome, str) else None,
            profile=profile if isinstance(profile, str) else None,
        )

    def _read(self) -> None:
        self._read_page(self._filter(), self._offset)

    @work(thread=True, exclusive=True, group="history-read", exit_on_error=False)
    def _read_page(self, where: HistoryFilter, offset: int) -> None:
        try:
            if self._store is None:
                self._store = open_for_reading()
            if self._store is None:
                self.app.call_from_thread(self._show_problem, "No sends in the history yet.")
                return
            entries = self._store.query(where, limit=PAGE_SIZE, offset=offset, listed=True)
            total = self._store.count(where)
            profiles = self._store.profiles() if offset == 0 else None
        except StoreError as exc:
            self.app.call_from_thread(self._show_problem, f"The history cannot be read: {exc}")
            return
        self.app.call_from_thread(self._show_page, entries, total, offset, profiles)

    def _show_problem(self, words: str) -> None:
        self.query_one("#history-page", Static).update(Text(visible(words)))

    def _show_page(
        self,
        entries: list[HistoryEntry],
        total: int,
        offset: int,
        profiles: list[str] | None,
    ) -> None:
        table = self._table
        table.clear()
        self._entries = {str(entry.entry): entry for entry in entries}
        self._total, self._offset = total, offset
        for entry in entries:
            table.add_row(
                Text(str(entry.entry)),
                Text(f"{entry.time.astimezone():%m-%d %H:%M:%S}"),
                Text(str(entry.plant_id)),
                Text(visible(clipped(entry.name, 30))),
                Text(outcome_words(entry)),
                Text("-" if entry.status is None else str(entry.status)),
                Text(visible(clipped(entry.tag or "", 16))),
                Text(visible(entry.profile or "-")),
                Text(visible(host_port(entry.base_url))),
                Text(entry.source),
                key=str(entry.entry),
            )
        if profiles is not None:
            select = self.query_one("#history-profile", Select)
            chosen = select.value
            with select.prevent(Select.Changed):
                select.set_options([(visible(name), name) for name in profiles])
                if isinstance(chosen, str) and chosen in profiles:
                    select.value = chosen
        if entries:
            last = offset + len(entries)
            where = f"{offset + 1:,} to {last:,} of {total:,}"
            more = " · n/p: next/previous page" if total > PAGE_SIZE else ""
            self._show_problem(f"{where}{more} · l: load into form · r: resend · c: copy as curl")
        else:
            self._show_problem("No sends match." if total == 0 else "No more sends.")
            self.query_one("#history-detail", Static).update("")

    @on(DataTable.RowHighlighted)
    def _highlighted(self, event: DataTable.RowHighlighted) -> None:
        entry = self._entries.get(str(event.row_key.value))
        self.query_one("#history-detail", Static).update(describe(entry) if entry else "")

    @on(Input.Changed, "#history-search")
    @on(Select.Changed)
    def _filter_changed(self) -> None:
        self._offset = 0
        self._read()

    def _current(self) -> HistoryEntry | None:
        table = self._table
        if not self._entries or table.cursor_row < 0:
            return None
        key = table.coordinate_to_cell_key(table.cursor_coordinate).row_key.value
        return self._entries.get(str(key))

    def action_page(self, step: int) -> None:
        """Show the next (1) or previous (-1) page."""
        offset = self._offset + step * PAGE_SIZE
        if 0 <= offset < self._total:
            self._offset = offset
            self._read()

    def action_search(self) -> None:
        """Put the cursor in the search field (at once: the keys after it are the search)."""
        self.set_focus(self.query_one("#history-search", Input))

    def action_load(self) -> None:
        """Load the highlighted send into the form, and go back to it."""
        self._act(self._load_into_form)

    def action_resend(self) -> None:
        """Send the highlighted send again to the current target, through the queue."""
        self._act(self._resend)

    def _act(self, act: Act) -> None:
        entry = self._current()
        if entry is None:
            return
        problem = act(entry)
        if problem is not None:
            self.notify(problem, title="Not done", severity="warning")
            return
        self.dismiss()

    def action_copy_curl(self) -> None:
        """Offer the highlighted send as a curl command to the terminal's clipboard, and show it
        whole to select."""

        entry = self._current()
        if entry is None:
            return
        command = export_command(entry.url, entry.body, ExportFormat.CURL, entry.proxy)
        self.app.copy_to_clipboard(command)
        self.app.push_screen(CommandScreen(command, f"History #{entry.entry} as curl"))

    def action_close(self) -> None:
        """Back to the form."""
        self.dismiss()
