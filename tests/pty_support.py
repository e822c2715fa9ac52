"""A program in a pseudo-terminal of its own, typed at from outside as an operator would.

For tests and benchmarks that drive the real TUI in its own process: keys go in as bytes (a burst
can be one write), the screen comes out as the bytes the app drew. Standard library only, POSIX
only, and nothing from plantstore_tui: `benchmarks/typing_burst.py` uses it too.

The output is drained by a thread from the start, so the app never blocks on a full terminal, and
waits are woken by that thread as output arrives: nothing here sleeps to see whether it is time.
The one exception is `wait_until`, for conditions outside the terminal (rows in a database),
which nothing announces: it checks them at a short interval, up to a deadline.
"""

from __future__ import annotations

import codecs
import contextlib
import fcntl
import os
import re
import signal
import struct
import subprocess
import termios
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from types import TracebackType
from typing import Self, TypeVar

T = TypeVar("T")

DEFAULT_COLUMNS, DEFAULT_ROWS = 110, 32
# How much of the screen text a failed wait shows: enough to see the last frames.
_SHOWN_TAIL = 1500
_READ_SIZE = 65536

# Terminal escape sequences: CSI (cursor moves, colours, modes), OSC (titles, links; ended by BEL
# or ST), DCS/SOS/PM/APC (ended by ST), and the short ESC forms (ESC 7, ESC =, ESC ( B ...).
# Controls other than tab and newline go too: what is left is the text the app drew.
_SEQUENCE = re.compile(
    r"\x1b\[[0-?]*[ -/]*[@-~]"
    r"|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)"
    r"|\x1b[PX^_][^\x1b]*\x1b\\"
    r"|\x1b[ -/]*[0-~]"
    r"|[\x00-\x08\x0b-\x1f\x7f]"
)
# A sequence cut off at the end of what has been read so far: kept back until the rest arrives.
_UNFINISHED = re.compile(r"\x1b(?:\[[0-?]*[ -/]*|\][^\x07\x1b]*\x1b?|[PX^_][^\x1b]*\x1b?|[ -/]*)\Z")


def isolated_env(directory: Path, **extra: str) -> dict[str, str]:
    """Variables that keep a plantstore program's config and data under `directory`, and `extra`."""
    return {
        "PLANTSTORE_CONFIG_DIR": str(directory / "config"),
        "PLANTSTORE_DATA_DIR": str(directory / "data"),
        **extra,
    }


def strip_ansi(text: str) -> str:
    """`text` without terminal escape sequences and control characters (tab and newline stay)."""
    return _SEQUENCE.sub("", text)


class ClosedOnExit:
    """A context manager whose exit calls `close`, however the block ends."""

    def close(self) -> None:
        raise NotImplementedError

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()


