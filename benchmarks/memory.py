"""Peak RSS 0.5 s after the first paint, client built: the TUI against a bare script's floor.

    .venv/bin/python benchmarks/memory.py [--probe PATH] [--runs N] [--rounds N] [--history N]
                                          [--json]

Both programs are started cold in tmux by the project's startup probe (as startup.py does) and
measured from outside: the peak RSS (VmHWM in /proc) of the pane's main process, read --settle
seconds after the marker was first painted. By then the TUI has resolved its target and built
its client. The plain alternative (floor_app.py, which startup.py also runs) is the floor any
such tool stands on, as the issue states it: a bare Textual app (Input, Button, RichLog) that
has imported httpx and Pydantic (and builds nothing with them: an httpx client's TLS context
alone is several MiB more). The programs take turns in rounds. Goal (issue 34): the TUI at
most the floor + 8 MiB.

The TUI is also measured with a ledger of --history settled plants (100,000 by default, the
history's default limit; 0 leaves it out), as an operator's ledger grows to be: its start reads
past them all to trim what is over the limit, and what SQLite keeps of that stays for the run.
It has no goal of its own; it is printed beside the fresh ledger's figure.

Both sides count library pages the kernel maps around each page touched, when they are in the
page cache: in a venv pip has just written, Pydantic's compiled core is all cached and both
sides measure about 0.4 MiB more than in a venv whose files were partly evicted. Judge the goal
on a fresh clone, as CI and a new user meet it.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from result import Budget, emit
from startup import PROGRAMS, probe_in_rounds, probe_options

# Issue 34: at most 8 MiB above the floor, measured in the same run.
BUDGET = Budget("MiB above", 8.0)
# What loads beside the floor's (modules are most of the difference), and where the heap goes.
PROFILE = (
    "PLANTSTORE_TOKEN=x .venv/bin/python -X importtime -m plantstore_tui --base-url "
    "http://127.0.0.1:9 2> tui.txt (Ctrl+Q quits) beside .venv/bin/python -X importtime "
    "benchmarks/floor_app.py 2> floor.txt: the modules only the TUI loads; then "
    "-X tracemalloc=1 and tracemalloc.take_snapshot() for the heap"
)


def _with_ledger(template: Path) -> Callable[[Path], None]:
    """What puts a copy of the ledger `template` in a program's data directory before it runs."""

    def prepare(data: Path) -> None:
        data.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(template, data / "plantstore.sqlite3")

    return prepare


def main() -> None:
    """Probe the programs in alternating rounds and print the medians of their peak RSS."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    probe_options(parser, runs=6, rounds=3)
    parser.add_argument(
        "--history", type=int, default=100_000, help="plants in the long ledger (0: none)"
    )
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as directory:
        programs: dict[str, dict[str, Any]] = {
            "Textual + httpx + Pydantic": PROGRAMS["Textual + httpx + Pydantic"],
            "plantstore-tui": PROGRAMS["plantstore-tui"],
        }
        long_name = f"plantstore-tui, {args.history:,} kept"
        if args.history:
            from ledger import fill

            template = Path(directory) / "long.sqlite3"
            fill(args.history, template)
            programs[long_name] = {**PROGRAMS["plantstore-tui"], "prepare": _with_ledger(template)}
        collected = probe_in_rounds(args, programs)
    peaks = {
        name: [r["mem_after_settle"]["main_hwm_kib"] / 1024 for r in results]
        for name, results in collected.items()
    }
    medians = {name: statistics.median(values) for name, values in peaks.items()}
    print(f"peak RSS (VmHWM) {args.settle:g} s after first paint, {args.runs} runs each, medians:")
    for name, values in peaks.items():
        print(f"  {name:28} {medians[name]:6.1f} MiB  (max {max(values):.1f})")
    ours, floor = medians["plantstore-tui"], medians["Textual + httpx + Pydantic"]
    print(f"above the floor: {ours - floor:.1f} MiB ({ours / floor:.2f}x)")
    if long_name in medians:
        print(
            f"with {args.history:,} plants kept in its ledger: "
            f"{medians[long_name] - ours:+.1f} MiB (no goal of its own)"
        )
    above = ours - floor
    print(f"goal: {BUDGET}: {'met' if BUDGET.met(above) else 'NOT met'}")
    if args.json:
        emit(
            f"Peak RSS {args.settle:g} s after first paint, client built",
            ours=ours,
            plain=floor,
            unit="MiB",
            digits=1,
            plain_label="Textual + httpx + Pydantic imported",
            judged=above,
            budget=BUDGET,
            profile=PROFILE,
            runs=len(peaks["plantstore-tui"]),
        )


if __name__ == "__main__":
    main()
