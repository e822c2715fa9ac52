"""The check's report: one row per probe (its verdict, what was seen, why it matters), then one
per case of a file of expectations (`check --expect`)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from enum import StrEnum
from typing import Any


class Verdict(StrEnum):
    """What one probe or case says about the deployment, from best to worst; a case not sent
    is skipped, which says nothing either way."""

    SKIP = "skip"
    PASS = "pass"  # noqa: S105 (a verdict, not a secret)
    WARN = "warn"
    FAIL = "fail"


_RANK = {Verdict.SKIP: -1, Verdict.PASS: 0, Verdict.WARN: 1, Verdict.FAIL: 2}


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
class CaseResult:
    """One case of a file of expectations: what was expected, what came (None: not sent), and
    why it matters (the spec's reading of the answer, or why the case was skipped)."""

    name: str
    verdict: Verdict
    expected: str
    actual: str | None = None
    why: str = ""
    # The id taken from --ids for the case's body; None: the body went as the file gives it.
    plant_id: int | None = None
    seconds: float | None = None

    @property
    def seen(self) -> str:
        """What came, in one line: as expected, or what was expected and what came instead."""
        if self.actual is None:
            return self.why
        actual = self.actual
        if self.plant_id is not None:
            actual += f" with id {self.plant_id} from --ids"
        if self.verdict is Verdict.PASS:
            return f"{actual}, as expected"
        return f"expected {self.expected}, got {actual}"

    def to_json(self) -> dict[str, Any]:
        """This case as `check --json` prints it."""
        return {
            "name": self.name,
            "verdict": self.verdict.value,
            "expected": self.expected,
            "actual": self.actual,
            "id": self.plant_id,
            "why": self.why,
        }


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
    # The file of expectations as given (`check --expect`), and its cases in file order.
    cases_file: str | None = None
    cases: tuple[CaseResult, ...] = ()

    @property
    def verdict(self) -> Verdict:
        """The worst verdict of any probe or case."""
        verdicts = [result.verdict for result in self.results]
        verdicts += [case.verdict for case in self.cases]
        return max(verdicts, key=_RANK.__getitem__)

    def to_json(self) -> dict[str, Any]:
        """The one object `check --json` prints."""
        return {
            "base_url": self.base_url,
            "proxy": self.proxy,
            "verdict": self.verdict.value,
            "reachable": self.reachable,
            "probes": [result.to_json() for result in self.results],
        } | self._cases_json()

    def _cases_json(self) -> dict[str, Any]:
        if self.cases_file is None:
            return {}
        return {"cases_file": self.cases_file, "cases": [case.to_json() for case in self.cases]}
