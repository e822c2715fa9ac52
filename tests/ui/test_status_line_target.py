"""The target always in sight: before the first send, the send screen's status line names the
host and port, the profile, the token's source in words (never the credentials file's path),
the proxy, and the state with its counts whole, at 80x24 and 110x32."""

from __future__ import annotations

import os
from typing import Any

import pytest
from proxy_support import HIDDEN_HOST, TestProxy
from pydantic import SecretStr
from seen_support import status_text
from snapshot_apps.canned import canned_app
from snapshot_apps.support import app_with, fill, log_text, ready, send_and_wait, settled, until
from textual.widgets import Static

from plantstore_tui.cli.tui import unprompted_plan
from plantstore_tui.core.config.files import config_dir
from plantstore_tui.core.config.options import TargetOptions
from plantstore_tui.core.config.profiles import Profile
from plantstore_tui.core.config.store import ProfileStore
from plantstore_tui.ui.connection import TargetLabel
from plantstore_tui.ui.screens.confirm import ChoiceScreen
from plantstore_tui.ui.screens.send import SendScreen
from plantstore_tui.ui.widgets.profile_row import ProfileRow

PROFILE = "greenhouse-north"


def _line(screen: SendScreen) -> tuple[str, str, str]:
    """The target and the state as drawn, and the whole line."""
    target, state = screen.status.sides()
    return target, state, screen.status.render().plain


@pytest.mark.parametrize("size", [(80, 24), (110, 32)])
async def test_a_profile_with_its_token_in_the_credentials_file(
    reference_server: Any, size: tuple[int, int]
) -> None:
    # conftest gives keyring its fail backend: the token goes to credentials.toml.
    store = ProfileStore()
    report = store.add(
        Profile(name=PROFILE, base_url=reference_server.base_url), token=reference_server.token
    )
    assert report.token_source is not None
    assert str(report.token_source).startswith("credentials file ")  # with its path, for F2
    plan = unprompted_plan(TargetOptions(profile=PROFILE), os.environ)
    assert plan is not None
    app = app_with(*plan)
    port = reference_server.base_url.rsplit(":", 1)[1]
    async with app.run_test(size=size) as pilot:
        screen = await ready(app, pilot)
        await pilot.press("ctrl+n")  # the same id four times: three are refused as duplicates
        for name in ("Fern", "Ivy", "Moss", "Sedge"):
            await fill(pilot, screen, name=name, id="5")
            await send_and_wait(pilot, app, "ctrl+s")
        target, state, line = _line(screen)
        assert f"127.0.0.1:{port}" in target
        assert target.startswith(f"{PROFILE} · ")
        assert "credentials file" in target
        # No path: not the file's, not the config dir's.
        assert "credentials.toml" not in line
        assert str(config_dir()) not in line
        assert "/" not in target.replace("http://", "")
        # Whole at both sizes: "(F4)" is the first of it to go, never "3 need at…".
        assert state.endswith("3 need attention (F4)")
        assert screen.status.kind == "problem"
        assert reference_server.token.get_secret_value() not in app.export_screenshot()


async def test_f2_names_the_credentials_file_with_its_path(reference_server: Any) -> None:
    store = ProfileStore()
    store.add(
        Profile(name=PROFILE, base_url=reference_server.base_url), token=reference_server.token
    )
    plan = unprompted_plan(TargetOptions(profile=PROFILE), os.environ)
    assert plan is not None
    app = app_with(*plan)
    async with app.run_test(size=(110, 32)) as pilot:
        await ready(app, pilot)
        await pilot.press("f2")
        await until(pilot, lambda: bool(app.screen.query(ProfileRow)))
        [row] = app.screen.query(ProfileRow)
        # The list names the file; the details of the highlighted profile give its path.
        assert str(row.query_one(".profile-token", Static).render()) == "credentials file"
        detail = str(app.screen.query_one("#profiles-detail", Static).render())
        assert f"Token from: credentials file {store.tokens.credentials_path}" in detail


LONG_URL = TargetLabel(
    base_url="https://plantstore-staging.greenhouse-operations.example.com:8443/api/v2",
    token_source="the credentials file",
    profile="staging",
)


@pytest.mark.parametrize("size", [(80, 24), (110, 32)])
async def test_a_long_url_keeps_its_host_readable_and_its_port(size: tuple[int, int]) -> None:
    app = canned_app()
    async with app.run_test(size=size) as pilot:
        screen = await settled(app, pilot)
        screen.status.show_target(LONG_URL.parts("…a1b2"))
        screen.status.show_state("sending… · 1 queued · 2 need attention (F4)", "problem")
        await pilot.pause()
        target, state, _ = _line(screen)
        assert target.startswith("staging · plantstore-")
        assert "…" in target
        assert ".com:8443 · credentials file" in target
        assert "https://" not in target
        counts = "1 queued · 2 attention" if size[0] == 80 else "2 need attention (F4)"
        assert state.endswith(counts)


