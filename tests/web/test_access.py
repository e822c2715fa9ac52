"""`plantstore-tui web`: who may reach it. No request without the access key, page or
websocket, gets an answer or starts a TUI; the key is printed once and never logged; beyond this
machine only over HTTPS."""

from __future__ import annotations

import os
import socket
import ssl
import subprocess
from pathlib import Path

import httpx
import pytest
import trustme
from pty_support import wait_until
from web_support import STARTUP_SECONDS, running_web, web_command

from plantstore_tui.server.runner import BackgroundServer

WEBSOCKET_UPGRADE = {
    "Connection": "Upgrade",
    "Upgrade": "websocket",
    "Sec-WebSocket-Version": "13",
    "Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ==",
}


def _target(server: BackgroundServer) -> tuple[list[str], dict[str, str]]:
    return ["--base-url", server.base_url], {"PLANTSTORE_TOKEN": server.token.get_secret_value()}


def test_requests_without_the_key_or_with_a_wrong_one_are_refused_and_start_no_app(
    reference_server: BackgroundServer,
) -> None:
    arguments, env = _target(reference_server)
    with running_web(*arguments, env=env) as web, httpx.Client(base_url=web.origin) as client:
        refused = [
            client.get("/"),
            client.get("/static/js/textual.js"),
            client.get("/ws", headers=WEBSOCKET_UPGRADE),
            client.get("/", params={"key": "not-the-key"}),
            client.get("/ws", params={"key": "not-the-key"}, headers=WEBSOCKET_UPGRADE),
        ]
        port = web.origin.rsplit(":", 1)[1]
        wrong_cookie = {f"plantstore_web_{port}": "not-the-key"}
        with httpx.Client(base_url=web.origin, cookies=wrong_cookie) as other:
            refused.append(other.get("/ws", headers=WEBSOCKET_UPGRADE))
        assert [response.status_code for response in refused] == [401, 401, 401, 403, 403, 403]
        assert "access key" in refused[0].text
        assert web.apps() == []

        # The right key opens the page once, as a cookie, and takes itself out of the URL.
        opened = client.get("/", params={"key": web.key})
        assert opened.status_code == 303
        assert opened.headers["location"] == "./"
        # Other parameters stay.
        sized = client.get("/", params={"key": web.key, "fontsize": "20"})
        assert sized.headers["location"] == "./?fontsize=20"
        cookie = opened.headers["set-cookie"]
        assert "HttpOnly" in cookie
        assert "SameSite=Strict" in cookie
        page = client.get("/")
        assert page.status_code == 200
        assert "textual-terminal" in page.text
        assert web.apps() == []

    # Printed once, as the URL to open, and in no log line of any request.
    assert web.output().count(web.key) == 1


def test_a_fixed_key_from_the_environment_is_asked_for_and_never_printed(
    reference_server: BackgroundServer,
) -> None:
    arguments, env = _target(reference_server)
    fixed = "a-fixed-key-for-a-service-0123456789"
    with running_web(*arguments, env={**env, "PLANTSTORE_WEB_KEY": fixed}) as web:
        with httpx.Client(base_url=web.origin) as client:
            assert client.get("/", params={"key": fixed}).status_code == 303
            assert client.get("/", params={"key": fixed[:-1]}).status_code == 403
        assert "$PLANTSTORE_WEB_KEY" in web.output()
    assert fixed not in web.output()


def _web_exit(*arguments: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        web_command(*arguments),
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, **env},
        stdin=subprocess.DEVNULL,
        check=False,
    )


@pytest.mark.parametrize("host", ["0.0.0.0", "192.0.2.10", "plants.example.org"])
def test_beyond_loopback_without_tls_exits_2_and_says_why(
    reference_server: BackgroundServer, host: str
) -> None:
    arguments, env = _target(reference_server)
    ended = _web_exit("--host", host, "--port", "0", *arguments, env=env)
    assert ended.returncode == 2
    assert f"Serving on {host} beyond this machine needs HTTPS (--cert and --key)" in ended.stderr
    assert "Traceback" not in ended.stderr
    assert ended.stdout == ""


