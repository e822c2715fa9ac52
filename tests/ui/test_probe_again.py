"""A kept probe opened in the probe screen (F3 there lists the probes kept): its method, path,
headers, token and body in the fields as sent; changed by typing and sent again, a new probe, the
one opened left as it was. An Authorization kept masked is left out, and said. At 80x24
(issue 45, part 4)."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys

from misbehaving import ServerThread, spec_like
from pydantic import SecretStr
from seen_support import screen_text
from snapshot_apps.support import app_for, ready, until
from textual.app import App
from textual.pilot import Pilot
from textual.widgets import Static

from plantstore_tui.core.http.probe import TokenChoice
from plantstore_tui.core.store import open_for_reading
from plantstore_tui.core.store.probes import ProbeEntry, list_probes
from plantstore_tui.server.runner import BackgroundServer
from plantstore_tui.ui.app import PlantStoreApp
from plantstore_tui.ui.screens.kept_probes import KeptProbesScreen
from plantstore_tui.ui.screens.probe import ProbeScreen

SMALL = (80, 24)


def probes_kept() -> list[ProbeEntry]:
    ledger = open_for_reading()
    assert ledger is not None
    try:
        return list_probes(ledger)
    finally:
        ledger.close()


def shown(app: App[None]) -> str:
    return " ".join(screen_text(app).split())


def answer_pane(screen: ProbeScreen) -> str:
    return " ".join(str(screen.query_one("#probe-answer-text", Static).render()).split())


async def probe_screen(app: PlantStoreApp, pilot: Pilot[None]) -> ProbeScreen:
    await ready(app, pilot)
    await pilot.press("f6")
    await until(pilot, lambda: isinstance(app.screen, ProbeScreen), "the probe screen")
    screen = app.screen
    assert isinstance(screen, ProbeScreen)
    return screen


async def open_newest(app: PlantStoreApp, pilot: Pilot[None], screen: ProbeScreen) -> None:
    """F3, the kept probes listed; Enter opens the newest, highlighted first."""
    await pilot.press("f3")
    await until(pilot, lambda: isinstance(app.screen, KeptProbesScreen), "the kept probes")
    kept = app.screen
    await until(pilot, lambda: "p1" in shown(app), "the probes listed")
    # The whole list on screen at 80x24.
    assert kept.region.contains_region(kept.query_one("#kept-panel").region)
    await pilot.press("enter")
    await until(pilot, lambda: app.screen is screen, "the probe screen again")


async def sent(app: PlantStoreApp, pilot: Pilot[None], count: int) -> None:
    await until(pilot, lambda: len(probes_kept()) == count, f"{count} probes kept")


async def test_a_probe_kept_by_the_command_line_opens_is_changed_by_typing_and_sent_again(
    reference_server: BackgroundServer,
) -> None:
    base, token = reference_server.base_url, reference_server.token
    command = [sys.executable, "-m", "plantstore_tui", "probe", "--base-url", base]
    command += ["--method", "GET", "--path", "/openapi.json", "--header", "X-Trace: one"]
    environment = {**os.environ, "PLANTSTORE_TOKEN": token.get_secret_value()}
    done = await asyncio.to_thread(
        subprocess.run, command, env=environment, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    app = app_for(base, token)
    async with app.run_test(size=SMALL) as pilot:
        screen = await probe_screen(app, pilot)
        assert "X-Trace" not in shown(app)
        await open_newest(app, pilot, screen)
        await until(pilot, lambda: f"Probe GET {base}/openapi.json" in shown(app), "its line")
        assert "X-Trace: one" in shown(app)
        words = answer_pane(screen)
        assert "p1" in words
        assert "new probe" in words
        # The body was empty: the editor is too (the blank form's template is gone).
        assert "<id>" not in shown(app)
        # From the body, Shift+Tab to the path, typed over, and sent.
        await pilot.press("shift+tab", "ctrl+u", *"/nowhere", "ctrl+s")
        await sent(app, pilot, 2)
        await until(pilot, lambda: "404" in answer_pane(screen), "the answer")
    again, first = probes_kept()
    assert (again.number, again.method, again.path, again.status) == (2, "GET", "/nowhere", 404)
    assert again.headers == (("X-Trace", "one"),)
    assert (again.source, again.body) == ("tui", b"")
    assert (first.number, first.method, first.path, first.status) == (
        1,
        "GET",
        "/openapi.json",
        200,
    )
    assert first.source == "probe"


async def test_an_authorization_kept_masked_is_left_out_and_said_and_the_body_changed_goes() -> (
    None
):
    credential = "Basic a-credential-of-the-tester"
    with ServerThread(spec_like) as server:
        app = app_for(server.base_url, SecretStr("token-of-the-probe-test"))
        async with app.run_test(size=SMALL) as pilot:
            screen = await probe_screen(app, pilot)
            # The body typed over (F7 selects all), the header typed in its field.
            await pilot.press(
                "f7", *'{"name": "Fern"}', "tab", "tab", *f"Authorization: {credential}"
            )
            await pilot.press("ctrl+s")
            await sent(app, pilot, 1)
            await open_newest(app, pilot, screen)
            await until(pilot, lambda: "kept masked" in answer_pane(screen), "the words")
            assert "not sent" in answer_pane(screen)
            assert "Authorization: Basic" not in shown(app)
            assert '{"name": "Fern"}' in shown(app)
            # The body changed by typing: at its end, before the closing brace.
            await pilot.press("end", "left", *', "tag": "x"', "ctrl+s")
            await sent(app, pilot, 2)
        one, two = server.requests
    assert one.headers["authorization"] == credential
    assert (two.json(), two.headers["authorization"]) == (
        {"name": "Fern", "tag": "x"},
        "Bearer token-of-the-probe-test",
    )
    again, first = probes_kept()
    assert again.token is TokenChoice.PROFILE
    assert again.headers == ()
    assert first.body == b'{"name": "Fern"}'
