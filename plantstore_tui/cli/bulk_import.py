"""`plantstore-tui import FILE`: plants from a file, checked first, resumable, never sent twice."""

from __future__ import annotations

import asyncio
import contextlib
import json
import shutil
import signal
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

import click

from plantstore_tui.cli.exits import ConfigProblem, ExitCode, InvalidInput
from plantstore_tui.cli.targets import (
    TargetOptions,
    confirm_protected,
    resolve_target,
    target_options,
)
from plantstore_tui.core.import_journal import ImportJournal
from plantstore_tui.core.import_plan import ImportPlan, new_batch, resume_batch
from plantstore_tui.core.importing.files import (
    FileProblem,
    ImportFormat,
    SourceRow,
    Validation,
    format_for,
    ignored_columns,
    read_rows,
    validate,
)
from plantstore_tui.core.text import visible

# Problems and rows listed in full on a terminal; the rest are summed up.
_SHOWN = 1000
_SHOWN_RESULTS = 20
# How long rows in flight may settle after Ctrl+C before they are abandoned as unknown.
_GRACE_SECONDS = 5.0
_INTERRUPTED = 130


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
                f"--column {visible(value)!r}: expected FIELD=COLUMN, FIELD one of name, id, tag"
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
        raise InvalidInput(f"--rate {visible(value)!r}: expected requests a second, e.g. 50/s")
    return rate


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
@click.option("--yes", "-y", is_flag=True, help="Send to a protected profile without asking.")
@click.option(
    "--report",
    type=click.Path(dir_okay=False, writable=True, path_type=Path),
    help="Write one JSON line per row sent: line, id, outcome, status, error, message.",
)
@click.option("--json", "as_json", is_flag=True, help="Print the summary as one JSON object.")
@click.option(
    "--resume", is_flag=True, help="Send only the rows of an earlier import not yet sent."
)
@click.option("--restart", is_flag=True, help="Send every row again, as a new import.")
@click.option(
    "--resend-unknown",
    is_flag=True,
    help="With --resume, also send rows whose fate is unknown (they may exist already).",
)
@target_options
@click.pass_obj
def bulk_import(
    options: TargetOptions,
    file: str,
    fmt: str | None,
    column_options: tuple[str, ...],
    dry_run: bool,
    concurrency: int,
    rate_text: str | None,
    yes: bool,
    report: Path | None,
    as_json: bool,
    resume: bool,
    restart: bool,
    resend_unknown: bool,
    profile: str | None,
    base_url: str | None,
    allow_insecure_http: bool,
    ca_bundle: str | None,
) -> None:
    """Add every plant of FILE (CSV, TSV or JSON Lines; - for stdin) to the store.

    The whole file is checked first; if any row is bad, every bad row is listed and nothing is
    sent. Each row is journaled before it is sent: after a crash or Ctrl+C, --resume sends only
    the rows not yet sent. Exits 0 all created, 1 some rejected, 2 invalid file or usage (nothing
    sent), 3 stopped on transport failures or some rows not settled, 4 configuration problem.
    """
    if resume and restart:
        raise InvalidInput("--resume and --restart contradict each other: choose one")
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
            _print_problems(source.name, validation)
            raise SystemExit(ExitCode.INVALID_INPUT)
        if dry_run:
            _print_dry_run(source, form, columns, validation, as_json)
            raise SystemExit(ExitCode.CREATED)
        target = resolve_target(
            options.merged(profile, base_url, allow_insecure_http, ca_bundle),
            interactive=not as_json,
        )
        journal, plan = _plan(
            source,
            validation,
            target,
            resume=resume,
            restart=restart,
            resend_unknown=resend_unknown,
        )
        if target.protected and not yes:
            question = f"Send {plan.to_send} plant(s) to"
            confirm_protected(target, question, interactive=not as_json)
        from plantstore_tui.core.bulk import ImportSettings

        settings = ImportSettings(concurrency=concurrency, rate=rate)
        outcome = _run(source, form, columns, target, journal, plan, settings, report, as_json)
    raise SystemExit(outcome)


