"""The TUI's shift at a glance (F7 and the palette): the counts of today's plants and a chart of
the plants created per hour, the same as `history summary` says, at 80x24."""

from __future__ import annotations

import getpass
import json
import socket
import sqlite3
from contextlib import closing

from click.testing import CliRunner
from ledger_support import all_rows, ledger_file
from snapshot_apps.support import app_for, fill, ready, send_and_wait, until, workers_done
from textual.app import App
from textual.command import CommandPalette
from textual.pilot import Pilot
from textual.widgets import Sparkline, Static

from plantstore_tui.cli import main
from plantstore_tui.server.runner import BackgroundServer
from plantstore_tui.ui.screens.summary import SummaryScreen

SMALL = (80, 24)


async def opened_summary(app: App[None], pilot: Pilot[None]) -> SummaryScreen:
    await until(pilot, lambda: isinstance(app.screen, SummaryScreen), "the summary")
    screen = app.screen
    assert isinstance(screen, SummaryScreen)
    await workers_done(app)
    await until(pilot, lambda: screen.summary is not None, "the summary read")
    await pilot.pause()
    return screen


def said(screen: SummaryScreen) -> str:
    return " ".join(
        " ".join(str(static.render()).split()) for static in screen.query(Static).results(Static)
    )


async def test_f7_counts_todays_plants_and_draws_the_hours_as_history_summary_does(
    reference_server: BackgroundServer,
) -> None:
    app = app_for(reference_server.base_url, reference_server.token)
    async with app.run_test(size=SMALL) as pilot:
        screen = await ready(app, pilot)
        for name, plant_id in (("Fern", "1"), ("Rose", "2"), ("Ivy", "1")):
            await fill(pilot, screen, name=name, id=plant_id)
            await send_and_wait(pilot, app, "enter")
        assert sorted(row.state for row in all_rows()) == ["created", "created", "rejected"]

        await pilot.press("f7")
        summary = await opened_summary(app, pilot)
        words = said(summary)
        for expected in ("3 plants taken", "Created 2", "Rejected 1 (error 1003: 1)"):
            assert expected in words, words
        shown = summary.summary
        assert shown is not None
        for hour in shown.by_hour:
            assert f"{hour.start:%H:00}" in words
        # The chart is Textual's Sparkline of the plants created per hour, drawn.
        chart = summary.query_one(Sparkline)
        assert list(chart.data or []) == [hour.created for hour in shown.by_hour]
        assert sum(chart.data or []) == 2
        assert chart.region.width > 0
        assert chart.region.height > 0
        # What the command line says of the same ledger.
        cli = CliRunner().invoke(main, ["history", "summary", "--json"])
        said_there = json.loads(cli.stdout)
        assert (said_there["taken"], said_there["created"], said_there["rejected"]) == (
            shown.counts.taken,
            shown.counts.created,
            shown.counts.rejected,
        )
        assert [one["created"] for one in said_there["by_hour"]] == list(chart.data or [])
        # The TUI's plants record who took them.
        with closing(sqlite3.connect(ledger_file())) as connection:
            takers = set(connection.execute("SELECT operator, host FROM plants"))
        assert takers == {(getpass.getuser(), socket.gethostname())}
        await pilot.press("escape")
        await until(pilot, lambda: app.screen is screen, "the form again")


async def test_the_palette_opens_the_summary_of_an_empty_ledger(
    reference_server: BackgroundServer,
) -> None:
    app = app_for(reference_server.base_url, reference_server.token)
    async with app.run_test(size=SMALL) as pilot:
        await ready(app, pilot)
        await pilot.press("ctrl+p")
        await until(pilot, lambda: isinstance(app.screen, CommandPalette), "the palette")
        await pilot.press(*"shift summary")
        await workers_done(app)
        await pilot.pause()
        await pilot.press("enter")
        summary = await opened_summary(app, pilot)
        assert "0 plants taken" in said(summary)
        assert "No plant taken today yet" in said(summary)
