"""The real TUI ends when its terminal goes away, or on SIGTERM, whatever it is doing (issue 14).

A closed window or a dropped SSH session closes the terminal's far end: the terminal hangs up,
every write to it fails, and the kernel sends SIGHUP (with SIGCONT) to the session leader. Here the
TUI runs as a terminal emulator runs it, as the session leader with the pseudo-terminal as its
controlling terminal, and the test closes that far end at random moments, before and after the
first paint, with every CPU kept busy by burners (from the first paint on, or from the start for a
hang-up before it): the process must be gone within 3 s every time.
Each wait ends on an event (the marker on screen, the process's exit); the only pauses are the
random delays, which are the point of the test.
"""

from __future__ import annotations

import codecs
import contextlib
import fcntl
import os
import random
import secrets
import select
import signal
import struct
import subprocess
import sys
import termios
import threading
import time
from collections.abc import Iterator, Sequence
from pathlib import Path

import pytest
from pty_support import ClosedOnExit, isolated_env, strip_ansi
from pydantic import SecretStr

from plantstore_tui.server.runner import BackgroundServer

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="needs POSIX signals and a pty")

STARTUP_SECONDS = 20.0
ANSWER_SECONDS = 10.0
GONE_SECONDS = 3.0
# On the first frame: the status line before the connection is made.
FIRST_PAINT = "starting"
# The random moments: soon after the start or the first paint, when the issue showed.
MOST_DELAY = 0.3
CTRL_Q = b"\x11"
# What the operator is doing when the terminal closes: nothing yet, typing a plant, sending one,
# or being asked whether to quit with a plant the server refused.
ACTIVITIES = ["idle", "typing", "sending", "asking"]
HANG_UPS_PER_ACTIVITY = 3
HANG_UPS_BEFORE_PAINT = 2
BURNERS = min(len(os.sched_getaffinity(0)), 8) if hasattr(os, "sched_getaffinity") else 2

# Runs the command in its arguments with the terminal on stdin as its controlling terminal: it is
# a session leader already (start_new_session), as a shell in a terminal window is.
# It says so once the terminal is its own: a hang-up before that would only test this stub.
TERMINAL_TAKEN = "terminal taken"
_AS_SESSION_LEADER = (
    "import fcntl, os, sys, termios; "
    "fcntl.ioctl(0, termios.TIOCSCTTY, 0); "
    f"os.write(1, b'{TERMINAL_TAKEN}\\r\\n'); "
    "os.execv(sys.executable, [sys.executable, *sys.argv[1:]])"
)


