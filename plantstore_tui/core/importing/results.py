"""What an import is told (`ImportSettings`) and what it tells its front end: each row's
`RowResult` as it comes back, the counts so far (`ImportProgress`), and why it ended."""

from __future__ import annotations

import math
import time
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from enum import StrEnum
from typing import TYPE_CHECKING, Any

from plantstore_tui.core.plant.outcome import Created, Rejected
from plantstore_tui.core.plant.text import plural, visible
from plantstore_tui.core.store.records import PlantState, state_of

if TYPE_CHECKING:
    from plantstore_tui.core.plant.form import FormTexts
    from plantstore_tui.core.plant.outcome import Outcome
    from plantstore_tui.core.store.batches import UnknownRow

# With a rate, a group holds about this long of sending: rows are not marked sending long before
# they go.
GROUP_SECONDS = 0.5


@dataclass(frozen=True, slots=True)
class ImportSettings:
    """How politely to send, how long to wait for a deployment, how the ledger is written."""

    concurrency: int = 8
    rate: float | None = None
    """Requests started per second at most; None for as fast as the deployment answers."""
    give_up_after: float = 300.0
    """Seconds the deployment may go on not taking plants (unreachable, or answering 429 or
    503) before the import stops; 0 stops at the first such answer."""
    stop_after_failures: int = 5
    """Failures of unknown fate in a row (timeouts, dropped connections, server errors: 5xx but
    503), beyond one per request in flight, that stop the import: a deployment that takes
    requests and never answers, or fails on every one."""
    group: int | None = None
    """Rows marked sending one group ahead of the requests; None for a row per request (see
    `group_size`)."""
    flush_seconds: float = 1.0
    """Answers are written at the latest this long after they came back, groups or not."""

    def group_size(self) -> int:
        """Rows marked sending ahead of the requests: a row per request in flight (the crash
        bound, `most_unsettled`); with a rate, `GROUP_SECONDS` of it, a row per request at
        most."""
        if self.group is not None:
            return max(1, self.group)
        slots = max(1, self.concurrency)
        if self.rate is not None:
            return min(slots, math.ceil(self.rate * GROUP_SECONDS))
        return slots

    def most_unsettled(self) -> int:
        """Rows the ledger holds as sending at most, whenever the process dies: a row per
        request in flight, and a group ahead: 2 x concurrency unless a group size is given."""
        return max(1, self.concurrency) + self.group_size()


class StopReason(StrEnum):
    """Why sending ended."""

    DONE = "done"
    TRANSPORT = "transport failures"
    SERVER_ERRORS = "server errors"
    """Server errors (5xx) in a row: the plants may or may not have been created."""
    REFUSED = "token refused"
    """The deployment refused the token (401, 403): every row after would be refused too."""
    STOPPED = "stopped"
    PROBLEM = "problem"
    """The file changed since it was checked, or the ledger could not be written."""


@dataclass(frozen=True, slots=True)
class RowResult:
    """What became of one row (with its texts as read, to load it into the form)."""

    line: int
    plant_id: int
    state: PlantState
    status: int | None
    error: int | None
    message: str
    texts: FormTexts
    retries: int = 0
    left_out: bool = False
    """A resume left it out: its fate was unknown before this run (it may exist already)."""
    refused: bool = False
    """Answered by a refused token (401, 403): not sent, as far as the plant goes; a resume
    sends it."""
    # How the answer departed from the spec (a created row's server may have stored another
    # name): such a row is listed with the rows that did not go through.
    off_spec: tuple[str, ...] = ()

    @property
    def to_look_at(self) -> bool:
        """True when the row did not go through, or went through off the spec."""
        return self.state is not PlantState.CREATED or bool(self.off_spec)

    @property
    def words(self) -> str:
        """Its message, then its off-spec marks, for a list of rows."""
        marks = "off spec: " + "; ".join(self.off_spec) if self.off_spec else ""
        return " · ".join(part for part in (self.message, marks) if part)

    def to_json(self) -> dict[str, Any]:
        """One line of `--report`."""
        return {
            "line": self.line,
            "id": self.plant_id,
            "outcome": self.state.value,
            "status": self.status,
            "error": self.error,
            "message": self.message,
            "off_spec": list(self.off_spec),
        }


def result_of(line: int, texts: FormTexts, outcome: Outcome, retries: int = 0) -> RowResult:
    """A row's result: its state by the ledger's one rule (`state_of`)."""
    state = state_of(outcome)
    error = outcome.error.error if isinstance(outcome, Rejected) and outcome.error else None
    message = "" if isinstance(outcome, Created) else outcome.headline
    status = outcome.status
    return RowResult(
        line,
        outcome.sent.id,
        state,
        status,
        error,
        message,
        texts,
        retries,
        off_spec=outcome.off_spec,
    )


# A row answered by a refused token: the token is at fault, not the row, and the plant was not
# taken, so it is not done (a resume sends it).
REFUSED_WORDS = "not sent: the token was refused"


def refused_result(line: int, texts: FormTexts, outcome: Rejected, retries: int = 0) -> RowResult:
    """A row answered by a refused token (401, 403): not sent, failed in the ledger."""
    return RowResult(
        line,
        outcome.sent.id,
        PlantState.FAILED,
        outcome.status,
        outcome.error.error if outcome.error else None,
        f"{REFUSED_WORDS} ({outcome.status})",
        texts,
        retries,
        refused=True,
    )


