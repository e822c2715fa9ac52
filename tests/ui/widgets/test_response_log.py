"""The response log holds and draws a bounded rendering of whatever a server sent: a megabyte
name is a few hundred characters on the screen and in the saved log, and memory stays flat over
many such answers."""

from __future__ import annotations

import gc
import tracemalloc
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import pytest
from misbehaving import Action, MisbehavingServer, ReceivedRequest, Script, Send, json_response
from pydantic import SecretStr
from rich.style import Style
from snapshot_apps.support import SIZE, app_for, drawn_log, fill, log_text, ready, send_and_wait
from textual.pilot import Pilot

from plantstore_tui.ui.screens.send import SendScreen
from plantstore_tui.ui.widgets.response_log import ResponseLog

# A 200 whose name is about 1 MB, under the client's body cap.
HUGE = 1_048_560
HUGE_NAME = "R" * HUGE
# The most characters any line of an entry holds: 200 of a server's text and the words around.
LONGEST_LINE = 400


def huge_name(request: ReceivedRequest) -> list[Action]:
    return [Send(json_response(200, {"name": HUGE_NAME}))]


def saved_log(directory: Path) -> str:
    [saved] = directory.glob("plantstore-log-*.txt")
    return saved.read_text(encoding="utf-8")


@asynccontextmanager
async def sent_to(
    script: Script, name: str, tag: str = ""
) -> AsyncIterator[tuple[Pilot[None], SendScreen]]:
    """The TUI, after sending plant 5 called `name` to a server answering with `script`."""
    async with MisbehavingServer(script) as server:
        app = app_for(server.base_url, SecretStr("token-for-a-server-that-misbehaves"))
        async with app.run_test(size=SIZE) as pilot:
            screen = await ready(app, pilot)
            await fill(pilot, screen, name=name, id="5", tag=tag)
            await send_and_wait(pilot, app, "enter")
            yield pilot, screen


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


async def test_memory_stays_flat_over_many_megabyte_answers() -> None:
    """Each entry keeps its few hundred characters, never the answer: growth per entry is what
    any entry costs, far below the megabyte (the old log kept 27-30 MiB per such entry)."""
    warm_up, measured = 2, 8
    async with MisbehavingServer(huge_name) as server:
        app = app_for(server.base_url, SecretStr("token-for-big-answers"))
        async with app.run_test(size=SIZE) as pilot:
            screen = await ready(app, pilot)
            tracemalloc.start()
            try:
                for number in range(warm_up + measured):
                    if number == warm_up:
                        gc.collect()
                        before = tracemalloc.get_traced_memory()[0]
                    await fill(pilot, screen, name="Rose", id=str(number + 1))
                    await send_and_wait(pilot, app, "enter")
                gc.collect()
                after = tracemalloc.get_traced_memory()[0]
            finally:
                tracemalloc.stop()
            per_entry = (after - before) / measured
            assert per_entry < 256 * 1024, f"{per_entry / 1024:,.0f} KiB per entry"
            assert len(screen.log_panel.entries) == warm_up + measured
            assert max(len(line) for line in log_text(screen).splitlines()) < LONGEST_LINE


async def test_a_name_stored_instead_of_the_one_sent_is_marked_off_the_spec() -> None:
    answer = json_response(200, {"name": "Someone Else", "tag": "red"})
    async with sent_to([Send(answer)], "Rose", tag="red") as (_, screen):
        text = log_text(screen)
    assert "Created plant 5 (Someone Else)" in text
    assert "≠       off spec: the server stored name 'Someone Else', not 'Rose' as sent" in text


async def test_a_frame_that_draws_the_whole_log_works_out_its_style_no_more_than_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Each entry's lines are styled when the entry is drawn; a frame that scrolls draws every
    # visible line again, and each worked the log's style out twice (its ancestors' colours).
    async with sent_to(huge_name, "Rose") as (_pilot, screen):
        log = screen.log_panel
        height = log.scrollable_content_region.height
        worked_out = 0
        style = type(log).rich_style

        def counted(widget: ResponseLog) -> Style:
            nonlocal worked_out
            worked_out += 1
            return style.__get__(widget)

        monkeypatch.setattr(ResponseLog, "rich_style", property(counted))
        drawn = [log.render_line(y) for y in range(height)]
        assert "Created plant 5" in "".join(strip.text for strip in drawn)
        assert worked_out <= 1


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
