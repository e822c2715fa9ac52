"""Snapshots of the TUI's main states (pytest-textual-snapshot); regenerate with
`pytest tests/test_ui_snapshots.py --snapshot-update`, then look at snapshot_report.html."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from snapshot_apps.canned import canned_app, duplicate_id, refused
from snapshot_apps.support import SIZE, settled, until
from textual.pilot import Pilot
from textual.widgets import DirectoryTree, Input

from plantstore_tui.ui.screens.import_screen import ImportScreen
from plantstore_tui.ui.screens.send import SendScreen

SnapCompare = Callable[..., bool]


async def _connected(pilot: Pilot[Any]) -> SendScreen:
    await settled(pilot.app, pilot)
    await pilot.pause()
    screen = pilot.app.screen
    assert isinstance(screen, SendScreen)
    return screen


async def _send(pilot: Pilot[Any], name: str, id: str, tag: str) -> None:
    screen = await _connected(pilot)
    for field, text in (("name", name), ("id", id), ("tag", tag)):
        screen.form.field_input(field).value = text
    await pilot.press("ctrl+s")
    await pilot.pause()
    await settled(pilot.app, pilot)
    await pilot.pause()


def test_empty_form(snap_compare: SnapCompare) -> None:
    assert snap_compare(canned_app(), terminal_size=SIZE, run_before=_connected)


def test_invalid_input(snap_compare: SnapCompare) -> None:
    async def run_before(pilot: Pilot[Any]) -> None:
        await _send(pilot, name="", id="12b", tag="in\x1bdoor")

    assert snap_compare(canned_app(), terminal_size=SIZE, run_before=run_before)


def test_success_entry(snap_compare: SnapCompare) -> None:
    async def run_before(pilot: Pilot[Any]) -> None:
        await _send(pilot, name="Monstera deliciosa", id="41", tag="indoor")

    assert snap_compare(canned_app(), terminal_size=SIZE, run_before=run_before)


def test_error_entry(snap_compare: SnapCompare) -> None:
    async def run_before(pilot: Pilot[Any]) -> None:
        await _send(pilot, name="Ivy", id="7", tag="climber")

    assert snap_compare(canned_app(duplicate_id), terminal_size=SIZE, run_before=run_before)


def test_network_failure(snap_compare: SnapCompare) -> None:
    async def run_before(pilot: Pilot[Any]) -> None:
        await _send(pilot, name="Fern", id="3", tag="")

    assert snap_compare(canned_app(refused), terminal_size=SIZE, run_before=run_before)


def test_help_screen(snap_compare: SnapCompare) -> None:
    async def run_before(pilot: Pilot[Any]) -> None:
        await _connected(pilot)
        await pilot.press("f1")
        await pilot.pause()

    assert snap_compare(canned_app(), terminal_size=SIZE, run_before=run_before)


def test_needs_attention(snap_compare: SnapCompare) -> None:
    async def run_before(pilot: Pilot[Any]) -> None:
        await _send(pilot, name="Ivy", id="7", tag="climber")
        await _send(pilot, name="Strelitzia nicolai", id="7", tag="")
        await pilot.press("f4")
        await pilot.pause()

    assert snap_compare(canned_app(duplicate_id), terminal_size=SIZE, run_before=run_before)


def test_import_lists_every_bad_row(
    snap_compare: SnapCompare, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    files = tmp_path / "files"
    (files / "archive").mkdir(parents=True)
    (files / "spring.jsonl").write_text('{"name": "Fern", "id": 1}\n', encoding="utf-8")
    (files / "notes.txt").write_text("not listed: import cannot read it\n", encoding="utf-8")
    (files / "greenhouse.csv").write_text(
        "name,id,tag\nMonstera,41,indoor\n,42,\nFicus,4x2,\nAloe,41,succulent\n"
        "Hoya,44,\x1b[31mred\n",
        encoding="utf-8",
    )
    monkeypatch.chdir(files)

    async def run_before(pilot: Pilot[Any]) -> None:
        await _connected(pilot)
        await pilot.press("f5")
        screen = pilot.app.screen
        assert isinstance(screen, ImportScreen)
        tree = screen.query_one(DirectoryTree)
        await until(pilot, lambda: len(tree.root.children) >= 3)
        screen.query_one("#import-path", Input).value = "greenhouse.csv"
        await pilot.press("enter")
        await asyncio.gather(*(w.wait() for w in pilot.app.workers if w.name == "check-file"))
        await pilot.pause()

    assert snap_compare(canned_app(), terminal_size=SIZE, run_before=run_before)