def left_out(row: UnknownRow) -> RowResult:
    """A line of unknown fate a resume leaves out, as a row to list and load into the form."""
    return RowResult(
        row.line, row.plant_id, PlantState.UNKNOWN, None, None, row.words, row.texts, left_out=True
    )


@dataclass(slots=True)
class ImportProgress:
    """Counts as the rows settle, for a progress bar and the summary; with the rows a resume
    left out, they add up to the rows of the file."""

    to_send: int
    created: int = 0
    rejected: int = 0
    failed: int = 0
    unknown: int = 0
    created_off_spec: int = 0
    retries: int = 0
    done_before: int = 0
    """Rows a resume left out because an earlier run settled them (created or rejected)."""
    unknown_skipped: int = 0
    """Rows a resume left out because their fate is unknown (they may exist already)."""
    created_before: int = 0
    """Rows left out because the ledger knows their ids as created on the target."""
    refused: int = 0
    """Rows answered by a refused token (401, 403): not sent, as far as the plants go."""
    refusal: RowResult | None = None
    """The first row of the file the token was refused at."""
    not_recorded: Counter[PlantState] = field(default_factory=Counter)
    """Rows whose fate this run knows and the ledger could not be told (its disk full, say),
    by what came of them (QUEUED: never sent): counted as unknown, as the ledger holds them."""
    started: float = field(default_factory=time.monotonic)
    ended: float | None = None

    @property
    def settled(self) -> int:
        """Rows with an answer (or a failure) so far."""
        return self.created + self.rejected + self.failed + self.unknown + self.refused

    @property
    def not_sent(self) -> int:
        """Rows of this run that never went out (it stopped first)."""
        return max(0, self.to_send - self.settled)

    @property
    def rows(self) -> int:
        """Every row of the file: sent in this run, or left out (by a resume, or created
        before)."""
        return self.to_send + self.done_before + self.unknown_skipped + self.created_before

    @property
    def unsettled(self) -> int:
        """Rows whose plant is not known to be in the store or refused: not sent after a
        failure or a refused token, unknown (sent now or left out), never sent."""
        return self.failed + self.refused + self.unknown + self.unknown_skipped + self.not_sent

    def counts(self) -> str:
        """Where every row of the file stands, in words (the parts add up to `rows`)."""
        off_spec = f" ({self.created_off_spec:,} off the spec)" if self.created_off_spec else ""
        words = (
            f"{self.created:,} created{off_spec}, {self.rejected:,} rejected, "
            f"{self.failed:,} not sent after a failure, {self.unknown:,} unknown"
        )
        if self.refused:
            # The rows never sent wait for the same token: one count, one remedy.
            words += f", {self.refused + self.not_sent:,} {REFUSED_WORDS}"
        elif self.not_sent:
            words += f", {self.not_sent:,} not sent"
        if self.done_before:
            words += f"; {self.done_before:,} done before, skipped"
        if self.unknown_skipped:
            words += f"; {self.unknown_skipped:,} unknown, skipped"
        if self.created_before:
            words += f"; {self.created_before:,} created before, skipped"
        return words

    @property
    def seconds(self) -> float:
        """Time since sending started (until it ended)."""
        return (self.ended or time.monotonic()) - self.started

    @property
    def rate(self) -> float:
        """Rows settled per second."""
        return self.settled / self.seconds if self.seconds > 0 else 0.0

    def unrecorded(self, states: Iterable[PlantState]) -> None:
        """The ledger could not be told what came of these rows: counted as it holds them, of
        unknown fate (`not_recorded` keeps what they were)."""
        for state in states:
            match state:
                case PlantState.CREATED:
                    self.created -= 1
                case PlantState.REJECTED:
                    self.rejected -= 1
                case PlantState.FAILED:
                    self.failed -= 1
                case PlantState.UNKNOWN:
                    continue  # unknown here as in the ledger
            self.unknown += 1
            self.not_recorded[state] += 1

    def count(self, result: RowResult) -> None:
        """Count one settled row."""
        if result.refused:
            self.refused += 1
            # The earliest line refused, whatever order the answers came back in.
            if self.refusal is None or result.line < self.refusal.line:
                self.refusal = result
            self.retries += result.retries
            return
        match result.state:
            case PlantState.CREATED:
                self.created += 1
                self.created_off_spec += bool(result.off_spec)
            case PlantState.REJECTED:
                self.rejected += 1
            case PlantState.FAILED:
                self.failed += 1
            case _:
                self.unknown += 1
        self.retries += result.retries


def stop_words(reason: StopReason, progress: ImportProgress, name: str, resume: str) -> str | None:
    """Why the import stopped before its end, when a refused token or server errors stopped it,
    and how to go on (`resume`: the front end's way, e.g. "run with --resume"), in one sentence
    for every front end."""
    refusal = progress.refusal
    if reason is StopReason.REFUSED and refusal is not None:
        left = progress.refused + progress.not_sent
        return (
            f"The token was refused ({refusal.status}) at {visible(name)}:{refusal.line} (id "
            f"{refusal.plant_id}): {plural(left, 'row')} not sent; fix the token and {resume}."
        )
    if reason is StopReason.SERVER_ERRORS:
        return (
            "Stopped: the deployment answered server errors (5xx) in a row; those rows may or "
            f"may not have been created, {plural(progress.not_sent, 'row')} after them not sent. "
            f"Once the deployment is mended, {resume}."
        )
    return None
