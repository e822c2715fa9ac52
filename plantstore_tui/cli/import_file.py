"""`plantstore-tui import FILE`: plants from a file, checked first, resumable, never sent twice."""

from __future__ import annotations

import contextlib
import shutil
import sys
import tempfile
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import IO, TYPE_CHECKING

import click

from plantstore_tui.cli.exits import ConfigProblem, ExitCode, InvalidInput
from plantstore_tui.cli.import_lists import (
    bad_rows,
    created_before,
    print_created,
    print_dry_run,
    print_unknown,
)
from plantstore_tui.cli.import_send import send_file
from plantstore_tui.cli.options import json_option, one_of, yes_option
from plantstore_tui.cli.targets import (
    TargetOptions,
    confirm_protected,
    merged_target_options,
    resolve_target,
    say_token_note,
)
from plantstore_tui.core.config.files import checked_data_dir
from plantstore_tui.core.importing.files import ImportFormat, Validation, format_for, validate
from plantstore_tui.core.importing.plan import (
    ImportPlan,
    ImportRow,
    earlier_import,
    new_batch,
    open_for_import,
    resume_batch,
    rows_to_send,
)
from plantstore_tui.core.importing.results import ImportSettings
from plantstore_tui.core.importing.rows import FileProblem
from plantstore_tui.core.plant.text import plural, quoted, visible
from plantstore_tui.core.store.batches import Batches, BatchesChanged, BatchInUse
from plantstore_tui.core.store.database import StoreError

if TYPE_CHECKING:
    from plantstore_tui.core.http.target import Target
    from plantstore_tui.core.importing.plan import ImportLedger


@dataclass(frozen=True, slots=True)
class _Source:
    """The file as given, and how to open it again."""

    name: str
    path: Path

    def open(self) -> IO[bytes]:
        return self.path.open("rb")


@contextlib.contextmanager
def _source(file: str) -> Iterator[_Source]:
    if file != "-":
        path = Path(file)
        if not path.is_file():
            problem = "no such file" if not path.exists() else "not a regular file"
            raise InvalidInput(f"{visible(file)}: {problem}; nothing was sent")
        yield _Source(file, path)
        return
    # Standard input is read once: kept in a private temporary file, it can be validated, hashed
    # and then sent.
    with tempfile.TemporaryDirectory(prefix="plantstore-import-") as directory:
        path = Path(directory) / "stdin"
        with path.open("wb") as spool:
            shutil.copyfileobj(sys.stdin.buffer, spool)
        yield _Source("<stdin>", path)


def _columns(values: tuple[str, ...]) -> dict[str, str]:
    mapping: dict[str, str] = {}
    for value in values:
        field, sep, column = value.partition("=")
        if not sep or field.strip() not in ("name", "id", "tag") or not column.strip():
            raise InvalidInput(
                f"--column {quoted(visible(value))}: expected FIELD=COLUMN, FIELD one of name, id, "
                "tag"
            )
        mapping[field.strip()] = column.strip()
    return mapping


def _rate(value: str | None) -> float | None:
    if value is None:
        return None
    text = value.strip().removesuffix("/s")
    try:
        rate = float(text)
    except ValueError:
        rate = -1.0
    if not 0 < rate <= 100_000:
        raise InvalidInput(
            f"--rate {quoted(visible(value))}: expected requests a second, e.g. 50/s"
        )
    return rate


_resume_or_restart = one_of("resume", "restart")


