"""The probe screen's answer side, grown: where the time went as a bar (a segment a phase, with
its numbers) above the answer, and the Wire tab (F8, or a click on it) with the request line and
headers in the order sent and the answer's as received, the token masked; at 80x24, read from the
screen as drawn."""

from __future__ import annotations

import re
from typing import Any

import pytest
from misbehaving import MisbehavingServer, ReceivedRequest, Send, response
from pydantic import SecretStr
from seen_support import screen_text
from snapshot_apps.support import app_for, paste_over, ready, tab_to, until
from textual.app import App
from textual.pilot import Pilot
from textual.widgets import TabbedContent

from plantstore_tui.server.runner import BackgroundServer
from plantstore_tui.ui.screens.probe import ProbeScreen

SMALL = (80, 24)
TOKEN = "canary-token-that-must-never-show-WXYZ"


async def probe_sent(app: App[Any], pilot: Pilot[None], body: str) -> ProbeScreen:
    """F6, the body put in, Ctrl+S, and the answer shown."""
    await ready(app, pilot)
    await pilot.press("f6")
    await until(pilot, lambda: isinstance(app.screen, ProbeScreen), "the probe screen")
    screen = app.screen
    assert isinstance(screen, ProbeScreen)
    await pilot.pause()
    # Pasted over what the form put there, as a tester pastes a body.
    await tab_to(pilot, screen.query_one("#probe-body"))
    await paste_over(pilot, body)
    await pilot.pause()
    await pilot.press("ctrl+s")
    await until(pilot, lambda: screen.answer is not None, "the answer")
    pending = [worker for worker in app.workers if worker.group == "probe"]
    await app.workers.wait_for_complete(pending)
    await pilot.pause()
    return screen


def rows(app: App[Any]) -> list[str]:
    return screen_text(app).splitlines()


async def test_the_bar_shows_each_phase_with_its_time_at_80x24(
    reference_server: BackgroundServer,
) -> None:
    app = app_for(reference_server.base_url, reference_server.token)
    async with app.run_test(size=SMALL) as pilot:
        screen = await probe_sent(app, pilot, '{"id": "7", "name": "Fern"}')
        assert screen.answer is not None
        assert screen.answer.status == 400
        bar = screen.query_one("#probe-timing")
        assert bar.region.area > 0
        assert screen.region.contains_region(bar.region)
        drawn = rows(app)
        # One line of segments, then each phase named with its milliseconds.
        assert any("█" in line for line in drawn), drawn
        text = " ".join(" ".join(drawn).split())
        for label in ("connect", "request", "first byte", "body"):
            assert re.search(rf"{label} \d+\.\d", text), (label, text)
        assert re.search(r"total \d+\.\d ms", text), text
        assert max(len(line) for line in drawn) <= SMALL[0]


async def test_f8_shows_the_wire_and_the_token_nowhere(tmp_path: Any) -> None:
    def echo(request: ReceivedRequest) -> list[Send]:
        headers = [("Content-Type", "text/plain"), ("X-Echo", TOKEN)]
        return [Send(response(400, f"you sent {TOKEN}".encode(), headers=headers))]

    async with MisbehavingServer(echo) as server:
        app = app_for(server.base_url, SecretStr(TOKEN))
        async with app.run_test(size=SMALL) as pilot:
            screen = await probe_sent(app, pilot, "{}")
            tabs = screen.query_one(TabbedContent)
            assert tabs.active == "probe-answer-tab"
            await pilot.press("f8")
            await pilot.pause()
            assert tabs.active == "probe-wire-tab"
            wire = screen.query_one("#probe-wire")
            assert screen.region.contains_region(wire.region)
            text = screen_text(app)
            assert "POST /plants HTTP/1.1" in text
            assert "Authorization: Bearer …WXYZ" in text
            assert "HTTP/1.1 400 Bad Request" in text
            assert "X-Echo: [token]" in text
            whole = text + app.export_screenshot()
            assert TOKEN not in whole
            assert TOKEN[:-4] not in whole
            # The wire pane scrolls to the answer's body, the token out of it too.
            wire.scroll_end(animate=False)
            await pilot.pause()
            assert "you sent [token]" in " ".join(screen_text(app).split())
            # F8 again: back to the answer.
            await pilot.press("f8")
            await pilot.pause()
            assert tabs.active == "probe-answer-tab"


@pytest.mark.parametrize("size", [SMALL, (110, 32)], ids=["80x24", "110x32"])
async def test_a_refused_connection_shows_where_it_stopped(
    closed_port: int, size: tuple[int, int]
) -> None:
    app = app_for(f"http://127.0.0.1:{closed_port}", SecretStr(TOKEN))
    async with app.run_test(size=size) as pilot:
        screen = await probe_sent(app, pilot, "{}")
        assert screen.answer is not None
        assert screen.answer.status is None
        text = " ".join(screen_text(app).split())
        assert re.search(r"connect \d+\.\d ms, stopped here", text), text
