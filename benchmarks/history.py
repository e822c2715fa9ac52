"""The history's costs, in one run: journaling per send, and the F3 screen over 100,000 sends.

    .venv/bin/python benchmarks/history.py [--sends 500] [--rows 100000]

(a) A send's extra cost for journaling: `Journal.begin` before the request and `Journal.settle`
after it, timed around the real calls against a history file on disk (median and p90 over
--sends sends), beside the same sends with history off. (b) The history screen (F3) in the real
app over a history of --rows sends: from the key to the first page painted, the next page, and a
search typed to the filtered page painted (median of 5 each). Goals (issue 8): journaling at most
1 ms a send (median); the screen opens at once whatever the size of the history.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import secrets
import sqlite3
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from pydantic import SecretStr

GOAL_JOURNAL_MS = 1.0
RUNS = 5


def journaling(sends: int) -> tuple[list[float], list[float]]:
    """Per-send milliseconds for begin + settle, with history on and with it off."""
    from plantstore_tui.core.journal import Journal
    from plantstore_tui.core.models import NewPlant, Plant
    from plantstore_tui.core.outcome import Created
    from plantstore_tui.core.target import Target

    target = Target(
        base_url="http://127.0.0.1:9", token=SecretStr(secrets.token_urlsafe(32)), token_source="b"
    )

    def timed(journal: Journal) -> list[float]:
        times = []
        for index in range(sends):
            plant = NewPlant(id=index, name=f"Plant {index}", tag="bench")
            outcome = Created(
                url=f"{target.base_url}/plants",
                sent=plant,
                status=200,
                elapsed_ms=3.0,
                plant=Plant(name=plant.name, tag=plant.tag),
                body='{"name": "Plant", "tag": "bench"}',
            )
            started = time.perf_counter()
            entry = journal.begin(target, plant)
            journal.settle(entry, outcome, target.token)
            times.append((time.perf_counter() - started) * 1000)
        return times

    on = timed(Journal.open("add", None))
    os.environ["PLANTSTORE_NO_HISTORY"] = "1"
    try:
        off = timed(Journal.open("add", None))
    finally:
        del os.environ["PLANTSTORE_NO_HISTORY"]
    return on, off


def fill(rows: int) -> None:
    """A history of `rows` settled sends, written in one transaction."""
    from plantstore_tui.core.history import History, body_bytes, format_time, history_path, utc_now
    from plantstore_tui.core.models import NewPlant

    History().close()
    at = format_time(utc_now())
    with sqlite3.connect(history_path()) as connection:
        connection.executemany(
            "INSERT INTO sends (time, source, base_url, plant_id, name, body, state, outcome, "
            "status, fate, message) VALUES (?, 'add', 'http://127.0.0.1:9', ?, ?, ?, 'settled', "
            "?, 200, 'created', 'Created')",
            (
                (
                    at,
                    number,
                    f"plant {number}",
                    body_bytes(NewPlant(id=number, name=f"plant {number}")),
                    "created" if number % 7 else "failed",
                )
                for number in range(rows)
            ),
        )
    connection.close()


async def screen_timings(rows: int) -> dict[str, list[float]]:
    """Milliseconds from F3 to the first page drawn, for the next page, and for a search."""
    from textual.widgets import DataTable, Input

    from plantstore_tui.core.target import Target
    from plantstore_tui.ui.app import PlantStoreApp
    from plantstore_tui.ui.connection import TargetLabel, connect_to
    from plantstore_tui.ui.screens.history import HistoryScreen
    from plantstore_tui.ui.screens.send import SendScreen

    target = Target(base_url="http://127.0.0.1:9", token=SecretStr("t" * 32), token_source="b")
    app = PlantStoreApp(lambda: connect_to(target), TargetLabel.of(target))
    timings: dict[str, list[float]] = {"open": [], "next page": [], "search": []}
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
            search.value = "plant 9999"
            end = await drawn(lambda table=table: table.row_count == 11)
            timings["search"].append((end - started) * 1000)
            await pilot.press("escape")
            await pilot.pause()
    return timings


def main() -> None:
    """Measure and print medians against the goals."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sends", type=int, default=500)
    parser.add_argument("--rows", type=int, default=100_000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as directory:
        os.environ["PLANTSTORE_DATA_DIR"] = str(Path(directory) / "data")
        os.environ["PLANTSTORE_CONFIG_DIR"] = str(Path(directory) / "config")
        on, off = journaling(args.sends)
        os.remove(Path(directory) / "data" / "history.sqlite3")
        fill(args.rows)
        screen = asyncio.run(screen_timings(args.rows))
    extra = statistics.median(on) - statistics.median(off)
    print(
        f"journaling, {args.sends} sends: median {statistics.median(on):.3f} ms "
        f"(p90 {statistics.quantiles(on, n=10)[-1]:.3f} ms); history off: "
        f"{statistics.median(off):.3f} ms"
    )
    print(
        f"a send's extra cost: {extra:.3f} ms (goal <= {GOAL_JOURNAL_MS} ms): "
        f"{'met' if extra <= GOAL_JOURNAL_MS else 'NOT met'}"
    )
    for name, values in screen.items():
        median = statistics.median(values)
        print(
            f"history screen over {args.rows:,} sends, {name}: median {median:.1f} ms"
            f" (max {max(values):.1f} ms, {len(values)} runs)"
        )


if __name__ == "__main__":
    sys.exit(main())
