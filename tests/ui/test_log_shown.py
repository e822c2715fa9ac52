"""The log draws only what it shows, yet the saved log and whatever reads the entries see every
one of a burst whole, in the order submitted, and scrolling back shows every line in its place
(what is drawn: tests/perf/ui/test_log_shown.py)."""

from __future__ import annotations

from burst_support import Record
from keys_support import burst, drained, keys_of
from snapshot_apps.support import SIZE, app_for, ready

from plantstore_tui.server.runner import BackgroundServer
from plantstore_tui.ui.widgets.response_log import ResponseLog

# Far more entries than the log shows at SIZE (a few of them).
RECORDS: list[Record] = [(f"Moss {n}", str(700 + n), "damp" if n % 3 else "") for n in range(24)]


def shown(log: ResponseLog) -> list[str]:
    """The lines the log shows at its scroll position, as the screen draws them."""
    return [log.render_line(y).text for y in range(log.scrollable_content_region.height)]


async def test_a_burst_scrolled_out_of_view_is_whole_and_scrolls_back_to_every_line(
    reference_server: BackgroundServer,
) -> None:
    app = app_for(reference_server.base_url, reference_server.token)
    async with app.run_test(size=SIZE) as pilot:
        screen = await ready(app, pilot)
        await pilot.press("ctrl+n")  # every record types its own id
        burst(app, keys_of(RECORDS))
        await drained(app, pilot, len(RECORDS))
        await pilot.pause()
        log = screen.log_panel
        # What is shown is the end: the last plant's answer.
        assert "Created plant 723" in "\n".join(shown(log))
        # Whatever reads the entries sees each whole, in the order submitted.
        texts = [entry.text().plain for entry in log.entries]
        created = [text.split("Created plant ")[1].split(" ")[0] for text in texts]
        assert created == [plant_id for _, plant_id, _ in RECORDS]
        saved = log.plain_text()
        assert all(f"Created plant {plant_id}" in saved for _, plant_id, _ in RECORDS)

        # To the top and End again (a scroll that draws the entries it passes on its way): the
        # end is shown, however the heights guessed for the entries not drawn were wrong.
        log.focus()
        log.scroll_home(animate=False, immediate=True)
        await pilot.pause()
        await pilot.press("end")
        await pilot.wait_for_scheduled_animations()
        await pilot.pause()
        assert "Created plant 723" in "\n".join(shown(log))
        assert log.scroll_offset.y == log.max_scroll_y

        # Back to the top, then a page at a time: each line shown where it belongs.
        log.scroll_home(animate=False, immediate=True)
        await pilot.pause()
        pages: dict[int, str] = {}
        while True:
            top = log.scroll_offset.y
            for y, line in enumerate(shown(log)):
                pages.setdefault(top + y, line)
            if top >= log.max_scroll_y:
                break
            log.scroll_page_down(animate=False)
            await pilot.pause()
        every_line = [strip.text for strip in log.lines]
        assert len(pages) == len(every_line)
        assert [pages[line] for line in range(len(every_line))] == every_line
        assert "#1  POST" in pages[0]
        assert "Created plant 700" in "\n".join(pages[line] for line in range(4))

        # A new width: the end stays in view, and every entry is whole.
        await pilot.resize_terminal(SIZE[0] - 20, SIZE[1])
        await pilot.pause()
        assert "Created plant 723" in "\n".join(shown(log))
        assert all(
            f"Created plant {plant_id}" in "\n".join(s.text for s in log.lines)
            for _, plant_id, _ in RECORDS
        )


# Entries of several heights: a long name wraps, so the heights guessed for entries not drawn yet
# (the entry before's) are wrong both ways.
VARIED: list[Record] = [
    (f"Moss {n} " + ("with a long name that wraps " * 4 if n % 3 == 0 else ""), str(800 + n), "")
    for n in range(24)
]


async def test_a_drag_of_the_scrollbar_to_the_bottom_reaches_the_end(
    reference_server: BackgroundServer,
) -> None:
    app = app_for(reference_server.base_url, reference_server.token)
    async with app.run_test(size=SIZE) as pilot:
        screen = await ready(app, pilot)
        await pilot.press("ctrl+n")
        burst(app, keys_of(VARIED))
        await drained(app, pilot, len(VARIED))
        await pilot.pause()
        log = screen.log_panel
        for width in (SIZE[0] - 30, SIZE[0]):
            # From the top, at a new width: every entry is to be drawn again, and those not shown
            # keep their heights at the old width as guesses.
            log.scroll_home(animate=False, immediate=True)
            await pilot.pause()
            await pilot.resize_terminal(width, SIZE[1])
            await pilot.pause()
            # What the scrollbar does when dragged to its bottom: a scroll to the end as the
            # guessed heights put it. The entries it brings in are drawn at their real heights.
            log.scroll_to(y=log.max_scroll_y, animate=False, immediate=True)
            await pilot.pause()
            assert log.scroll_offset.y == log.max_scroll_y
            assert "Created plant 823" in "\n".join(shown(log))
