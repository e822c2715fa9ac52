"""Plants typed in one burst into the TUI, against the same plants sent by a plain client loop.

    .venv/bin/python benchmarks/typing_burst.py [--records 200] [--runs 1] [--deadline 60] [--json]

Both sides send to a minimal HTTP/1.1 server written here on raw asyncio, in its own process
(not the reference server, whose own cost, tens of ms a plant, would hide the client's): it
checks the Bearer token, answers every POST 200 with the Plant it described, and notes every
plant in the order it came and the time (CLOCK_MONOTONIC, which every process on the machine
shares) it stored the last. (a) The real TUI in a pseudo-terminal of 110x32 (the tests' harness,
tests/pty_support.py): every record (Name, Tab, ID, Tab, Tag, Enter) is typed in ONE write, and
the clock runs from that write to the server's storing of the last plant; the last plant's entry
painted is the event that says the burst is over. (b) The same NewPlant bodies posted one after
another with one httpx.Client and the token, timed the same way. Each run takes a fresh server;
with --runs above 1 the sides take turns, each first in turn, and the medians are compared. Both
must store exactly the plants typed, field by field, in order; otherwise, or past the deadline,
this prints what arrived and exits 1. Goal (issue 26): the TUI at most 12x the loop.
"""

from __future__ import annotations

import argparse
import json
import secrets
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import httpx
from result import emit

REPO = Path(__file__).resolve().parent.parent
# One harness for the tests and this benchmark: it lives with the tests, which import nothing
# from here.
sys.path.insert(0, str(REPO / "tests"))
from burst_support import Record, Row, describe_arrival, expected_rows, keys_for  # noqa: E402
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
CTRL_Q = b"\x11"
GOAL_RATIO = 12.0

# The server: HTTP/1.1 with keep-alive; a POST with the token is answered 200 with the Plant it
# described and noted with the time; GET /arrivals gives the plants in order and that time.
_SERVER = r"""
import asyncio, json, sys, time

authorization = b"Bearer " + sys.argv[1].encode()
arrivals = []
last = None

async def serve(reader, writer):
    global last
    try:
        while True:
            head = await reader.readuntil(b"\r\n\r\n")
            headers = {}
            for line in head.split(b"\r\n")[1:]:
                name, _, value = line.partition(b":")
                headers[name.strip().lower()] = value.strip()
            length = int(headers.get(b"content-length", 0))
            body = await reader.readexactly(length) if length else b""
            status = b"200 OK"
            if head.startswith(b"GET /arrivals"):
                answer = json.dumps({"rows": arrivals, "last": last}).encode()
            elif headers.get(b"authorization") != authorization:
                status, answer = b"401 Unauthorized", b'{"code": 401, "message": "token"}'
            else:
                sent = json.loads(body)
                arrivals.append([sent["id"], sent["name"], sent.get("tag")])
                last = time.monotonic()
                plant = {"name": sent["name"]}
                if "tag" in sent:
                    plant["tag"] = sent["tag"]
                answer = json.dumps(plant).encode()
            writer.write(
                b"HTTP/1.1 " + status + b"\r\nContent-Type: application/json\r\n"
                + b"Content-Length: " + str(len(answer)).encode() + b"\r\n\r\n" + answer
            )
    except (asyncio.IncompleteReadError, ConnectionError):
        pass
    finally:
        writer.close()

async def main():
    server = await asyncio.start_server(serve, "127.0.0.1", 0)
    print("listening on", server.sockets[0].getsockname()[1], flush=True)
    async with server:
        await server.serve_forever()

asyncio.run(main())
"""


class Failed(Exception):
    """A side did not store exactly the plants typed: the message says what arrived."""


def make_records(count: int) -> list[Record]:
    """Varied names (spaces, accents, an emoji), ids counting up, every third tag empty."""
    return [
        (f"{NAMES[i % len(NAMES)]} {i + 1}", str(FIRST_ID + i), TAGS[i % len(TAGS)])
        for i in range(count)
    ]


@dataclass(frozen=True, slots=True)
class Server:
    """The benchmark's server of one run: where it listens, its token, a scratch directory."""

    base_url: str
    token: str
    directory: Path

    def arrivals(self) -> tuple[list[Row], float | None]:
        """The plants stored, in order, and when the last was stored (time.monotonic)."""
        with urllib.request.urlopen(f"{self.base_url}/arrivals", timeout=10) as answer:
            said = json.load(answer)
        return [(int(i), str(name), tag) for i, name, tag in said["rows"]], said["last"]


