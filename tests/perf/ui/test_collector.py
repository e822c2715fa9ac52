"""The cyclic collector while the TUI starts: paused by the front door, resumed after the first
frame with what the start built frozen, and frozen once more after the first connection."""

from __future__ import annotations

import asyncio
import gc
from collections.abc import Iterator

import pytest

from plantstore_tui import start
from plantstore_tui.ui import collector
from plantstore_tui.ui.app import PlantStoreApp
from plantstore_tui.ui.connection import TargetLabel


@pytest.fixture
def freezes(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """Each test starts as a test process does (the collector running, no connection yet) and
    leaves the collector running; the freezes asked for are recorded, not made (other tests of
    the process count on what is frozen, and a frozen object may die and leave the count)."""
    monkeypatch.setattr(collector, "_paused_for_start", False)
    monkeypatch.setattr(collector, "_connected", False)
    asked: list[str] = []
    monkeypatch.setattr(gc, "freeze", lambda: asked.append("freeze"))
    try:
        yield asked
    finally:
        gc.enable()


async def _to_the_first_frame(monkeypatch: pytest.MonkeyPatch) -> None:
    """Run the TUI (on its first-run screen) until it tells the collector of its first frame."""
    seen = asyncio.Event()
    told = collector.after_first_frame

    def after_first_frame() -> None:
        told()
        seen.set()

    monkeypatch.setattr(collector, "after_first_frame", after_first_frame)
    app = PlantStoreApp(None, TargetLabel(base_url="http://127.0.0.1:9", token_source="test"))
    async with app.run_test(size=(110, 32)):
        await asyncio.wait_for(seen.wait(), timeout=30)


async def test_the_collector_paused_for_the_start_resumes_after_the_first_frame(
    monkeypatch: pytest.MonkeyPatch, freezes: list[str]
) -> None:
    collector.pause_for_start()
    assert not gc.isenabled()
    await _to_the_first_frame(monkeypatch)
    assert gc.isenabled()
    # What the start built is out of the collector's reach from then on.
    assert freezes == ["freeze"]


async def test_an_app_started_with_the_collector_running_leaves_it_alone(
    monkeypatch: pytest.MonkeyPatch, freezes: list[str]
) -> None:
    # Tests and `plantstore-tui demo` (click's): nothing is frozen at the first frame.
    await _to_the_first_frame(monkeypatch)
    assert gc.isenabled()
    assert freezes == []


def test_the_first_connection_is_frozen_once(freezes: list[str]) -> None:
    collector.after_connecting()
    assert freezes == ["freeze"]
    # A later connection's objects may become garbage when the target changes again.
    collector.after_connecting()
    assert freezes == ["freeze"]


@pytest.mark.usefixtures("freezes")
def test_the_command_line_runs_with_the_collector_running(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Not the TUI (here --help): click gets the collector as Python leaves it, for an import
    # of a million rows as for anything else.
    seen: list[bool] = []
    monkeypatch.setattr("plantstore_tui.cli.main", lambda: seen.append(gc.isenabled()))
    monkeypatch.setattr("sys.argv", ["plantstore-tui", "--help"])
    start.main()
    assert seen == [True]
    assert gc.isenabled()
