"""What the TUI's start leaves in memory: the threads it starts after the first frame, and the
name tables it does not read."""

from __future__ import annotations

import threading
from typing import Any

import pytest
from pydantic import SecretStr
from snapshot_apps.support import SIZE, app_with, ready, target_of

from plantstore_tui.core.store import opening
from plantstore_tui.ui.connection import Connection, TargetLabel, connect_to


async def test_one_thread_opens_the_ledger_then_connects(monkeypatch: pytest.MonkeyPatch) -> None:
    # Every thread that imports and allocates keeps a malloc arena of its own for good (0.2 MiB
    # of the peak RSS); the two jobs hold the GIL most of the time, so two threads are no quicker.
    done: list[tuple[str, int]] = []
    open_ledger = opening.open_ledger

    def recorded_open(*args: Any, **kwargs: Any) -> Any:
        done.append(("ledger", threading.get_ident()))
        return open_ledger(*args, **kwargs)

    monkeypatch.setattr(opening, "open_ledger", recorded_open)
    target = target_of("http://127.0.0.1:9", SecretStr("a-token-for-the-test"))

    def connect() -> Connection:
        done.append(("connect", threading.get_ident()))
        return connect_to(target)

    app = app_with(connect, TargetLabel.of(target))
    async with app.run_test(size=SIZE) as pilot:
        screen = await ready(app, pilot)
        assert screen.target == target
    assert [job for job, _ in done] == ["ledger", "connect"]
    assert done[0][1] == done[1][1] != threading.get_ident()
