"""Words as drawn at 80x24: needs attention (F4) says one sentence at a time, the history (F3)
says a plant's outcome once, and the import screen's (F5) path field shows its whole hint."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from misbehaving import Hang, MisbehavingServer, ReceivedRequest
from pydantic import SecretStr
from seen_support import screen_text, status_text
from snapshot_apps.support import app_for, fill, ready, send_and_wait, settled, until
from textual.widgets import Input

from plantstore_tui.server.runner import BackgroundServer
from plantstore_tui.ui.screens.attention import AttentionScreen
from plantstore_tui.ui.screens.history import HistoryScreen
from plantstore_tui.ui.screens.import_screen import ImportScreen

SIZE = (80, 24)


async def test_needs_attention_ends_a_sentence_before_the_next(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    arrived = asyncio.Event()

    def hangs(request: ReceivedRequest) -> list[Any]:
        arrived.set()
        return [Hang()]

    async with MisbehavingServer(hangs) as server:
        app = app_for(server.base_url, SecretStr("token-of-the-test"))
        async with app.run_test(size=SIZE) as pilot:
            screen = await ready(app, pilot)
            await fill(pilot, screen, name="Fern", id="3")
            await pilot.press("enter")
            await asyncio.wait_for(arrived.wait(), 10)
            await until(pilot, lambda: "sending…" in status_text(app), "the send in flight")
            await pilot.press("escape")  # cancel it: nobody knows whether it arrived
            await settled(app, pilot)
            await pilot.press("f4")
            await until(pilot, lambda: isinstance(app.screen, AttentionScreen), "F4")
            shown = screen_text(app)
    assert "Cancelled before the server answered. It may exist already." in shown
    assert "answered It may" not in shown


@pytest.mark.parametrize(
    ("second_id", "outcome"),
    [("41", "rejected (not created)"), ("42", "created")],
    ids=["rejected", "created"],
)
async def test_the_history_says_the_outcome_once(
    reference_server: BackgroundServer, second_id: str, outcome: str
) -> None:
    app = app_for(reference_server.base_url, reference_server.token)
    async with app.run_test(size=SIZE) as pilot:
        screen = await ready(app, pilot)
        await fill(pilot, screen, name="Fern", id="41")
        await send_and_wait(pilot, app, "enter")
        await fill(pilot, screen, name="Ivy", id=second_id)
        await send_and_wait(pilot, app, "enter")
        await pilot.press("f3")
        await until(pilot, lambda: isinstance(app.screen, HistoryScreen), "F3")
        history = app.screen
        await until(pilot, lambda: "History #2" in screen_text(app), "the newest send described")
        rows = [line.strip(" │") for line in screen_text(app).splitlines()]
        said = {row.removeprefix("outcome   ") for row in rows if row.startswith("outcome   ")}
        assert said == {outcome}
        assert "the plant:" not in screen_text(app)
        assert history is app.screen


async def test_the_import_path_hint_is_drawn_whole(
    reference_server: BackgroundServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    app = app_for(reference_server.base_url, reference_server.token)
    async with app.run_test(size=SIZE) as pilot:
        await ready(app, pilot)
        await pilot.press("f5")
        await until(pilot, lambda: isinstance(app.screen, ImportScreen), "F5")
        await pilot.pause()
        field = app.screen.query_one("#import-path", Input)
        hint = str(field.placeholder)
        drawn = screen_text(app).splitlines()[field.content_region.y]
        assert hint in drawn, f"{hint!r} is cut: {drawn!r}"