def _plan(
    source: _Source,
    validation: Validation,
    target: Any,
    *,
    resume: bool,
    restart: bool,
    resend_unknown: bool,
) -> tuple[ImportJournal, ImportPlan]:
    from plantstore_tui.core.import_journal import JournalError

    try:
        journal = ImportJournal()
    except JournalError as exc:
        # Without the journal a crash could not be resumed without sending rows twice.
        raise ConfigProblem(f"{exc}; nothing was sent") from None
    earlier = journal.latest_batch(validation.sha256, target.base_url)
    if earlier is not None and not (resume or restart):
        counts = journal.counts(earlier)
        journal.close()
        never = earlier.rows - counts.journaled
        raise InvalidInput(
            f"{visible(source.name)} was imported to {visible(target.base_url)} before "
            f"({earlier.started_at.astimezone():%Y-%m-%d %H:%M}): {counts.created} created, "
            f"{counts.rejected} rejected, {counts.failed} not sent after a failure, "
            f"{counts.unknown} unknown, {never} never sent. --resume sends the rows not yet sent; "
            "--restart sends every row again. Nothing was sent"
        )
    if resume and earlier is not None:
        unknown = journal.unknown_rows(earlier)
        # On stderr even with --json: a script must not miss them either.
        if unknown:
            verb = (
                "are sent again, and may exist already"
                if resend_unknown
                else ("are not sent again (--resend-unknown sends them; they may exist already)")
            )
            click.echo(f"{len(unknown)} row(s) whose fate is unknown {verb}:", err=True)
            for line, plant_id, message in unknown[:_SHOWN_RESULTS]:
                click.echo(
                    f"  {visible(source.name)}:{line}: id {plant_id}: {visible(message)}", err=True
                )
            if len(unknown) > _SHOWN_RESULTS:
                click.echo(f"  ... and {len(unknown) - _SHOWN_RESULTS} more", err=True)
        return journal, resume_batch(journal, earlier, validation, resend_unknown=resend_unknown)
    return journal, new_batch(
        journal, validation, base_url=target.base_url, profile=target.profile, file_name=source.name
    )


def _print_problems(name: str, validation: Validation) -> None:
    shown = visible(name)
    for problem in validation.problems[:_SHOWN]:
        click.echo(problem.where(shown), err=True)
    hidden = validation.problem_count - min(len(validation.problems), _SHOWN)
    if hidden:
        click.echo(f"... and {hidden} more bad row(s) not listed", err=True)
    click.echo(
        f"{shown}: {validation.problem_count} bad row(s) of {validation.rows}; nothing was sent.",
        err=True,
    )


def _print_dry_run(
    source: _Source,
    form: ImportFormat,
    columns: dict[str, str],
    validation: Validation,
    as_json: bool,
) -> None:
    with source.open() as stream:
        ignored = ignored_columns(stream, form, columns)
    if as_json:
        click.echo(
            json.dumps(
                {
                    "file": source.name,
                    "format": form.value,
                    "sha256": validation.sha256,
                    "rows": validation.rows,
                    "valid": validation.valid,
                    "ignored_columns": ignored,
                    "sent": 0,
                },
                ensure_ascii=True,
            )
        )
        return
    click.echo(
        f"{visible(source.name)}: {validation.valid} plant(s), every row valid "
        f"({form.value}, {validation.size} bytes). Nothing was sent (dry run)."
    )
    if ignored:
        click.echo("Columns not read: " + ", ".join(ignored))
    with source.open() as stream:
        for index, item in enumerate(read_rows(stream, form, columns)):
            if index == 3:
                click.echo("  ...")
                break
            if isinstance(item, SourceRow):
                tag = f", tag {visible(item.texts.tag.strip())!r}" if item.texts.tag.strip() else ""
                click.echo(
                    f"  line {item.line}: id {item.texts.id.strip()}, "
                    f"name {visible(item.texts.name.strip())!r}{tag}"
                )


