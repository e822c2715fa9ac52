"""The pseudo-terminal harness itself, on small Python programs instead of the TUI."""

from __future__ import annotations

import hashlib
import os
import signal
import sys
import time
from pathlib import Path

import pytest
from pty_support import PtyProcess, strip_ansi, wait_until

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="needs a POSIX pseudo-terminal")


def python(code: str) -> list[str]:
    return [sys.executable, "-c", code]


def test_the_terminal_has_its_size_and_type() -> None:
    code = (
        "import os\n"
        "size = os.get_terminal_size()\n"
        "print(f'{size.columns}x{size.lines}', os.environ['TERM'])\n"
    )
    with PtyProcess(python(code), columns=90, rows=20) as terminal:
        terminal.wait_for("90x20 xterm-256color")
        assert terminal.wait_exit() == 0


def test_escapes_are_removed_even_when_split_between_writes() -> None:
    code = (
        "import sys, time\n"
        "parts = ['\\x1b[1mhel', 'lo\\x1b[0m \\x1b[', '31mred\\x1b]0;title\\x07', ' done\\n']\n"
        "for part in parts:\n"
        "    sys.stdout.write(part); sys.stdout.flush(); time.sleep(0.05)\n"
    )
    with PtyProcess(python(code)) as terminal:
        text = terminal.wait_for("done")
        assert terminal.wait_exit() == 0
    assert "hello red done" in text
    assert "\x1b" not in text
    assert b"\x1b[31m" in terminal.raw_output()


def test_strip_ansi_keeps_text_and_newlines() -> None:
    assert strip_ansi("\x1b[2J\x1b[1;1Ha\x1b(Bb\x1b7\r\nc\x07") == "ab\nc"


def test_one_write_reaches_the_program_whole() -> None:
    data = ("Aloë vera\t503\t\r" * 300).encode()
    code = (
        "import hashlib, os, sys, tty\n"
        "tty.setraw(0); print('raw', flush=True)\n"
        f"want, got = {len(data)}, b''\n"
        "while len(got) < want:\n"
        "    got += os.read(0, 65536)\n"
        "print('sha', hashlib.sha256(got).hexdigest(), flush=True)\n"
    )
    with PtyProcess(python(code)) as terminal:
        terminal.wait_for("raw")
        terminal.write(data)
        terminal.wait_for(f"sha {hashlib.sha256(data).hexdigest()}")
        assert terminal.wait_exit() == 0


def test_since_looks_only_at_what_comes_next() -> None:
    code = (
        "import sys\n"
        "print('first', flush=True)\n"
        "for line in sys.stdin: print('echo', line.strip(), flush=True)\n"
    )
    with PtyProcess(python(code)) as terminal:
        terminal.wait_for("first")
        mark = terminal.mark()
        with pytest.raises(TimeoutError, match="'first' on screen"):
            terminal.wait_for("first", 0.2, since=mark)
        terminal.write(b"second\r")
        assert "second" in terminal.wait_for("echo second", since=mark)


def test_a_program_that_ends_first_fails_the_wait_at_once() -> None:
    with PtyProcess(python("print('bye')")) as terminal:
        started = time.monotonic()
        with pytest.raises(EOFError, match="bye"):
            terminal.wait_for("never", 30)
        assert time.monotonic() - started < 10
        assert terminal.wait_exit() == 0


def test_send_signal_reaches_the_program() -> None:
    code = (
        "import signal, sys, time\n"
        "def stop(*_): print('terminated', flush=True); sys.exit(3)\n"
        "signal.signal(signal.SIGTERM, stop); print('waiting', flush=True); time.sleep(30)\n"
    )
    with PtyProcess(python(code)) as terminal:
        terminal.wait_for("waiting")
        terminal.send_signal(signal.SIGTERM)
        terminal.wait_for("terminated")
        assert terminal.wait_exit() == 3


def test_close_kills_the_whole_process_group() -> None:
    code = (
        "import subprocess, sys, time\n"
        "child = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)'])\n"
        "print('child', child.pid, 'end', flush=True); time.sleep(60)\n"
    )
    terminal = PtyProcess(python(code))
    text = terminal.wait_for("end")
    grandchild = int(text.split("child", 1)[1].split()[0])
    terminal.close()
    assert terminal.returncode == -signal.SIGKILL

    def gone() -> bool:
        try:
            os.kill(grandchild, 0)
        except ProcessLookupError:
            return True
        # Killed but not yet reaped by whoever adopted it: a zombie runs nothing.
        try:
            stat = Path(f"/proc/{grandchild}/stat").read_text()
        except FileNotFoundError:  # reaped meanwhile; or no /proc, and only kill() can tell
            return Path("/proc").is_dir()
        return stat.rsplit(")", 1)[1].split()[0] in {"Z", "X"}

    assert wait_until(gone, 10, what="the grandchild gone")


def test_wait_until_returns_the_value_or_times_out() -> None:
    values = iter([None, 0, "found"])
    assert wait_until(lambda: next(values), 5, interval=0.001) == "found"
    with pytest.raises(TimeoutError, match="nothing"):
        wait_until(lambda: None, 0.05, what="nothing")


def test_wait_until_stops_when_the_program_has_ended() -> None:
    with PtyProcess(python("print('bye')")) as terminal:
        terminal.wait_exit()
        with pytest.raises(EOFError, match="ended while waiting for rows"):
            wait_until(lambda: False, 30, what="rows", process=terminal)
