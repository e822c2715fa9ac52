"""F3's "Copy curl" at the sizes terminals have: the command shown whole, in a view that scrolls
and fits the screen, and no claim of a copy nobody can know happened (OSC 52 may be ignored)."""

from __future__ import annotations

import pytest
from ledger_support import all_rows
from seen_support import notifications_of, screen_text
from snapshot_apps.support import app_for, fill, paste_over, ready, send_and_wait, tab_to, until
from textual.app import App
from textual.containers import VerticalScroll
from textual.pilot import Pilot
from textual.widgets import DataTable

from plantstore_tui.core.http.export import ExportFormat, export_command
from plantstore_tui.server.runner import BackgroundServer
from plantstore_tui.ui.screens.history import HistoryScreen

SIZES = pytest.mark.parametrize("size", [(80, 24), (110, 32)], ids=["80x24", "110x32"])
# A name as long as a real one can be: the command runs over many lines at 80 columns.
LONG_NAME = "Monstera deliciosa 'Thai Constellation', variegated, from the north greenhouse " * 3


def rows_of(app: App[None], view: VerticalScroll) -> list[str]:
    """The rows of the screen that `view` shows its content on, as drawn."""
    region = view.scrollable_content_region
    lines = screen_text(app).splitlines()
    return [
        lines[y][region.x : region.right].rstrip() if y < len(lines) else ""
        for y in range(region.y, region.bottom)
    ]


async def read_through(app: App[None], pilot: Pilot[None], view: VerticalScroll) -> str:
    """Everything the view holds, read as an operator does: its first row, then one more row
    each press of Down, then the rows of the last page."""
    seen: list[str] = []
    while view.scroll_y < view.max_scroll_y:
        seen.append(rows_of(app, view)[0])
        row = view.scroll_y + 1
        await pilot.press("down")
        await until(pilot, lambda row=row: view.scroll_y == row, "Down scrolls the view a row")
    seen += rows_of(app, view)
    return "\n".join(seen)


@SIZES
async def test_copy_as_curl_shows_the_command_whole_and_never_claims_a_copy(
    reference_server: BackgroundServer, size: tuple[int, int]
) -> None:
    app = app_for(reference_server.base_url, reference_server.token)
    async with app.run_test(size=size) as pilot:
        screen = await ready(app, pilot)
        await fill(pilot, screen, name="", id="41", tag="tropical")
        # A name this long is pasted, not typed; Enter sends from Tag.
        await tab_to(pilot, screen.form.field_input("name"))
        await paste_over(pilot, LONG_NAME.strip())
        await tab_to(pilot, screen.form.field_input("tag"))
        await send_and_wait(pilot, app, "enter")
        await pilot.press("f3")
        history = app.screen
        assert isinstance(history, HistoryScreen)
        table = history.query_one(DataTable)
        await until(pilot, lambda: table.row_count == 1, "the send listed")

        await pilot.press("c")
        await pilot.pause()
        [row] = all_rows()
        command = export_command(row.url, row.body, ExportFormat.CURL, row.proxy)
        assert app.clipboard == command
        shown = screen_text(app)
        # Nothing can know whether the terminal took it: the words say what was done.
        assert "Copied" not in shown
        assert not [n for n in notifications_of(app) if "Copied" in f"{n.title} {n.message}"]
        flat = " ".join(shown.replace("│", " ").split())
        assert "Offered to the terminal's clipboard (OSC 52)" in flat
        assert "select it below" in flat

        view = app.screen.query_one("#command-view", VerticalScroll)
        width, height = size
        assert view.region.right <= width, "it fits the screen"
        assert view.region.bottom <= height, "it fits the screen"
        assert app.focused is view, "the keys scroll it at once"
        whole = await read_through(app, pilot, view)
        assert "".join(command.split()) in "".join(whole.split())

        await pilot.press("escape")
        await pilot.pause()
        assert app.screen is history


@SIZES
async def test_the_command_is_drawn_alone_on_its_rows_so_a_mouse_selection_takes_only_it(
    reference_server: BackgroundServer, size: tuple[int, int]
) -> None:
    # A terminal's selection takes whole rows between its ends: a border, a scrollbar or the
    # history behind on a row of the command would be pasted into the shell with it.
    app = app_for(reference_server.base_url, reference_server.token)
    async with app.run_test(size=size) as pilot:
        screen = await ready(app, pilot)
        await fill(pilot, screen, name="Monstera deliciosa", id="42", tag="tropical")
        await send_and_wait(pilot, app, "enter")
        await pilot.press("f3")
        table = app.screen.query_one(DataTable)
        await until(pilot, lambda: table.row_count == 1, "the send listed")
        await pilot.press("c")
        await pilot.pause()
        command = app.clipboard
        lines = screen_text(app).splitlines()
        [first] = [number for number, line in enumerate(lines) if "curl --silent" in line]
        assert lines[first].startswith("curl --silent"), lines[first]
        rows, drawn = lines[first:], ""
        while len(drawn) < len(command):
            row = rows.pop(0)
            assert not [char for char in row if "\u2500" <= char <= "\u259f"], row
            # Words wrap: the space a row ended at is not drawn.
            drawn += (" " if drawn and command[len(drawn)] == " " else "") + row
            assert command.startswith(drawn), f"{row!r} is not the command's next part"
        assert drawn == command
