"""The first plant's send is got ready while the plant is typed: what only a send needs (httpx's
transport, its async backend) is imported in a thread from the first key or paste a field takes,
not on the UI thread at the first Ctrl+S; an idle app imports none of it.
"""

from __future__ import annotations

import asyncio
import subprocess
import sys
import threading

import pytest
from snapshot_apps.canned import canned_app
from snapshot_apps.support import SIZE, settled
from textual import events

from plantstore_tui.core.http import client

# What the first send imports and the connected, idle app has not.
NEEDED = ("httpcore", "anyio._backends._asyncio")


class Prepared:
    """The calls of `prepare_first_send`, by thread; an event set at the first."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.threads: list[threading.Thread] = []
        self.first = asyncio.Event()
        self._loop = loop

    def __call__(self) -> None:
        self.threads.append(threading.current_thread())
        self._loop.call_soon_threadsafe(self.first.set)


@pytest.fixture
async def prepared(monkeypatch: pytest.MonkeyPatch) -> Prepared:
    calls = Prepared(asyncio.get_running_loop())
    monkeypatch.setattr(client, "prepare_first_send", calls)
    return calls


async def test_the_first_key_gets_the_send_ready_in_a_thread_once(prepared: Prepared) -> None:
    app = canned_app()
    async with app.run_test(size=SIZE) as pilot:
        await settled(app, pilot)
        assert prepared.threads == []  # connected and idle: nothing of a send imported
        await pilot.press("F")
        await asyncio.wait_for(prepared.first.wait(), 10)
        await pilot.press(*"ern", "tab", "7")
        await pilot.pause()
        for worker in [worker for worker in app.workers if worker.group == "prepare"]:
            await worker.wait()
        assert len(prepared.threads) == 1
        assert prepared.threads[0] is not threading.main_thread()


async def test_a_paste_as_the_first_thing_gets_the_send_ready(prepared: Prepared) -> None:
    app = canned_app()
    async with app.run_test(size=SIZE) as pilot:
        await settled(app, pilot)
        app.post_message(events.Paste("Strelitzia"))
        await asyncio.wait_for(prepared.first.wait(), 10)
        assert app.get_default_screen().form.field_input("name").value == "Strelitzia"
        assert len(prepared.threads) == 1


async def test_keys_that_type_nothing_get_nothing_ready(prepared: Prepared) -> None:
    app = canned_app()
    async with app.run_test(size=SIZE) as pilot:
        await settled(app, pilot)
        await pilot.press("tab", "tab", "ctrl+n", "f1", "escape")
        await pilot.pause()
        assert prepared.threads == []


def test_getting_ready_imports_what_a_first_send_needs_and_can_be_done_again() -> None:
    # A fresh interpreter: in this one, other tests have imported all of it long ago.
    script = (
        "import sys\n"
        "from plantstore_tui.core.http.client import prepare_first_send\n"
        f"needed = {NEEDED!r}\n"
        "assert not [m for m in needed if m in sys.modules], 'imported before'\n"
        "prepare_first_send()\n"
        "prepare_first_send()\n"
        "print(sorted(m for m in needed if m in sys.modules))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=60, check=False
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == str(sorted(NEEDED))


async def test_a_key_typed_while_connecting_gets_the_send_ready_after_the_connection(
    prepared: Prepared,
) -> None:
    # Not beside the connect thread: both would import Pydantic at once, and a second thread
    # would keep a malloc arena of its own.
    gate = threading.Event()
    app = canned_app(gate=gate)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press(*"Fern")
        await pilot.pause()
        assert prepared.threads == []
        gate.set()
        await asyncio.wait_for(prepared.first.wait(), 10)
        assert len(prepared.threads) == 1
