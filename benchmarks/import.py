"""`import` beside the plain alternatives, measured from outside the process, in one run.

    .venv/bin/python benchmarks/import.py [--rows 5000] [--add-rows 100] [--big-rows 1000000]

(a) `plantstore-tui import FILE` (validation, journal, concurrency 8) and (b) a plain
httpx.AsyncClient loop with 8 requests in flight sending the same rows, each as a whole process
against its own fresh reference server (`plantstore-tui serve`, another process): rows per second
from launch to exit. (c) A shell loop of `plantstore-tui add`, one process per row, over the first
--add-rows rows. (d) Peak RSS of `import --dry-run` on 10,000 rows and on --big-rows rows: memory
must not grow with the file. Every side must store exactly the rows sent, or this exits 1.
"""

from __future__ import annotations

import argparse
import csv
import os
import secrets
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import closing, contextmanager
from pathlib import Path

TOKEN_ENV = "BENCH_TOKEN"
CONCURRENCY = 8
GOAL_CLIENT_RATIO = 0.9
GOAL_ADD_RATIO = 20.0
GOAL_RSS_MIB = 120.0

_HTTPX_LOOP = """
import asyncio, csv, os, sys
import httpx

async def main(path, url, concurrency):
    rows = list(csv.DictReader(open(path, newline="", encoding="utf-8")))
    headers = {"Authorization": "Bearer " + os.environ["BENCH_TOKEN"]}
    limit = asyncio.Semaphore(concurrency)
    async with httpx.AsyncClient(headers=headers) as client:
        async def send(row):
            body = {"id": int(row["id"]), "name": row["name"]}
            if row["tag"]:
                body["tag"] = row["tag"]
            async with limit:
                answer = await client.post(url + "/plants", json=body)
                answer.raise_for_status()
        await asyncio.gather(*(send(row) for row in rows))

asyncio.run(main(sys.argv[1], sys.argv[2], int(sys.argv[3])))
"""


def write_rows(path: Path, count: int, first: int = 1) -> Path:
    with path.open("w", newline="", encoding="utf-8") as file:
        writer = csv.writer(file)
        writer.writerow(["name", "id", "tag"])
        for index in range(first, first + count):
            writer.writerow([f"Plant number {index}", index, "bench" if index % 2 else ""])
    return path


@contextmanager
def server(directory: Path, token: str) -> Iterator[tuple[str, Path]]:
    """A reference server in its own process on a fresh database: its URL and database."""
    db = directory / f"plants-{secrets.token_hex(4)}.sqlite3"
    command = [sys.executable, "-m", "plantstore_tui", "serve", "--port", "0", "--db", str(db)]
    command += ["--token-env", TOKEN_ENV]
    env = {**os.environ, TOKEN_ENV: token}
    with subprocess.Popen(
        command, env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True
    ) as process:
        try:
            assert process.stdout is not None
            for line in process.stdout:
                if "listening on " in line:
                    break
            else:
                raise SystemExit("the reference server did not start")
            # Its access log goes on: drained, or the server blocks once the pipe is full.
            output = process.stdout
            threading.Thread(target=lambda: output.read(), daemon=True).start()
            yield line.split("listening on ", 1)[1].strip(), db
        finally:
            process.terminate()
            process.wait(10)


def stored(db: Path) -> int:
    with closing(sqlite3.connect(db)) as connection:
        (count,) = connection.execute("SELECT COUNT(*) FROM plants").fetchone()
    return int(count)


def timed(command: list[str], env: dict[str, str]) -> tuple[float, float]:
    """Seconds from launch to exit, and the process's peak RSS in MiB."""
    started = time.perf_counter()
    process = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL)
    _, status, usage = os.wait4(process.pid, 0)
    seconds = time.perf_counter() - started
    process.returncode = os.waitstatus_to_exitcode(status)
    if process.returncode != 0:
        raise SystemExit(f"{' '.join(command[:4])}... exited {process.returncode}")
    return seconds, usage.ru_maxrss / 1024


