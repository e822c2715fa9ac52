"""Plants typed in one burst into the TUI, against the same plants sent by a plain client loop.

    .venv/bin/python benchmarks/typing_burst.py [--records 200] [--deadline 60]

(a) The real TUI in a pseudo-terminal of 110x32 (the tests' harness, tests/pty_support.py), on a
reference server in its own process: every record (Name, Tab, ID, Tab, Tag, Enter) is typed in ONE
write, and the clock runs from that write until the server's database, read from outside every
5 ms, holds every plant. (b) The same NewPlant bodies sent one after another with one
httpx.Client and the Bearer token to a fresh server, timed the same way. Both must store exactly
the plants typed, field by field, in order; otherwise, or past the deadline, this prints what
arrived and exits 1.
"""

from __future__ import annotations

import argparse
import os
import secrets
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import httpx

from plantstore_tui.core.plant.models import NewPlant

REPO = Path(__file__).resolve().parent.parent
# One harness for the tests and this benchmark: it lives with the tests, which import nothing
# from here.
sys.path.insert(0, str(REPO / "tests"))
from burst_support import (  # noqa: E402
    Record,
    describe_arrival,
    expected_rows,
    keys_for,
    stored_plants,
)
from pty_support import PtyProcess  # noqa: E402

NAMES = [
    "Monstera deliciosa",
    "Ficus lyrata",
    "Aloë vera",
    "Kalanchoë blossfeldiana",
    "Pilea peperomioides",
    "Fougère de Boston 🌿",
    "Hoya carnosa",
    "Crassula ovata",
]
TAGS = ["indoor", "", "tropical", "succulent", "", "hanging"]
FIRST_ID = 1001
POLL_SECONDS = 0.005
CTRL_Q = b"\x11"


class Failed(Exception):
    """A side did not store exactly the plants typed: the message says what arrived."""


def make_records(count: int) -> list[Record]:
    """Varied names (spaces, accents, an emoji), ids counting up, every third tag empty."""
    return [
        (f"{NAMES[i % len(NAMES)]} {i + 1}", str(FIRST_ID + i), TAGS[i % len(TAGS)])
        for i in range(count)
    ]


class Database:
    """The server's plants, read from outside the server."""

    def __init__(self, path: Path) -> None:
        self.path = path
        # Kept open: counted every few milliseconds while a side runs.
        self._connection = sqlite3.connect(path)

    def count(self) -> int:
        """How many plants are stored now."""
        return int(self._connection.execute("SELECT count(*) FROM plants").fetchone()[0])

    def close(self) -> None:
        self._connection.close()


def wait_for_count(db: Database, count: int, deadline: float) -> None:
    """Return once the database holds `count` plants, or at the deadline (a monotonic time)."""
    while db.count() < count and time.monotonic() < deadline:
        time.sleep(POLL_SECONDS)


def check_arrival(db: Database, records: Sequence[Record], waited: float) -> None:
    """Raise Failed, saying what arrived, unless exactly `records` were stored, in order."""
    expected, stored = expected_rows(records), stored_plants(db.path)
    if stored != expected:
        raise Failed(f"after {waited:.1f} s, {describe_arrival(expected, stored)}")


@dataclass(frozen=True, slots=True)
class Server:
    """A reference server of one side: where it listens, its token, its database."""

    base_url: str
    token: str
    db: Database
    directory: Path


@contextmanager
def reference_server(directory: Path) -> Iterator[Server]:
    """`plantstore-tui serve` in its own process, as a deployment is, on a fresh database."""
    token = secrets.token_urlsafe(32)
    db_path = directory / "plants.sqlite3"
    command = [sys.executable, "-m", "plantstore_tui", "serve", "--port", "0"]
    command += ["--db", str(db_path), "--token-env", "BENCH_TOKEN"]
    env = {**os.environ, "BENCH_TOKEN": token}
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
            db = Database(db_path)
            try:
                yield Server(base_url, token, db, directory)
            finally:
                db.close()
        finally:
            process.terminate()
            process.wait(10)


