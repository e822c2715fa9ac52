"""The frames between Ctrl+S and the answer (issue 16): a plant that goes out at once is painted
with its answer, in one frame, when the answer comes within the moment; a slower answer shows
the plant as sending once the moment has passed; a key typed meanwhile is painted at once."""

from __future__ import annotations

import asyncio

import pytest
from snapshot_apps.support import SIZE, app_with, fill, ready, settled, target_of
from textual.pilot import Pilot

from plantstore_tui.core.plant.models import NewPlant
from plantstore_tui.core.plant.outcome import Outcome
from plantstore_tui.core.sending.counted import Counts
from plantstore_tui.core.sending.state import QueueState
from plantstore_tui.server.runner import BackgroundServer
from plantstore_tui.ui.app import PlantStoreApp
from plantstore_tui.ui.connection import Connection, TargetLabel, connect_to
from plantstore_tui.ui.screens import send
from plantstore_tui.ui.screens.send import SendScreen
from plantstore_tui.ui.widgets.status_line import StatusLine


class GatedClient:
    """The real client, whose sends wait for `gate` before they go out."""

    def __init__(self, connection: Connection) -> None:
        self.client = connection.client
        self.url = self.client.url
        self.started = asyncio.Event()
        self.gate = asyncio.Event()

    async def create_plant(self, plant: NewPlant) -> Outcome:
        """Send once the gate opens."""
        self.started.set()
        await self.gate.wait()
        return await self.client.create_plant(plant)

    async def aclose(self) -> None:
        """Close the real client."""
        await self.client.aclose()


class Painted:
    """What each frame of the send screen showed once the log had an entry: the log's last entry
    and the Name field."""

    def __init__(self, screen: SendScreen) -> None:
        self.frames: list[tuple[str, str]] = []
        self.new_frame = asyncio.Event()
        before = screen.run_before_frame

        def counted() -> None:
            before()
            entries = screen.log_panel.entries
            if entries:  # frames from the submit on
                self.frames.append((entries[-1].text().plain, screen.form.texts().name))
                self.new_frame.set()

        # The screen calls its own attribute before each frame: counted from here on.
        screen.run_before_frame = counted  # type: ignore[method-assign]


async def _sending(
    pilot: Pilot[None],
    app: PlantStoreApp,
    gated: list[GatedClient],
    states: list[str] | None = None,
) -> tuple[SendScreen, Painted]:
    """Fern (id 1) submitted with Ctrl+S, its request waiting at the gate (`states` emptied
    before the key)."""
    screen = await ready(app, pilot)
    await fill(pilot, screen, name="Fern", id="1")
    painted = Painted(screen)
    if states is not None:
        states.clear()
    await pilot.press("ctrl+s")
    await asyncio.wait_for(gated[0].started.wait(), 10)
    return screen, painted


async def _first_frame(painted: Painted) -> tuple[str, str]:
    """What the first frame since the submit showed: the state at the end of its entry's header
    line, and the Name field."""
    await asyncio.wait_for(painted.new_frame.wait(), 10)
    entry, name = painted.frames[0]
    return entry.split("\n")[0].rsplit("  ", 1)[-1], name


async def _answered(app: PlantStoreApp, pilot: Pilot[None], gated: list[GatedClient]) -> None:
    """Let the request go out, and wait until it is settled and drawn."""
    gated[0].gate.set()
    await settled(app, pilot)


def _gated_app(server: BackgroundServer) -> tuple[PlantStoreApp, list[GatedClient]]:
    target = target_of(server.base_url, server.token)
    gated: list[GatedClient] = []

    def connect() -> Connection:
        connection = connect_to(target)
        gated.append(GatedClient(connection))
        return Connection(connection.target, gated[-1])

    return app_with(connect, TargetLabel.of(target)), gated


async def test_an_answer_within_the_moment_is_painted_in_the_first_frame_after_ctrl_s(
    reference_server: BackgroundServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The moment made long, so that a loaded machine cannot end it before the answer.
    monkeypatch.setattr(send, "ANSWER_AWAITED_SECONDS", 60.0)
    states: list[str] = []
    show_queue = StatusLine.show_queue

    def shown(line: StatusLine, state: QueueState, counts: Counts, **flags: bool) -> None:
        show_queue(line, state, counts, **flags)
        states.append(line.sides()[1])

    monkeypatch.setattr(StatusLine, "show_queue", shown)
    app, gated = _gated_app(reference_server)
    async with app.run_test(size=SIZE) as pilot:
        screen, painted = await _sending(pilot, app, gated, states)
        await pilot.pause()  # the screen is idle: before, it painted "sending…" here
        assert painted.frames == []
        await _answered(app, pilot, gated)
        first_entry, first_name = painted.frames[0]
        assert "Created plant 1 (Fern)" in first_entry
        assert first_name == ""
        assert screen.session.counts() == (0, 0, 0)
        # Queued, sending and the answer: the status line is told once, for the frame.
        assert states == ["ready"]


async def test_a_slow_answer_shows_the_plant_as_sending_once_the_moment_has_passed(
    reference_server: BackgroundServer,
) -> None:
    app, gated = _gated_app(reference_server)
    async with app.run_test(size=SIZE) as pilot:
        _, painted = await _sending(pilot, app, gated)
        assert await _first_frame(painted) == ("sending…", "")
        await _answered(app, pilot, gated)
        assert "Created plant 1 (Fern)" in painted.frames[-1][0]


async def test_a_key_typed_while_the_answer_is_awaited_is_painted_at_once(
    reference_server: BackgroundServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(send, "ANSWER_AWAITED_SECONDS", 60.0)
    app, gated = _gated_app(reference_server)
    async with app.run_test(size=SIZE) as pilot:
        screen, painted = await _sending(pilot, app, gated)
        screen.form.focus_field("name")
        await pilot.press("R")
        assert await _first_frame(painted) == ("sending…", "R")
        await _answered(app, pilot, gated)
