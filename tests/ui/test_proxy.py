"""Proxies in the TUI: the status line names the proxy in use, sends and the check go through it
(CONNECT, the token inside TLS), and a proxy's refusal is said as the proxy's, not the server's."""

from __future__ import annotations

from pathlib import Path

import trustme
from proxy_support import HIDDEN_HOST, TestProxy
from pydantic import SecretStr
from snapshot_apps.support import SIZE, fill, log_text, ready, send_and_wait, until
from textual.widgets import Static
from tls_support import TOKEN, TLSServer, plant_store

from plantstore_tui.core.http.check_report import Verdict
from plantstore_tui.core.http.proxy import parse_proxy
from plantstore_tui.core.http.target import Target
from plantstore_tui.core.sending.connection import connect_to
from plantstore_tui.ui.app import PlantStoreApp
from plantstore_tui.ui.connection import TargetLabel
from plantstore_tui.ui.screens.check import CheckScreen
from plantstore_tui.ui.screens.send import SendScreen


def _app(base_url: str, proxy_url: str, ca_bundle: str | None = None) -> PlantStoreApp:
    target = Target(
        base_url=base_url,
        token=SecretStr(TOKEN),
        token_source="the test",
        ca_bundle=ca_bundle,
        proxy=parse_proxy(proxy_url, "--proxy"),
    )
    return PlantStoreApp(lambda: connect_to(target), TargetLabel.of(target))


def _status(screen: SendScreen) -> str:
    return screen.status.sides()[0]


def test_the_status_line_names_the_proxy_never_its_password() -> None:
    target = Target(
        base_url="https://plants.example.com",
        token=SecretStr(TOKEN),
        token_source="the test",
        proxy=parse_proxy("http://alice:pw-SECRET@proxy.corp:3128", "--proxy"),
    )
    words = TargetLabel.of(target).describe()
    assert words.endswith(" · proxy http://proxy.corp:3128")
    assert "SECRET" not in words
    direct = TargetLabel.of(
        Target(base_url="https://p.example", token=SecretStr(TOKEN), token_source="x")
    )
    assert "proxy" not in direct.describe()


async def test_a_send_and_the_check_go_through_the_proxy(tmp_path: Path) -> None:
    ca = trustme.CA()
    ca_file = tmp_path / "ca.pem"
    ca.cert_pem.write_to_path(str(ca_file))
    async with (
        TLSServer(plant_store, certificate=ca.issue_cert(HIDDEN_HOST)) as server,
        TestProxy({HIDDEN_HOST: server.port}) as proxy,
    ):
        app = _app(f"https://{HIDDEN_HOST}:{server.port}", proxy.url, str(ca_file))
        async with app.run_test(size=SIZE) as pilot:
            screen = await ready(app, pilot)
            assert f"proxy {proxy.url}" in _status(screen)
            await fill(pilot, screen, name="Fern", id="1")
            await send_and_wait(pilot, app, "enter")
            assert "Created plant 1 (Fern)" in log_text(screen)
            app.action_check()
            await until(
                pilot,
                lambda: isinstance(app.screen, CheckScreen) and app.screen.report is not None,
            )
            check = app.screen
            assert isinstance(check, CheckScreen)
            assert check.report is not None
            title = str(check.query_one("#check-title", Static).render())
    assert check.report.verdict is Verdict.PASS
    assert f"through the proxy {proxy.url}: pass" in title
    assert {seen.method for seen in proxy.seen} == {"CONNECT"}
    assert all("authorization" not in seen.headers for seen in proxy.seen)


async def test_a_proxy_asking_for_a_login_is_said_as_the_proxys(tmp_path: Path) -> None:
    async with TestProxy({}, login="alice:secret") as proxy:
        app = _app(f"https://{HIDDEN_HOST}", proxy.url)
        async with app.run_test(size=SIZE) as pilot:
            screen = await ready(app, pilot)
            await fill(pilot, screen, name="Fern", id="1")
            await send_and_wait(pilot, app, "enter")
            text = log_text(screen)
    assert f"The proxy {proxy.url} asks for a login (407)" in text
    assert "The plant was not created." in text
