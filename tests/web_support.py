"""`plantstore-tui web` as a subprocess, and a real Chromium (Debian's, driven by Playwright) to
open it: the text each page's terminal was sent, and the TUI processes the server started."""

from __future__ import annotations

import http.server
import os
import re
import shutil
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from pty_support import wait_until

STARTUP_SECONDS = 30.0
# How long a handshake's answer may take: far more than it does, so that only a hang fails.
ANSWER_SECONDS = 15.0
# What the TUI draws once its form is up (the name field's placeholder), as benchmarks/startup.py.
READY = "e.g. Monstera deliciosa"

# Every page keeps what its terminal's websocket brought, decoded, for `screen_text` to read:
# xterm.js draws on a canvas, so the page has no text to look at.
SCREEN_RECORDER = """
(() => {
  const decoder = new TextDecoder();
  window.__screen = "";
  const Native = window.WebSocket;
  window.WebSocket = class extends Native {
    constructor(...args) {
      super(...args);
      this.addEventListener("message", (event) => {
        if (typeof event.data !== "string") {
          window.__screen += decoder.decode(event.data, { stream: true });
        }
      });
    }
  };
})();
"""
# The recorded text without escape sequences, for `wait_for_function`.
SCREEN_TEXT = (
    r"""(since = 0) => window.__screen.slice(since).replace("""
    r"""/\x1b\[[0-9;?<>=]*[ -\/]*[@-~]|\x1b[()][0-9A-Za-z]|\x1b[=>78]/g, "")"""
)


def chromium_path() -> str | None:
    """Debian's chromium, if installed (.ci/run installs it)."""
    return shutil.which("chromium")


class WebServer:
    """A running `plantstore-tui web`: its URL with the key, and the TUI processes it started."""

    def __init__(self, process: subprocess.Popen[str], lines: list[str]) -> None:
        self.process = process
        self.lines = lines
        [self.url] = [line.strip() for line in lines if "?key=" in line]
        self.origin = self.url.split("/?", 1)[0]

    @property
    def key(self) -> str:
        """The access key the server printed."""
        return self.url.split("?key=", 1)[1]

    def output(self) -> str:
        """Everything it printed so far (stdout and stderr)."""
        return "".join(self.lines)

    def apps(self) -> list[int]:
        """The process ids of the TUIs it runs now (its children that are alive)."""
        pid = self.process.pid
        try:
            children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
        except OSError:
            return []
        return [int(child) for child in children if _alive(int(child))]


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def free_port() -> int:
    """A port of 127.0.0.1 no one listens on now, for a `web` whose printed address is another
    (`--public-url`) and so does not show the port."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
    return port


def handshake(port: int, key: str | None, origins: list[str]) -> tuple[int, socket.socket]:
    """A tab's websocket handshake to the `web` on this port of 127.0.0.1, as a browser makes
    it: the key's cookie (when given) and these Origin headers (none: no Origin at all). Its
    status, and the connection, left open for the caller to close: an accepted one runs a TUI."""
    lines = [
        "GET /ws?width=80&height=24 HTTP/1.1",
        f"Host: 127.0.0.1:{port}",
        "Upgrade: websocket",
        "Connection: Upgrade",
        "Sec-WebSocket-Version: 13",
        "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==",
        *([f"Cookie: plantstore_web_{port}={key}"] if key is not None else []),
        *(f"Origin: {origin}" for origin in origins),
    ]
    connection = socket.create_connection(("127.0.0.1", port), timeout=ANSWER_SECONDS)
    # A lone surrogate (\udc9b) is the byte it stands for: a header of bytes that are not UTF-8.
    connection.sendall(("\r\n".join(lines) + "\r\n\r\n").encode("utf-8", "surrogateescape"))
    head = b""
    while b"\r\n" not in head:
        chunk = connection.recv(4096)
        if not chunk:
            break
        head += chunk
    status_line = head.split(b"\r\n", 1)[0].decode("latin-1")
    assert status_line.startswith("HTTP/1."), f"not an HTTP answer: {status_line!r}"
    return int(status_line.split()[1]), connection


def web_command(*arguments: str) -> list[str]:
    """The command line of `plantstore-tui web` with these arguments."""
    return [sys.executable, "-m", "plantstore_tui", "web", *arguments]


@contextmanager
def running_web(*arguments: str, env: dict[str, str] | None = None) -> Iterator[WebServer]:
    """`plantstore-tui web --port 0 ARGUMENTS`, ready for browsers; stopped (SIGTERM) at the end."""
    process = subprocess.Popen(
        web_command("--port", "0", *arguments),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env={**os.environ, **(env or {})},
    )
    lines: list[str] = []
    assert process.stdout is not None
    stdout = process.stdout

    def read() -> None:
        for line in stdout:
            lines.append(line)

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    try:
        wait_until(
            lambda: any("Ctrl+C" in line for line in lines) or process.poll() is not None,
            STARTUP_SECONDS,
            what="plantstore-tui web to listen",
        )
        if process.poll() is not None:
            reader.join(5)
            raise AssertionError("plantstore-tui web ended:\n" + "".join(lines))
        yield WebServer(process, lines)
    finally:
        if process.poll() is None:
            process.terminate()
        try:
            process.wait(15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        reader.join(5)
        stdout.close()


@contextmanager
def another_server(page: str) -> Iterator[str]:
    """A plain HTTP server on another port of 127.0.0.1 that answers every GET with `page` (HTML):
    its URL. A real one, not a page a test's browser makes up: Chromium lets only a page of a
    local address reach 127.0.0.1."""
    body = page.encode()

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            self.send_response(200)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format: str, *args: Any) -> None:
            """Nothing: the test's output is no place for its requests."""

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    serving = threading.Thread(target=server.serve_forever, daemon=True)
    serving.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()
        serving.join(5)


def screen_mark(page: Any) -> int:
    """Where the page's terminal output ends now, for `screen_has(since=)`."""
    mark: int = page.evaluate("() => window.__screen.length")
    return mark


def screen_has(page: Any, text: str, timeout: float = STARTUP_SECONDS, *, since: int = 0) -> None:
    """Wait until the page's terminal was sent `text` (escape sequences left out), after the
    mark `since`."""
    page.wait_for_function(
        f"([text, since]) => ({SCREEN_TEXT})(since).includes(text)",
        arg=[text, since],
        timeout=timeout * 1000,
    )


def screen_text(page: Any, since: int = 0) -> str:
    """What the page's terminal was sent after the mark `since`, escape sequences left out."""
    text: str = page.evaluate(SCREEN_TEXT, since)
    return re.sub(r"\s+", " ", text)