class Terminal(ClosedOnExit):
    """A program in a new session whose controlling terminal is a new pseudo-terminal.

    `hang_up` closes the terminal's far end, as closing its window does; the output is drained by
    a thread from the start (waits are woken by it), and that thread is the one that closes.
    """

    def __init__(self, command: Sequence[str], env: dict[str, str]) -> None:
        self._changed = threading.Condition()
        self._text = ""
        self._decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        self._ended = False
        self._master, slave = os.openpty()
        self._hang_up_read, self._hang_up = os.pipe()
        try:
            fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 32, 110, 0, 0))
            environment = {k: v for k, v in os.environ.items() if k not in {"COLUMNS", "LINES"}}
            environment.update(TERM="xterm-256color", **env)
            self.process = subprocess.Popen(
                [sys.executable, "-c", _AS_SESSION_LEADER, *command],
                stdin=slave,
                stdout=slave,
                stderr=slave,
                env=environment,
                start_new_session=True,
            )
        except BaseException:
            for fd in (self._master, self._hang_up_read, self._hang_up):
                os.close(fd)
            raise
        finally:
            os.close(slave)
        self._reader = threading.Thread(target=self._drain, name="terminal", daemon=True)
        self._reader.start()
        self.wait_for(TERMINAL_TAKEN, STARTUP_SECONDS)

    def _drain(self) -> None:
        try:
            while True:
                ready, _, _ = select.select([self._master, self._hang_up_read], [], [])
                if self._hang_up_read in ready:
                    return
                try:
                    chunk = os.read(self._master, 65536)
                except OSError:  # EIO: the program and everything it started have closed it
                    chunk = b""
                with self._changed:
                    self._text += strip_ansi(self._decoder.decode(chunk, final=not chunk))
                    self._ended = not chunk
                    self._changed.notify_all()
                if not chunk:
                    return
        finally:
            os.close(self._master)
            os.close(self._hang_up_read)
            with self._changed:
                self._ended = True
                self._changed.notify_all()

    def mark(self) -> int:
        """Where the screen text ends now: pass it to `wait_for` to look only at what follows."""
        with self._changed:
            return len(self._text)

    def wait_for(self, marker: str, timeout: float, *, since: int = 0) -> None:
        """Wait until `marker` has been drawn; TimeoutError or EOFError with the screen's tail."""
        deadline = time.monotonic() + timeout
        with self._changed:
            while marker not in self._text[since:]:
                remaining = deadline - time.monotonic()
                if self._ended or remaining <= 0:
                    raise (EOFError if self._ended else TimeoutError)(
                        f"no {marker!r} on screen; the screen's last text:\n{self._text[-800:]}"
                    )
                self._changed.wait(remaining)

    def write(self, keys: bytes) -> None:
        """Type `keys` in one write."""
        os.write(self._master, keys)

    def hang_up(self) -> None:
        """Close the terminal, as closing its window does."""
        with contextlib.suppress(BrokenPipeError):  # the program has closed it already
            os.write(self._hang_up, b"x")
        self._reader.join()

    def close(self) -> None:
        """Kill the program's session if it still runs, then close the terminal."""
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait()
        if self._reader.is_alive():
            self.hang_up()
        os.close(self._hang_up)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[BackgroundServer]:
    """The reference server every run sends to."""
    db_path = tmp_path_factory.mktemp("hangup") / "plants.sqlite3"
    with BackgroundServer(token=SecretStr(secrets.token_urlsafe(32)), db_path=db_path) as server:
        yield server


# Burns a CPU until stopped, or until this process is gone (should it be killed before it can);
# says so first, so the test knows every CPU is busy before it goes on.
_BURN = (
    "import os, sys\nparent = os.getppid()\nsys.stdout.write('burning\\n')\nsys.stdout.flush()\n"
    "while os.getppid() == parent:\n    sum(range(100_000))\n"
)


class Burners:
    """Every CPU this process may use kept busy by a process that only burns it, from `start`
    until the test ends: around the moment that matters (the activity, the random delay, the
    hang-up and the exit), not while the TUI starts, which would only make every test slower."""

    def __init__(self) -> None:
        self._burners: list[subprocess.Popen[str]] = []

    def start(self) -> None:
        """Start the burners and return once each one burns."""
        assert not self._burners, "the burners are started once"
        for _ in range(BURNERS):
            burner = subprocess.Popen(
                [sys.executable, "-c", _BURN], stdout=subprocess.PIPE, text=True
            )
            self._burners.append(burner)
        for burner in self._burners:
            assert burner.stdout is not None
            assert burner.stdout.readline() == "burning\n"

    def stop(self) -> None:
        for burner in self._burners:
            burner.kill()
            burner.wait()
            if burner.stdout is not None:
                burner.stdout.close()


@pytest.fixture
def busy_machine() -> Iterator[Burners]:
    """Burners for this test, started by the test; stopped after it."""
    burners = Burners()
    try:
        yield burners
    finally:
        burners.stop()


def _open_tui(server: BackgroundServer, tmp_path: Path, activity: str) -> Terminal:
    # A token the server refuses, for a plant that needs attention and a question when quitting.
    token = "not-the-token" if activity == "asking" else server.token.get_secret_value()
    env = isolated_env(tmp_path, PLANTSTORE_TOKEN=token)
    return Terminal(["-m", "plantstore_tui", "--base-url", server.base_url], env)


def _begin(terminal: Terminal, activity: str, plant_id: int, busy: Burners) -> None:
    """Wait for the first paint, make every CPU busy, then start `activity` (without waiting for
    its end)."""
    terminal.wait_for(FIRST_PAINT, STARTUP_SECONDS)
    busy.start()
    plant = f"Monstera deliciosa\t{plant_id}\ttropical".encode()
    if activity == "typing":
        terminal.write(plant)
    elif activity == "sending":
        terminal.write(plant + b"\r")
    elif activity == "asking":
        mark = terminal.mark()
        terminal.write(plant + b"\r")
        terminal.wait_for("refused", ANSWER_SECONDS, since=mark)
        mark = terminal.mark()
        terminal.write(CTRL_Q)
        terminal.wait_for("settled?", ANSWER_SECONDS, since=mark)


