"""Planning an import against the journal: a new batch, or the rest of an earlier one.

Headless, so that every front end decides "resume or restart" from the same counts and sends
exactly the rows the journal says were never settled.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import IO

from plantstore_tui.core.bulk_file import (
    FileProblem,
    ImportFormat,
    SourceRow,
    Validation,
    check_row,
    read_rows,
)
from plantstore_tui.core.import_journal import Batch, BatchCounts, ImportJournal


@dataclass(frozen=True, slots=True)
class EarlierImport:
    """The newest batch of the same file to the same target, and where its rows stand."""

    batch: Batch
    counts: BatchCounts

    @property
    def never_sent(self) -> int:
        """Rows of the batch the journal has no record of: they never went out."""
        return max(0, self.batch.rows - self.counts.journaled)

    @property
    def to_resume(self) -> int:
        """Rows a resume sends: never sent, or not sent after a failure (never the unknown)."""
        return self.never_sent + self.counts.failed


@dataclass(frozen=True, slots=True)
class ImportPlan:
    """The batch rows are journaled under, the lines not to send, and how many will go."""

    batch: Batch
    skip: frozenset[int]
    to_send: int
    resumed: bool


def earlier_import(journal: ImportJournal, sha256: str, base_url: str) -> EarlierImport | None:
    """The earlier import of this file (by its hash) to this base URL, if there was one."""
    batch = journal.latest_batch(sha256, base_url)
    return None if batch is None else EarlierImport(batch, journal.counts(batch))


def new_batch(
    journal: ImportJournal,
    validation: Validation,
    *,
    base_url: str,
    profile: str | None,
    file_name: str,
) -> ImportPlan:
    """Every valid row, as a new batch (a restart is one too)."""
    batch = journal.start_batch(
        sha256=validation.sha256,
        base_url=base_url,
        profile=profile,
        file_name=file_name,
        rows=validation.valid,
    )
    return ImportPlan(batch, frozenset(), validation.valid, resumed=False)


def resume_batch(journal: ImportJournal, batch: Batch, validation: Validation) -> ImportPlan:
    """The rows of an earlier batch not yet settled; rows whose fate is unknown are left out."""
    skip = frozenset(journal.settled_lines(batch, resend_unknown=False))
    return ImportPlan(batch, skip, max(0, validation.valid - len(skip)), resumed=True)


def rows_to_send(
    open_file: Callable[[], IO[bytes]],
    fmt: ImportFormat,
    columns: Mapping[str, str] | None,
    skip: frozenset[int],
) -> Iterator[SourceRow]:
    """The file's rows not in `skip`; FileProblem at the first row that is no longer valid.

    The file was validated whole before, but it may have been edited since: a row that is not a
    plant any more stops the import instead of reaching the sender.
    """
    with open_file() as stream:
        for item in read_rows(stream, fmt, columns):
            if not isinstance(item, SourceRow) or check_row(item):
                raise FileProblem(
                    "the file changed since it was checked: check it again", item.line
                )
            if item.line not in skip:
                yield item
