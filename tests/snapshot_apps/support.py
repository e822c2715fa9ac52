"""Helpers for the TUI tests: building the app on a target, reading what the log shows."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

import pytest
from pydantic import SecretStr
from textual import events
from textual.app import App
from textual.pilot import Pilot
from textual.widget import Widget
from textual.widgets import Input, TextArea

from plantstore_tui.core.http.target import Target
from plantstore_tui.core.sending.connection import Connect, connect_to
from plantstore_tui.ui.app import PlantStoreApp
from plantstore_tui.ui.connection import TargetLabel
from plantstore_tui.ui.screens.send import SendScreen

SIZE = (110, 32)
# How many turns `until` lets the app take: each is a wait for the app to be idle (5 ms at the
# least, see conftest.py), so a loaded machine makes the bound longer in time, never shorter.
TURNS = 4000
FIXED_TIME = datetime(2026, 5, 4, 9, 30, 15, tzinfo=UTC)


def fixed_clock() -> datetime:
    """Always the same moment, so log entries and file names are predictable."""
    return FIXED_TIME


def target_of(base_url: str, token: SecretStr) -> Target:
    """A target as the command line would resolve it."""
    return Target(base_url=base_url, token=token, token_source="the test")


def app_for(base_url: str, token: SecretStr) -> PlantStoreApp:
    """The TUI sending to `base_url` with `token`, through the real client."""
    target = target_of(base_url, token)
    return PlantStoreApp(lambda: connect_to(target), TargetLabel.of(target), clock=fixed_clock)


def app_with(connect: Connect, label: TargetLabel) -> PlantStoreApp:
    """The TUI with its connection made by `connect`."""
    return PlantStoreApp(connect, label, clock=fixed_clock)


async def settled(app: PlantStoreApp, pilot: Pilot[None]) -> SendScreen:
    """Wait until the client is built (or failed to be) and no plant is queued or in flight,
    then until the screen has caught up; return the send screen."""
    screen = app.get_default_screen()
    assert isinstance(screen, SendScreen)
    await pilot.pause()
    await screen.wait_until_settled()
    await pilot.pause()
    return screen


async def workers_done(app: App[object]) -> None:
    """Wait for every worker of the app (the send queue is the service's task, not a worker).

    A worker cancelled meanwhile (the palette cancels its last search with each key) is done too.
    """
    await asyncio.gather(*(worker.wait() for worker in app.workers), return_exceptions=True)


async def until(pilot: Pilot[Any], condition: Callable[[], object], what: str = "") -> None:
    """Let the app work until `condition` holds (a bounded number of turns, no clock)."""
    for _ in range(TURNS):
        if condition():
            return
        await pilot.pause()
    pytest.fail(f"the app never got there{': ' + what if what else ''}")


async def ready(app: PlantStoreApp, pilot: Pilot[None]) -> SendScreen:
    """Wait until the client is built (or failed to be), and return the send screen."""
    screen = await settled(app, pilot)
    assert app.screen is screen
    return screen


async def tab_to(pilot: Pilot[Any], widget: Widget) -> None:
    """Press Tab (or Shift+Tab, whichever is the shorter way round) until `widget` has the focus,
    as a person looking at the screen does; a field reached so has its text selected."""
    chain = pilot.app.screen.focus_chain
    assert widget in chain, f"{widget!r} cannot be reached with Tab"
    for _ in range(len(chain)):
        focused = pilot.app.focused
        if focused is widget:
            return
        ahead = (chain.index(widget) - chain.index(focused)) % len(chain) if focused in chain else 1
        await pilot.press("tab" if ahead <= len(chain) // 2 else "shift+tab")
    assert pilot.app.focused is widget, f"Tab never reached {widget!r}"


async def _clear(pilot: Pilot[Any], *, then_text: bool) -> Input | TextArea:
    """Make the focused field ready to take new text as a person does: a one-line field's text
    selected by the Tab that reached it is typed over; else End, then Ctrl+U (delete everything
    left of the cursor). A text area's is selected with F7 (its select all). With no text to
    come (`then_text` False), what is selected is deleted (Backspace)."""
    field = pilot.app.focused
    if isinstance(field, TextArea):
        if field.text:
            await pilot.press("f7", *([] if then_text else ["backspace"]))
    elif isinstance(field, Input):
        if field.value and field.selected_text == field.value:
            if not then_text:
                await pilot.press("backspace")
        elif field.value:
            await pilot.press("end", "ctrl+u")
    else:
        pytest.fail(f"the focus is on {field!r}, not a field")
    return field


def _held(field: Input | TextArea) -> str:
    return field.text if isinstance(field, TextArea) else field.value


async def type_over(pilot: Pilot[Any], text: str) -> None:
    """Type `text` key by key in the focused field, in place of what it held (a new line is
    Enter)."""
    field = await _clear(pilot, then_text=bool(text))
    await pilot.press(*("enter" if char == "\n" else char for char in text))
    assert _held(field) == text, f"typed {text!r}, the field holds {_held(field)!r}"


async def paste(pilot: Pilot[Any], text: str) -> None:
    """Paste `text` as a terminal delivers a paste (bracketed), to whatever has the focus."""
    pilot.app.post_message(events.Paste(text))
    await pilot.pause()


async def paste_over(pilot: Pilot[Any], text: str) -> None:
    """Paste `text` in the focused field, in place of what it held: what a person pastes rather
    than types (a long name, a file's path)."""
    field = await _clear(pilot, then_text=bool(text))
    await paste(pilot, text)
    assert _held(field) == text, f"pasted {text!r}, the field holds {_held(field)!r}"


async def fill(pilot: Pilot[None], screen: SendScreen, name: str, id: str, tag: str = "") -> None:
    """Type the three fields as a person does: Tab to Name, type over what each holds, Tab to the
    next, leaving the cursor in Tag."""
    assert pilot.app.screen is screen, "the send screen is not the one shown"
    for field, text in (("name", name), ("id", id), ("tag", tag)):
        await tab_to(pilot, screen.form.field_input(field))
        await type_over(pilot, text)
    await pilot.pause()


async def send_and_wait(pilot: Pilot[None], app: PlantStoreApp, *keys: str) -> None:
    """Press keys that submit, then wait for the send to finish and its entry to be drawn."""
    await pilot.press(*keys)
    await settled(app, pilot)


async def send_fern(app: PlantStoreApp, pilot: Pilot[None], key: str) -> SendScreen:
    """Once the app is ready, send plant 1 (Fern) with `key`; returns the send screen once the
    entry is drawn."""
    screen = await ready(app, pilot)
    await fill(pilot, screen, name="Fern", id="1")
    await send_and_wait(pilot, app, key)
    return screen


def log_text(screen: SendScreen) -> str:
    """The log as plain text."""
    return screen.log_panel.plain_text()


def drawn_log(screen: SendScreen) -> str:
    """Exactly the characters the log widget draws, line by line."""
    return "\n".join("".join(segment.text for segment in line) for line in screen.log_panel.lines)