def time_client_loop(server: Server, records: Sequence[Record], deadline: float) -> float:
    """(b): the plants posted one after another with one httpx.Client; seconds to all stored."""
    bodies = [
        NewPlant(id=int(plant_id), name=name, tag=tag or None).model_dump(exclude_none=True)
        for name, plant_id, tag in records
    ]
    headers = {"Authorization": f"Bearer {server.token}"}
    with httpx.Client(base_url=server.base_url, headers=headers) as client:
        started = time.perf_counter()
        for body in bodies:
            response = client.post("/plants", json=body)
            if response.status_code != 200:
                raise Failed(f"plant {body['id']} refused: {response.status_code} {response.text}")
        wait_for_count(server.db, len(records), deadline)
        elapsed = time.perf_counter() - started
    check_arrival(server.db, records, elapsed)
    return elapsed


def time_tui_burst(server: Server, records: Sequence[Record], deadline: float) -> float:
    """(a): every record typed into the TUI in one write; seconds from the write to all stored."""
    env = {
        "PLANTSTORE_TOKEN": server.token,
        "PLANTSTORE_CONFIG_DIR": str(server.directory / "config"),
        "PLANTSTORE_DATA_DIR": str(server.directory / "data"),
    }
    command = [sys.executable, "-m", "plantstore_tui", "--base-url", server.base_url]
    keys = keys_for(records)
    with PtyProcess(command, env=env, cwd=server.directory) as terminal:
        try:
            terminal.wait_for("ready", max(0.0, deadline - time.monotonic()))
        except (TimeoutError, EOFError) as exc:
            raise Failed(f"the TUI did not get ready: {exc}") from None
        mark = terminal.mark()
        started = time.perf_counter()
        terminal.write(keys)
        wait_for_count(server.db, len(records), deadline)
        elapsed = time.perf_counter() - started
        check_arrival(server.db, records, elapsed)
        # A plant whose answer the TUI has not read yet makes Ctrl+Q ask first: the last
        # plant's log entry says every answer is in.
        try:
            terminal.wait_for(f"Created plant {records[-1][1]}", 10, since=mark)
        except (TimeoutError, EOFError) as exc:
            raise Failed(f"every plant stored, but the TUI did not show the last: {exc}") from None
        terminal.write(CTRL_Q)
        try:
            code = terminal.wait_exit(10)
        except TimeoutError as exc:
            raise Failed(f"the TUI did not quit on Ctrl+Q: {exc}") from None
        if code != 0:
            raise Failed(f"the TUI exited with code {code} after Ctrl+Q")
    return elapsed


Side = Callable[[Server, Sequence[Record], float], float]


def measure(side: Side, records: Sequence[Record], limit: float) -> float | str:
    """Run one side on a server of its own: its seconds, or the words of its failure."""
    with tempfile.TemporaryDirectory() as directory, reference_server(Path(directory)) as server:
        try:
            return side(server, records, time.monotonic() + limit)
        except Failed as exc:
            return str(exc)


def main() -> None:
    """Time both sides in one run and print times, plants/s and the ratio."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--records", type=int, default=200, help="plants typed in the burst")
    parser.add_argument(
        "--deadline", type=float, default=60.0, help="seconds each side may take before it fails"
    )
    args = parser.parse_args()
    if args.records < 1:
        parser.error("--records must be at least 1")
    records = make_records(args.records)
    keys = keys_for(records)

    loop = measure(time_client_loop, records, args.deadline)
    tui = measure(time_tui_burst, records, args.deadline)

    print(f"records: {args.records}, typed as one write of {len(keys):,} bytes")
    print(f"{'':32} {'all stored':>12} {'plants/s':>10}")
    for label, result in (("httpx.Client loop, one by one", loop), ("TUI, one burst", tui)):
        if isinstance(result, float):
            print(f"{label:32} {result * 1000:9.1f} ms {args.records / result:10.1f}")
        else:
            print(f"{label:32} {'failed':>12}")
    if isinstance(loop, float) and isinstance(tui, float):
        print(f"\nratio TUI / loop: {tui / loop:.2f}x")
    failed = False
    for label, result in (("httpx.Client loop", loop), ("TUI burst", tui)):
        if isinstance(result, str):
            print(f"\n{label} FAILED: {result}", file=sys.stderr)
            failed = True
    if failed:
        raise SystemExit(1)


if __name__ == "__main__":
    main()
