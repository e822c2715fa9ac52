"""`plantstore-tui web`: where a tab comes from. A tab's connection (the websocket that starts its
TUI) is taken only from the page's own origin, even with the key's cookie, which a browser also
sends from another port of the same host; and no page may be shown in another page's frame."""

from __future__ import annotations

import contextlib
import socket
from collections.abc import Iterator

import httpx
import pytest
from pty_support import wait_until
from web_support import STARTUP_SECONDS, WebServer, free_port, handshake, running_web

from plantstore_tui.server.runner import BackgroundServer

REFUSED = "Refused a tab's connection"


def _target(server: BackgroundServer) -> tuple[list[str], dict[str, str]]:
    return ["--base-url", server.base_url], {"PLANTSTORE_TOKEN": server.token.get_secret_value()}


@contextlib.contextmanager
def _kept_open() -> Iterator[list[socket.socket]]:
    """The handshakes' connections, closed at the end: a refused one that had started a TUI
    would keep it running until then, for `apps()` to see."""
    opened: list[socket.socket] = []
    try:
        yield opened
    finally:
        for connection in opened:
            connection.close()


def _attempts(web: WebServer, port: int, origins_each: list[list[str]]) -> list[int]:
    statuses = []
    with _kept_open() as opened:
        for origins in origins_each:
            status, connection = handshake(port, web.key, origins)
            opened.append(connection)
            statuses.append(status)
        assert web.apps() == []
    return statuses


def test_a_tab_connection_from_anywhere_but_the_page_is_refused_and_starts_no_tui(
    reference_server: BackgroundServer,
) -> None:
    arguments, env = _target(reference_server)
    with running_web(*arguments, env=env) as web:
        own = web.origin
        port = int(own.rsplit(":", 1)[1])
        hostile = [
            ["http://evil.example"],
            # SameSite=Strict sends the cookie from these: the same site, another origin.
            [f"http://127.0.0.1:{port + 1}"],
            ["http://127.0.0.1"],
            [f"http://localhost:{port}"],
            [f"https://127.0.0.1:{port}"],
            # A sandboxed frame or a file.
            ["null"],
            # Not as a browser writes an origin; nor one that only starts as the page's.
            [f"{own}/"],
            [f"{own}.evil.example"],
            [f"{own}0"],
            [own, "http://evil.example"],
            # No Origin: browsers always name one on a websocket, so this is no tab of a page.
            [],
        ]
        assert _attempts(web, port, hostile) == [403] * len(hostile)
        wait_until(
            lambda: web.output().count(REFUSED) == len(hostile),
            STARTUP_SECONDS,
            what="each refusal in the server's log",
        )
        log = web.output()
        assert f"{REFUSED} from 'http://evil.example': only the page at {own} may open one" in log
        assert f"{REFUSED} that names no origin" in log
        assert f"{REFUSED} that names 2 origins" in log

        # The page's own origin: the same handshake opens a tab, and its TUI starts.
        status, connection = handshake(port, web.key, [own])
        with connection:
            assert status == 101
            wait_until(lambda: len(web.apps()) == 1, STARTUP_SECONDS, what="the tab's TUI")
        assert web.output().count(REFUSED) == len(hostile)
    # The key was printed once, as the URL to open: no refusal repeats it.
    assert web.output().count(web.key) == 1


def test_an_origin_that_would_write_to_the_terminal_is_refused_and_shown_harmless(
    reference_server: BackgroundServer,
) -> None:
    arguments, env = _target(reference_server)
    with running_web(*arguments, env=env) as web:
        port = int(web.origin.rsplit(":", 1)[1])
        # A C1 CSI byte (clear the screen), a right-to-left override, and 5,000 more characters.
        hostile = "http://evil.example\udc9b2J\u202eelpmaxe.live" + "x" * 5000
        assert _attempts(web, port, [[hostile]]) == [403]
        wait_until(lambda: REFUSED in web.output(), STARTUP_SECONDS, what="the refusal")
        assert f"{REFUSED} from 'http://evil.example\\udc9b2J\\u202eelpmaxe.live" in web.output()
        assert "(5,035 characters, first 60 shown)" in web.output()
    assert "\u202e" not in web.output()
    assert "x" * 200 not in web.output()


@pytest.mark.parametrize(
    "public_url", ["https://plants.example.org", "https://Plants.Example.org:443/tui/"]
)
def test_behind_a_reverse_proxy_only_the_public_urls_origin_opens_a_tab(
    reference_server: BackgroundServer, public_url: str
) -> None:
    arguments, env = _target(reference_server)
    port = free_port()
    served = ["--port", str(port), "--public-url", public_url]
    with running_web(*served, *arguments, env=env) as web:
        hostile = [
            # Sibling hosts: another name of the same site, its parent, plain http.
            ["https://evil.plants.example.org"],
            ["https://example.org"],
            ["http://plants.example.org"],
            ["https://plants.example.org:8443"],
            # The address it listens on is the proxy's to reach, not a page's.
            [f"http://127.0.0.1:{port}"],
        ]
        assert _attempts(web, port, hostile) == [403] * len(hostile)
        status, connection = handshake(port, web.key, ["https://plants.example.org"])
        with connection:
            assert status == 101
            wait_until(lambda: len(web.apps()) == 1, STARTUP_SECONDS, what="the tab's TUI")
        wait_until(
            lambda: web.output().count(REFUSED) == len(hostile),
            STARTUP_SECONDS,
            what="each refusal in the server's log",
        )
        assert "only the page at https://plants.example.org may open one" in web.output()


def test_every_answer_forbids_frames(reference_server: BackgroundServer) -> None:
    arguments, env = _target(reference_server)
    with running_web(*arguments, env=env) as web, httpx.Client(base_url=web.origin) as client:
        answers = [client.get("/"), client.get("/", params={"key": "not-the-key"})]
        answers.append(client.get("/", params={"key": web.key}))
        answers += [client.get("/"), client.get("/static/js/textual.js"), client.get("/nothing")]
        answers.append(client.get("/ws", headers={"Origin": "http://evil.example"}))
        assert [answer.status_code for answer in answers] == [401, 403, 303, 200, 200, 404, 403]
        for answer in answers:
            assert answer.headers["content-security-policy"] == "frame-ancestors 'none'"
            assert answer.headers["x-frame-options"] == "DENY"
