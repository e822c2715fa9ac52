"""The queue's states in the real TUI, counted by an independent server (tests/misbehaving.py).

`python -m plantstore_tui --base-url ...` runs in a pseudo-terminal of its own; the server runs in
a thread of the test and records every request it received. Nothing leaves the queue while a
question about it is open; a refused token stops it until Ctrl+R; plants wait for a deployment
that cannot be reached and go by themselves, in order and once each, when it answers; `kill -9`
while they wait loses none, and the next start offers them without sending them.
Every wait ends on an event (text on screen, a request arriving) or at a generous deadline.
"""

from __future__ import annotations

import asyncio
import re
import signal
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from ledger_support import ledger_rows
from misbehaving import (
    Action,
    Await,
    ReceivedRequest,
    Send,
    ServerThread,
    json_response,
    reserved_port,
    spec_like,
)
from pty_support import PtyProcess, isolated_env

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="needs POSIX signals and a pty")

TOKEN = "token-of-the-pty-queue-states"
# Deadlines only: each wait ends as soon as what it waits for happens.
STARTUP_SECONDS = 20.0
SCREEN_SECONDS = 20.0
# The queue's next try after the deployment comes back is at most 30 s away (its backoff's cap).
ARRIVAL_SECONDS = 60.0
EXIT_SECONDS = 10.0

ESC = b"\x1b"
F4 = b"\x1bOS"
CTRL_Q = b"\x11"
CTRL_R = b"\x12"
TAB = b"\t"

IDS = [1, 2, 3]
# The status line's word for an idle queue, not a part of another word ("already").
READY = re.compile(r"(?<![a-z])ready(?![a-z])")


def name_of(plant_id: int) -> str:
    """The name typed for the plant `plant_id`."""
    return f"Plant number {plant_id}"


def keys_of(plant_id: int) -> bytes:
    """One plant as typed: Name, Tab, ID, Tab (to Tag, left empty), Enter on Tag sends."""
    return f"{name_of(plant_id)}\t{plant_id}\t\r".encode()


def ids_sent(requests: list[ReceivedRequest]) -> list[int]:
    """The ids of the plants in these requests, in the order they arrived."""
    return [request.json()["id"] for request in requests]


@contextmanager
def tui(base_url: str, directory: Path, started: str = "ready") -> Iterator[PtyProcess]:
    """The TUI in a terminal of its own on `base_url`, its config and data in `directory`, once
    its status line says `started`."""
    env = isolated_env(directory, PLANTSTORE_TOKEN=TOKEN)
    command = [sys.executable, "-m", "plantstore_tui", "--base-url", base_url]
    with PtyProcess(command, env=env, cwd=directory) as terminal:
        terminal.wait_for(started, STARTUP_SECONDS)
        yield terminal


def type_plants(terminal: PtyProcess, ids: list[int]) -> None:
    """Type one plant per id, one write each."""
    for plant_id in ids:
        terminal.write(keys_of(plant_id))


def wait_for_all(terminal: PtyProcess, *phrases: str, since: int) -> str:
    """The screen text from `since`, once it holds every one of `phrases` (in any order: the
    status line on top is drawn before the log below it in one frame)."""

    def shown(text: str) -> bool:
        return all(phrase in text for phrase in phrases)

    shown.__name__ = f"{phrases!r} on screen"
    return terminal.wait_for(shown, SCREEN_SECONDS, since=since)


def wait_until_all_created(terminal: PtyProcess, since: int) -> None:
    """Wait until the screen, from `since`, says each plant was created and the queue is idle
    ("ready" shows only with nothing in line, in flight or needing attention)."""

    def all_created(text: str) -> bool:
        created = all(f"Created plant {plant_id}" in text for plant_id in IDS)
        return created and READY.search(text) is not None

    terminal.wait_for(all_created, SCREEN_SECONDS, since=since)


def wait_for_requests(
    server: ServerThread, count: int, terminal: PtyProcess
) -> list[ReceivedRequest]:
    """Every request the server received, once it has `count`; at the deadline, what the
    screen showed."""
    try:
        return server.wait_for_requests(count, ARRIVAL_SECONDS)
    except TimeoutError as error:
        raise TimeoutError(terminal.report(str(error))) from None


def test_plants_wait_for_a_deployment_that_is_down_and_go_by_themselves_when_it_is_back(
    tmp_path: Path,
) -> None:
    with reserved_port() as reserved:
        port = reserved.getsockname()[1]
        base_url = f"http://127.0.0.1:{port}"
        with tui(base_url, tmp_path) as terminal:
            mark = terminal.mark()
            type_plants(terminal, IDS)
            wait_for_all(terminal, "unreachable, ", " · since ", " · 3 waiting", since=mark)
            # Back in line, not in needs attention: none held, none settled.
            rows = ledger_rows(tmp_path / "data")
            assert [row[:2] for row in rows] == [(name_of(i), str(i)) for i in IDS]
            assert {(state, held) for *_, state, held in rows} <= {("queued", 0), ("sending", 0)}
            reserved.close()
            with ServerThread(spec_like, port=port) as server:
                back = terminal.mark()
                # No key pressed from here on: the queue finds the deployment back by itself.
                requests = wait_for_requests(server, len(IDS), terminal)
                assert ids_sent(requests) == IDS
                assert [request.json()["name"] for request in requests] == [
                    name_of(plant_id) for plant_id in IDS
                ]
                wait_until_all_created(terminal, since=back)
                # Once each: nothing went again once the queue was idle.
                assert ids_sent(server.requests) == IDS
                terminal.write(CTRL_Q)
                assert terminal.wait_exit(EXIT_SECONDS) == 0
            assert ids_sent(server.requests) == IDS
    assert [row[3] for row in ledger_rows(tmp_path / "data")] == ["created"] * len(IDS)


