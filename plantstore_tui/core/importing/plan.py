"""Checking a file for import and planning it against the ledger: a new batch, or the rest of an
earlier one.

Headless, so that every front end decides "resume or restart" from the same counts and sends
exactly the lines the ledger says were never settled.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import IO, TYPE_CHECKING, NamedTuple

from plantstore_tui.core.importing.files import (
    ImportFormat,
    Validation,
    format_for,
    read_rows,
    validate,
)
from plantstore_tui.core.importing.results import ImportProgress
from plantstore_tui.core.importing.rows import FileProblem, SourceRow
from plantstore_tui.core.plant.form import FormTexts
from plantstore_tui.core.plant.models import NewPlant, parse_new_plant
from plantstore_tui.core.plant.text import visible
from plantstore_tui.core.store.batches import (
    Batch,
    BatchCounts,
    Batches,
    BatchesChanged,
    BatchInUse,
    ImportOwner,
    UnknownRow,
)
from plantstore_tui.core.store.database import StoreError
from plantstore_tui.core.store.opening import open_for_reading, open_ledger
from plantstore_tui.core.store.settings import history_settings

if TYPE_CHECKING:
    from plantstore_tui.core.http.target import Target
    from plantstore_tui.core.store.ledger import Ledger


# Rows known as created before that a plan keeps to list (the rest are counted).
_CREATED_LISTED = 20
# Ids looked up in the ledger at a time.
_IDS_PER_LOOKUP = 500


class CreatedRow(NamedTuple):
    """A line of the file whose id the ledger knows as created on the target."""

    line: int
    plant_id: int
    name: str


@dataclass(frozen=True, slots=True)
class KnownCreated:
    """The lines of a file whose ids the ledger knows as created on the target: left out of
    the import (unless resent on purpose); the first few kept to list."""

    lines: frozenset[int] = frozenset()
    first: tuple[CreatedRow, ...] = ()

    def __len__(self) -> int:
        return len(self.lines)


def known_created(
    batches: Batches, base_url: str, rows: Iterable[ImportRow], skip: frozenset[int] = frozenset()
) -> KnownCreated:
    """Those of `rows` (less the lines of `skip`) whose ids the ledger knows as created on
    `base_url`: a file edited after its import is not sent whole again. Read as a stream, a
    page of ids at a time."""
    lines: list[int] = []
    first: list[CreatedRow] = []
    wanted = (row for row in rows if row.line not in skip)
    while page := list(itertools.islice(wanted, _IDS_PER_LOOKUP)):
        created = batches.created_ids(base_url, (row.plant.id for row in page))
        for row in page:
            if row.plant.id in created:
                lines.append(row.line)
                if len(first) < _CREATED_LISTED:
                    first.append(CreatedRow(row.line, row.plant.id, row.plant.name))
    return KnownCreated(frozenset(lines), tuple(first))


@dataclass(frozen=True, slots=True)
class EarlierImport:
    """The newest batch of the same file to the same target, where its lines stand, and the
    import that sends it now if one lives (then nothing else may send it)."""

    batch: Batch
    counts: BatchCounts
    running: ImportOwner | None = None

    @property
    def never_sent(self) -> int:
        """Lines the ledger has no row of (none in a finished batch, whatever went since)."""
        return 0 if self.batch.finished else max(0, self.batch.rows - self.counts.journaled)

    @property
    def to_resume(self) -> int:
        """Lines a resume sends: never sent, or not sent after a failure (never the unknown)."""
        return 0 if self.batch.finished else self.never_sent + self.counts.failed


@dataclass(frozen=True, slots=True)
class CheckedFile:
    """A file read whole: what validation found, and what the ledger knows of it."""

    name: str
    path: Path
    fmt: ImportFormat | None = None
    validation: Validation | None = None
    problem: str | None = None
    earlier: EarlierImport | None = None
    ledger_problem: str | None = None
    stamp: tuple[int, int] = (0, 0)
    created: KnownCreated = KnownCreated()
    """Its rows whose ids the ledger knows as created on the target: an import leaves them
    out."""

    @property
    def sendable(self) -> bool:
        """Every row valid, the ledger usable, and no other import of it running."""
        return (
            self.validation is not None
            and self.validation.ok
            and self.ledger_problem is None
            and (self.earlier is None or self.earlier.running is None)
        )

    def open(self) -> IO[bytes]:
        """The file, opened afresh for each pass over it."""
        return self.path.open("rb")


def file_stamp(path: Path) -> tuple[int, int]:
    """Size and modification time: whether the file changed since it was checked."""
    stat = path.stat()
    return (stat.st_size, stat.st_mtime_ns)


def check_file(name: str, base: Path, given: ImportFormat | None, base_url: str) -> CheckedFile:
    """Validate the file `name` (relative to `base`; its format `given`, else from its name) and
    look it up in the ledger; it may block."""
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

    earlier, created = None, KnownCreated()
    try:
        ledger = open_for_reading()
        if ledger is not None:
            try:
                batches = Batches(ledger)
                earlier = earlier_import(batches, validation, base_url)
                rows = rows_to_send(checked.open, fmt, None, frozenset())
                created = known_created(batches, base_url, rows)
            finally:
                ledger.close()
    except StoreError as exc:
        return CheckedFile(name, path, fmt, validation, ledger_problem=str(exc), stamp=stamp)
    except FileProblem as exc:
        return CheckedFile(name, path, fmt, problem=exc.where(shown))
    return CheckedFile(name, path, fmt, validation, earlier=earlier, stamp=stamp, created=created)


@dataclass(frozen=True, slots=True)
class ImportLedger:
    """The ledger an import writes to, and whether its rows stay once the batch is done."""

    ledger: Ledger
    keep: bool

    def close(self) -> None:
        """End the import's session."""
        self.ledger.close()


