"""The log tells every change of the queue's state, each once, with its time: it stops (the
deployment cannot be reached, the token is refused, a question is open) and it runs again (the
deployment answers again, the token is accepted again, the question is answered). A plant's
entry shows when it was answered, and when it was taken where the two differ."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta

import pytest
from burst_support import stored_plants
from misbehaving import Await, MisbehavingServer, ReceivedRequest, reserved_port, spec_like
from pydantic import SecretStr
from seen_support import status_text
from snapshot_apps.support import SIZE, fill, ready, settled, target_of, until
from textual.pilot import Pilot

from plantstore_tui.core.config.profiles import Profile
from plantstore_tui.core.config.store import ProfileStore
from plantstore_tui.core.sending.connection import connect_to, connect_to_profile
from plantstore_tui.server.runner import BackgroundServer
from plantstore_tui.ui.app import PlantStoreApp
from plantstore_tui.ui.connection import TargetLabel
from plantstore_tui.ui.screens.confirm import ChoiceScreen
from plantstore_tui.ui.screens.send import SendScreen

TOKEN = SecretStr("token-of-the-queue-notes")
PATIENCE = 60
TAKEN = datetime(2026, 5, 4, 9, 30, 15, tzinfo=UTC)


class Clock:
    """The app's clock, moved on by the test."""

    def __init__(self) -> None:
        self.now = TAKEN

    def __call__(self) -> datetime:
        return self.now


def notes(screen: SendScreen) -> list[str]:
    """The log's notes (entries that are not a plant's), oldest first."""
    return [entry.text().plain for entry in screen.log_panel.entries if not entry.rows]


def plant_entries(screen: SendScreen) -> list[str]:
    """The plants' entries as plain text, oldest first."""
    return [entry.text().plain for entry in screen.log_panel.entries if entry.rows]


async def submit(pilot: Pilot[None], screen: SendScreen, *ids: int) -> None:
    """Type and send one plant per id."""
    for plant_id in ids:
        await fill(pilot, screen, name=f"Plant {plant_id}", id=str(plant_id))
        await pilot.press("ctrl+s")


async def test_the_log_says_the_deployment_answers_again_and_when_each_plant_was_answered() -> None:
    clock = Clock()
    with reserved_port() as reserved:
        port = reserved.getsockname()[1]
        target = target_of(f"http://127.0.0.1:{port}", TOKEN)
        app = PlantStoreApp(lambda: connect_to(target), TargetLabel.of(target), clock=clock)
        async with app.run_test(size=SIZE) as pilot:
            screen = await ready(app, pilot)
            await submit(pilot, screen, 1, 2, 3)
            await settled(app, pilot)
            assert "unreachable, next try in" in status_text(app)
            stopped = [note for note in notes(screen) if "cannot be reached" in note]
            assert stopped == [stopped[0]]
            assert stopped[0].startswith("09:30:15  ")
            clock.now = TAKEN + timedelta(minutes=2, seconds=5)
            reserved.close()
            async with MisbehavingServer(spec_like, port=port) as server:
                await asyncio.wait_for(server.wait_for_requests(3), PATIENCE)
                await settled(app, pilot)
                assert status_text(app).endswith(" ready")
            said = notes(screen)
            # The newest note says the queue runs again, with the time it did; said once.
            assert "answers again" in said[-1]
            assert said[-1].startswith("09:32:20  ")
            assert sum("answers again" in note for note in said) == 1
            assert sum("cannot be reached" in note for note in said) == 1
            entries = plant_entries(screen)
            assert len(entries) == 3
            for entry in entries:
                # Answered at 09:32:20, taken at 09:30:15: both said.
                assert entry.startswith("09:32:20  "), entry
                assert "taken   09:30:15" in entry, entry


def with_a_wrong_token(server: BackgroundServer, monkeypatch: pytest.MonkeyPatch) -> PlantStoreApp:
    """The TUI on a saved profile whose token, from $PLANT_TOKEN, is wrong at first."""
    monkeypatch.setenv("PLANT_TOKEN", "not-the-token")
    ProfileStore().add(Profile(name="local", base_url=server.base_url, token_env="PLANT_TOKEN"))
    label = TargetLabel(base_url="loading…", token_source="the profile", profile="local")
    return PlantStoreApp(lambda: connect_to_profile("local"), label, clock=Clock())


async def test_the_log_says_the_token_is_accepted_again_after_ctrl_r(
    reference_server: BackgroundServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    app = with_a_wrong_token(reference_server, monkeypatch)
    async with app.run_test(size=SIZE) as pilot:
        screen = await ready(app, pilot)
        await submit(pilot, screen, 1, 2)
        await settled(app, pilot)
        assert "token refused · fix it in F2, then Ctrl+R · 2 waiting" in status_text(app)
        assert "refused the token (401)" in notes(screen)[-1]
        # Ctrl+R with the token still wrong: refused again, and said again.
        await pilot.press("ctrl+r")
        await until(
            pilot,
            lambda: sum("refused the token" in note for note in notes(screen)) == 2,
            "refused again",
        )
        await settled(app, pilot)
        assert "token refused · fix it in F2, then Ctrl+R · 2 waiting" in status_text(app)
        assert "refused the token (401)" in notes(screen)[-1]
        assert sum("refused the token" in note for note in notes(screen)) == 2
        monkeypatch.setenv("PLANT_TOKEN", reference_server.token.get_secret_value())
        await pilot.press("ctrl+r")
        await until(pilot, lambda: status_text(app).endswith(" ready"), "sent and ready")
        await settled(app, pilot)
        assert len(stored_plants(reference_server.db_path)) == 2
        said = notes(screen)
        assert "accepted the token" in said[-1], said
        assert sum("accepted the token" in note for note in said) == 1
        assert sum("refused the token" in note for note in said) == 2


async def test_the_log_says_the_queue_waits_for_a_question_and_goes_on_after_it() -> None:
    release = asyncio.Event()

    def script(request: ReceivedRequest) -> list[object]:
        return [Await(release), *spec_like(request)]

    async with MisbehavingServer(script) as server:
        target = target_of(server.base_url, TOKEN)
        app = PlantStoreApp(lambda: connect_to(target), TargetLabel.of(target), clock=Clock())
        async with app.run_test(size=SIZE) as pilot:
            screen = await ready(app, pilot)
            await submit(pilot, screen, 1, 2, 3)
            await server.wait_for_requests(1)
            await pilot.press("ctrl+q")
            await until(pilot, lambda: isinstance(app.screen, ChoiceScreen), "the question")
            assert "question" in notes(screen)[-1]
            release.set()
            await pilot.press("escape")  # keep working
            await asyncio.wait_for(server.wait_for_requests(3), PATIENCE)
            await settled(app, pilot)
            said = notes(screen)
            assert "runs again" in said[-1], said
            assert sum("question" in note for note in said) == 2
