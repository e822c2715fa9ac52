"""Ctrl+S to the answer painted, on loopback: the TUI against a bare Textual + httpx sender.

    .venv/bin/python benchmarks/send_latency.py [--sends 12] [--rounds 3] [--gap 0.05] [--json]

Measured from outside the process, as an operator feels it. Both programs run in
pseudo-terminals of their own (110x32, the tests' harness tests/pty_support.py), at the same
time, against one reference server (`plantstore-tui serve`, its own process, as a deployment
is). For each send the plant's name is typed and its echo awaited, then Ctrl+S goes in as one
byte and the clock stops when the bytes the program writes back hold "Created plant ID".
The TUI fills the rest itself (Next id and Keep tag are on: the first send, untimed, types ID
and Tag). The plain alternative is written here (run this file with --plain-app): a bare
Textual app, one Input and a RichLog, whose Ctrl+S POSTs the plant over one kept-alive
httpx.AsyncClient in a worker and writes the answer to the log. The sides take turns, --rounds
rounds of --sends sends each, each first in turn, after one first send each that opens the
connection; --gap seconds between keys (an operator's pace: the app is idle when a key comes).
The first sends are left out of the ratio and printed apart (one each, Ctrl+S half a second
after the plant is typed): a quick test of a deployment may be that one send.
Goal (issue 34): the TUI's median at most 1.5x the bare sender's.
"""

from __future__ import annotations

import argparse
import os
import secrets
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import ClassVar

from result import Budget, report_latency

REPO = Path(__file__).resolve().parent.parent
# The tests' pty harness: it lives with the tests, which import nothing from here.
sys.path.insert(0, str(REPO / "tests"))
from pty_support import PtyProcess, isolated_env  # noqa: E402

# Issue 34: the TUI's median at most 1.5x the bare sender's, in the same run.
BUDGET = Budget("at most", 1.5)
# A send under cProfile, against a reference server of its own (quit with Ctrl+Q, then read it).
PROFILE = (
    "PLANTSTORE_TOKEN=x .venv/bin/plantstore-tui serve --port 8765 --db /tmp/bench.sqlite3 "
    "--token-env PLANTSTORE_TOKEN & PLANTSTORE_TOKEN=x .venv/bin/python -m cProfile -o send.prof "
    "-m plantstore_tui --base-url http://127.0.0.1:8765 (send a few plants, Ctrl+Q), then "
    ".venv/bin/python -m pstats send.prof"
)
CTRL_S = b"\x13"
TAG = "bench"
READY_SECONDS = 30.0
ANSWER_SECONDS = 10.0
# Between the first plant typed and its Ctrl+S: an operator's glance at the form.
FIRST_PAUSE = 0.5
TOKEN_ENV = "BENCH_TOKEN"
FIRST_IDS = {"plantstore-tui": 10_000, "bare Textual + httpx": 20_000}


def plain_app(base_url: str, first_id: int) -> None:
    """The plain alternative: one Input, a RichLog, Ctrl+S POSTs in a worker over one client."""
    import httpx
    from textual import work
    from textual.app import App, ComposeResult
    from textual.widgets import Input, RichLog

    class BareSender(App[None]):
        BINDINGS: ClassVar = [("ctrl+s", "send", "Send")]

        def __init__(self) -> None:
            super().__init__()
            headers = {"Authorization": f"Bearer {os.environ[TOKEN_ENV]}"}
            self.client = httpx.AsyncClient(base_url=base_url, headers=headers)
            self.next_id = first_id

        def compose(self) -> ComposeResult:
            yield Input(placeholder="bare sender ready")
            yield RichLog()

        def action_send(self) -> None:
            field = self.query_one(Input)
            body = {"id": self.next_id, "name": field.value, "tag": TAG}
            self.next_id += 1
            field.value = ""
            self.post(body)

        @work(exit_on_error=False)
        async def post(self, body: dict[str, object]) -> None:
            answer = await self.client.post("/plants", json=body)
            verb = "Created" if answer.status_code == 200 else f"HTTP {answer.status_code}"
            self.query_one(RichLog).write(f"{verb} plant {body['id']}: {answer.text}")

        async def on_unmount(self) -> None:
            await self.client.aclose()

    BareSender().run()


@contextmanager
def reference_server(directory: Path, token: str) -> Iterator[str]:
    """`plantstore-tui serve` in its own process on a fresh database: its base URL."""
    command = [sys.executable, "-m", "plantstore_tui", "serve", "--port", "0"]
    command += ["--db", str(directory / "plants.sqlite3"), "--token-env", TOKEN_ENV]
    env = {**os.environ, TOKEN_ENV: token}
    with subprocess.Popen(
        command, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
    ) as process:
        try:
            assert process.stdout is not None
            for line in process.stdout:
                if "listening on " in line:
                    base_url = line.split("listening on ", 1)[1].strip()
                    break
            else:
                raise SystemExit("the reference server did not start")
            # The server logs every request: keep reading, so a full pipe never stalls it.
            threading.Thread(target=process.stdout.read, daemon=True).start()
            yield base_url
        finally:
            process.terminate()
            process.wait(10)