def test_a_fixed_key_too_short_to_guard_anything_is_a_configuration_problem(
    reference_server: BackgroundServer,
) -> None:
    arguments, env = _target(reference_server)
    ended = _web_exit("--port", "0", *arguments, env={**env, "PLANTSTORE_WEB_KEY": "short"})
    assert ended.returncode == 4
    assert "PLANTSTORE_WEB_KEY must be at least 16 printable ASCII characters" in ended.stderr
    assert "short" not in ended.stderr.replace("PLANTSTORE_WEB_KEY", "")


def test_a_certificate_without_its_key_exits_2(
    reference_server: BackgroundServer, tmp_path: Path
) -> None:
    authority = trustme.CA()
    cert = tmp_path / "cert.pem"
    authority.issue_cert("127.0.0.1").cert_chain_pems[0].write_to_path(str(cert))
    arguments, env = _target(reference_server)
    ended = _web_exit("--port", "0", "--cert", str(cert), *arguments, env=env)
    assert ended.returncode == 2
    assert "--cert and --key go together" in ended.stderr


def test_with_tls_it_serves_https_behind_the_key(
    reference_server: BackgroundServer, tmp_path: Path
) -> None:
    authority = trustme.CA()
    issued = authority.issue_cert("127.0.0.1", "localhost")
    cert, key, ca = tmp_path / "cert.pem", tmp_path / "key.pem", tmp_path / "ca.pem"
    issued.cert_chain_pems[0].write_to_path(str(cert))
    issued.private_key_pem.write_to_path(str(key))
    authority.cert_pem.write_to_path(str(ca))
    arguments, env = _target(reference_server)
    with running_web("--cert", str(cert), "--key", str(key), *arguments, env=env) as web:
        assert web.url.startswith("https://127.0.0.1:")
        with httpx.Client(
            base_url=web.origin, verify=ssl.create_default_context(cafile=str(ca))
        ) as client:
            assert client.get("/").status_code == 401
            opened = client.get("/", params={"key": web.key})
            assert opened.status_code == 303
            assert "Secure" in opened.headers["set-cookie"]
            page = client.get("/")
            assert page.status_code == 200
            # The page's websocket and scripts are reached over TLS too.
            assert f"wss://127.0.0.1:{web.origin.rsplit(':', 1)[1]}/ws" in page.text


@pytest.mark.parametrize("public_url", ["https://", "https://plants.example.org:99999"])
def test_a_public_url_a_browser_cannot_open_exits_2(
    reference_server: BackgroundServer, public_url: str
) -> None:
    arguments, env = _target(reference_server)
    ended = _web_exit("--port", "0", "--public-url", public_url, *arguments, env=env)
    assert ended.returncode == 2
    assert f"--public-url {public_url} is not an address a browser can open" in ended.stderr
    assert "Traceback" not in ended.stderr


def test_a_request_that_is_not_http_is_refused_in_words_without_the_key(
    reference_server: BackgroundServer,
) -> None:
    """aiohttp's own log of a malformed request quotes its bytes: the URL, a cookie."""
    arguments, env = _target(reference_server)
    with running_web(*arguments, env=env) as web:
        port = int(web.origin.rsplit(":", 1)[1])
        malformed = [
            f"GET /?key={web.key}\x01 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n",
            f"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n"
            f"Cookie: plantstore_web_{port}={web.key}\x01\r\n\r\n",
        ]
        for request in malformed:
            with socket.create_connection(("127.0.0.1", port), timeout=15) as connection:
                connection.sendall(request.encode())
                assert connection.recv(4096).startswith(b"HTTP/1.0 400 ")
        wait_until(
            lambda: web.output().count("not valid HTTP") == len(malformed),
            STARTUP_SECONDS,
            what="each refusal in the server's log",
        )
    assert web.output().count(web.key) == 1
    assert "Traceback" not in web.output()
