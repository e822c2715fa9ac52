"""Run every benchmark --repeat times with modest settings and print issue 34's table of budgets.

    .venv/bin/python benchmarks/run_all.py [--repeat 3] [--only NAME ...]

Each benchmark runs as its own process with --json, one after another (never two at once: they
would slow each other), and ends with one RESULT line (benchmarks/result.py) that carries its
figure, both sides and its budget (each benchmark holds its own, so `NAME.py` alone says the
same); its full output goes to stderr as it runs. The set runs --repeat times in turn, and the
table gives, per figure, the medians of ours and of the plain side, the median of the ratios (each
taken within its run: the sides ran the same minutes) with every run's in brackets, the budget and
whether the median meets it. A budget missed is a finding: the figure is named with how to profile
it, and this exits 0. A benchmark that fails to run is shown as failed, and this exits 1. Three
runs took 7 minutes on a quiet 2-core machine (each run about 2.3).
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from result import PREFIX, Budget, amount

HERE = Path(__file__).resolve().parent

# name (NAME.py, or NAME:CASE for a second case of it), arguments (modest: the whole run takes
# minutes), and whether it is one of the issues' budgets.
BENCHMARKS: list[tuple[str, list[str], bool]] = [
    ("startup", ["--runs", "9", "--rounds", "3"], True),
    ("memory", ["--runs", "6", "--rounds", "3"], True),
    ("send_latency", ["--sends", "12", "--rounds", "3"], True),
    ("key_echo", ["--keys", "40", "--rounds", "3"], True),
    ("typing_burst", ["--records", "200", "--runs", "1"], True),
    ("import", ["--rows", "2000", "--runs", "2"], True),
    # Issue 42: where users run it, a deployment across a network (20 ms an answer).
    ("import:network", ["--rows", "4000", "--runs", "1", "--delay", "0.02"], True),
    ("ledger", ["--submits", "100"], False),
]


def run(name: str, arguments: list[str]) -> dict[str, Any] | str:
    """One benchmark's RESULT, or the words of its failure."""
    script = name.partition(":")[0]
    command = [sys.executable, str(HERE / f"{script}.py"), *arguments, "--json"]
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


def summary(runs: list[dict[str, Any]]) -> tuple[str, bool | None]:
    """A figure's row of the Markdown table over its runs, and whether its budget is met."""
    first = runs[0]
    budget = None if first["budget"] is None else Budget(**first["budget"])
    unit, digits = first["unit"], first["digits"]
    ours = statistics.median(r["ours"] for r in runs)
    plain = statistics.median(r["plain"] for r in runs)
    judged = [r["judged"] for r in runs]
    middle = statistics.median(judged)
    show = budget.show if budget else (lambda value: f"{value:.2f}x")
    each = ", ".join(show(value) for value in judged)
    met = None if budget is None else budget.met(middle) and all(r["holds"] for r in runs)
    goal = "no goal" if budget is None else f"{budget}: {'met' if met else 'NOT met'}"
    cells = [
        first["figure"],
        amount(ours, unit, digits),
        f"{first['plain_label']} {amount(plain, unit, digits)}",
        f"**{show(middle)}** ({each})",
        goal,
    ]
    return "| " + " | ".join(cells) + " |", met


def main() -> None:
    """Run the set --repeat times and print the table of medians."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    names = [name for name, _, _ in BENCHMARKS]
    parser.add_argument("--only", nargs="+", choices=names, help="run these benchmarks only")
    parser.add_argument("--repeat", type=int, default=3, help="runs of the set (default 3)")
    args = parser.parse_args()
    chosen = [b for b in BENCHMARKS if not args.only or b[0] in args.only]
    started = time.monotonic()
    outcomes: dict[str, list[dict[str, Any] | str]] = {name: [] for name, _, _ in chosen}
    for number in range(args.repeat):
        print(f"=== run {number + 1} of {args.repeat}", file=sys.stderr, flush=True)
        for name, arguments, _ in chosen:
            outcomes[name].append(run(name, arguments))
    minutes = (time.monotonic() - started) / 60

    header = (
        "| Figure | plantstore-tui | Plain alternative | Ratio | Budget |\n|---|---|---|---|---|"
    )
    print(f"\nRun {args.repeat} times in {minutes:.1f} min, each benchmark with {sys.executable};")
    print("medians of the runs, the ratio's median taken over each run's ratio (in brackets):\n")
    failed: list[str] = []
    missed: list[dict[str, Any]] = []
    notes: list[str] = []
    for title, of_the_issue in (("The issues' budgets", True), ("Also measured", False)):
        names_here = [name for name, _, mine in chosen if mine == of_the_issue]
        if not names_here:
            continue
        print(f"{title}:\n\n{header}")
        for name in names_here:
            results = outcomes[name]
            failures = [outcome for outcome in results if isinstance(outcome, str)]
            if failures:
                failed.append(name)
                said = f"failed in {len(failures)} of {len(results)} runs: {failures[0]}"
                print(f"| {name} | {said} | | | |")
                continue
            runs = [outcome for outcome in results if not isinstance(outcome, str)]
            line, met = summary(runs)
            print(line)
            if met is False:
                missed.append(runs[0])
            notes += [
                f"{r['figure']}, run {i + 1}: {r['note']}" for i, r in enumerate(runs) if r["note"]
            ]
        print()
    for note in notes:
        print(note)
    for result in missed:
        print(f"\nNOT met: {result['figure']} ({Budget(**result['budget'])}). To profile it:")
        print(f"  {result['profile']}")
    if failed:
        print(f"\nFailed to run: {', '.join(failed)}", file=sys.stderr)
        raise SystemExit(1)


if __name__ == "__main__":
    main()
