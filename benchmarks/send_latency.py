"""Submit key to the response entry painted, against the reference server on loopback.

    .venv/bin/python benchmarks/send_latency.py [--sends 50]

Runs the real TUI headless on a throwaway reference server in its own process (as a deployment
would be), posts a Ctrl+S key for each plant through the app's own queue, and stops the clock
when the screen has refreshed with the new entry on it (the log scrolled to its end).
The bare client's own round trip is measured on the same server for comparison.
Goal (issue 3): median <= 30 ms.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import secrets
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from pydantic import SecretStr
from textual import events

from plantstore_tui.core.http.client import PlantStoreClient
from plantstore_tui.core.http.target import Target
from plantstore_tui.core.plant.models import NewPlant
from plantstore_tui.core.sending.queue import QueuedPlant
from plantstore_tui.ui.app import PlantStoreApp
from plantstore_tui.ui.connection import TargetLabel, connect_to
from plantstore_tui.ui.screens.send import SendScreen

GOAL_MS = 30.0


async def _tui_sends(base_url: str, token: SecretStr, sends: int) -> list[float]:
    target = Target(base_url=base_url, token=token, token_source="the benchmark")
    app = PlantStoreApp(lambda: connect_to(target), TargetLabel.of(target))
    timings: list[float] = []
    async with app.run_test(size=(110, 32)) as pilot:
        screen = app.screen
        assert isinstance(screen, SendScreen)
        await pilot.pause()
        await screen.wait_until_settled()
        await pilot.pause()
        log = screen.log_panel
        painted = asyncio.Event()
        show_plant = log.show_plant

        def at_end() -> bool:
            return log.scroll_y >= log.max_scroll_y

        def watch(was_at_end: bool) -> None:
            # The entry is on screen once a refresh has drawn the log scrolled to its end: the
            # log was at its end before that refresh, and still is. (RichLog may scroll only
            # after the refresh that laid the new lines out; that frame does not show them.)
            def after_refresh() -> None:
                if was_at_end and at_end():
                    painted.set()
                else:
                    watch(at_end())

            log.call_after_refresh(after_refresh)

        def show_and_watch(plant: QueuedPlant, after: str | None = None) -> None:
            show_plant(plant, after)
            if plant.outcome is not None:  # the entry now shows the answer, not "sending…"
                watch(at_end())

        log.show_plant = show_and_watch  # type: ignore[method-assign]
        for index in range(sends + 1):
            form = screen.form
            form.field_input("name").value = f"Plant {index}"
            form.field_input("id").value = str(10_000 + index)
            form.field_input("tag").value = "bench"
            await pilot.pause()
            painted.clear()
            # The key goes through the app's own queue and bindings, as a keypress does.
            started = time.perf_counter()
            app.post_message(events.Key("ctrl+s", None))
            await asyncio.wait_for(painted.wait(), 10)
            elapsed = (time.perf_counter() - started) * 1000
            await screen.wait_until_settled()
            assert len(log.entries) == index + 1
            if index:  # the first send opens the kept-alive connection
                timings.append(elapsed)
        assert "Created" in log.plain_text()
    return timings


async def _client_sends(base_url: str, token: SecretStr, sends: int) -> list[float]:
    timings: list[float] = []
    async with PlantStoreClient(base_url, token) as client:
        for index in range(sends + 1):
            plant = NewPlant(id=20_000 + index, name=f"Plant {index}", tag="bench")
            started = time.perf_counter()
            await client.create_plant(plant)
            if index:
                timings.append((time.perf_counter() - started) * 1000)
    return timings


@contextmanager
def _server(token: SecretStr, directory: Path) -> Iterator[str]:
    """`plantstore-tui serve` in its own process, as a deployment would be: its base URL."""
    command = [sys.executable, "-m", "plantstore_tui", "serve", "--port", "0"]
    command += ["--db", str(directory / "plants.sqlite3"), "--token-env", "BENCH_TOKEN"]
    env = {**os.environ, "BENCH_TOKEN": token.get_secret_value()}
    with subprocess.Popen(command, env=env, stdout=subprocess.PIPE, text=True) as process:
        try:
            assert process.stdout is not None
            for line in process.stdout:
                if "listening on " in line:
                    yield line.split("listening on ", 1)[1].strip()
                    break
            else:
                raise SystemExit("the reference server did not start")
        finally:
            process.terminate()
            process.wait(10)


def main() -> None:
    """Time the sends and print medians, the UI's share and the goal."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sends", type=int, default=50)
    args = parser.parse_args()
    token = SecretStr(secrets.token_urlsafe(32))
    with tempfile.TemporaryDirectory() as directory, _server(token, Path(directory)) as base_url:
        # The TUI's history goes to the throwaway directory, not the operator's.
        os.environ["PLANTSTORE_DATA_DIR"] = str(Path(directory) / "data")
        tui = asyncio.run(_tui_sends(base_url, token, args.sends))
        bare = asyncio.run(_client_sends(base_url, token, args.sends))
    tui_median, bare_median = statistics.median(tui), statistics.median(bare)
    print(f"sends: {args.sends} each, after one warm-up send")
    print(
        f"TUI, Ctrl+S to entry painted: median {tui_median:.1f} ms, "
        f"p90 {statistics.quantiles(tui, n=10)[-1]:.1f} ms, max {max(tui):.1f} ms"
    )
    print(f"client round trip alone:      median {bare_median:.1f} ms")
    print(f"the TUI's share: {tui_median - bare_median:.1f} ms")
    print(f"goal: median <= {GOAL_MS:.0f} ms: {'met' if tui_median <= GOAL_MS else 'NOT met'}")


if __name__ == "__main__":
    main()
