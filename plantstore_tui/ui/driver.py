"""Textual's Linux and macOS driver, made to end in order when the terminal goes away (POSIX only).

A closed window or a dropped SSH session hangs the terminal up: from then on every write to it
fails with EIO, and the kernel sends SIGHUP and SIGCONT to the session leader. Textual's writer
thread ends at its first failed write, leaving a queue 30 writes deep that nothing drains: the
app's last frames and the terminal reset then fill it, and the shutdown blocks in `Queue.put`
for good. Its SIGCONT handler meanwhile restarts application mode on the dead terminal, with a
second writer thread that dies the same way and a second input thread.
"""

from __future__ import annotations

import errno
import io
import termios
from typing import TYPE_CHECKING, Any

from textual.drivers.linux_driver import LinuxDriver

from plantstore_tui.ui.textual_compat import replace_writer_file

if TYPE_CHECKING:
    from _typeshed import ReadableBuffer
    from textual.app import App


class _TerminalWrites(io.FileIO):
    """The terminal's file descriptor, where what a gone terminal cannot take goes nowhere."""

    gone = False

    def write(self, data: ReadableBuffer, /) -> int:
        """Write `data`; once a write has failed (EIO after a hang-up), drop it."""
        if not self.gone:
            try:
                written = super().write(data)
            except OSError:
                self.gone = True
            else:
                return written
        return memoryview(data).nbytes


class HangupSafeDriver(LinuxDriver):
    """`LinuxDriver`, whose writes cannot fail and which stays down on a hung-up terminal."""

    def __init__(
        self,
        app: App[object],
        *,
        debug: bool = False,
        mouse: bool = True,
        size: tuple[int, int] | None = None,
    ) -> None:
        super().__init__(app, debug=debug, mouse=mouse, size=size)
        replace_writer_file(self, _writes_that_cannot_fail)

    def resume_application_mode(self) -> None:
        """Take the terminal back after a suspension, unless the SIGCONT came with a hang-up."""
        if not _hung_up(self.fileno):
            super().resume_application_mode()


def _writes_that_cannot_fail(output: io.TextIOWrapper[Any]) -> io.TextIOWrapper[Any]:
    return io.TextIOWrapper(
        io.BufferedWriter(_TerminalWrites(output.fileno(), "w", closefd=False)),
        encoding=output.encoding,
        errors=output.errors,
        line_buffering=output.line_buffering,
    )


def _hung_up(fd: int) -> bool:
    try:
        termios.tcgetattr(fd)
    except termios.error as error:
        return bool(error.args and error.args[0] == errno.EIO)
    except OSError:
        return False
    return False
