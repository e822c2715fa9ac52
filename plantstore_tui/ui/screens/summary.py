"""The shift at a glance (F7, or the palette's Shift summary): today's plants counted from the
ledger as `history summary` counts them, and the plants created per hour as a chart (Textual's
Sparkline) and as rows with a bar each. Read in a worker thread: the screen opens at once."""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Footer, Sparkline, Static

from plantstore_tui.core.plant.text import plural, visible
from plantstore_tui.core.store import StoreError, open_for_reading
from plantstore_tui.core.store.summary import Summary, local_midnight, summarize

# The longest bar of an hour's created plants, in cells (fits 80 columns with its words).
_BAR = 32


def counts_text(summary: Summary) -> Text:
    """Today's counts, one a line."""
    counts = summary.counts
    text = Text()
    text.append(f"Since {summary.since:%H:%M} today: {plural(counts.taken, 'plant')} taken", "bold")
    for label, value in counts.rows("Enter to answer"):
        text.append(f"\n{label:<18}{value}")
    return text


def hours_text(summary: Summary) -> Text:
    """One row per hour: its start, a bar of the plants created, the counts."""
    if not summary.by_hour:
        return Text("No plant taken today yet.")
    most = max(hour.created for hour in summary.by_hour) or 1
    text = Text()
    for number, hour in enumerate(summary.by_hour):
        if number:
            text.append("\n")
        bar = "█" * round(hour.created * _BAR / most)
        text.append(f"{hour.start:%H:00}  ")
        text.append(f"{bar:<{_BAR}}", "green")
        text.append(f"  {hour.created:,} created, {hour.rejected:,} rejected")
    return text


class SummaryScreen(ModalScreen[None]):
    """Today's plants at a glance, over the send screen."""

    CSS_PATH = "../summary.tcss"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,f7", "dismiss", "Close", id="summary.close")
    ]

    def __init__(self) -> None:
        super().__init__()
        self.summary: Summary | None = None
        """What the screen shows, once read."""

    def compose(self) -> ComposeResult:
        """The counts, the chart, the hours as rows."""
        with Vertical(id="summary-panel") as panel:
            panel.border_title = "Shift summary"
            panel.border_subtitle = "Esc closes"
            yield Static("Reading the history…", id="summary-counts")
            yield Sparkline([], id="summary-chart")
            with VerticalScroll(id="summary-hours-box"):
                yield Static("", id="summary-hours")
        yield Footer(compact=True, show_command_palette=False)

    def on_mount(self) -> None:
        """Read the ledger off the UI thread."""
        self._read()

    @work(thread=True, exclusive=True, group="summary-read", exit_on_error=False)
    def _read(self) -> None:
        since = local_midnight()
        try:
            store = open_for_reading()
            if store is None:
                found = Summary.empty(since)
            else:
                try:
                    found = summarize(store, since)
                finally:
                    store.close()
        except StoreError as exc:
            words = visible(f"The history cannot be read: {exc}")
            self.app.call_from_thread(self._show_problem, words)
            return
        self.app.call_from_thread(self._show, found)

    def _show_problem(self, words: str) -> None:
        self.query_one("#summary-counts", Static).update(Text(words))

    def _show(self, summary: Summary) -> None:
        self.summary = summary
        self.query_one("#summary-counts", Static).update(counts_text(summary))
        chart = self.query_one("#summary-chart", Sparkline)
        chart.data = [hour.created for hour in summary.by_hour]
        self.query_one("#summary-hours", Static).update(hours_text(summary))