@contextmanager
def minimal_server(directory: Path) -> Iterator[Server]:
    """The server above in its own process, fresh: what a side sends to."""
    token = secrets.token_urlsafe(32)
    with subprocess.Popen(
        [sys.executable, "-c", _SERVER, token], stdout=subprocess.PIPE, text=True
    ) as process:
        try:
            assert process.stdout is not None
            line = process.stdout.readline()
            if not line.startswith("listening on "):
                raise SystemExit("the benchmark's server did not start")
            yield Server(f"http://127.0.0.1:{line.split()[-1]}", token, directory)
        finally:
            process.terminate()
            process.wait(10)


def stored_since(server: Server, records: Sequence[Record], started: float) -> float:
    """Seconds from `started` (time.monotonic) to the last plant stored; Failed unless all were."""
    expected = expected_rows(records)
    stored, last = server.arrivals()
    if stored != expected or last is None:
        raise Failed(describe_arrival(expected, stored))
    return last - started


def time_client_loop(server: Server, records: Sequence[Record], deadline: float) -> float:
    """(b): the plants posted one after another with one httpx.Client; seconds to all stored."""
    from plantstore_tui.core.plant.models import NewPlant

    bodies = [
        NewPlant(id=int(plant_id), name=name, tag=tag or None).model_dump(exclude_none=True)
        for name, plant_id, tag in records
    ]
    headers = {"Authorization": f"Bearer {server.token}"}
    with httpx.Client(base_url=server.base_url, headers=headers, timeout=10) as client:
        started = time.monotonic()
        for body in bodies:
            response = client.post("/plants", json=body)
            if response.status_code != 200:
                raise Failed(f"plant {body['id']} refused: {response.status_code} {response.text}")
            if time.monotonic() > deadline:
                raise Failed("past the deadline")
    return stored_since(server, records, started)


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
        started = time.monotonic()
        terminal.write(keys)
        try:
            terminal.wait_for(
                f"Created plant {records[-1][1]}", max(0.0, deadline - time.monotonic()), since=mark
            )
        except (TimeoutError, EOFError) as exc:
            raise Failed(f"the TUI did not show the last plant created: {exc}") from None
        elapsed = stored_since(server, records, started)
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
    with tempfile.TemporaryDirectory() as directory, minimal_server(Path(directory)) as server:
        try:
            return side(server, records, time.monotonic() + limit)
        except Failed as exc:
            return str(exc)


def main() -> None:
    """Time both sides in one run and print times, plants/s and the ratio."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--records", type=int, default=200, help="plants typed in the burst")
    parser.add_argument("--runs", type=int, default=1, help="runs of each side, taking turns")
    parser.add_argument(
        "--deadline", type=float, default=60.0, help="seconds each side may take before it fails"
    )
    parser.add_argument("--json", action="store_true", help="end with one RESULT line")
    args = parser.parse_args()
    if args.records < 1:
        parser.error("--records must be at least 1")
    records = make_records(args.records)
    keys = keys_for(records)

    sides: list[tuple[str, Side]] = [
        ("httpx.Client loop, one by one", time_client_loop),
        ("TUI, one burst", time_tui_burst),
    ]
    results: dict[str, list[float | str]] = {label: [] for label, _ in sides}
    for number in range(args.runs):
        for label, side in sides[number % 2 :] + sides[: number % 2]:
            results[label].append(measure(side, records, args.deadline))

    print(f"records: {args.records}, typed as one write of {len(keys):,} bytes; {args.runs} run(s)")
    print(f"{'':32} {'all stored':>12} {'plants/s':>10}")
    medians: dict[str, float] = {}
    failures: list[str] = []
    for label, runs in results.items():
        times = [r for r in runs if isinstance(r, float)]
        failures += [f"{label} FAILED: {r}" for r in runs if isinstance(r, str)]
        if len(times) == len(runs):
            medians[label] = statistics.median(times)
            print(
                f"{label:32} {medians[label] * 1000:9.1f} ms {args.records / medians[label]:10.1f}"
            )
        else:
            print(f"{label:32} {'failed':>12}")
    for failure in failures:
        print(f"\n{failure}", file=sys.stderr)
    if failures:
        raise SystemExit(1)
    loop, tui = medians["httpx.Client loop, one by one"], medians["TUI, one burst"]
    ratio = tui / loop
    verdict = "met" if ratio <= GOAL_RATIO else "NOT met"
    print(f"\nratio TUI / loop: {ratio:.2f}x (goal <= {GOAL_RATIO:g}x): {verdict}")
    if args.json:
        emit(
            f"{args.records} records typed as one write, all stored",
            f"{tui:.2f} s",
            f"httpx.Client loop of the same bodies {loop:.2f} s",
            ratio,
            f"<= {GOAL_RATIO:.0f}x",
            ratio <= GOAL_RATIO,
            runs=args.runs,
        )


if __name__ == "__main__":
    main()