class Side:
    """One program in its terminal, the id its next plant gets, its timings."""

    def __init__(self, name: str, terminal: PtyProcess, gap: float) -> None:
        self.name = name
        self.terminal = terminal
        self.gap = gap
        self.next_id = FIRST_IDS[name]
        self.timings: list[float] = []
        self.first = 0.0

    def send(self, typed: str, pause: float | None = None) -> float:
        """Type `typed`, await its echo, press Ctrl+S `pause` seconds later (the gap between keys
        if None): seconds from the key to the answer shown."""
        plant_id = self.next_id
        self.next_id += 1
        mark = self.terminal.mark()
        self.terminal.write(typed.encode())
        self.terminal.wait_for(f"Plant {plant_id}", ANSWER_SECONDS, since=mark)
        time.sleep(self.gap if pause is None else pause)
        mark = self.terminal.mark()
        started = time.perf_counter()
        self.terminal.write(CTRL_S)
        self.terminal.wait_for(f"Created plant {plant_id}", ANSWER_SECONDS, since=mark)
        elapsed = time.perf_counter() - started
        time.sleep(self.gap)
        return elapsed

    def first_send(self) -> None:
        """Opens the connection; the TUI's ID and Tag are typed this once. Timed apart (`first`),
        Ctrl+S pressed half a second after the plant was typed, as an operator would: a quick
        test of a deployment may be this one send."""
        name = f"Plant {self.next_id}"
        typed = f"{name}\t{self.next_id}\t{TAG}" if self.name == "plantstore-tui" else name
        self.first = self.send(typed, pause=FIRST_PAUSE) * 1000

    def timed_send(self) -> None:
        """Only the name is typed: the TUI fills the next id and keeps the tag."""
        self.timings.append(self.send(f"Plant {self.next_id}") * 1000)


def main() -> None:
    """Send from both programs by turns and print the medians and their ratio."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sends", type=int, default=12, help="sends per side per round")
    parser.add_argument("--rounds", type=int, default=3, help="turns of each side")
    parser.add_argument("--gap", type=float, default=0.05, help="seconds between keys")
    parser.add_argument("--json", action="store_true", help="end with one RESULT line")
    parser.add_argument("--plain-app", nargs=2, metavar=("BASE_URL", "FIRST_ID"), help="internal")
    args = parser.parse_args()
    if args.plain_app:
        plain_app(args.plain_app[0], int(args.plain_app[1]))
        return
    token = secrets.token_urlsafe(32)
    with (
        tempfile.TemporaryDirectory() as name,
        reference_server(Path(name), token) as base_url,
        ExitStack() as stack,
    ):
        directory = Path(name)
        tui_env = isolated_env(directory, PLANTSTORE_TOKEN=token)
        tui_command = [sys.executable, "-m", "plantstore_tui", "--base-url", base_url]
        bare_command = [sys.executable, __file__, "--plain-app", base_url]
        bare_command.append(str(FIRST_IDS["bare Textual + httpx"]))
        tui = stack.enter_context(PtyProcess(tui_command, env=tui_env, cwd=directory))
        bare = stack.enter_context(PtyProcess(bare_command, env={TOKEN_ENV: token}, cwd=directory))
        tui.wait_for("ready", READY_SECONDS)
        bare.wait_for("bare sender ready", READY_SECONDS)
        sides = [
            Side("plantstore-tui", tui, args.gap),
            Side("bare Textual + httpx", bare, args.gap),
        ]
        for side in sides:
            side.first_send()
        for number in range(args.rounds):
            for side in sides[number % 2 :] + sides[: number % 2]:
                for _ in range(args.sends):
                    side.timed_send()
    firsts = ", ".join(f"{side.name} {side.first:.1f} ms" for side in sides)
    print(f"the first send of each (one, untimed in the ratio), Ctrl+S {FIRST_PAUSE:g} s after")
    print(f"the plant was typed: {firsts}")
    report_latency(
        f"Ctrl+S to the answer painted, {args.rounds} x {args.sends} sends each, taking turns:",
        {side.name: side.timings for side in sides},
        digits=1,
        budget=BUDGET,
        profile=PROFILE,
        figure="Ctrl+S to the answer painted (loopback, pty)",
        plain_label="bare Textual + httpx app",
        as_json=args.json,
        sends=len(sides[0].timings),
    )


if __name__ == "__main__":
    main()
