"""Ending on SIGTERM and SIGHUP: in order when the app can, and within seconds in any case.

The app is asked to end from a signal handler that takes no lock, and a last resort is armed at
the same moment: if the process still runs `GRACE_SECONDS` later (a terminal that takes no more
output, a thread that does not return), the terminal is put back as far as it can be and the
process ends with 128 + the signal's number, as the default action would have ended it.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import sys
import threading
import time
from collections.abc import Callable
from types import FrameType
from typing import Any

if sys.platform != "win32":
    import termios  # POSIX only: the terminal's modes, put back by the last resort

GRACE_SECONDS = 2.0

# What Textual's driver turns on, turned off: the Kitty keyboard protocol, the alternate screen,
# the hidden cursor, focus reports, mouse reports, bracketed paste and the disabled line wrap.
_TERMINAL_RESET = (
    b"\x1b[<u\x1b[?1049l\x1b[?25h\x1b[?1004l\x1b[?1000l\x1b[?1003l\x1b[?1015l\x1b[?1006l"
    b"\x1b[?1016l\x1b[?2004l\x1b[?7h"
)


class LastResort:
    """A daemon thread that ends the process `grace` seconds after `arm`, whatever else is stuck.

    Made before the app takes over the terminal: it keeps the terminal's modes to put back.
    """

    def __init__(self, grace: float = GRACE_SECONDS) -> None:
        self._grace = grace
        self._modes = _terminal_modes()
        self._wake = -1

    def start(self) -> None:
        """Start waiting for `arm`."""
        wake_read, wake = os.pipe()
        # A signal handler must never wait: a full pipe (thousands of signals) drops the byte.
        os.set_blocking(wake, False)
        threading.Thread(
            target=self._wait, args=(wake_read,), name="last-resort", daemon=True
        ).start()
        self._wake = wake

    def arm(self, signum: int) -> None:
        """Start the countdown to the end of the process; safe in a signal handler (no lock)."""
        if self._wake >= 0:
            with contextlib.suppress(OSError):
                os.write(self._wake, bytes([signum]))

    def close(self) -> None:
        """Stop waiting for `arm`; a countdown already started goes on."""
        # Forgotten before it is closed: a signal in between must not write to a reused number.
        wake, self._wake = self._wake, -1
        if wake >= 0:
            os.close(wake)

    def _wait(self, wake_read: int) -> None:
        try:
            woken = os.read(wake_read, 1)
        finally:
            os.close(wake_read)
        if not woken:
            return
        time.sleep(self._grace)
        _restore_terminal(self._modes)
        os._exit(128 + woken[0])


class SignalEnd:
    """While installed, `signals` call `end(signum)` in the app's event loop and arm a last resort.

    The handler is a Python-level one: it runs in the main thread between any two steps of
    whatever that thread is doing, even inside a lock it holds or while the event loop is stuck,
    so it takes no lock and starts no thread; it hands `end` to the loop and writes to a pipe.
    """

    def __init__(
        self,
        end: Callable[[signal.Signals], object],
        *signals: signal.Signals,
        grace: float = GRACE_SECONDS,
    ) -> None:
        self._end = end
        self._signals = signals
        self._previous: dict[signal.Signals, Any] = {}
        self._loop: asyncio.AbstractEventLoop | None = None
        self._last_resort = LastResort(grace)

    def install(self, loop: asyncio.AbstractEventLoop) -> None:
        """Handle the signals from now on; off the main thread the default actions stay."""
        self._loop = loop
        try:
            for signum in self._signals:
                self._previous[signum] = signal.signal(signum, self._handle)
        except ValueError:  # not the main thread
            self.uninstall()
            return
        self._last_resort.start()

    def uninstall(self) -> None:
        """Give the signals back to their earlier handlers."""
        for signum, previous in self._previous.items():
            signal.signal(signum, previous)
        self._previous.clear()
        self._last_resort.close()

    def _handle(self, signum: int, frame: FrameType | None) -> None:
        self._last_resort.arm(signum)
        loop = self._loop
        # An exception here would be raised in whatever code the signal interrupted.
        if loop is not None:
            with contextlib.suppress(RuntimeError):  # the loop is closed: the app has ended
                loop.call_soon_threadsafe(self._end, signal.Signals(signum))


def _terminal_modes() -> list[Any] | None:
    if sys.platform == "win32" or sys.__stdin__ is None:
        return None

    try:
        return termios.tcgetattr(sys.__stdin__.fileno())
    except (termios.error, OSError, ValueError):
        return None


def _restore_terminal(modes: list[Any] | None) -> None:
    """Put the terminal back as far as it goes, never waiting: nothing if it has hung up."""
    if sys.platform == "win32" or sys.__stderr__ is None:
        return

    # tcsetattr from a background process group would stop this process on SIGTTOU.
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGTTOU})
    try:
        # A terminal that hung up has no name any more; the path it had may be another's now.
        path = os.ttyname(sys.__stderr__.fileno())
        terminal = os.open(path, os.O_WRONLY | os.O_NOCTTY | os.O_NONBLOCK)
    except (OSError, ValueError):
        return
    try:
        if modes is not None:
            with contextlib.suppress(termios.error):
                termios.tcsetattr(terminal, termios.TCSANOW, modes)
        with contextlib.suppress(OSError):
            os.write(terminal, _TERMINAL_RESET)
    finally:
        os.close(terminal)