def test_kill_9_while_plants_wait_loses_none_and_a_restart_offers_them_without_sending(
    tmp_path: Path,
) -> None:
    with reserved_port() as reserved:
        port = reserved.getsockname()[1]
        base_url = f"http://127.0.0.1:{port}"
        with tui(base_url, tmp_path) as terminal:
            mark = terminal.mark()
            type_plants(terminal, IDS)
            terminal.wait_for("3 waiting", SCREEN_SECONDS, since=mark)
            terminal.send_signal(signal.SIGKILL)
            assert terminal.wait_exit(EXIT_SECONDS) == -signal.SIGKILL
        reserved.close()

        typed = [(name_of(plant_id), str(plant_id), "") for plant_id in IDS]
        assert [row[:3] for row in ledger_rows(tmp_path / "data")] == typed
        # The deployment is back when the TUI starts again: it still sends nothing by itself.
        with (
            ServerThread(spec_like, port=port) as server,
            tui(base_url, tmp_path, started="3 need attention") as terminal,
        ):
            terminal.wait_for("3 plants from an earlier session", SCREEN_SECONDS)
            mark = terminal.mark()
            terminal.write(F4)
            listed = terminal.wait_for(name_of(IDS[-1]), SCREEN_SECONDS, since=mark)
            assert "Needs attention (3)" in listed
            for plant_id in IDS:
                assert name_of(plant_id) in listed
            # Back on the form, then the quit question: every turn of the app since the start
            # had its chance to send, and none did.
            terminal.write(ESC)
            mark = terminal.mark()
            terminal.write(CTRL_Q)
            terminal.wait_for("offer them next time", SCREEN_SECONDS, since=mark)
            assert server.requests == []
            terminal.write(b"s")
            assert terminal.wait_exit(EXIT_SECONDS) == 0
        assert server.requests == []
    rows = ledger_rows(tmp_path / "data")
    assert [row[:3] for row in rows] == typed
    # Waiting in line when the process died, each is held; one on its way to a deployment that
    # could not be reached at that instant may show as of unknown fate. None was sent.
    assert {row[3] for row in rows} <= {"queued", "unknown"}
    assert all(row[4] == 1 for row in rows if row[3] == "queued")


def test_a_refused_token_stops_the_queue_until_ctrl_r(tmp_path: Path) -> None:
    token_fixed = threading.Event()

    def script(request: ReceivedRequest) -> list[Action]:
        if not token_fixed.is_set():
            error = {"error": 1401, "message": "The bearer token is not valid"}
            return [Send(json_response(401, error))]
        return spec_like(request)

    with ServerThread(script) as server, tui(server.base_url, tmp_path) as terminal:
        mark = terminal.mark()
        type_plants(terminal, IDS)
        wait_for_all(
            terminal, "token refused", "401: fix it in F2, then Ctrl+R", "3 waiting", since=mark
        )
        # One refusal: the refused plant first in line, those behind it after, none goes out.
        assert ids_sent(server.requests) == [1]
        assert [row[3:] for row in ledger_rows(tmp_path / "data")] == [("queued", 0)] * len(IDS)
        token_fixed.set()
        resumed = terminal.mark()
        terminal.write(CTRL_R)
        requests = wait_for_requests(server, len(IDS) + 1, terminal)
        assert ids_sent(requests) == [1, *IDS]
        wait_until_all_created(terminal, since=resumed)
        assert ids_sent(server.requests) == [1, *IDS]
        terminal.write(CTRL_Q)
        assert terminal.wait_exit(EXIT_SECONDS) == 0
    assert [row[3] for row in ledger_rows(tmp_path / "data")] == ["created"] * len(IDS)


def test_nothing_leaves_while_the_quit_question_is_open(tmp_path: Path) -> None:
    release = asyncio.Event()

    def script(request: ReceivedRequest) -> list[Action]:
        return [Await(release), *spec_like(request)]

    with ServerThread(script) as server, tui(server.base_url, tmp_path) as terminal:
        mark = terminal.mark()
        type_plants(terminal, IDS)
        terminal.wait_for("2 queued", SCREEN_SECONDS, since=mark)
        wait_for_requests(server, 1, terminal)
        question = terminal.mark()
        terminal.write(CTRL_Q)
        wait_for_all(
            terminal, "offer them next time", "paused for the question · 2 queued", since=question
        )
        server.release(release)
        # The plant in flight settles, its answer drawn behind the question.
        terminal.wait_for("Created plant 1", SCREEN_SECONDS, since=question)
        # A key the question itself takes (Tab to its next choice), drawn after the plant
        # settled: the app had its turns to send the next plant since, and sent none.
        mark = terminal.mark()
        terminal.write(TAB)
        terminal.wait_for("Quit, drop them", SCREEN_SECONDS, since=mark)
        assert ids_sent(server.requests) == [1]
        terminal.write(ESC)  # keep working
        requests = wait_for_requests(server, len(IDS), terminal)
        assert ids_sent(requests) == IDS
        wait_until_all_created(terminal, since=question)
        assert ids_sent(server.requests) == IDS
        terminal.write(CTRL_Q)
        assert terminal.wait_exit(EXIT_SECONDS) == 0
    assert [row[3] for row in ledger_rows(tmp_path / "data")] == ["created"] * len(IDS)
