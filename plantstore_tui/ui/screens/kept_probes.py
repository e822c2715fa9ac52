"""The probes kept (F3 in the probe screen): the newest of the history's probes, each on one line,
to open in the probe screen, change and send again (`history --probes` lists the same).

The list is read in a worker thread, so that the screen opens at once; nothing a server sent is
shown here, and what a tester typed is shown escaped and cut to its line.
"""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from plantstore_tui.core.http.address import host_port
from plantstore_tui.core.plant.text import clipped, visible
from plantstore_tui.core.store import StoreError, open_for_reading
from plantstore_tui.core.store.probes import ProbeEntry, list_probes
from plantstore_tui.ui.keys import key_in_force
from plantstore_tui.ui.ordered_input import OrderedScreen

# The newest probes listed (`history --probes --limit N` reaches further back).
LISTED = 200
# A request line (method and path) cut to this many characters, so that a line fits 80 columns.
_REQUEST_SHOWN = 24


# Over the list, each word over its column of `probe_line`.
HEAD = f"{'#':<6}{'time':<12}{'request':<{_REQUEST_SHOWN + 1}}{'token':<8}{'status':>6}  target"


def probe_line(probe: ProbeEntry) -> Text:
    """One probe on one line: its name, when, the request, the token's choice, the status, where."""
    status = "-" if probe.status is None else str(probe.status)
    return Text.assemble(
        (f"{probe.label:<6}", "bold"),
        f"{probe.time.astimezone():%m-%d %H:%M} ",
        f"{visible(clipped(probe.request.line, _REQUEST_SHOWN)):<{_REQUEST_SHOWN}} ",
        f"{probe.token.value:<8}{status:>6}  ",
        (visible(host_port(probe.base_url)), "dim"),
    )


class KeptProbesScreen(ModalScreen[ProbeEntry | None], OrderedScreen[ProbeEntry | None]):
    """The probes kept, newest first: Enter opens the highlighted one in the probe screen.

    Its keys are applied in order (`OrderedScreen`), Enter before the list's own: the keys typed
    after it wait for the probe screen to have the probe in its fields (an edit typed on at
    once goes there, never to this list)."""

    CSS_PATH = "../probe.tcss"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "open", "Open", id="kept_probes.open", priority=True),
        Binding("escape,f3", "close", "Close", id="kept_probes.close"),
    ]

    def __init__(self) -> None:
        super().__init__()
        self._probes: dict[str, ProbeEntry] = {}

    def compose(self) -> ComposeResult:
        """The list, and what the keys do."""
        with Vertical(id="kept-panel") as panel:
            panel.border_title = "Probes kept"
            yield Static(Text(HEAD), id="kept-head")
            yield OptionList(id="kept-list")
            yield Static(Text("Reading the history…"), id="kept-hint")

    def on_mount(self) -> None:
        """Read the newest probes off the UI thread."""
        self._read()

    @work(thread=True, exclusive=True, group="kept-probes", exit_on_error=False)
    def _read(self) -> None:
        try:
            ledger = open_for_reading()
            if ledger is None:
                probes: list[ProbeEntry] = []
            else:
                try:
                    probes = list_probes(ledger, limit=LISTED)
                finally:
                    ledger.close()
        except StoreError as exc:
            self.app.call_from_thread(self._hint, f"The history cannot be read: {exc}")
            return
        self.app.call_from_thread(self._show, probes)

    def _hint(self, words: str) -> None:
        self.query_one("#kept-hint", Static).update(Text(visible(words)))

    def _show(self, probes: list[ProbeEntry]) -> None:
        self._probes = {probe.label: probe for probe in probes}
        listed = self.query_one(OptionList)
        listed.add_options(Option(probe_line(probe), id=probe.label) for probe in probes)
        close = key_in_force(self.app, "kept_probes.close")
        if not probes:
            self._hint(f"No probes kept yet: each one sent is kept here. {close}: back.")
            return
        listed.highlighted = 0
        listed.focus()
        opening = key_in_force(self.app, "kept_probes.open")
        self._hint(
            f"{opening}: open it in the probe screen, to change and send again "
            f"(a new probe; this one stays as it was) · {close}: back"
        )

    def action_open(self) -> None:
        """Open the highlighted probe in the probe screen."""
        listed = self.query_one(OptionList)
        if listed.highlighted is None:
            return
        label = listed.get_option_at_index(listed.highlighted).id
        probe = None if label is None else self._probes.get(label)
        if probe is not None:
            self.hold_keys()
            self.dismiss(probe)

    @on(OptionList.OptionSelected)
    def _selected(self, event: OptionList.OptionSelected) -> None:
        # A click on a line.
        event.stop()
        self.action_open()

    def action_close(self) -> None:
        """Back to the probe screen, nothing opened."""
        self.dismiss(None)