def open_for_import(profile: str | None) -> ImportLedger:
    """The ledger for an import to `profile`, and its history switch; `StoreError` if unusable."""
    settings = history_settings(profile)
    return ImportLedger(open_ledger("import", limit=settings.limit), settings.enabled)


@dataclass(frozen=True, slots=True)
class ImportPlan:
    """The batch the rows are written under, the lines not to send, and how many will go; for a
    resume, the lines whose fate is unknown (left out unless `resend_unknown`); the lines whose
    ids the ledger knows as created on the target (`created`, left out)."""

    batch: Batch
    skip: frozenset[int]
    to_send: int
    resumed: bool
    unknown: tuple[UnknownRow, ...] = ()
    resend_unknown: bool = False
    created: KnownCreated = KnownCreated()

    @property
    def skipped(self) -> int:
        """Lines left out of a resume: done before, or (unless resent) of unknown fate."""
        if not self.resumed:
            return 0
        if self.batch.finished:
            return self.batch.rows
        return len(self.skip) - len(self.created)

    @property
    def unknown_skipped(self) -> int:
        """Lines of unknown fate a resume leaves out."""
        return 0 if self.resend_unknown else len(self.unknown)

    def progress(self) -> ImportProgress:
        """The counts of a run of this plan, the lines it leaves out among them."""
        return ImportProgress(
            to_send=self.to_send,
            done_before=self.skipped - self.unknown_skipped,
            unknown_skipped=self.unknown_skipped,
            created_before=len(self.created),
        )

    def rows(
        self,
        open_file: Callable[[], IO[bytes]],
        fmt: ImportFormat,
        columns: Mapping[str, str] | None = None,
    ) -> Iterator[ImportRow]:
        """The rows this plan sends (none of a finished batch: its rows may have gone)."""
        if self.batch.finished:
            return iter(())
        return rows_to_send(open_file, fmt, columns, self.skip)


def earlier_import(batches: Batches, validation: Validation, base_url: str) -> EarlierImport | None:
    """The earlier import of this file (by its hash) to this base URL, if there was one."""
    batch = batches.latest(validation.sha256, base_url)
    if batch is None:
        return None
    running = batches.owner(batch)
    counts = batches.counts(batch) if running is None else running.counts
    return EarlierImport(batch, counts, running)


