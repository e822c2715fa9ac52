"""What `import` says before it sends: the bad rows of a file, the dry run, and the rows it leaves
out (of unknown fate, or created before on the target), each listed bounded."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from typing import IO, TYPE_CHECKING, Any, Protocol

import click

from plantstore_tui.cli.exits import InvalidInput
from plantstore_tui.cli.targets import TargetOptions, resolve_target
from plantstore_tui.core.importing.files import ignored_columns, read_rows
from plantstore_tui.core.importing.plan import KnownCreated, known_created
from plantstore_tui.core.importing.rows import FileProblem, SourceRow
from plantstore_tui.core.plant.text import bounded_json, plural, quoted, shorten, visible
from plantstore_tui.core.store.batches import Batches
from plantstore_tui.core.store.database import StoreError
from plantstore_tui.core.store.opening import open_for_reading

if TYPE_CHECKING:
    from plantstore_tui.core.importing.files import ImportFormat, Validation
    from plantstore_tui.core.importing.plan import ImportPlan, ImportRow

# Problems and rows listed in full on a terminal; the rest are summed up.
_SHOWN = 1000
_SHOWN_RESULTS = 20
_SHOWN_CREATED = 5


class Source(Protocol):
    """The file as given, and how to open it again."""

    @property
    def name(self) -> str:
        """The file's name as given (`<stdin>` for -)."""
        ...

    def open(self) -> IO[bytes]:
        """The file, opened afresh."""
        ...


def print_unknown(name: str, plan: ImportPlan) -> None:
    """The lines of unknown fate a resume leaves out (or sends again), each with its id, name and
    why; on stderr even with --json: a script must not miss them either."""
    if not plan.unknown:
        return
    one = len(plan.unknown) == 1
    if plan.resend_unknown:
        verb = f"{'is' if one else 'are'} sent again, and may exist already"
    else:
        it, they = ("it", "it") if one else ("them", "they")
        verb = (
            f"{'is' if one else 'are'} left out, not sent again (--resend-unknown sends {it}; "
            f"{they} may exist already)"
        )
    click.echo(f"{plural(len(plan.unknown), 'row')} whose fate is unknown {verb}:", err=True)
    shown = visible(name)
    for row in plan.unknown[:_SHOWN_RESULTS]:
        named = f" ({quoted(visible(row.name), 40)})" if row.name else ""
        words = visible(shorten(row.words))
        click.echo(f"  {shown}:{row.line}: id {row.plant_id}{named}: {words}", err=True)
    if len(plan.unknown) > _SHOWN_RESULTS:
        click.echo(f"  ... and {len(plan.unknown) - _SHOWN_RESULTS} more", err=True)


def print_created(name: str, base_url: str, created: KnownCreated) -> None:
    """The rows left out because the ledger knows their ids as created on the target, the
    first few by line, id and name, and a count; on stderr even with --json."""
    if not created:
        return
    count = len(created)
    them = "it" if count == 1 else "them"
    click.echo(
        f"{plural(count, 'row')} of {visible(name)} {'has' if count == 1 else 'have'} an id this "
        f"ledger knows as created on {visible(base_url)}: left out, not sent again "
        f"(--resend-created sends {them}):",
        err=True,
    )
    _list_created(name, created, err=True)


def _list_created(name: str, created: KnownCreated, *, err: bool) -> None:
    shown = visible(name)
    for row in created.first[:_SHOWN_CREATED]:
        named = f" ({quoted(visible(row.name), 40)})" if row.name else ""
        click.echo(f"  {shown}:{row.line}: id {row.plant_id}{named}", err=err)
    if len(created) > _SHOWN_CREATED:
        click.echo(f"  ... and {len(created) - _SHOWN_CREATED:,} more", err=err)


def created_before(
    options: TargetOptions, file_rows: Callable[[], Iterable[ImportRow]]
) -> tuple[str, KnownCreated] | None:
    """For a dry run: the target's base URL and the rows the ledger knows as created there;
    None without a target or a ledger to ask (the dry run needs neither)."""
    try:
        target = resolve_target(options, interactive=False, token_needed=False)
        ledger = open_for_reading()
    except (click.ClickException, StoreError):
        return None
    if ledger is None:
        return target.base_url, KnownCreated()
    try:
        return target.base_url, known_created(Batches(ledger), target.base_url, file_rows())
    except (StoreError, FileProblem):
        return None
    finally:
        ledger.close()


class _BadRows(InvalidInput):
    """A file with bad rows: each is listed on stderr, then summed up (and listed in --json)."""

    def __init__(self, summary: str, problems: list[str], hidden: int) -> None:
        super().__init__(summary)
        self.problems, self.hidden = problems, hidden
        self.details = {"problems": problems, "problems_not_listed": hidden}

    def show(self, file: IO[Any] | None = None) -> None:
        for problem in self.problems:
            click.echo(problem, err=True)
        if self.hidden:
            click.echo(f"... and {plural(self.hidden, 'more bad row')} not listed", err=True)
        click.echo(self.message, err=True)


def bad_rows(name: str, validation: Validation) -> _BadRows:
    """The usage error for a file with bad rows: the first ones listed, the rest counted."""
    shown = visible(name)
    problems = [problem.where(shown) for problem in validation.problems[:_SHOWN]]
    summary = (
        f"{shown}: {plural(validation.problem_count, 'bad row')} of {validation.rows:,}; "
        "nothing was sent."
    )
    return _BadRows(summary, problems, validation.problem_count - len(problems))


def print_dry_run(
    source: Source,
    form: ImportFormat,
    columns: dict[str, str],
    validation: Validation,
    as_json: bool,
    created: tuple[str, KnownCreated] | None,
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
                    "created_before": None if created is None else len(created[1]),
                    "sent": 0,
                },
                ensure_ascii=True,
            )
        )
        return
    click.echo(
        f"{visible(source.name)}: {plural(validation.valid, 'plant')}, every row valid "
        f"({form.value}, {plural(validation.size, 'byte')}). Nothing was sent (dry run)."
    )
    left_out: frozenset[int] = frozenset()
    if created is not None and created[1]:
        base_url, known = created
        left_out = known.lines
        has, them = ("has", "it") if len(known) == 1 else ("have", "them")
        click.echo(
            f"{plural(len(known), 'row')} {has} an id this ledger knows as created on "
            f"{visible(base_url)}: an import leaves {them} out (--resend-created sends {them}):"
        )
        _list_created(source.name, known, err=False)
        sent = validation.valid - len(known)
        click.echo(f"{plural(sent, 'row')} would be sent{':' if sent else '.'}")
    if ignored:
        click.echo(f"Columns not read: {shorten(', '.join(ignored), what='the columns')}")
    shown = 0
    with source.open() as stream:
        for item in read_rows(stream, form, columns):
            if not isinstance(item, SourceRow) or item.line in left_out:
                continue
            if shown == 3:
                click.echo("  ...")
                break
            click.echo(_dry_run_row(item))
            shown += 1


def _dry_run_row(row: SourceRow) -> str:
    """A row as it would be sent, each value shown bounded (its full size named if cut)."""
    texts = {"id": row.texts.id, "name": row.texts.name, "tag": row.texts.tag}
    values, notes = bounded_json({label: text.strip() for label, text in texts.items()})
    words = [
        f"{label} {visible(value)}" if label == "id" else f"{label} '{visible(value)}'"
        for label, value in values.items()
        if value or label != "tag"
    ]
    return f"  line {row.line}: " + ", ".join(words) + (f" ({'; '.join(notes)})" if notes else "")
