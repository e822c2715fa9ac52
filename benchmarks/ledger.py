"""The ledger's costs, in one run: the submit's durable write, the F3 screen over 100,000
plants, and the file's size per 100,000 plants.

    .venv/bin/python benchmarks/ledger.py [--submits 300] [--rows 100000] [--json]

(a) A submit writes its plant to the ledger before the form clears: `Ledger.take`, one
committed transaction, timed around the real call (median and p99 over --submits), with
synchronous=FULL (what the product does: survives a power cut) beside NORMAL (survives a killed
process only), on the same disk in the same run; and a send's two further writes (sending, then
settled). (b) The history screen (F3) in the real app over --rows plants: from the key to the
first page painted, the next page, and a search typed to the filtered page painted (median of 5
each). (c) The ledger's size on disk per 100,000 settled plants. With --json, one RESULT line
(the submit's FULL write beside NORMAL; it has no goal of its own) for run_all.py ends the output.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import secrets
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from pydantic import SecretStr
from result import emit

if TYPE_CHECKING:
    from plantstore_tui.core.plant.models import NewPlant
    from plantstore_tui.core.plant.outcome import Created

RUNS = 5


def _created(plant: NewPlant) -> Created:
    from plantstore_tui.core.plant.models import Plant
    from plantstore_tui.core.plant.outcome import Created

    return Created(
        url="http://127.0.0.1:9/plants",
        sent=plant,
        status=200,
        elapsed_ms=3.0,
        plant=Plant(name=plant.name, tag=plant.tag),
        body=f'{{"name": "{plant.name}", "tag": "bench"}}',
    )


def submits(count: int, synchronous: str, path: Path) -> tuple[list[float], list[float]]:
    """Milliseconds per submit (take) and per send's writes (sending + settle)."""
    from plantstore_tui.core.plant.form import FormTexts
    from plantstore_tui.core.plant.models import NewPlant
    from plantstore_tui.core.store.opening import open_ledger
    from plantstore_tui.core.store.rows import NewRow

    ledger = open_ledger("tui", path=path)
    with ledger.db.read() as connection:
        connection.execute(f"PRAGMA synchronous = {synchronous}")
    taken, sent = [], []
    for index in range(count):
        plant = NewPlant(id=index, name=f"Plant {index}", tag="bench")
        row = NewRow(
            source="tui",
            texts=FormTexts(name=plant.name, id=str(index), tag="bench"),
            plant=plant,
            base_url="http://127.0.0.1:9",
            profile=None,
        )
        started = time.perf_counter()
        entry = ledger.take(row)
        taken.append((time.perf_counter() - started) * 1000)
        outcome = _created(plant)
        started = time.perf_counter()
        ledger.sending(entry)
        ledger.settle(entry, outcome)
        sent.append((time.perf_counter() - started) * 1000)
    ledger.close()
    return taken, sent


def fill(rows: int, path: Path) -> int:
    """A ledger of `rows` settled plants (as a day of sends leaves them); its size in bytes."""
    import sqlite3

    from plantstore_tui.core.plant.form import FormTexts
    from plantstore_tui.core.plant.models import NewPlant
    from plantstore_tui.core.store import rows as row_sql
    from plantstore_tui.core.store.opening import open_ledger

    ledger = open_ledger("add", path=path)
    with ledger.db.write() as connection:
        for number in range(rows):
            plant = NewPlant(id=number, name=f"plant {number}", tag="bench")
            entry = row_sql.insert(
                connection,
                row_sql.NewRow(
                    source="add",
                    texts=FormTexts(name=plant.name, id=str(number), tag="bench"),
                    plant=plant,
                    base_url="http://127.0.0.1:9",
                    profile="bench",
                ),
                None,
            )
            row_sql.settle(connection, entry, _created(plant), str)
    ledger.close()
    with sqlite3.connect(path) as connection:
        connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    connection.close()
    return path.stat().st_size