def new_batch(
    batches: Batches,
    validation: Validation,
    *,
    base_url: str,
    profile: str | None,
    file_name: str,
    replacing: Batch | None = None,
    rows: Iterable[ImportRow] = (),
) -> ImportPlan:
    """Every valid row, as a new batch (a restart of `replacing` is one too), less those of
    `rows` (the file's, unless created rows are resent on purpose) whose ids the ledger knows
    as created on the target; `BatchInUse` while another import of the file to the target
    runs, `BatchesChanged` if one began since `replacing` was read."""
    created = known_created(batches, base_url, rows)
    batch = batches.start(
        sha256=validation.sha256,
        base_url=base_url,
        profile=profile,
        file_name=file_name,
        rows=validation.valid - len(created),
        replacing=None if replacing is None else replacing.id,
    )
    return ImportPlan(
        batch, created.lines, validation.valid - len(created), resumed=False, created=created
    )


def resume_batch(
    batches: Batches,
    batch: Batch,
    validation: Validation,
    *,
    resend_unknown: bool = False,
    rows: Iterable[ImportRow] = (),
) -> ImportPlan:
    """The lines of `batch` not yet settled, the unknown ones only if `resend_unknown`, less
    those of `rows` whose ids the ledger knows as created on the target (created by another
    front end since, or left out when the batch began), once this instance's import owns it
    (`BatchInUse` while its import lives)."""
    batch = batches.take_over(batch)
    if batch.finished:
        return ImportPlan(batch, frozenset(), 0, resumed=True)
    unknown = tuple(batches.unknown_rows(batch))
    settled = frozenset(batches.settled_lines(batch, resend_unknown=resend_unknown))
    created = known_created(batches, batch.base_url, rows, settled)
    skip = settled | created.lines
    return ImportPlan(
        batch,
        skip,
        max(0, validation.valid - len(skip)),
        resumed=True,
        unknown=unknown,
        resend_unknown=resend_unknown,
        created=created,
    )


def plan_import(
    target: Target,
    file_name: str,
    validation: Validation,
    earlier: Batch | None,
    *,
    resume: bool,
    rows: Callable[[], Iterable[ImportRow]] = tuple,
) -> tuple[ImportLedger, ImportPlan]:
    """Open the ledger and plan the rest of `earlier` (`resume`), else a new batch in its place,
    leaving out those of `rows` (the file's) whose ids it knows as created on the target
    (blocks; `StoreError`, `BatchInUse`, `BatchesChanged`, `FileProblem` if the file changed)."""
    store = open_for_import(target.profile)
    batches = Batches(store.ledger)
    try:
        if resume and earlier is not None:
            return store, resume_batch(batches, earlier, validation, rows=rows())
        plan = new_batch(
            batches,
            validation,
            base_url=target.base_url,
            profile=target.profile,
            file_name=file_name,
            replacing=earlier,
            rows=rows(),
        )
    except (StoreError, BatchInUse, BatchesChanged, FileProblem):
        store.close()
        raise
    return store, plan


@dataclass(frozen=True, slots=True)
class ImportRow:
    """A row to send: its line, its texts as read, and the plant they make."""

    line: int
    texts: FormTexts
    plant: NewPlant


def rows_to_send(
    open_file: Callable[[], IO[bytes]],
    fmt: ImportFormat,
    columns: Mapping[str, str] | None,
    skip: frozenset[int],
) -> Iterator[ImportRow]:
    """The file's rows not in `skip`, each made a plant; FileProblem at the first row that is no
    longer valid.

    The file was validated whole before, but it may have been edited since: a row that is not a
    plant any more stops the import instead of reaching the sender.
    """
    with open_file() as stream:
        for item in read_rows(stream, fmt, columns):
            plant = (
                parse_new_plant(item.texts.name, item.texts.id, item.texts.tag)
                if isinstance(item, SourceRow)
                else None
            )
            if not isinstance(item, SourceRow) or not isinstance(plant, NewPlant):
                raise FileProblem(
                    "the file changed since it was checked: check it again", item.line
                )
            if item.line not in skip:
                yield ImportRow(item.line, item.texts, plant)
