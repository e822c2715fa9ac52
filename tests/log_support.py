"""A TUI that sent one plant to a server answering as a test says, and an answer whose name is
about a megabyte: the tests of the log (tests/ui/widgets/test_response_log.py) and of its cost
(tests/perf/ui/widgets/test_response_log.py)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from misbehaving import Action, MisbehavingServer, ReceivedRequest, Script, Send, json_response
from pydantic import SecretStr
from snapshot_apps.support import SIZE, app_for, fill, ready, send_and_wait
from textual.pilot import Pilot

from plantstore_tui.ui.screens.send import SendScreen

# A 200 whose name is about 1 MB, under the client's body cap.
HUGE = 1_048_560
HUGE_NAME = "R" * HUGE
# The most characters any line of an entry holds: 200 of a server's text and the words around.
LONGEST_LINE = 400


def huge_name(request: ReceivedRequest) -> list[Action]:
    """A 200 whose Plant's name is HUGE_NAME."""
    return [Send(json_response(200, {"name": HUGE_NAME}))]


@asynccontextmanager
async def sent_to(
    script: Script, name: str, tag: str = ""
) -> AsyncIterator[tuple[Pilot[None], SendScreen]]:
    """The TUI, after sending plant 5 called `name` to a server answering with `script`."""
    async with MisbehavingServer(script) as server:
        app = app_for(server.base_url, SecretStr("token-for-a-server-that-misbehaves"))
        async with app.run_test(size=SIZE) as pilot:
            screen = await ready(app, pilot)
            await fill(pilot, screen, name=name, id="5", tag=tag)
            await send_and_wait(pilot, app, "enter")
            yield pilot, screen
