"""Driving the import screen (F5) with Pilot: shared by the tests of the screen."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from burst_support import stored_plants
from snapshot_apps.support import ready, tab_to, type_over
from textual.pilot import Pilot
from textual.widgets import Button, Input, Static

from plantstore_tui.server.runner import BackgroundServer
from plantstore_tui.ui.app import PlantStoreApp
from plantstore_tui.ui.screens.confirm import ChoiceScreen
from plantstore_tui.ui.screens.import_screen import ImportScreen


def in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The screen lists the working directory: the test's own, where the history's data
    directory (conftest puts it in tmp_path) is not."""
    monkeypatch.setenv("PLANTSTORE_DATA_DIR", str(tmp_path.parent / f"{tmp_path.name}-data"))
    monkeypatch.chdir(tmp_path)


def stored(server: BackgroundServer) -> list[tuple[int, str, str | None]]:
    return sorted(stored_plants(server.db_path))


def text_of(screen: ImportScreen, selector: str) -> str:
    return str(screen.query_one(selector, Static).render())


async def finished(pilot: Pilot[None], name: str) -> None:
    """Wait for the screen's workers called `name` (not the directory tree's, which never end),
    then for what they posted to be handled."""
    workers = [worker for worker in pilot.app.workers if worker.name == name]
    await asyncio.gather(*(worker.wait() for worker in workers), return_exceptions=True)
    await pilot.pause()


async def open_import(app: PlantStoreApp, pilot: Pilot[None]) -> ImportScreen:
    await ready(app, pilot)
    await pilot.press("f5")
    await pilot.pause()
    screen = app.screen
    assert isinstance(screen, ImportScreen)
    return screen


async def check(pilot: Pilot[None], screen: ImportScreen, name: str) -> None:
    """Type the path, Enter, and wait for the check (a thread worker) to be shown."""
    await tab_to(pilot, screen.query_one("#import-path", Input))
    await type_over(pilot, name)
    await pilot.press("enter")
    await finished(pilot, "check-file")


async def confirm(pilot: Pilot[None], key: str = "enter") -> str:
    """Ctrl+S asks; `key` answers; wait until the sending is done. The question, as drawn."""
    await pilot.press("ctrl+s")
    await pilot.pause()
    question = pilot.app.screen
    assert isinstance(question, ChoiceScreen)
    words = [str(question.query_one("#confirm-subject", Static).render())]
    words += [str(button.label) for button in question.query(Button)]
    await pilot.press(key)
    await finished(pilot, "import-send")
    return "\n".join(words)
