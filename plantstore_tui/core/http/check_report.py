"""The check's report: one row per probe (its verdict, what was seen, why it matters)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from enum import StrEnum
from typing import Any


class Verdict(StrEnum):
    """What one probe says about the deployment, from best to worst."""

    PASS = "pass"  # noqa: S105 (a verdict, not a secret)
    WARN = "warn"
    FAIL = "fail"


_RANK = {Verdict.PASS: 0, Verdict.WARN: 1, Verdict.FAIL: 2}


@dataclass(frozen=True, slots=True)
class ProbeResult:
    """One row of the report: the probe, its verdict, what was seen, why it matters."""

    probe: str
    verdict: Verdict
    seen: str
    why: str = ""
    figures: Mapping[str, float] = field(default_factory=dict)
    # Seconds the request (or requests) this row judges took; None: not timed.
    seconds: float | None = None

    def to_json(self) -> dict[str, Any]:
        """This row as `check --json` prints it."""
        row: dict[str, Any] = {
            "probe": self.probe,
            "verdict": self.verdict.value,
            "seen": self.seen,
            "why": self.why,
        }
        if self.figures:
            row["figures"] = dict(self.figures)
        return row


@dataclass(frozen=True, slots=True)
class CheckReport:
    """Every probe's result; `reachable` is False when no answer came at all."""

    base_url: str
    results: tuple[ProbeResult, ...]
    reachable: bool = True
    # The proxy the probes went through (no user or password); None: straight to the target.
    proxy: str | None = None
    # When the check began, and how long it took in all; None: not timed.
    started: datetime | None = None
    seconds: float | None = None

    @property
    def verdict(self) -> Verdict:
        """The worst verdict of any probe."""
        return max((result.verdict for result in self.results), key=_RANK.__getitem__)

    def to_json(self) -> dict[str, Any]:
        """The one object `check --json` prints."""
        return {
            "base_url": self.base_url,
            "proxy": self.proxy,
            "verdict": self.verdict.value,
            "reachable": self.reachable,
            "probes": [result.to_json() for result in self.results],
        }
