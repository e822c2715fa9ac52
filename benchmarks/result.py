"""The one machine-readable line each benchmark prints with --json, and run_all.py reads, and the
budget each figure is judged by (issue 34), so that `NAME.py` alone and run_all.py agree."""

from __future__ import annotations

import json
import statistics
from dataclasses import asdict, dataclass
from typing import Any, Literal

PREFIX = "RESULT "

Kind = Literal["at most", "at least", "MiB above"]


@dataclass(frozen=True, slots=True)
class Budget:
    """What a figure's judged value must be: a ratio of ours to the plain side's at most or at
    least `limit`, or ours at most `limit` MiB above the plain side ("MiB above")."""

    kind: Kind
    limit: float

    def met(self, judged: float) -> bool:
        """Whether `judged` (a ratio, or MiB above the plain side) is within the budget."""
        return judged >= self.limit if self.kind == "at least" else judged <= self.limit

    def show(self, judged: float) -> str:
        """`judged` in the budget's terms: 1.23x, or +5.1 MiB."""
        return f"{judged:+.1f} MiB" if self.kind == "MiB above" else f"{judged:.2f}x"

    def __str__(self) -> str:
        if self.kind == "MiB above":
            return f"<= floor + {self.limit:g} MiB"
        return f"{'>=' if self.kind == 'at least' else '<='} {self.limit:.2f}x"


def amount(value: float, unit: str, digits: int) -> str:
    """A figure in words: 1,234.5 ms."""
    return f"{value:,.{digits}f} {unit}"


def emit(
    figure: str,
    *,
    ours: float,
    plain: float,
    unit: str,
    digits: int,
    plain_label: str,
    judged: float,
    budget: Budget | None,
    profile: str,
    holds: bool = True,
    note: str = "",
    **details: Any,
) -> None:
    """Print the figure's RESULT line: ours and the plain side's in `unit`, the value judged (the
    ratio, or MiB above the plain side), the budget (None for a figure measured for information),
    whether it is met, and how a reader profiles it. `holds` is False when a condition of the
    budget beyond the number failed (a record not stored as typed); `note` says what it saw."""
    met = None if budget is None else budget.met(judged) and holds
    row = {"figure": figure, "ours": ours, "plain": plain, "unit": unit, "digits": digits}
    row |= {"plain_label": plain_label, "judged": judged, "holds": holds, "note": note}
    row |= {"budget": None if budget is None else asdict(budget), "met": met, "profile": profile}
    if met is False:
        print(f"To profile it: {profile}")
    print(PREFIX + json.dumps({**row, **details}), flush=True)


def report_latency(
    title: str,
    timings: dict[str, list[float]],
    *,
    digits: int,
    budget: Budget,
    figure: str,
    plain_label: str,
    profile: str,
    as_json: bool,
    **details: Any,
) -> None:
    """Print each side's median and p90 in ms, then the first side's median over the second's
    against `budget`; with `as_json`, the RESULT row (the plain side named `plain_label`)."""
    medians = {name: statistics.median(values) for name, values in timings.items()}
    width = max(map(len, timings)) + 2
    print(title)
    for name, values in timings.items():
        p90 = statistics.quantiles(values, n=10)[-1]
        print(f"  {name:{width}} median {medians[name]:6.{digits}f} ms  p90 {p90:6.{digits}f} ms")
    ours, plain = medians.values()
    ratio = ours / plain
    print(f"ratio: {ratio:.2f}x (goal {budget}): {'met' if budget.met(ratio) else 'NOT met'}")
    if as_json:
        emit(
            figure,
            ours=ours,
            plain=plain,
            unit="ms",
            digits=digits,
            plain_label=plain_label,
            judged=ratio,
            budget=budget,
            profile=profile,
            **details,
        )
