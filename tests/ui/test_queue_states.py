"""The queue's states, driven with Pilot against an independent server (tests/misbehaving.py):
nothing leaves while a question about the queue is open, a refused token stops the queue until
the operator resumes, and plants wait for a deployment that went away and go by themselves, in
order and once each, when it is back."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

import pytest
from burst_support import stored_plants
from ledger_support import all_rows
from misbehaving import (
    Await,
    MisbehavingServer,
    ReceivedRequest,
    Reset,
    Send,
    json_response,
    reserved_port,
    response,
    spec_like,
)
from pydantic import SecretStr
from seen_support import status_text
from snapshot_apps.support import (
    SIZE,
    app_for,
    app_with,
    fill,
    log_text,
    ready,
    settled,
    until,
)
from textual.pilot import Pilot

from plantstore_tui.core.config.profiles import Profile
from plantstore_tui.core.config.store import ProfileStore
from plantstore_tui.core.sending.connection import connect_to_profile
from plantstore_tui.core.store import PlantState
from plantstore_tui.server.runner import BackgroundServer
from plantstore_tui.ui.app import PlantStoreApp
from plantstore_tui.ui.connection import TargetLabel
from plantstore_tui.ui.screens.confirm import ChoiceScreen
from plantstore_tui.ui.screens.send import SendScreen

TOKEN = SecretStr("token-of-the-queue-states")
# Long enough for any wait of these tests on a loaded machine; they end at the event.
PATIENCE = 60


def ids_sent(server: MisbehavingServer) -> list[int]:
    """The ids of the plants the server received, in the order they arrived."""
    return [request.json()["id"] for request in server.requests]


async def submit(pilot: Pilot[None], screen: SendScreen, *ids: int) -> None:
    """Type and send one plant per id, one after another."""
    for plant_id in ids:
        await fill(pilot, screen, name=f"Plant {plant_id}", id=str(plant_id))
        await pilot.press("ctrl+s")


def shown_keys(screen: SendScreen) -> set[str]:
    """The descriptions of the bindings the footer shows now."""
    return {active.binding.description for active in screen.active_bindings.values()}


def held_answers(release: asyncio.Event) -> Callable[[ReceivedRequest], list[object]]:
    """Every answer waits until `release` is set, then is what the spec says."""

    def script(request: ReceivedRequest) -> list[object]:
        return [Await(release), *spec_like(request)]

    return script


async def test_nothing_leaves_while_the_quit_question_is_open() -> None:
    release = asyncio.Event()
    async with MisbehavingServer(held_answers(release)) as server:
        app = app_for(server.base_url, TOKEN)
        async with app.run_test(size=SIZE) as pilot:
            screen = await ready(app, pilot)
            await submit(pilot, screen, 1, 2, 3, 4, 5)
            await server.wait_for_requests(1)
            await pilot.press("ctrl+q")
            await until(pilot, lambda: isinstance(app.screen, ChoiceScreen), "the question")
            assert "paused for the question · 4 queued" in status_text(app)
            # The plant in flight settles; none behind it goes out while the question is open.
            release.set()
            await until(pilot, lambda: "sending…" not in log_text(screen), "the first settled")
            assert "paused for the question · 4 queued" in status_text(app)
            assert ids_sent(server) == [1]
            await pilot.press("escape")  # keep working
            assert "paused" not in status_text(app)
            await asyncio.wait_for(server.wait_for_requests(5), PATIENCE)
            await settled(app, pilot)
            assert ids_sent(server) == [1, 2, 3, 4, 5]


async def test_hold_on_a_switch_holds_every_plant_in_line(monkeypatch: pytest.MonkeyPatch) -> None:
    release = asyncio.Event()
    async with (
        MisbehavingServer(held_answers(release)) as old,
        MisbehavingServer(spec_like) as new,
    ):
        app = app_for(old.base_url, TOKEN)
        async with app.run_test(size=SIZE) as pilot:
            screen = await ready(app, pilot)
            await submit(pilot, screen, 1, 2, 3, 4)
            await old.wait_for_requests(1)
            monkeypatch.setenv("NEW_TOKEN", TOKEN.get_secret_value())
            ProfileStore().add(Profile(name="new", base_url=new.base_url, token_env="NEW_TOKEN"))
            assert not app.use_profile("new")  # Enter on it in F2
            await until(pilot, lambda: isinstance(app.screen, ChoiceScreen), "the question")
            release.set()
            await until(pilot, lambda: "sending…" not in log_text(screen), "the first settled")
            await pilot.press("h")  # hold them
            await settled(app, pilot)
            assert ids_sent(old) == [1]
            assert new.requests == []
            attention = await screen.service.attention()
            assert [(row.typed.id, row.held) for row in attention] == [
                ("2", True),
                ("3", True),
                ("4", True),
            ]


async def test_a_refused_token_stops_the_queue_until_the_operator_resumes() -> None:
    token_fixed = asyncio.Event()

    def script(request: ReceivedRequest) -> list[object]:
        if not token_fixed.is_set():
            error = {"error": 1401, "message": "The bearer token is not valid"}
            return [Send(json_response(401, error))]
        return spec_like(request)

    async with MisbehavingServer(script) as server:
        app = app_for(server.base_url, TOKEN)
        async with app.run_test(size=SIZE) as pilot:
            screen = await ready(app, pilot)
            await submit(pilot, screen, 1, 2, 3)
            await settled(app, pilot)
            # One refusal: the refused plant and those behind it wait in line, in order.
            assert ids_sent(server) == [1]
            assert "token refused · 401: fix it in F2, then Ctrl+R · 3 waiting" in status_text(app)
            assert "attention" not in status_text(app)
            assert (await screen.service.attention()) == []
            assert "Resume" in shown_keys(screen)
            token_fixed.set()
            await pilot.press("ctrl+r")
            await asyncio.wait_for(server.wait_for_requests(4), PATIENCE)
            await settled(app, pilot)
            assert ids_sent(server) == [1, 1, 2, 3]
            assert all(plant.state is PlantState.CREATED for plant in all_rows())


async def test_plants_wait_for_a_deployment_that_went_away_and_go_when_it_is_back() -> None:
    with reserved_port() as reserved:
        port = reserved.getsockname()[1]
        app = app_for(f"http://127.0.0.1:{port}", TOKEN)
        async with app.run_test(size=SIZE) as pilot:
            screen = await ready(app, pilot)
            await submit(pilot, screen, 1, 2, 3)
            await settled(app, pilot)
            words = status_text(app)
            assert "unreachable, next try in" in words
            assert "3 waiting" in words
            assert "since" in words
            assert "attention" not in words
            assert "Cannot connect" in log_text(screen)
            assert (await screen.service.attention()) == []
            reserved.close()
            server = MisbehavingServer(spec_like, port=port)
            async with server:
                # No key pressed: the queue finds the deployment back by itself.
                await asyncio.wait_for(server.wait_for_requests(3), PATIENCE)
                await settled(app, pilot)
                assert ids_sent(server) == [1, 2, 3]
                assert status_text(app).endswith(" ready")
                assert all(plant.state is PlantState.CREATED for plant in all_rows())
                assert "goes again by itself" not in status_text(app)


async def test_a_503_with_retry_after_is_sent_again_once_and_a_dropped_one_never() -> None:
    def script(request: ReceivedRequest) -> list[object]:
        plant_id = request.json()["id"]
        answered = sum(1 for seen in server.requests if seen.json()["id"] == plant_id)
        if plant_id == 1 and answered == 1:
            return [Send(response(503, b"", headers=[("Retry-After", "1")]))]
        if plant_id == 2:
            return [Reset()]  # the request was written: its fate is unknown
        return spec_like(request)

    server = MisbehavingServer(script)
    async with server:
        app = app_for(server.base_url, TOKEN)
        async with app.run_test(size=SIZE) as pilot:
            screen = await ready(app, pilot)
            await submit(pilot, screen, 1, 2, 3)
            await asyncio.wait_for(server.wait_for_requests(4), PATIENCE)
            await settled(app, pilot)
            assert ids_sent(server) == [1, 1, 2, 3]
            states = {row.typed.id: row.state for row in all_rows()}
            assert states == {
                "1": PlantState.CREATED,
                "2": PlantState.UNKNOWN,
                "3": PlantState.CREATED,
            }
            assert "may exist" in log_text(screen) or "may or may not" in log_text(screen)


async def test_try_now_tries_at_once() -> None:
    with reserved_port() as reserved:
        port = reserved.getsockname()[1]
        app = app_for(f"http://127.0.0.1:{port}", TOKEN)
        async with app.run_test(size=SIZE) as pilot:
            screen = await ready(app, pilot)
            await submit(pilot, screen, 7)
            await settled(app, pilot)
            assert "unreachable, next try in" in status_text(app)
            assert "Try now" in shown_keys(screen)
            reserved.close()
            async with MisbehavingServer(spec_like, port=port) as server:
                await pilot.press("ctrl+r")
                await asyncio.wait_for(server.wait_for_requests(1), PATIENCE)
                await settled(app, pilot)
                assert ids_sent(server) == [7]


def with_a_wrong_token(server: BackgroundServer, monkeypatch: pytest.MonkeyPatch) -> PlantStoreApp:
    """The TUI on a saved profile whose token, from $PLANT_TOKEN, is wrong at first: setting the
    variable right is what fixing it in F2 would do."""
    monkeypatch.setenv("PLANT_TOKEN", "not-the-token")
    ProfileStore().add(Profile(name="local", base_url=server.base_url, token_env="PLANT_TOKEN"))
    label = TargetLabel(base_url="loading…", token_source="the profile", profile="local")
    return app_with(lambda: connect_to_profile("local"), label)


async def test_ctrl_r_after_a_refused_token_reads_the_profiles_token_again(
    reference_server: BackgroundServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    app = with_a_wrong_token(reference_server, monkeypatch)
    async with app.run_test(size=SIZE) as pilot:
        screen = await ready(app, pilot)
        await submit(pilot, screen, 1, 2)
        await settled(app, pilot)
        # The line is narrower beside a profile's name: the 401 gives way (the log says it).
        assert "token refused · fix it in F2, then Ctrl+R · 2 waiting" in status_text(app)
        assert "refused the token (401)" in log_text(screen)
        assert stored_plants(reference_server.db_path) == []
        monkeypatch.setenv("PLANT_TOKEN", reference_server.token.get_secret_value())
        await pilot.press("ctrl+r")
        await until(pilot, lambda: status_text(app).endswith(" ready"), "sent and ready")
        await settled(app, pilot)
        assert stored_plants(reference_server.db_path) == [
            (1, "Plant 1", None),
            (2, "Plant 2", None),
        ]
        assert (await screen.service.attention()) == []


async def test_the_profile_in_use_chosen_again_keeps_its_plants_in_line_without_a_question(
    reference_server: BackgroundServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    app = with_a_wrong_token(reference_server, monkeypatch)
    async with app.run_test(size=SIZE) as pilot:
        screen = await ready(app, pilot)
        await submit(pilot, screen, 1, 2)
        await settled(app, pilot)
        assert "refused the token (401)" in log_text(screen)
        monkeypatch.setenv("PLANT_TOKEN", reference_server.token.get_secret_value())
        app.use_profile("local")  # Enter on the profile in use, in F2
        await settled(app, pilot)
        # No question, no plant held or sent: they wait, in line, for the operator's resume.
        assert not isinstance(app.screen, ChoiceScreen)
        assert "token refused · fix it in F2, then Ctrl+R · 2 waiting" in status_text(app)
        assert stored_plants(reference_server.db_path) == []
        await pilot.press("ctrl+r")
        await settled(app, pilot)
        assert stored_plants(reference_server.db_path) == [
            (1, "Plant 1", None),
            (2, "Plant 2", None),
        ]


async def test_plants_held_while_the_deployment_is_unreachable_leave_nothing_to_wait_for() -> None:
    with reserved_port() as reserved:
        app = app_for(f"http://127.0.0.1:{reserved.getsockname()[1]}", TOKEN)
        async with app.run_test(size=SIZE) as pilot:
            screen = await ready(app, pilot)
            await submit(pilot, screen, 1, 2)
            await settled(app, pilot)
            assert "unreachable, next try in" in status_text(app)
            await pilot.press("escape")  # "Stop the queue too?"
            await until(pilot, lambda: isinstance(app.screen, ChoiceScreen), "the question")
            await pilot.press("h")  # hold them
            await settled(app, pilot)
            # Running, nothing in line: only the two held plants, which need attention.
            assert status_text(app).endswith(" 2 need attention (F4)")
            assert "unreachable" not in status_text(app)
            assert [row.typed.id for row in (await screen.service.attention())] == [
                "1",
                "2",
            ]
