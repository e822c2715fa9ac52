"""The driver hands the events its input thread reads to the app in batches: all of them, in the
order read, with one wake-up of the app's loop for those read before the loop took any (Textual's
own driver makes a task and a wake-up for every event: 6,000 for a burst of 200 plants)."""

from __future__ import annotations

import asyncio
import signal
import threading
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any, cast

import pytest
from textual import events

from plantstore_tui.ui.driver import HangupSafeDriver

if TYPE_CHECKING:
    from textual.app import App
    from textual.message import Message


class _App:
    """Stands in for the app: notes what is posted to it, by either of Textual's two ways."""

    def __init__(self, expected: int) -> None:
        self.posted: list[Message] = []
        self.expected = expected
        self.all_posted = asyncio.Event()

    def post_message(self, message: Message) -> bool:
        self.posted.append(message)
        if len(self.posted) == self.expected:
            self.all_posted.set()
        return True

    async def _post_message(self, message: Message) -> bool:
        return self.post_message(message)


@pytest.fixture
def _signals_kept() -> Iterator[None]:
    # The driver takes SIGTSTP and SIGCONT as it is made: the test process gets them back.
    kept = {number: signal.getsignal(number) for number in (signal.SIGTSTP, signal.SIGCONT)}
    yield
    for number, handler in kept.items():
        signal.signal(number, handler)


@pytest.mark.usefixtures("_signals_kept")
async def test_events_read_together_reach_the_app_in_order_with_one_wake_up(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    keys = [events.Key(character, character) for character in "Monstera deliciosa 1"]
    app = _App(len(keys))
    driver = HangupSafeDriver(cast("App[Any]", app))
    loop = asyncio.get_running_loop()
    wake_ups = 0
    call_soon_threadsafe = loop.call_soon_threadsafe

    def counted(*args: Any, **kwargs: Any) -> Any:
        nonlocal wake_ups
        wake_ups += 1
        return call_soon_threadsafe(*args, **kwargs)

    monkeypatch.setattr(loop, "call_soon_threadsafe", counted)
    # The input thread reads them all before the loop turns (a burst, or a busy app).
    reader = threading.Thread(target=lambda: [driver.send_message(key) for key in keys])
    reader.start()
    reader.join()
    await asyncio.wait_for(app.all_posted.wait(), 10)
    assert app.posted == keys
    assert wake_ups == 1

    # One read later, after the loop took the first: it gets a wake-up of its own.
    app.expected += 1
    app.all_posted.clear()
    later = events.Key("enter", None)
    reader = threading.Thread(target=driver.send_message, args=(later,))
    reader.start()
    reader.join()
    await asyncio.wait_for(app.all_posted.wait(), 10)
    assert app.posted == [*keys, later]
    assert wake_ups == 2
