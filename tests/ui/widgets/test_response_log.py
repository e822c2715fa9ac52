"""The response log holds and draws a bounded rendering of whatever a server sent: a megabyte
name is a few hundred characters on the screen and in the saved log."""

from __future__ import annotations

import re
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest
from log_support import LONGEST_LINE, huge_name, sent_to
from misbehaving import Send, json_response
from snapshot_apps.support import (
    SIZE,
    drawn_log,
    fill,
    log_text,
    ready,
    send_and_wait,
    target_of,
    until,
)

from plantstore_tui.core.sending.connection import connect_to
from plantstore_tui.ui.app import PlantStoreApp
from plantstore_tui.ui.connection import TargetLabel


def saved_log(directory: Path) -> str:
    [saved] = directory.glob("plantstore-log-*.txt")
    return saved.read_text(encoding="utf-8")


async def test_a_megabyte_name_is_shown_bounded_in_the_log_and_its_saved_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    async with sent_to(huge_name, "Rose") as (pilot, screen):
        text = log_text(screen)
        assert f"Created plant 5 ({'R' * 60}… (name: 1,048,560 characters, first 60 shown))" in (
            text
        )
        assert f'"name": "{"R" * 200}…"' in text
        assert "(name: 1,048,560 characters, first 200 shown)" in text
        assert "off spec: the server stored name 'RRR" in text
        assert max(len(line) for line in text.splitlines()) < LONGEST_LINE
        assert len(text) < 3000
        assert "first 200 shown" in drawn_log(screen).replace("\n", "")
        assert len(screen.log_panel.lines) < 40
        await pilot.press("ctrl+o")
        await pilot.pause()
    content = saved_log(tmp_path)
    assert "(name: 1,048,560 characters, first 200 shown)" in content
    assert len(content) < 3000


async def test_a_name_stored_instead_of_the_one_sent_is_marked_off_the_spec() -> None:
    answer = json_response(200, {"name": "Someone Else", "tag": "red"})
    async with sent_to([Send(answer)], "Rose", tag="red") as (_, screen):
        text = log_text(screen)
    assert "Created plant 5 (Someone Else)" in text
    assert "≠       off spec: the server stored name 'Someone Else', not 'Rose' as sent" in text


async def test_a_theme_change_draws_the_entries_in_its_colours() -> None:
    # The entries' styles are worked out when the first is drawn, and again after a restyle.
    async with sent_to(huge_name, "Rose") as (pilot, screen):
        log = screen.log_panel

        def time_colour() -> object:
            header = log.lines[0]
            return next(segment.style for segment in header if segment.text.strip()).color

        before = time_colour()
        dark = screen.app.theme
        screen.app.theme = "textual-light" if dark != "textual-light" else "textual-dark"
        await pilot.pause()
        after = time_colour()
        assert after != before
        screen.app.theme = dark
        await pilot.pause()
        assert time_colour() == before


async def test_a_saved_log_dates_every_entry_with_its_utc_offset(
    shared_reference_server: Any, plant_id: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Read on another day, maybe in another time zone: the screen keeps the time of day.
    monkeypatch.chdir(tmp_path)
    at = datetime(2026, 11, 26, 14, 3, 7, tzinfo=timezone(timedelta(hours=1)))
    target = target_of(shared_reference_server.base_url, shared_reference_server.token)
    app = PlantStoreApp(
        lambda: connect_to(target), TargetLabel.of(target), clock=lambda: at, note="A note."
    )
    async with app.run_test(size=SIZE) as pilot:
        screen = await ready(app, pilot)
        await fill(pilot, screen, name="Fern", id=str(plant_id))
        await send_and_wait(pilot, app, "ctrl+s")
        await until(pilot, lambda: "A note." in log_text(screen))
        assert "14:03:07  #1  POST" in log_text(screen)
        await pilot.press("ctrl+o")
        await pilot.pause()
    content = saved_log(tmp_path)
    assert "2026-11-26T14:03:07+01:00  A note." in content
    url = f"{shared_reference_server.base_url}/plants"
    assert f"2026-11-26T14:03:07+01:00  #1  POST {url}  200" in content
    assert not re.search(r"^\d\d:\d\d:\d\d", content, re.MULTILINE)
