"""A key typed into the Name field to its echo painted: the TUI against a bare Textual Input.

    .venv/bin/python benchmarks/key_echo.py [--keys 40] [--rounds 3] [--gap 0.05] [--word 20]
                                            [--json]

Measured from outside the process, as an operator feels it: each program runs in a
pseudo-terminal of its own (110x32, the tests' harness tests/pty_support.py), a key goes in as
one byte, and the clock stops when the bytes the program writes back hold the field's new text.
The typed text is a de Bruijn sequence of capital consonants, so the last five characters of the
field after a key were never on screen before it: a cursor blink that redraws the old text
cannot stop the clock. After every --word keys the field is emptied (Ctrl+U) and the next five
letters typed, untimed, and awaited alone in the field, so the text stays as long as a plant's
name. The plain alternative, written here, is a bare Textual app with one focused Input.
Both run side by side: --rounds rounds of --keys keys each, the sides taking turns and each
first in turn, --gap seconds apart (a typist's pace: the app is idle when a key arrives, as it
is between an operator's keys). The TUI starts with a target on a port where nothing listens;
no key here sends anything. Goal (issue 34): the TUI's median at most 2.0x the bare Input's.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path

from result import Budget, report_latency

REPO = Path(__file__).resolve().parent.parent
# The tests' pty harness: it lives with the tests, which import nothing from here.
sys.path.insert(0, str(REPO / "tests"))
from pty_support import PtyProcess, isolated_env  # noqa: E402

# Issue 34: the TUI's median at most 2x the bare Input's, in the same run.
BUDGET = Budget("at most", 2.0)
# Keys typed under cProfile (quit with Ctrl+Q, then read it).
PROFILE = (
    "PLANTSTORE_TOKEN=x .venv/bin/python -m cProfile -o keys.prof -m plantstore_tui --base-url "
    "http://127.0.0.1:9 (type a name, Ctrl+Q), then .venv/bin/python -m pstats keys.prof"
)
ALPHABET = "BCDFGHJKLMNPQRSTVWXZ"
# Characters of the field's text that must be on screen to count as the echo of the last key.
WINDOW = 5
CTRL_U = b"\x15"
READY_SECONDS = 30.0
ECHO_SECONDS = 10.0

_BARE_INPUT = """
from textual.app import App
from textual.widgets import Input


class BareInput(App):
    def compose(self):
        yield Input(placeholder="bare input ready")


BareInput().run()
"""


def de_bruijn(alphabet: str, order: int) -> Iterator[str]:
    """Every string of `order` letters of `alphabet` once, overlapping: no window repeats."""
    size = len(alphabet)
    digits = [0] * size * order

    def walk(t: int, p: int) -> Iterator[int]:
        if t > order:
            if order % p == 0:
                yield from digits[1 : p + 1]
            return
        digits[t] = digits[t - p]
        yield from walk(t + 1, p)
        for value in range(digits[t - p] + 1, size):
            digits[t] = value
            yield from walk(t + 1, t)

    for index in walk(1, 1):
        yield alphabet[index]


class Side:
    """One program in its terminal, and the text typed into its field so far."""

    def __init__(self, name: str, terminal: PtyProcess) -> None:
        self.name = name
        self.terminal = terminal
        self.text = ""
        self.letters = de_bruijn(ALPHABET, 3)
        self.timings: list[float] = []

    def type_key(self) -> float:
        """Type the next letter; seconds from its write to its echo in the terminal's output."""
        self.text += next(self.letters)
        mark = self.terminal.mark()
        started = time.perf_counter()
        self.terminal.write(self.text[-1].encode())
        self.terminal.wait_for(self.text[-WINDOW:], ECHO_SECONDS, since=mark)
        return time.perf_counter() - started

    def start_word(self, gap: float) -> None:
        """Untimed: empty the field and type the first letters of a new text, a key a write.

        (A bare Input loses the keys that come in one read after Ctrl+U or a Backspace.) The
        echo awaited is the new text alone in the field, its padding before it: the empty field.
        """
        self.text = "".join(next(self.letters) for _ in range(WINDOW))
        mark = self.terminal.mark()
        for key in [CTRL_U, *(letter.encode() for letter in self.text)]:
            self.terminal.write(key)
            time.sleep(gap)
        self.terminal.wait_for(f"  {self.text} ", ECHO_SECONDS, since=mark)


def main() -> None:
    """Type into both programs by turns and print the medians and their ratio."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--keys", type=int, default=40, help="keys per side per round")
    parser.add_argument("--rounds", type=int, default=3, help="turns of each side")
    parser.add_argument("--gap", type=float, default=0.05, help="seconds between keys")
    parser.add_argument("--word", type=int, default=20, help="timed keys before the field empties")
    parser.add_argument("--json", action="store_true", help="end with one RESULT line")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as name, ExitStack() as stack:
        directory = Path(name)
        script = directory / "bare_input.py"
        script.write_text(_BARE_INPUT)
        tui_env = isolated_env(directory, PLANTSTORE_TOKEN="benchmark-token-not-a-secret")
        # Port 9 (discard): nothing listens there, and nothing is sent.
        tui_command = [sys.executable, "-m", "plantstore_tui", "--base-url", "http://127.0.0.1:9"]
        tui = stack.enter_context(PtyProcess(tui_command, env=tui_env, cwd=directory))
        bare = stack.enter_context(PtyProcess([sys.executable, str(script)], cwd=directory))
        tui.wait_for("ready", READY_SECONDS)
        bare.wait_for("bare input ready", READY_SECONDS)
        sides = [Side("plantstore-tui", tui), Side("bare Textual Input", bare)]
        for number in range(args.rounds):
            for side in sides[number % 2 :] + sides[: number % 2]:
                for key in range(args.keys):
                    if key % args.word == 0:
                        side.start_word(args.gap)
                    time.sleep(args.gap)
                    side.timings.append(side.type_key() * 1000)
    report_latency(
        f"key to echo painted, {args.rounds} x {args.keys} keys each,"
        f" {args.gap * 1000:g} ms apart:",
        {side.name: side.timings for side in sides},
        digits=2,
        budget=BUDGET,
        profile=PROFILE,
        figure="Key to echo in Name (pty)",
        plain_label="bare Textual Input",
        as_json=args.json,
        keys=len(sides[0].timings),
    )


if __name__ == "__main__":
    main()
