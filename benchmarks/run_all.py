"""Run every benchmark with modest settings and print the issue's table of ratios.

    .venv/bin/python benchmarks/run_all.py [--only NAME ...]

Each benchmark runs as its own process with --json, one after another (never two at once: they
would slow each other), and ends with one RESULT line (benchmarks/result.py); its full output
goes to stderr as it runs. The table has the issue's figures first, then the others measured. A
benchmark that fails is shown as failed, and this exits 1. Takes a few minutes.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from result import PREFIX

HERE = Path(__file__).resolve().parent

# name, arguments (modest: the whole run takes minutes), and whether it is one of the issue's.
BENCHMARKS: list[tuple[str, list[str], bool]] = [
    ("startup", ["--runs", "9", "--rounds", "3"], True),
    ("memory", ["--runs", "6", "--rounds", "3"], True),
    ("send_latency", ["--sends", "12", "--rounds", "3"], True),
    ("key_echo", ["--keys", "40", "--rounds", "3"], True),
    ("typing_burst", ["--records", "200", "--runs", "1"], True),
    ("import", ["--rows", "2000", "--runs", "3"], False),
    ("ledger", ["--submits", "100"], False),
]


def run(name: str, arguments: list[str]) -> dict[str, Any] | str:
    """One benchmark's RESULT, or the words of its failure."""
    command = [sys.executable, str(HERE / f"{name}.py"), *arguments, "--json"]
    print(f"== {name}: {' '.join(arguments)}", file=sys.stderr, flush=True)
    process = subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, cwd=HERE.parent
    )
    assert process.stdout is not None
    result: dict[str, Any] | None = None
    tail: list[str] = []
    for line in process.stdout:
        if line.startswith(PREFIX):
            result = json.loads(line[len(PREFIX) :])
        else:
            print(f"   {line}", end="", file=sys.stderr, flush=True)
            tail = [*tail[-4:], line.rstrip()]
    code = process.wait()
    if code != 0 or result is None:
        return f"exit {code}: " + " / ".join(tail)
    return result


def row(result: dict[str, Any]) -> str:
    """One line of the Markdown table."""
    ratio = "" if result["ratio"] is None else f"{result['ratio']:.2f}x"
    verdict = {True: "met", False: "NOT met", None: "no goal"}[result["met"]]
    cells = [result["figure"], result["ours"], result["plain"], ratio]
    return "| " + " | ".join([*cells, f"{result['goal']}: {verdict}"]) + " |"


def main() -> None:
    """Run the benchmarks and print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    names = [name for name, _, _ in BENCHMARKS]
    parser.add_argument("--only", nargs="+", choices=names, help="run these benchmarks only")
    args = parser.parse_args()
    started = time.monotonic()
    outcomes: list[tuple[str, bool, dict[str, Any] | str]] = []
    for name, arguments, the_issues in BENCHMARKS:
        if args.only and name not in args.only:
            continue
        outcomes.append((name, the_issues, run(name, arguments)))
    minutes = (time.monotonic() - started) / 60
    header = "| Figure | plantstore-tui | Plain alternative | Ratio | Goal |\n|---|---|---|---|---|"
    print(f"\nRun in {minutes:.1f} min, each benchmark with {sys.executable}:\n")
    for title, of_the_issue in (("Issue 16", True), ("Also measured", False)):
        chosen = [(name, outcome) for name, mine, outcome in outcomes if mine == of_the_issue]
        if not chosen:
            continue
        print(f"{title}:\n\n{header}")
        for name, outcome in chosen:
            if isinstance(outcome, str):
                print(f"| {name} | failed: {outcome} | | | |")
            else:
                print(row(outcome))
        print()
    if any(isinstance(outcome, str) for _, _, outcome in outcomes):
        raise SystemExit(1)


if __name__ == "__main__":
    main()