@pytest.mark.parametrize("size", [(80, 24), (110, 32)])
async def test_the_proxy_is_named_beside_the_target(size: tuple[int, int]) -> None:
    label = TargetLabel(
        base_url="https://plants.example.com",
        token_source="the keyring",
        profile="prod",
        proxy="http://proxy.corp.example:3128",
    )
    app = canned_app()
    async with app.run_test(size=size) as pilot:
        screen = await settled(app, pilot)
        screen.status.show_target(label.parts("…a1b2"))
        screen.status.show_state("1 queued", "busy")
        await pilot.pause()
        target, state, _ = _line(screen)
        wide = size[0] > 80
        host = "https://plants.example.com" if wide else "plants.example.com:443"
        assert target.startswith(f"prod · {host} · ")
        assert "keyring" in target
        assert "proxy " in target
        assert target.endswith(":3128")
        assert state == "1 queued"


PAUSED = "paused: token refused (401) · fix it in F2, then Ctrl+R · 4 queued"
UNREACHABLE = (
    "deployment unreachable since 14:02 · 7 waiting · next try in 8 s · 2 need attention (F4)"
)


@pytest.mark.parametrize("words", [PAUSED, UNREACHABLE])
async def test_at_80_columns_the_host_and_the_counts_stay_and_wordy_parts_give_way(
    words: str,
) -> None:
    label = TargetLabel(
        base_url="https://plants.example.com:8443",
        token_source="the credentials file",
        profile="greenhouse-north",
    )
    app = canned_app()
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await settled(app, pilot)
        screen.status.show_target(label.parts())
        screen.status.show_state(words, "problem")
        await pilot.pause()
        target, state, line = _line(screen)
        assert "plants.example.com:8443" in target
        # The token's source gives way before the key of what to do.
        if "Ctrl+R" in words:
            assert "then Ctrl+R" in state
        counts = [part for part in words.split(" · ") if part[0].isdigit()]
        for count in counts:
            number, *_, last = count.removesuffix(" (F4)").split()
            assert f"{number} {last}" in state or count in state
        assert state.endswith(counts[-1].removesuffix(" (F4)").split()[-1])
        assert len(line) == screen.status.content_region.width


def _separated(screen: SendScreen) -> bool:
    """Whether the line shows its target and its state apart: " · ", or a clear gap."""
    target, state, line = _line(screen)
    start = line.index(target) + len(target) if target else 0
    between = line[start : line.rindex(state)]
    return between.strip() == "·" or (not between.strip() and len(between) >= 5)


@pytest.mark.parametrize("size", [(80, 24), (110, 32)])
async def test_a_refused_token_keeps_its_headline_and_its_key_beside_a_long_target(
    reference_server: Any, size: tuple[int, int]
) -> None:
    # A deployment reached through a proxy, by a name only the proxy knows: the status line
    # names the profile, the host, the credentials file and the proxy, all wordy.
    port = int(reference_server.base_url.rsplit(":", 1)[1])
    async with TestProxy({HIDDEN_HOST: port}) as proxy:
        store = ProfileStore()
        store.add(
            Profile(
                name=PROFILE,
                base_url=f"http://{HIDDEN_HOST}:{port}",
                allow_insecure_http=True,
                proxy=proxy.url,
            ),
            token=SecretStr("not-the-token"),
        )
        plan = unprompted_plan(TargetOptions(profile=PROFILE), os.environ)
        assert plan is not None
        app = app_with(*plan)
        async with app.run_test(size=size) as pilot:
            screen = await ready(app, pilot)
            for plant_id in (1, 2, 3):
                await fill(pilot, screen, name="Fern", id=str(plant_id))
                await send_and_wait(pilot, app, "ctrl+s")
            assert "token refused" in status_text(app)
            assert "refused the token (401)" in log_text(screen)
            await pilot.press("escape")  # "Stop the queue too?"
            await until(pilot, lambda: isinstance(app.screen, ChoiceScreen), "the question")
            await send_and_wait(pilot, app, "h")  # held: 3 need attention
            for plant_id in (4, 5, 6):
                await fill(pilot, screen, name="Ivy", id=str(plant_id))
                await send_and_wait(pilot, app, "ctrl+s")
            assert "sending…" not in log_text(screen)
            assert {seen.method for seen in proxy.seen} == {"POST"}
            target, state, line = _line(screen)
            assert "proxy" in str(screen.status.tooltip)
            assert state.startswith("token refused · "), line
            assert "then Ctrl+R" in state, line
            assert "3 waiting" in state, line
            assert "3 attention" in state or "3 need attention" in state, line
            assert f":{port}" in target, line
            assert _separated(screen), line
            # Wide enough, the profile is named too (cut); at 80 columns it gave way first.
            if size[0] > 80:
                assert target.startswith(PROFILE[:7]), line
            else:
                assert PROFILE[:7] not in target, line
                assert "credentials" not in target, line
