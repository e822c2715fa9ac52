"""The check and TLS in the TUI: the palette's check, TLS failures in words, off-spec marks."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import trustme
from misbehaving import MisbehavingServer, Send, json_response
from pydantic import SecretStr
from snapshot_apps.support import SIZE, app_for, log_text, ready, send_fern, until
from textual.command import CommandPalette
from textual.widgets import Static
from tls_support import TOKEN, TLSServer, plant_store

from plantstore_tui.core.http.check_report import CheckReport, Verdict
from plantstore_tui.core.http.target import Target
from plantstore_tui.core.sending.connection import connect_to
from plantstore_tui.server.runner import BackgroundServer
from plantstore_tui.ui.app import PlantStoreApp
from plantstore_tui.ui.connection import TargetLabel
from plantstore_tui.ui.screens.check import CheckScreen


def _finished(app: PlantStoreApp) -> CheckReport | None:
    screen = app.screen
    return screen.report if isinstance(screen, CheckScreen) else None


def _title(app: PlantStoreApp) -> str:
    return str(app.screen.query_one("#check-title", Static).render())


async def test_the_palette_checks_this_deployment_and_creates_nothing(
    reference_server: BackgroundServer,
) -> None:
    app = app_for(reference_server.base_url, reference_server.token)
    async with app.run_test(size=SIZE) as pilot:
        await ready(app, pilot)
        await pilot.press("ctrl+p")
        await until(pilot, lambda: isinstance(app.screen, CommandPalette))
        await pilot.press(*"check this dep")
        await pilot.pause()
        await pilot.press("enter")
        await until(pilot, lambda: _finished(app) is not None)
        report = _finished(app)
        assert report is not None
        assert report.verdict is Verdict.PASS
        assert _title(app).endswith("/plants: pass")
        await pilot.press("escape")
        await until(pilot, lambda: not isinstance(app.screen, CheckScreen))
    with sqlite3.connect(reference_server.db_path) as db:
        assert db.execute("SELECT count(*) FROM plants").fetchone() == (0,)


def _tls_app(base_url: str, ca_bundle: str | None = None) -> PlantStoreApp:
    target = Target(
        base_url=base_url, token=SecretStr(TOKEN), token_source="the test", ca_bundle=ca_bundle
    )
    return PlantStoreApp(lambda: connect_to(target), TargetLabel.of(target))


async def test_an_unknown_ca_is_said_in_the_log_in_words() -> None:
    ca = trustme.CA()
    async with TLSServer(plant_store, certificate=ca.issue_cert("127.0.0.1")) as server:
        app = _tls_app(server.base_url)
        async with app.run_test(size=SIZE) as pilot:
            screen = await send_fern(app, pilot, "enter")
            text = log_text(screen)
    assert "The server's TLS certificate is from an issuer this machine does not trust" in text
    assert "--ca-bundle PATH" in text
    assert "The plant was not created." in text


async def test_a_ca_bundle_target_is_checked_over_tls_in_the_tui(tmp_path: Path) -> None:
    ca = trustme.CA()
    ca_file = tmp_path / "ca.pem"
    ca.cert_pem.write_to_path(str(ca_file))
    async with TLSServer(plant_store, certificate=ca.issue_cert("127.0.0.1")) as server:
        app = _tls_app(server.base_url, str(ca_file))
        async with app.run_test(size=SIZE) as pilot:
            await ready(app, pilot)
            app.action_check()
            await until(pilot, lambda: _finished(app) is not None)
            report = _finished(app)
    assert report is not None
    tls = next(result for result in report.results if result.probe == "tls")
    assert tls.verdict is Verdict.PASS
    assert "certificate issued by trustme" in tls.seen


async def test_an_off_spec_answer_gets_a_row_in_the_log() -> None:
    answer = json_response(200, {"name": "Fern", "tag": "\x1b[2J"})
    async with MisbehavingServer([Send(answer)]) as server:
        app = app_for(server.base_url, SecretStr(TOKEN))
        async with app.run_test(size=SIZE) as pilot:
            screen = await send_fern(app, pilot, "enter")
            text = log_text(screen)
    assert "≠       off spec: the server stored tag '\\e[2J', though none was sent" in text
    assert "\x1b" not in text


async def test_the_check_table_fits_80_columns_and_gives_the_fix_of_every_failed_probe() -> None:
    from rich.console import Console

    from plantstore_tui.ui.screens.check import NO_FIX, CheckTable

    accepts_anything = json_response(200, {"name": "Fern", "id": 1})
    async with MisbehavingServer(lambda request: [Send(accepts_anything)]) as server:
        app = app_for(server.base_url, SecretStr(TOKEN))
        async with app.run_test(size=(80, 24)) as pilot:
            await ready(app, pilot)
            app.action_check()
            await until(pilot, lambda: _finished(app) is not None)
            report = _finished(app)
            table = app.screen.query_one(CheckTable)
            width = table.content_region.width
            console = Console(width=width, record=True, color_system=None)
            console.print(table.content)
    assert report is not None
    failed = [result for result in report.results if result.verdict is not Verdict.PASS]
    assert failed, "a server that accepts anything fails the probes"
    drawn = console.export_text()
    lines = drawn.splitlines()
    assert all(len(line) <= width for line in lines)
    assert "|" not in drawn, "no ASCII bars"
    assert "why it matters" not in drawn, "no column left empty"
    flat = " ".join(drawn.split())
    for result in failed:
        fix = " ".join((result.why or NO_FIX).split())
        assert f"fix: {fix[:30]}" in flat, result.probe
    assert drawn.count("✖ FAIL") == sum(r.verdict is Verdict.FAIL for r in report.results)
