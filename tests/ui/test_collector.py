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
def collector_state(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Each test starts as a test process does (the collector running, no connection yet) and
    leaves the collector running. Nothing is unfrozen: other tests count on what is frozen."""
    monkeypatch.setattr(collector, "_paused_for_start", False)
    monkeypatch.setattr(collector, "_connected", False)
    try:
        yield
    finally:
        gc.enable()


def _first_frame_seen(monkeypatch: pytest.MonkeyPatch) -> asyncio.Event:
    """Set once the app has told the collector its first frame is painted."""
    seen = asyncio.Event()
    told = collector.after_first_frame

    def after_first_frame() -> None:
        told()
        seen.set()

    monkeypatch.setattr(collector, "after_first_frame", after_first_frame)
    return seen


@pytest.mark.usefixtures("collector_state")
async def test_the_collector_paused_for_the_start_resumes_after_the_first_frame(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    first_frame = _first_frame_seen(monkeypatch)
    frozen = gc.get_freeze_count()
    collector.pause_for_start()
    assert not gc.isenabled()
    app = PlantStoreApp(None, TargetLabel(base_url="http://127.0.0.1:9", token_source="test"))
    async with app.run_test(size=(110, 32)):
        await asyncio.wait_for(first_frame.wait(), timeout=30)
        assert gc.isenabled()
        # What the start built is out of the collector's reach from now on.
        assert gc.get_freeze_count() > frozen


@pytest.mark.usefixtures("collector_state")
async def test_an_app_started_with_the_collector_running_leaves_it_alone(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Tests and `plantstore-tui demo` (click's): nothing is frozen at the first frame.
    first_frame = _first_frame_seen(monkeypatch)
    frozen = gc.get_freeze_count()
    app = PlantStoreApp(None, TargetLabel(base_url="http://127.0.0.1:9", token_source="test"))
    async with app.run_test(size=(110, 32)):
        await asyncio.wait_for(first_frame.wait(), timeout=30)
        assert gc.isenabled()
        assert gc.get_freeze_count() == frozen


@pytest.mark.usefixtures("collector_state")
def test_the_first_connection_is_frozen_once() -> None:
    frozen = gc.get_freeze_count()
    collector.after_connecting()
    assert gc.get_freeze_count() > frozen
    # Objects made since are left to the collector by a later connection.
    made = [[index] for index in range(100)]
    frozen = gc.get_freeze_count()
    collector.after_connecting()
    assert gc.get_freeze_count() == frozen
    assert made


@pytest.mark.usefixtures("collector_state")
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