@click.command("import")
@click.argument("file", metavar="FILE")
@click.option(
    "--format",
    "fmt",
    type=click.Choice([f.value for f in ImportFormat]),
    help="[default: from FILE's extension]",
)
@click.option(
    "--column",
    "column_options",
    multiple=True,
    metavar="FIELD=COLUMN",
    help="Read FIELD (name, id, tag) from the column headed COLUMN. Repeatable.",
)
@click.option("--dry-run", is_flag=True, help="Validate and say what would be sent; send nothing.")
@click.option(
    "--concurrency",
    type=click.IntRange(1, 64),
    default=8,
    show_default=True,
    help="Requests in flight at most.",
)
@click.option("--rate", "rate_text", metavar="R/s", help="Start at most R requests a second.")
@click.option(
    "--give-up-after",
    type=click.FloatRange(0, 86_400),
    default=300,
    show_default=True,
    metavar="SECONDS",
    help="While the deployment cannot be reached (or answers 429 or 503), wait and try again "
    "for this long, then stop; 0 stops at once. Rows it did not take go again, in order; a row "
    "that may have arrived is never sent again.",
)
@yes_option("Send to a protected profile without asking.")
@click.option(
    "--report",
    type=click.Path(dir_okay=False, writable=True, path_type=Path),
    help="Write one JSON line per row sent: line, id, outcome, status, error, message.",
)
@json_option("Print the summary as one JSON object.")
@_resume_or_restart(
    "--resume", is_flag=True, help="Send only the rows of an earlier import not yet sent."
)
@_resume_or_restart(
    "--restart",
    is_flag=True,
    help="Send every row again, as a new import (those created before: with --resend-created).",
)
@click.option(
    "--resend-unknown",
    is_flag=True,
    help="With --resume, also send rows whose fate is unknown (they may exist already).",
)
@click.option(
    "--resend-created",
    is_flag=True,
    help="Also send rows whose ids the ledger knows as created on the target (left out "
    "otherwise, and listed).",
)
@merged_target_options
def import_file(
    options: TargetOptions,
    file: str,
    fmt: str | None,
    column_options: tuple[str, ...],
    dry_run: bool,
    concurrency: int,
    rate_text: str | None,
    give_up_after: float,
    yes: bool,
    report: Path | None,
    as_json: bool,
    resume: bool,
    restart: bool,
    resend_unknown: bool,
    resend_created: bool,
) -> None:
    """Add every plant of FILE (CSV, TSV or JSON Lines; - for stdin) to the store.

    The whole file is checked first; if any row is bad, every bad row is listed and nothing is
    sent. Rows whose ids the ledger knows as created on the target are left out and listed
    (--resend-created sends them). Each row is in the ledger before it is sent: after a crash or
    Ctrl+C, --resume sends only the rows not yet sent. When the deployment cannot be reached,
    the import waits and goes on (see --give-up-after); a refused token (401, 403) or server
    errors in a row stop it. Exits 0 all created, 1 some rejected, 2 invalid file or usage
    (nothing sent), 3 stopped (a refused token included), or rows left unsettled (failed, never
    sent, or of unknown fate, left out by --resume included), 4 configuration problem or an
    unusable ledger.
    """
    if resend_unknown and not resume:
        raise InvalidInput("--resend-unknown goes with --resume")
    columns = _columns(column_options)
    rate = _rate(rate_text)
    with _source(file) as source:
        try:
            form = format_for(file if file != "-" else "", fmt)
            validation = validate(source.open, form, columns)
        except FileProblem as exc:
            raise InvalidInput(f"{exc.where(visible(source.name))}; nothing was sent") from None
        if not validation.ok:
            raise bad_rows(source.name, validation)
        file_rows = partial(rows_to_send, source.open, form, columns, frozenset())
        if dry_run:
            created = None if resend_created else created_before(options, file_rows)
            print_dry_run(source, form, columns, validation, as_json, created)
            raise SystemExit(ExitCode.CREATED)
        target = resolve_target(
            options,
            interactive=not as_json,
        )
        say_token_note(target)
        store = _open_ledger(target)
        try:
            try:
                plan = _plan(
                    Batches(store.ledger),
                    source,
                    validation,
                    target,
                    resume=resume,
                    restart=restart,
                    resend_unknown=resend_unknown,
                    file_rows=tuple if resend_created else file_rows,
                )
            except StoreError as exc:
                raise _unusable(exc) from None
            except BatchInUse as exc:
                raise _in_use(exc) from None
            except FileProblem as exc:
                raise InvalidInput(f"{exc.where(visible(source.name))}; nothing was sent") from None
            print_created(source.name, target.base_url, plan.created)
            if target.protected and not yes:
                question = f"Send {plural(plan.to_send, 'plant')} to"
                confirm_protected(target, question, interactive=not as_json)
            settings = ImportSettings(
                concurrency=concurrency, rate=rate, give_up_after=give_up_after
            )
            rows = partial(plan.rows, source.open, form, columns)
            outcome = send_file(source.name, rows, target, store, plan, settings, report, as_json)
        finally:
            store.close()
    raise SystemExit(outcome)


def _unusable(error: StoreError) -> ConfigProblem:
    # Without the ledger a stopped import could not resume without sending rows twice.
    return ConfigProblem(f"The ledger cannot be used: {visible(str(error))}; nothing was sent")


def _in_use(error: BatchInUse) -> ConfigProblem:
    # Exit 4, as a port in use: this machine's state stops the run, not what was typed, and the
    # same command goes through once the other import has ended.
    return ConfigProblem(
        f"{error.reason}. Nothing was sent: wait for it to end, or stop it; if it ends before "
        "its last row, --resume sends the rows it did not send"
    )


def _open_ledger(target: Target) -> ImportLedger:
    checked_data_dir()  # a file there is a mistake to fix (exit 4), not a ledger gone bad
    try:
        store = open_for_import(target.profile)
    except StoreError as exc:
        raise _unusable(exc) from None
    carried = store.ledger.carried
    for problem in [] if carried is None else carried.problems:
        click.echo(f"An earlier file was not read: {problem}", err=True)
    return store


def _plan(
    batches: Batches,
    source: _Source,
    validation: Validation,
    target: Target,
    *,
    resume: bool,
    restart: bool,
    resend_unknown: bool,
    file_rows: Callable[[], Iterable[ImportRow]],
    again: bool = True,
) -> ImportPlan:
    found = earlier_import(batches, validation, target.base_url)
    earlier = None if found is None else found.batch
    if found is not None and found.running is not None:
        raise BatchInUse(found.running)
    if found is not None and not (resume or restart):
        counts, when = found.counts, found.batch.started_at.astimezone()
        where = f"{visible(source.name)} was imported to {visible(target.base_url)} before"
        if found.batch.finished:
            stands = f"every row done: {counts.created} created, {counts.rejected} rejected"
            stands += "" if counts.journaled == found.batch.rows else ", the others not kept"
        else:
            stands = (
                f"{counts.created} created, {counts.rejected} rejected, {counts.failed} not sent "
                f"after a failure, {counts.unknown} unknown, {found.never_sent} never sent"
            )
        raise InvalidInput(
            f"{where} ({when:%Y-%m-%d %H:%M}): {stands}. --resume sends the rows not yet sent; "
            "--restart sends every row again. Nothing was sent"
        )
    try:
        if resume and earlier is not None:
            plan = resume_batch(
                batches, earlier, validation, resend_unknown=resend_unknown, rows=file_rows()
            )
            print_unknown(source.name, plan)
            return plan
        return new_batch(
            batches,
            validation,
            base_url=target.base_url,
            profile=target.profile,
            file_name=source.name,
            replacing=earlier,
            rows=file_rows(),
        )
    except BatchesChanged as exc:
        if not again:
            raise InvalidInput(str(exc)) from None
    # Another import of the file began since it was read: decided again on what is there now.
    return _plan(
        batches,
        source,
        validation,
        target,
        resume=resume,
        restart=restart,
        resend_unknown=resend_unknown,
        file_rows=file_rows,
        again=False,
    )
