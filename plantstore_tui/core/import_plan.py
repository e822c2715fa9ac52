"""Checking a file for import and planning it against the journal: a new batch, or the rest
of an earlier one.

Headless, so that every front end decides "resume or restart" from the same counts and sends
exactly the rows the journal says were never settled.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from plantstore_tui.core.import_journal import Batch, BatchCounts, ImportJournal, JournalError
from plantstore_tui.core.importing.files import (
    FileProblem,
    ImportFormat,
    SourceRow,
    Validation,
    check_row,
    format_for,
    read_rows,
    validate,
)
from plantstore_tui.core.text import visible


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
class CheckedFile:
    """A file read whole: what validation found, and what the journal knows of it."""

    name: str
    path: Path
    fmt: ImportFormat | None = None
    validation: Validation | None = None
    problem: str | None = None
    earlier: EarlierImport | None = None
    journal_problem: str | None = None
    stamp: tuple[int, int] = (0, 0)

    @property
    def sendable(self) -> bool:
        """Every row valid and the journal usable."""
        return self.validation is not None and self.validation.ok and self.journal_problem is None

    def open(self) -> IO[bytes]:
        """The file, opened afresh for each pass over it."""
        return self.path.open("rb")


def file_stamp(path: Path) -> tuple[int, int]:
    """Size and modification time: whether the file changed since it was checked."""
    stat = path.stat()
    return (stat.st_size, stat.st_mtime_ns)


def check_file(name: str, base: Path, given: ImportFormat | None, base_url: str) -> CheckedFile:
    """Validate the file `name` (relative to `base`; its format `given`, else from its name) and
    look it up in the journal; it may block."""
    shown = visible(name)
    path = base / Path(name).expanduser()
    if given is None:
        try:
            fmt = format_for(name)
        except FileProblem:
            problem = f"{shown}: cannot tell the format from the name: choose CSV, TSV or JSONL"
            return CheckedFile(name, path, problem=problem)
    else:
        fmt = given
    checked = CheckedFile(name, path, fmt)
    try:
        if not path.is_file():
            words = "no such file" if not path.exists() else "not a regular file"
            return CheckedFile(name, path, fmt, problem=f"{shown}: {words}")
        stamp = file_stamp(path)
        validation = validate(checked.open, fmt)
    except FileProblem as exc:
        return CheckedFile(name, path, fmt, problem=exc.where(shown))
    except OSError as exc:
        return CheckedFile(name, path, fmt, problem=f"{shown}: {exc.strerror or exc}")
    if not validation.ok:
        return CheckedFile(name, path, fmt, validation, stamp=stamp)
    try:
        with ImportJournal() as journal:
            earlier = earlier_import(journal, validation.sha256, base_url)
    except JournalError as exc:
        return CheckedFile(name, path, fmt, validation, journal_problem=str(exc), stamp=stamp)
    return CheckedFile(name, path, fmt, validation, earlier=earlier, stamp=stamp)


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


def resume_batch(
    journal: ImportJournal, batch: Batch, validation: Validation, *, resend_unknown: bool = False
) -> ImportPlan:
    """The rows of an earlier batch not yet settled; rows whose fate is unknown are left out
    unless `resend_unknown`."""
    skip = frozenset(journal.settled_lines(batch, resend_unknown=resend_unknown))
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
