"""The response log's cost: memory stays flat over many megabyte answers, and a frame works out
the log's style once."""

from __future__ import annotations

import gc
import tracemalloc

import pytest
from log_support import LONGEST_LINE, huge_name, sent_to
from misbehaving import MisbehavingServer
from pydantic import SecretStr
from rich.style import Style
from snapshot_apps.support import SIZE, app_for, fill, log_text, ready, send_and_wait

from plantstore_tui.ui.widgets.response_log import ResponseLog


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
