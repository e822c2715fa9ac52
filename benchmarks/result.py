"""The one machine-readable line each benchmark prints with --json, and run_all.py reads."""

from __future__ import annotations

import json
import statistics
from typing import Any

PREFIX = "RESULT "


def emit(
    figure: str,
    ours: str,
    plain: str,
    ratio: float | None,
    goal: str,
    met: bool | None,
    **details: Any,
) -> None:
    """Print the figure's row: what it is, both sides in words, the ratio, whether it is met.

    `met` is None for a figure measured for information, with no goal of its own.
    """
    row = {"figure": figure, "ours": ours, "plain": plain, "ratio": ratio, "goal": goal}
    print(PREFIX + json.dumps({**row, "met": met, **details}), flush=True)


def report_latency(
    title: str,
    timings: dict[str, list[float]],
    *,
    digits: int,
    goal_ratio: float,
    figure: str,
    plain_label: str,
    as_json: bool,
    **details: Any,
) -> None:
    """Print each side's median and p90 in ms, then the first side's median over the second's
    against `goal_ratio`; with `as_json`, the RESULT row (the plain side named `plain_label`)."""
    medians = {name: statistics.median(values) for name, values in timings.items()}
    width = max(map(len, timings)) + 2
    print(title)
    for name, values in timings.items():
        p90 = statistics.quantiles(values, n=10)[-1]
        print(f"  {name:{width}} median {medians[name]:6.{digits}f} ms  p90 {p90:6.{digits}f} ms")
    ours, plain = medians.values()
    ratio = ours / plain
    verdict = "met" if ratio <= goal_ratio else "NOT met"
    print(f"ratio: {ratio:.2f}x (goal <= {goal_ratio:.2f}x): {verdict}")
    if as_json:
        emit(
            figure,
            f"{ours:.1f} ms",
            f"{plain_label} {plain:.1f} ms",
            ratio,
            f"<= {goal_ratio:.2f}x",
            ratio <= goal_ratio,
            **details,
        )