async def screen_timings(rows: int) -> dict[str, list[float]]:
    """Milliseconds from F3 to the first page drawn, for the next page, and for a search."""
    from textual.widgets import DataTable, Input

    from plantstore_tui.core.http.target import Target
    from plantstore_tui.core.sending.connection import connect_to
    from plantstore_tui.ui.app import PlantStoreApp
    from plantstore_tui.ui.connection import TargetLabel
    from plantstore_tui.ui.screens.history import PAGE_SIZE, HistoryScreen
    from plantstore_tui.ui.screens.send import SendScreen

    target = Target(
        base_url="http://127.0.0.1:9", token=SecretStr(secrets.token_urlsafe(32)), token_source="b"
    )
    app = PlantStoreApp(lambda: connect_to(target), TargetLabel.of(target))
    timings: dict[str, list[float]] = {"open": [], "next page": [], "search": []}
    # A search that finds a handful of plants whatever --rows is (with 100,000: "plant 9999"
    # finds 9999 and 99990 to 99999); the page it fills holds at most PAGE_SIZE of them.
    term = f"plant {str(rows - 1)[:4]}"
    matches = min(PAGE_SIZE, sum(term in f"plant {number}" for number in range(rows)))
    async with app.run_test(size=(110, 32)) as pilot:
        send = app.screen
        assert isinstance(send, SendScreen)
        await send.wait_until_settled()
        await pilot.pause()

        async def drawn(condition: Callable[[], bool]) -> float:
            # The clock stops at the first refresh after the page is in the table; nothing
            # announces the page, so the loop looks at each turn of the event loop.
            while not condition():  # noqa: ASYNC110
                await asyncio.sleep(0)
            painted = asyncio.Event()
            app.screen.call_after_refresh(painted.set)
            await painted.wait()
            return time.perf_counter()

        for _ in range(RUNS):
            started = time.perf_counter()
            await pilot.press("f3")
            screen = app.screen
            assert isinstance(screen, HistoryScreen)
            table = screen.query_one(DataTable)
            end = await drawn(lambda table=table: table.row_count > 0)
            timings["open"].append((end - started) * 1000)

            first = table.get_row_at(0)
            started = time.perf_counter()
            await pilot.press("n")
            end = await drawn(
                lambda table=table, first=first: (
                    table.row_count > 0 and table.get_row_at(0) != first
                )
            )
            timings["next page"].append((end - started) * 1000)

            search = screen.query_one("#history-search", Input)
            started = time.perf_counter()
            search.value = term
            end = await drawn(lambda table=table: table.row_count == matches)
            timings["search"].append((end - started) * 1000)
            await pilot.press("escape")
            await pilot.pause()
    return timings


def _summary(values: list[float]) -> str:
    p99 = statistics.quantiles(values, n=100)[-1]
    return f"median {statistics.median(values):.3f} ms, p99 {p99:.3f} ms"


def main() -> None:
    """Measure and print the figures side by side."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--submits", type=int, default=300)
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--json", action="store_true", help="end with one RESULT line")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as directory:
        data = Path(directory) / "data"
        os.environ["PLANTSTORE_DATA_DIR"] = str(data)
        os.environ["PLANTSTORE_CONFIG_DIR"] = str(Path(directory) / "config")
        full = submits(args.submits, "FULL", Path(directory) / "full" / "plantstore.sqlite3")
        normal = submits(args.submits, "NORMAL", Path(directory) / "normal" / "plantstore.sqlite3")
        size = fill(args.rows, data / "plantstore.sqlite3")
        screen = asyncio.run(screen_timings(args.rows))
    print(f"submit (Ledger.take), {args.submits} plants, same disk, one run:")
    print(f"  synchronous=FULL (the product; survives a power cut): {_summary(full[0])}")
    print(f"  synchronous=NORMAL (survives a killed process only):  {_summary(normal[0])}")
    print(f"  a send's two more writes (sending, settled), FULL:     {_summary(full[1])}")
    for name, values in screen.items():
        median = statistics.median(values)
        print(
            f"history screen over {args.rows:,} plants, {name}: median {median:.1f} ms"
            f" (max {max(values):.1f} ms, {len(values)} runs)"
        )
    per = size * 100_000 / args.rows / (1024 * 1024)
    mib = size / (1024 * 1024)
    print(f"ledger size: {mib:.1f} MiB for {args.rows:,} plants ({per:.1f} MiB per 100,000)")
    if args.json:
        take_full, take_normal = statistics.median(full[0]), statistics.median(normal[0])
        emit(
            "A submit's durable write (Ledger.take, synchronous=FULL), median",
            ours=take_full,
            plain=take_normal,
            unit="ms",
            digits=2,
            plain_label="synchronous=NORMAL, same disk",
            judged=take_full / take_normal,
            budget=None,
            profile=".venv/bin/python -m cProfile -s tottime benchmarks/ledger.py",
            submits=args.submits,
        )


if __name__ == "__main__":
    sys.exit(main())