def check_stored(db: Path, expected: int, side: str) -> None:
    got = stored(db)
    if got != expected:
        raise SystemExit(f"{side}: {got} plants stored, {expected} sent")


def main() -> None:
    """Measure every side and print the ratios against the goals."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=5000)
    parser.add_argument("--add-rows", type=int, default=100)
    parser.add_argument("--big-rows", type=int, default=1_000_000)
    args = parser.parse_args()
    token = secrets.token_urlsafe(32)
    with tempfile.TemporaryDirectory() as name:
        directory = Path(name)
        rows = write_rows(directory / "rows.csv", args.rows)
        env = {
            **os.environ,
            TOKEN_ENV: token,
            "PLANTSTORE_TOKEN": token,
            "PLANTSTORE_DATA_DIR": str(directory / "data"),
            "PLANTSTORE_CONFIG_DIR": str(directory / "config"),
        }
        cli = [sys.executable, "-m", "plantstore_tui"]

        with server(directory, token) as (url, db):
            ours, _ = timed([*cli, "import", str(rows), "--base-url", url], env)
            check_stored(db, args.rows, "import")
        with server(directory, token) as (url, db):
            loop = [sys.executable, "-c", _HTTPX_LOOP, str(rows), url, str(CONCURRENCY)]
            plain, _ = timed(loop, env)
            check_stored(db, args.rows, "httpx loop")
        with server(directory, token) as (url, db):
            started = time.perf_counter()
            with rows.open(newline="", encoding="utf-8") as file:
                for index, row in enumerate(csv.DictReader(file)):
                    if index == args.add_rows:
                        break
                    command = [*cli, "add", "--name", row["name"], "--id", row["id"]]
                    if row["tag"]:
                        command += ["--tag", row["tag"]]
                    subprocess.run(
                        [*command, "--base-url", url],
                        env=env,
                        check=True,
                        stdout=subprocess.DEVNULL,
                    )
            shell = time.perf_counter() - started
            check_stored(db, args.add_rows, "add loop")

        small = write_rows(directory / "small.csv", 10_000)
        big = write_rows(directory / "big.csv", args.big_rows)
        _, small_rss = timed([*cli, "import", str(small), "--dry-run"], env)
        big_seconds, big_rss = timed([*cli, "import", str(big), "--dry-run"], env)

    ours_rate, plain_rate, add_rate = args.rows / ours, args.rows / plain, args.add_rows / shell
    print(f"rows: {args.rows} (add loop: {args.add_rows}), concurrency {CONCURRENCY}, loopback")
    print(f"  plantstore-tui import     {ours:7.2f} s  {ours_rate:8.0f} rows/s")
    print(f"  httpx.AsyncClient loop    {plain:7.2f} s  {plain_rate:8.0f} rows/s")
    print(f"  shell loop of add         {shell:7.2f} s  {add_rate:8.1f} rows/s")
    client_ratio, add_ratio = ours_rate / plain_rate, ours_rate / add_rate
    print(
        f"import / httpx loop: {client_ratio:.2f}x (goal >= {GOAL_CLIENT_RATIO}x): "
        f"{'met' if client_ratio >= GOAL_CLIENT_RATIO else 'NOT met'}"
    )
    print(
        f"import / add loop:   {add_ratio:.1f}x (goal >= {GOAL_ADD_RATIO:.0f}x): "
        f"{'met' if add_ratio >= GOAL_ADD_RATIO else 'NOT met'}"
    )
    print(
        f"dry run peak RSS: 10,000 rows {small_rss:.1f} MiB, {args.big_rows:,} rows "
        f"{big_rss:.1f} MiB ({big_seconds:.1f} s); goal flat and <= {GOAL_RSS_MIB:.0f} MiB: "
        f"{'met' if big_rss <= GOAL_RSS_MIB and big_rss - small_rss < 10 else 'NOT met'}"
    )


if __name__ == "__main__":
    main()
