"""The send screen's session is made on the app's thread, never by a worker thread.

Found by the closed-terminal tests under load (tests/e2e/test_pty_hangup.py, about 1 run in 13):
a plant typed right after the first paint was taken into the ledger and never sent, the status
line saying "ready". The connect worker made the screen's session in its thread while a key on
the app's thread made another; the plant went into the one that was then replaced.
"""

from __future__ import annotations

import threading
from typing import Any

import pytest
from burst_support import stored_plants
from snapshot_apps.support import SIZE, app_for, settled

from plantstore_tui.core.sending import session as session_module
from plantstore_tui.server.runner import BackgroundServer
from plantstore_tui.ui.screens.send import SendScreen


async def test_a_plant_typed_while_connecting_is_sent(
    reference_server: BackgroundServer, plant_id: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    made_in_a_thread = threading.Event()
    let_it_finish = threading.Event()
    make = session_module.EntrySession.__init__

    def made_slowly_off_the_app_thread(self: Any, *args: Any, **kwargs: Any) -> None:
        # A thread that makes a session is held inside it until the plant has been typed: the
        # moment the race needs, every time.
        if threading.current_thread() is not threading.main_thread():
            made_in_a_thread.set()
            let_it_finish.wait()
        make(self, *args, **kwargs)

    monkeypatch.setattr(session_module.EntrySession, "__init__", made_slowly_off_the_app_thread)
    app = app_for(reference_server.base_url, reference_server.token)
    try:
        async with app.run_test(size=SIZE) as pilot:
            screen = app.get_default_screen()
            assert isinstance(screen, SendScreen)
            await pilot.press(*"Fern", "tab", *str(plant_id), "ctrl+s")
            let_it_finish.set()
            await settled(app, pilot)
            assert (plant_id, "Fern", None) in stored_plants(reference_server.db_path)
            assert not made_in_a_thread.is_set()
    finally:
        let_it_finish.set()