def _gone_in_time(terminal: Terminal, what: str) -> int:
    try:
        return terminal.process.wait(GONE_SECONDS)
    except subprocess.TimeoutExpired:
        pytest.fail(f"still running {GONE_SECONDS:g} s after {what}")


@pytest.mark.parametrize(
    "activity",
    [a for a in ACTIVITIES for _ in range(HANG_UPS_PER_ACTIVITY)]
    + ["before-paint"] * HANG_UPS_BEFORE_PAINT,
)
def test_closing_the_terminal_ends_the_tui(
    server: BackgroundServer, tmp_path: Path, activity: str, plant_id: int, busy_machine: Burners
) -> None:
    with _open_tui(server, tmp_path, activity) as terminal:
        if activity in ACTIVITIES:
            _begin(terminal, activity, plant_id, busy_machine)
        else:  # before the first paint: the TUI starts on busy CPUs
            busy_machine.start()
        delay = random.uniform(0, MOST_DELAY)
        time.sleep(delay)
        terminal.hang_up()
        code = _gone_in_time(terminal, f"the terminal closed ({activity}, {delay:.3f} s)")
    # Before the app handles SIGHUP, its default action ends the process.
    assert code in {128 + signal.SIGHUP, -signal.SIGHUP}


def test_closing_the_terminal_ends_the_demo_in_order(tmp_path: Path, busy_machine: Burners) -> None:
    # Its throwaway directory goes when the app has ended in order: not on the default action of
    # SIGHUP, nor when the last resort ends the process.
    temporary = tmp_path / "tmp"
    temporary.mkdir()
    env = isolated_env(tmp_path, TMPDIR=str(temporary))
    with Terminal(["-m", "plantstore_tui", "demo"], env) as terminal:
        terminal.wait_for(FIRST_PAINT, STARTUP_SECONDS)
        busy_machine.start()
        assert list(temporary.glob("plantstore-demo-*"))
        delay = random.uniform(0, MOST_DELAY)
        time.sleep(delay)
        terminal.hang_up()
        code = _gone_in_time(terminal, f"the demo's terminal closed ({delay:.3f} s)")
    assert code == 128 + signal.SIGHUP
    assert list(temporary.glob("plantstore-demo-*")) == []


@pytest.mark.parametrize("activity", ["idle", "sending", "asking"])
def test_sigterm_ends_the_tui(
    server: BackgroundServer, tmp_path: Path, activity: str, plant_id: int, busy_machine: Burners
) -> None:
    with _open_tui(server, tmp_path, activity) as terminal:
        _begin(terminal, activity, plant_id, busy_machine)
        delay = random.uniform(0, MOST_DELAY)
        time.sleep(delay)
        terminal.process.send_signal(signal.SIGTERM)
        code = _gone_in_time(terminal, f"SIGTERM ({activity}, {delay:.3f} s)")
    assert code == 128 + signal.SIGTERM


def test_the_last_resort_ends_a_process_whose_shutdown_is_stuck() -> None:
    # The main thread blocked on a lock for good, as Textual's was on its output queue: the app's
    # loop never runs again, and the process still ends, with 128 + the signal's number.
    program = (
        "import asyncio, signal, threading\n"
        "from plantstore_tui.ui.shutdown import SignalEnd\n"
        "loop = asyncio.new_event_loop()\n"
        "SignalEnd(print, signal.SIGTERM, grace=0.2).install(loop)\n"
        "stuck = threading.Lock()\n"
        "stuck.acquire()\n"
        "print('stuck', flush=True)\n"
        "stuck.acquire()\n"
    )
    with subprocess.Popen(
        [sys.executable, "-c", program],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    ) as process:
        assert process.stdout is not None
        assert process.stdout.readline() == "stuck\n"
        process.send_signal(signal.SIGTERM)
        try:
            assert process.wait(GONE_SECONDS) == 128 + signal.SIGTERM
        finally:
            process.kill()
