"""Snapshots of the TUI's main states and dialogs (pytest-textual-snapshot), each at 80x24 (the
classic terminal) and at 110x32; regenerate with `pytest tests/ui/test_snapshots.py
--snapshot-update -k NAME`, then look at the SVGs (rsvg-convert makes PNGs of them)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from snapshot_apps.canned import canned_app, duplicate_id, refused
from snapshot_apps.support import fill, paste, settled, tab_to, type_over, until
from textual.pilot import Pilot
from textual.widgets import DirectoryTree, Input, Static

from plantstore_tui.core.config.store import ProfileStore
from plantstore_tui.core.sending import waiting
from plantstore_tui.core.sending.backoff import Backoff
from plantstore_tui.ui.app import PlantStoreApp
from plantstore_tui.ui.connection import TargetLabel
from plantstore_tui.ui.screens.confirm import ChoiceScreen
from plantstore_tui.ui.screens.first_run import FirstRunScreen
from plantstore_tui.ui.screens.import_screen import ImportScreen
from plantstore_tui.ui.screens.profile_editor import ProfileEditor
from plantstore_tui.ui.screens.send import SendScreen

SnapCompare = Callable[..., bool]
Size = tuple[int, int]

# Every picture at both sizes: the classic terminal, and a roomier one.
SIZES = pytest.mark.parametrize("size", [(80, 24), (110, 32)], ids=["80x24", "110x32"])


async def _connected(pilot: Pilot[Any]) -> SendScreen:
    await settled(pilot.app, pilot)
    await pilot.pause()
    screen = pilot.app.screen
    assert isinstance(screen, SendScreen)
    return screen


async def _send(pilot: Pilot[Any], name: str, id: str, tag: str) -> None:
    screen = await _connected(pilot)
    if tag.isprintable():
        await fill(pilot, screen, name, id, tag)
    else:
        # A control character reaches a field in a paste only: typed, ESC is a key of its own.
        await fill(pilot, screen, name, id)
        await paste(pilot, tag)
    await pilot.press("ctrl+s")
    await pilot.pause()
    await settled(pilot.app, pilot)
    # The log is at its end, but its scrollbar's thumb is sometimes drawn where it was (the
    # log's force-scroll before the scrollbar exists): moved there again, the picture is steady.
    screen.log_panel.scroll_home(animate=False, immediate=True)
    screen.log_panel.scroll_end(animate=False, immediate=True)
    await pilot.pause()


@SIZES
def test_empty_form(snap_compare: SnapCompare, size: Size) -> None:
    assert snap_compare(canned_app(), terminal_size=size, run_before=_connected)


@SIZES
def test_invalid_input(snap_compare: SnapCompare, size: Size) -> None:
    async def run_before(pilot: Pilot[Any]) -> None:
        await _send(pilot, name="", id="12b", tag="in\x1bdoor")

    assert snap_compare(canned_app(), terminal_size=size, run_before=run_before)


@SIZES
def test_success_entry(snap_compare: SnapCompare, size: Size) -> None:
    async def run_before(pilot: Pilot[Any]) -> None:
        await _send(pilot, name="Monstera deliciosa", id="41", tag="indoor")

    assert snap_compare(canned_app(), terminal_size=size, run_before=run_before)


@SIZES
def test_error_entry(snap_compare: SnapCompare, size: Size) -> None:
    async def run_before(pilot: Pilot[Any]) -> None:
        await _send(pilot, name="Ivy", id="7", tag="climber")

    assert snap_compare(canned_app(duplicate_id), terminal_size=size, run_before=run_before)


@SIZES
def test_network_failure(
    snap_compare: SnapCompare, size: Size, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The next try ten minutes away, its count in minutes: the same picture on any machine.
    monkeypatch.setattr(waiting, "Backoff", lambda: Backoff(first=600, most=600, draw=lambda: 1.0))

    async def run_before(pilot: Pilot[Any]) -> None:
        await _send(pilot, name="Fern", id="3", tag="")

    assert snap_compare(canned_app(refused), terminal_size=size, run_before=run_before)


@SIZES
def test_help_screen(snap_compare: SnapCompare, size: Size) -> None:
    async def run_before(pilot: Pilot[Any]) -> None:
        await _connected(pilot)
        await pilot.press("f1")
        await pilot.pause()

    assert snap_compare(canned_app(), terminal_size=size, run_before=run_before)


@SIZES
def test_needs_attention(snap_compare: SnapCompare, size: Size) -> None:
    async def run_before(pilot: Pilot[Any]) -> None:
        await _send(pilot, name="Ivy", id="7", tag="climber")
        await _send(pilot, name="Strelitzia nicolai", id="7", tag="")
        await pilot.press("f4")
        await pilot.pause()

    assert snap_compare(canned_app(duplicate_id), terminal_size=size, run_before=run_before)


@SIZES
def test_import_lists_every_bad_row(
    snap_compare: SnapCompare, size: Size, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _files_to_import(tmp_path, monkeypatch)

    async def run_before(pilot: Pilot[Any]) -> None:
        await _check_file(pilot, "greenhouse.csv")

    assert snap_compare(canned_app(), terminal_size=size, run_before=run_before)


def _files_to_import(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
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


async def _check_file(pilot: Pilot[Any], name: str) -> ImportScreen:
    await _connected(pilot)
    await pilot.press("f5")
    screen = pilot.app.screen
    assert isinstance(screen, ImportScreen)
    tree = screen.query_one(DirectoryTree)
    await until(pilot, lambda: len(tree.root.children) >= 3)
    await tab_to(pilot, screen.query_one("#import-path", Input))
    await type_over(pilot, name)
    await pilot.press("enter")
    await asyncio.gather(*(w.wait() for w in pilot.app.workers if w.name == "check-file"))
    await pilot.pause()
    return screen


@SIZES
def test_import_question(
    snap_compare: SnapCompare, size: Size, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _files_to_import(tmp_path, monkeypatch)

    async def run_before(pilot: Pilot[Any]) -> None:
        await _check_file(pilot, "spring.jsonl")
        await pilot.press("ctrl+s")
        await until(pilot, lambda: isinstance(pilot.app.screen, ChoiceScreen))
        await pilot.pause()

    assert snap_compare(canned_app(), terminal_size=size, run_before=run_before)


@SIZES
def test_quit_question(snap_compare: SnapCompare, size: Size) -> None:
    async def run_before(pilot: Pilot[Any]) -> None:
        await _send(pilot, name="Ivy", id="7", tag="climber")
        await pilot.press("ctrl+q")
        await until(pilot, lambda: isinstance(pilot.app.screen, ChoiceScreen))
        await pilot.pause()

    assert snap_compare(canned_app(duplicate_id), terminal_size=size, run_before=run_before)


@SIZES
def test_protected_send_question(snap_compare: SnapCompare, size: Size) -> None:
    async def run_before(pilot: Pilot[Any]) -> None:
        screen = await _connected(pilot)
        await fill(pilot, screen, name="Monstera", id="7", tag="indoor")
        await pilot.press("ctrl+s")
        await until(pilot, lambda: isinstance(pilot.app.screen, ChoiceScreen))
        await pilot.pause()

    app = canned_app(protected=True)
    assert snap_compare(app, terminal_size=size, run_before=run_before)


def _relative_config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # A relative config dir, so the path on screen is the same on every machine.
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("PLANTSTORE_CONFIG_DIR", "config")


@SIZES
def test_profile_editor(
    snap_compare: SnapCompare, size: Size, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _relative_config(tmp_path, monkeypatch)

    async def run_before(pilot: Pilot[Any]) -> None:
        await _connected(pilot)
        editor = ProfileEditor(ProfileStore())
        await pilot.app.push_screen(editor)
        home = editor.query_one("#editor-token-home", Static)
        await until(pilot, lambda: "credentials" in str(home.content))
        await pilot.pause()

    assert snap_compare(canned_app(), terminal_size=size, run_before=run_before)


@SIZES
def test_first_run(
    snap_compare: SnapCompare, size: Size, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _relative_config(tmp_path, monkeypatch)

    async def run_before(pilot: Pilot[Any]) -> None:
        await until(pilot, lambda: isinstance(pilot.app.screen, FirstRunScreen))
        await pilot.pause()

    app = PlantStoreApp(None, TargetLabel(base_url="no target yet", token_source="no profile"))
    assert snap_compare(app, terminal_size=size, run_before=run_before)


@SIZES
def test_first_run_on_a_profiles_toml_that_does_not_parse(
    snap_compare: SnapCompare, size: Size, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _relative_config(tmp_path, monkeypatch)
    (tmp_path / "config").mkdir()
    (tmp_path / "config" / "profiles.toml").write_text('[profiles.local\nbase_url = "x"\n')

    async def run_before(pilot: Pilot[Any]) -> None:
        await until(pilot, lambda: pilot.app.screen.has_class("-unreadable"))
        await pilot.pause()

    app = PlantStoreApp(None, TargetLabel(base_url="no target yet", token_source="no profile"))
    assert snap_compare(app, terminal_size=size, run_before=run_before)


# --- the light theme, as profiles.toml keeps it ------------------------------------------------


def _light(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _relative_config(tmp_path, monkeypatch)
    (tmp_path / "config").mkdir()
    (tmp_path / "config" / "profiles.toml").write_text('theme = "textual-light"\n')


def test_light_success_entry(
    snap_compare: SnapCompare, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _light(tmp_path, monkeypatch)

    async def run_before(pilot: Pilot[Any]) -> None:
        await _send(pilot, name="Monstera deliciosa", id="41", tag="indoor")

    assert snap_compare(canned_app(), terminal_size=(80, 24), run_before=run_before)


def test_light_error_entry(
    snap_compare: SnapCompare, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _light(tmp_path, monkeypatch)

    async def run_before(pilot: Pilot[Any]) -> None:
        await _send(pilot, name="Ivy", id="7", tag="climber")

    assert snap_compare(canned_app(duplicate_id), terminal_size=(80, 24), run_before=run_before)


def test_light_profile_editor(
    snap_compare: SnapCompare, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _light(tmp_path, monkeypatch)

    async def run_before(pilot: Pilot[Any]) -> None:
        await _connected(pilot)
        editor = ProfileEditor(ProfileStore())
        await pilot.app.push_screen(editor)
        home = editor.query_one("#editor-token-home", Static)
        await until(pilot, lambda: "credentials" in str(home.content))
        await pilot.pause()

    assert snap_compare(canned_app(), terminal_size=(80, 24), run_before=run_before)
