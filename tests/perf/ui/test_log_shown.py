"""The log draws only what it shows: a burst's entries that change while scrolled out of view
(queued, sending, their answer) are not drawn until they come into view (what the log shows and
keeps: tests/ui/test_log_shown.py)."""

from __future__ import annotations

from collections import Counter

import pytest
from burst_support import Record
from keys_support import burst, drained, keys_of
from snapshot_apps.support import SIZE, app_for, ready

from plantstore_tui.server.runner import BackgroundServer
from plantstore_tui.ui.widgets.response_log import ResponseLog

# Far more entries than the log shows at SIZE (a few of them).
RECORDS: list[Record] = [(f"Moss {n}", str(700 + n), "damp" if n % 3 else "") for n in range(24)]


async def test_a_burst_draws_only_the_entries_the_log_shows(
    reference_server: BackgroundServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    drawn: Counter[int] = Counter()
    render_entry = ResponseLog._render_entry

    def counted(log: ResponseLog, index: int) -> object:
        drawn[index] += 1
        return render_entry(log, index)

    monkeypatch.setattr(ResponseLog, "_render_entry", counted)
    app = app_for(reference_server.base_url, reference_server.token)
    async with app.run_test(size=SIZE) as pilot:
        screen = await ready(app, pilot)
        await pilot.press("ctrl+n")  # every record types its own id
        burst(app, keys_of(RECORDS))
        await drained(app, pilot, len(RECORDS))
        await pilot.pause()
        # Every entry was drawn at least once before (each state it was in when a frame came,
        # shown or not): now the first ones, answered long after they scrolled away, never are.
        assert sum(drawn.values()) < len(RECORDS), drawn
        assert drawn[0] == 0
        assert "Created plant 723" in screen.log_panel.plain_text()

        # A new width: only the entries shown are drawn again.
        drawn.clear()
        await pilot.resize_terminal(SIZE[0] - 20, SIZE[1])
        await pilot.pause()
        assert 0 < sum(drawn.values()) < len(RECORDS), drawn
