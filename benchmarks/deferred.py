"""What each import kept inside a function would cost if it moved to the top of its module: the
CPU time, resident memory and modules it adds on top of what the program has loaded by then.

    .venv/bin/python benchmarks/deferred.py [--runs 9] [--json]

Each row is measured in fresh processes (`--runs`, median): the process imports the modules the
program has loaded by then (the TUI's modules to its first frame, or the command's), then the
deferred module alone, timed with `time.process_time()` (CPU, which a busy machine stretches
less than wall time), its resident memory read from /proc/self/status before and after (the
garbage collected at both ends: what the import keeps), and `sys.modules` counted. The rows
are the imports tests/packaging/test_imports_inside_functions.py lists, grouped by the module
they load, and httpx's command line, which core/http leaves out; their comments point to
benchmarks/README.md, "Imports kept out of the start". The package's bytecode is compiled
first, as startup.py does. Linux only (/proc).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from typing import NamedTuple

from startup import compile_package

# What the TUI has imported by its first frame: the front door, the app and its send screen.
TUI = ("plantstore_tui.cli", "plantstore_tui.cli.tui", "plantstore_tui.ui.app")
# What `plantstore-tui add` imports: the front door and its command.
ADD = ("plantstore_tui.cli", "plantstore_tui.cli.add")


class Row(NamedTuple):
    """One deferred import: what it is for, where it is kept, what is loaded before it."""

    what: str
    where: str
    base: tuple[str, ...]
    module: str


ROWS = [
    Row("the first-run screen", "ui/app.py", TUI, "plantstore_tui.ui.screens.first_run"),
    Row("the profiles screen (F2)", "ui/app.py", TUI, "plantstore_tui.ui.screens.profiles"),
    Row("the check screen (palette)", "ui/app.py", TUI, "plantstore_tui.ui.screens.check"),
    Row("the import screen (F5)", "ui/app.py", TUI, "plantstore_tui.ui.screens.import_screen"),
    Row("the help screen (F1)", "ui/app.py", TUI, "plantstore_tui.ui.screens.help"),
    Row("the history screen (F3)", "ui/screens/send.py", TUI, "plantstore_tui.ui.screens.history"),
    Row("needs attention (F4)", "ui/screens/send.py", TUI, "plantstore_tui.ui.screens.attention"),
    Row(
        "verified entry's differences",
        "ui/screens/send.py",
        TUI,
        "plantstore_tui.ui.screens.differences",
    ),
    Row("the probe screen (F6)", "ui/screens/send.py", TUI, "plantstore_tui.ui.screens.probe"),
    Row("the summary screen (F7)", "ui/screens/send.py", TUI, "plantstore_tui.ui.screens.summary"),
    Row("the demo's server (Starlette, uvicorn)", "cli/tui.py", TUI, "plantstore_tui.server.demo"),
    Row(
        "changing a TOML file (toml_edit, tomlkit)",
        "core/config/store.py (4), theme.py, tokens.py",
        TUI,
        "plantstore_tui.core.config.toml_edit",
    ),
    Row(
        "the OS keyring (keyring)",
        "core/config/tokens.py",
        TUI,
        "plantstore_tui.core.config.os_keyring",
    ),
    Row("a crash's traceback (rich, pygments)", "ui/textual_compat.py", TUI, "rich.traceback"),
    # Not kept in a function but kept out: core/http/__init__.py marks it missing.
    Row("httpx's command line, in the TUI", "core/http/__init__.py", TUI, "httpx._main"),
    Row("httpx's command line, in `add`", "core/http/__init__.py", ADD, "httpx._main"),
]

# Run in a fresh process: import the base, then the module, and print what the module added.
_PROBE = """
import gc, importlib, json, sys, time
def rss():
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
base, module = sys.argv[1].split(","), sys.argv[2]
for name in filter(None, base):
    importlib.import_module(name)
sys.modules.pop(module, None)  # httpx._main: marked missing by core/http
gc.collect()  # the base's garbage collected now, not during the import measured
before, modules, cpu = rss(), len(sys.modules), time.process_time()
importlib.import_module(module)
cpu = time.process_time() - cpu
gc.collect()  # what the import keeps, not what it left to collect
print(json.dumps({"ms": cpu * 1000, "mib": rss() - before, "modules": len(sys.modules) - modules}))
"""


def measure(row: Row) -> dict[str, float]:
    """What importing `row.module` adds on top of `row.base`, in one fresh process."""
    env = {**os.environ, "PYTHONHASHSEED": "0"}
    done = subprocess.run(
        [sys.executable, "-c", _PROBE, ",".join(row.base), row.module],
        capture_output=True,
        text=True,
        check=True,
        env=env,
    )
    figures: dict[str, float] = json.loads(done.stdout)
    return figures


def main() -> None:
    """Measure every row `--runs` times, taking turns, and print the table (or JSON)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=9)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    compile_package()
    for row in ROWS:  # one untimed run each: the page cache and the bytecode are warm
        measure(row)
    runs: dict[Row, list[dict[str, float]]] = {row: [] for row in ROWS}
    for _ in range(args.runs):
        for row in ROWS:
            runs[row].append(measure(row))
    table = [
        {
            "what": row.what,
            "where": row.where,
            "on top of": "the TUI's start" if row.base == TUI else "`add`",
            **{
                key: statistics.median(run[key] for run in runs[row])
                for key in ("ms", "mib", "modules")
            },
        }
        for row in ROWS
    ]
    if args.json:
        print(json.dumps(table))
        return
    print("| Kept out of the start | Where | On top of | CPU | Resident | Modules |")
    print("|---|---|---|---|---|---|")
    for line in table:
        print(
            f"| {line['what']} | `{line['where']}` | {line['on top of']} | {line['ms']:.1f} ms "
            f"| {line['mib']:.2f} MiB | {line['modules']:.0f} |"
        )
    load = os.getloadavg()[0]
    print(f"\nmedians of {args.runs} runs each, taking turns; load average {load:.2f} at the end")


if __name__ == "__main__":
    main()