class PtyProcess(ClosedOnExit):
    """A command in a new pseudo-terminal and a new session; a context manager that `close`s.

    `env` is added to this process's environment, with TERM=xterm-256color and no COLUMNS or
    LINES (the terminal's size is set on the terminal itself, as a real one does).
    The terminal is the program's stdin, stdout and stderr, not its controlling terminal (that
    takes code in the child between fork and exec): keys arrive as bytes, which is all a
    Textual app reads, and a signal is sent with `send_signal`, not typed.
    """

    def __init__(
        self,
        command: Sequence[str],
        *,
        env: Mapping[str, str] | None = None,
        cwd: str | Path | None = None,
        columns: int = DEFAULT_COLUMNS,
        rows: int = DEFAULT_ROWS,
    ) -> None:
        environment = {k: v for k, v in os.environ.items() if k not in {"COLUMNS", "LINES"}}
        environment["TERM"] = "xterm-256color"
        environment.update(env or {})
        self.command = list(command)
        self._changed = threading.Condition()
        self._raw = bytearray()
        self._plain: list[str] = []
        self._plain_length = 0
        self._pending = ""
        self._decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        self._ended = False
        self._closed = False
        self._master, slave = os.openpty()
        try:
            fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", rows, columns, 0, 0))
            self._process = subprocess.Popen(
                self.command,
                stdin=slave,
                stdout=slave,
                stderr=slave,
                env=environment,
                cwd=cwd,
                start_new_session=True,
            )
        except BaseException:
            os.close(self._master)
            raise
        finally:
            # Only the child holds the terminal's far end now, so its exit ends the output.
            os.close(slave)
        self._reader = threading.Thread(target=self._drain, name="pty-reader", daemon=True)
        self._reader.start()

    @property
    def pid(self) -> int:
        """The program's process id (also its process group and session id)."""
        return self._process.pid

    @property
    def returncode(self) -> int | None:
        """The exit code, or None while the program runs."""
        return self._process.poll()

    def _drain(self) -> None:
        while True:
            try:
                chunk = os.read(self._master, _READ_SIZE)
            except OSError:  # EIO: every holder of the far end has closed it
                chunk = b""
            with self._changed:
                if not chunk:
                    self._add_text(self._decoder.decode(b"", final=True), final=True)
                    self._ended = True
                    self._changed.notify_all()
                    return
                self._raw += chunk
                self._add_text(self._decoder.decode(chunk))
                self._changed.notify_all()

    def _add_text(self, text: str, *, final: bool = False) -> None:
        pending = self._pending + text
        unfinished = None if final else _UNFINISHED.search(pending)
        cut = len(pending) if unfinished is None else unfinished.start()
        self._pending = pending[cut:]
        plain = strip_ansi(pending[:cut])
        if plain:
            self._plain.append(plain)
            self._plain_length += len(plain)

    def _text_since(self, since: int) -> str:
        if len(self._plain) > 1:
            self._plain[:] = ["".join(self._plain)]
        return self._plain[0][since:] if self._plain else ""

    def mark(self) -> int:
        """Where the screen text ends now: pass it as `since` to look only at what comes next."""
        with self._changed:
            return self._plain_length

    def screen_text(self, since: int = 0) -> str:
        """The text drawn so far (from `since`), escape sequences removed."""
        with self._changed:
            return self._text_since(since)

    def raw_output(self) -> bytes:
        """Every byte the program wrote to the terminal so far."""
        with self._changed:
            return bytes(self._raw)

    def write(self, data: bytes) -> None:
        """Type `data` in one write: the program can read it all at once, as from a fast typist."""
        written = os.write(self._master, data)
        if written != len(data):
            raise OSError(f"the terminal took {written} of {len(data)} bytes in one write")

    def wait_for(
        self, expected: str | Callable[[str], bool], timeout: float = 10.0, *, since: int = 0
    ) -> str:
        """Wait until the screen text from `since` contains `expected` (or satisfies it).

        Returns that text. Textual redraws in pieces placed by cursor moves, so a long phrase may
        never appear in one piece: wait for a short marker, a word. Raises TimeoutError at the
        deadline and EOFError if the program's output ends first, each showing the screen's tail.
        """
        if isinstance(expected, str):
            wanted = f"{expected!r} on screen"

            def found(text: str) -> bool:
                return expected in text
        else:
            wanted = getattr(expected, "__name__", repr(expected))
            found = expected
        deadline = time.monotonic() + timeout
        with self._changed:
            while True:
                text = self._text_since(since)
                if found(text):
                    return text
                if self._ended:
                    raise EOFError(self._describe(f"the output ended before {wanted}", text))
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    raise TimeoutError(self._describe(f"no {wanted} after {timeout:g} s", text))
                self._changed.wait(remaining)

    def report(self, problem: str) -> str:
        """`problem`, whether the program still runs, and the last text on its screen."""
        return self._describe(problem, self.screen_text())

    def _describe(self, problem: str, text: str) -> str:
        code = self._process.poll()
        state = "still running" if code is None else f"exited with code {code}"
        return f"{problem} ({state}); the screen's last text:\n{text[-_SHOWN_TAIL:]}"

    def send_signal(self, sig: int) -> None:
        """Send `sig` to the program (not to its process group)."""
        self._process.send_signal(sig)

    def wait_exit(self, timeout: float = 10.0) -> int:
        """Wait for the program to exit and return its exit code; TimeoutError if it does not."""
        try:
            code = self._process.wait(timeout)
        except subprocess.TimeoutExpired:
            raise TimeoutError(
                self._describe(f"no exit after {timeout:g} s", self.screen_text())
            ) from None
        # The last frame and the terminal's reset are read before anyone looks at the output.
        self._reader.join(timeout)
        return code

    def close(self) -> None:
        """Kill the program's process group if it still runs, then close the terminal."""
        if self._closed:
            return
        self._closed = True
        if self._process.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self._process.pid, signal.SIGKILL)
            self._process.wait()
        self._reader.join(5)
        # A reader still blocked means something outside the group holds the terminal: its fd
        # stays open rather than be closed under the read and reused for another file.
        if not self._reader.is_alive():
            os.close(self._master)


def wait_until(
    condition: Callable[[], T],
    timeout: float,
    *,
    what: str = "the condition",
    interval: float = 0.02,
    process: PtyProcess | None = None,
) -> T:
    """Check `condition` every `interval` seconds until it returns something true, and return it.

    For what no event announces (rows in a database). TimeoutError at the deadline; with a
    `process`, EOFError as soon as its output ends, since then nothing more is coming.
    """
    deadline = time.monotonic() + timeout
    while True:
        ended = process is not None and process.returncode is not None
        result = condition()
        if result:
            return result
        if ended:
            assert process is not None
            raise EOFError(process.report(f"the program ended while waiting for {what}"))
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise TimeoutError(f"{what}: not so after {timeout:g} s")
        time.sleep(min(interval, remaining))