def _rows_to_send(
    source: _Source, form: ImportFormat, columns: dict[str, str], skip: frozenset[int]
) -> Iterator[SourceRow]:
    with source.open() as stream:
        for item in read_rows(stream, form, columns):
            if isinstance(item, SourceRow) and item.line not in skip:
                yield item


def _run(
    source: _Source,
    form: ImportFormat,
    columns: dict[str, str],
    target: Any,
    journal: ImportJournal,
    plan: ImportPlan,
    settings: Any,
    report: Path | None,
    as_json: bool,
) -> int:
    from plantstore_tui.cli.import_progress import Progress, print_summary, summary_exit_code
    from plantstore_tui.core.bulk import ImportProgress

    progress = ImportProgress(to_send=plan.to_send)
    report_file = None
    if report is not None:
        try:
            report_file = report.open("w", encoding="utf-8")
        except OSError as exc:
            raise InvalidInput(
                f"--report {report}: {exc.strerror or exc}; nothing was sent"
            ) from None
    display = Progress.for_terminal(plan.to_send, enabled=not as_json)
    results: list[Any] = []

    def on_result(result: Any) -> None:
        progress.count(result)
        if report_file is not None:
            report_file.write(json.dumps(result.to_json(), ensure_ascii=True) + "\n")
        if result.state.value != "created" and len(results) < _SHOWN_RESULTS:
            results.append(result)
        display.update(progress)

    try:
        with display:
            reason, interrupted = asyncio.run(
                _send_all(
                    source, form, columns, target, journal, plan, settings, on_result, display
                )
            )
    finally:
        progress.ended = time.monotonic()
        if report_file is not None:
            report_file.close()
        journal.close()
    not_sent = plan.to_send - progress.settled
    print_summary(
        source_name=source.name,
        target=target,
        progress=progress,
        results=results,
        reason=reason,
        interrupted=interrupted,
        not_sent=not_sent,
        as_json=as_json,
        sha256=plan.batch.sha256,
        batch=plan.batch.id,
        skipped=len(plan.skip),
    )
    return _INTERRUPTED if interrupted else summary_exit_code(progress, reason, not_sent)


async def _send_all(
    source: _Source,
    form: ImportFormat,
    columns: dict[str, str],
    target: Any,
    journal: ImportJournal,
    plan: ImportPlan,
    settings: Any,
    on_result: Callable[[Any], None],
    display: Any,
) -> tuple[Any, bool]:
    from plantstore_tui.core.bulk import BatchSender, HistorySender
    from plantstore_tui.core.client import PlantStoreClient
    from plantstore_tui.core.journal import Journal

    async with PlantStoreClient(
        target.base_url, target.token, limits=target.limits, ca_bundle=target.ca_bundle
    ) as client:
        history = Journal.open("import", target.profile, warn=display.note)
        sent_through = HistorySender(client, history.for_target(target))
        sender = BatchSender(sent_through, journal, plan.batch, settings, on_result)
        task = asyncio.ensure_future(sender.run(_rows_to_send(source, form, columns, plan.skip)))
        loop = asyncio.get_running_loop()
        interrupts = 0

        def interrupted() -> None:
            nonlocal interrupts
            interrupts += 1
            sender.stop.set()
            if interrupts == 1:
                display.note(
                    f"Stopping: no more rows are sent; {len(sender.in_flight)} in flight may "
                    f"settle for up to {_GRACE_SECONDS:g} s (Ctrl+C again to give up on them)."
                )
                loop.call_later(_GRACE_SECONDS, task.cancel)
            else:
                task.cancel()

        with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
            loop.add_signal_handler(signal.SIGINT, interrupted)
        try:
            reason = await task
        except asyncio.CancelledError:
            from plantstore_tui.core.bulk import StopReason

            reason = StopReason.STOPPED
        finally:
            with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
                loop.remove_signal_handler(signal.SIGINT)
        return reason, interrupts > 0
