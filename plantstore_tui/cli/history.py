"""`plantstore-tui history`: list, show, export and clear the plants kept in the ledger."""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path

import click

from plantstore_tui.cli.completion import history_entries
from plantstore_tui.cli.exits import ConfigProblem, InvalidInput
from plantstore_tui.cli.history_options import (
    TODAY,
    at_most_int64,
    int64,
    moment_option,
    parse_moment,
)
from plantstore_tui.cli.history_probes import (
    ProbeRef,
    echo_probes,
    entry_or_probe,
    found_probe,
    probe_export,
    probe_text,
    refuse_plant_filters,
)
from plantstore_tui.cli.history_reading import reading_history
from plantstore_tui.cli.history_summary import (
    BY_OPERATOR,
    SUMMARY_NOT_RUN,
    summary_csv,
    summary_json,
    summary_text,
)
from plantstore_tui.cli.history_text import entry_text, history_table, pending_table
from plantstore_tui.cli.options import confirm_deletion, json_option, yes_option
from plantstore_tui.cli.targets import TargetOptions, one_target, profile_names
from plantstore_tui.core.http.export import ExportFormat, export_command
from plantstore_tui.core.http.urls import InvalidBaseURL, normalize_base_url
from plantstore_tui.core.plant.text import plural, visible
from plantstore_tui.core.store import (
    HistoryEntry,
    HistoryFilter,
    Ledger,
    PlantState,
    ledger_path,
)
from plantstore_tui.core.store.probes import clear_probes
from plantstore_tui.core.store.records import OUTCOMES
from plantstore_tui.core.store.summary import Summary, summarize

_DEFAULT_LIMIT = 50
__all__ = ["history", "parse_moment"]


def _normalized(base_url: str | None) -> str | None:
    """A base URL to match as the ledger keeps it; invalid input (exit 2) if it is none."""
    if not base_url:
        return None
    # Only a filter by target needs it, and it brings httpx and Pydantic.

    try:
        return normalize_base_url(base_url)
    except InvalidBaseURL as exc:
        raise InvalidInput(str(exc)) from None


def _filter(
    options: TargetOptions,
    profile: str | None,
    base_url: str | None,
    *,
    plant_id: int | None,
    outcome: str | None,
    state: str | None,
    since: datetime | None,
) -> HistoryFilter:
    chosen = options.merged(profile, base_url)
    return HistoryFilter(
        profile=chosen.profile,
        base_url=_normalized(chosen.base_url),
        plant_id=plant_id,
        outcome=outcome,
        state=None if state is None else PlantState(state),
        since=since,
    )


@click.group(invoke_without_command=True)
@one_target(
    "--profile", metavar="NAME", shell_complete=profile_names, help="Only sends to this profile."
)
@one_target("--base-url", metavar="URL", help="Only sends to this base URL.")
@click.option(
    "--id", "plant_id", type=int, callback=int64, metavar="ID", help="Only plants with this id."
)
@click.option("--outcome", type=click.Choice(OUTCOMES), help="Only sends with this outcome.")
@click.option(
    "--state", type=click.Choice([state.value for state in PlantState]), help="Only this state."
)
@click.option(
    "--pending",
    is_flag=True,
    help="Only the plants that wait for an operator (what the TUI's needs attention shows).",
)
@click.option(
    "--probes",
    is_flag=True,
    help="List the probes (plantstore-tui probe, the TUI's probe screen) instead of the plants.",
)
@click.option(
    "--since",
    metavar="DATE|DURATION",
    callback=moment_option,
    help="Only sends since a date or for a duration (2h, 7d).",
)
@click.option(
    "--limit",
    type=click.IntRange(min=1),
    callback=at_most_int64,
    metavar="N",
    default=_DEFAULT_LIMIT,
    show_default=True,
    help="At most this many sends.",
)
@json_option("Print one JSON array and nothing else.")
@click.pass_context
def history(
    ctx: click.Context,
    profile: str | None,
    base_url: str | None,
    plant_id: int | None,
    outcome: str | None,
    state: str | None,
    pending: bool,
    probes: bool,
    since: datetime | None,
    limit: int,
    as_json: bool,
) -> None:
    """List the plants kept in the ledger, newest first (`history show ENTRY` for one).

    Every plant taken (TUI, add, import, check) is kept in plantstore.sqlite3 in the data
    directory, never with the token. With PLANTSTORE_NO_HISTORY=1, or `history = false` in a
    profile, a plant is kept only until it is settled and dealt with. Probes are kept apart:
    `history --probes` lists them, each named p and its number (`history show p12`).
    """
    if ctx.invoked_subcommand is not None:
        return
    options = ctx.obj if isinstance(ctx.obj, TargetOptions) else TargetOptions()
    if probes:
        refuse_plant_filters(id=plant_id, outcome=outcome, state=state, pending=pending)
    where = _filter(
        options, profile, base_url, plant_id=plant_id, outcome=outcome, state=state, since=since
    )
    if probes:
        with reading_history() as store:
            echo_probes(store, where, limit=limit, as_json=as_json)
        return
    if pending:
        _list_pending(where, as_json)
        return
    with reading_history() as store:
        # The table shows nothing a server sent: read only the start of it (--json has it all).
        entries = [] if store is None else store.query(where, limit=limit, listed=not as_json)
        total = 0 if store is None else store.count(where)
    if as_json:
        click.echo(json.dumps([found.to_json() for found in entries], ensure_ascii=True))
        return
    if not entries:
        click.echo("No sends in the history match." if store is not None else "No history yet.")
        return
    click.echo(history_table(entries))
    if total > len(entries):
        click.echo(f"({len(entries)} of {total:,}; --limit N to see more)")


def _matches(entry: HistoryEntry, where: HistoryFilter) -> bool:
    return (
        (where.profile is None or entry.profile == where.profile)
        and (where.base_url is None or entry.base_url == where.base_url)
        and (where.plant_id is None or entry.plant_id == where.plant_id)
        and (where.outcome is None or entry.outcome == where.outcome)
        and (where.state is None or entry.state is where.state)
        and (where.since is None or entry.time >= where.since)
    )


def _list_pending(where: HistoryFilter, as_json: bool) -> None:
    with reading_history() as store:
        found = [] if store is None else store.pending()
    entries = [entry for entry in found if _matches(entry, where)]
    if as_json:
        shown = [
            entry.to_json()
            | {"typed": {"name": entry.typed.name, "id": entry.typed.id, "tag": entry.typed.tag}}
            for entry in entries
        ]
        click.echo(json.dumps(shown, ensure_ascii=True))
        return
    if not entries:
        click.echo("Nothing waits for an operator.")
        return
    click.echo(pending_table(entries))
    click.echo(
        f"({plural(len(entries), 'plant')}: the TUI's needs attention (F4) loads each into the "
        "form or dismisses it)"
    )


def _get(store: Ledger | None, entry: int) -> HistoryEntry:
    found = None if store is None else store.get(entry)
    if found is None:
        raise InvalidInput(f"No send #{entry} in the history.")
    return found


_ENTRY_HELP = "ENTRY is a plant's number in `history`, or a probe's in `history --probes` (p12)."


@history.command(epilog=_ENTRY_HELP)
@click.argument("entry", callback=entry_or_probe, shell_complete=history_entries)
@json_option()
def show(entry: int | ProbeRef, as_json: bool) -> None:
    """Show one send (or probe) whole, with the body received."""
    if isinstance(entry, ProbeRef):
        with reading_history() as store:
            probe = found_probe(store, entry)
        click.echo(json.dumps(probe.to_json(), ensure_ascii=True) if as_json else probe_text(probe))
        return
    with reading_history() as store:
        found = _get(store, entry)
    if as_json:
        answer = found.to_json() | {"response": found.response, "log_ref": found.log_ref}
        click.echo(json.dumps(answer, ensure_ascii=True))
        return
    click.echo(entry_text(found))


@history.command(epilog=_ENTRY_HELP)
@click.argument("entry", callback=entry_or_probe, shell_complete=history_entries)
@click.option(
    "--as",
    "as_",
    type=click.Choice(["curl", "httpie"]),
    required=True,
    help="The command to print.",
)
def export(entry: int | ProbeRef, as_: str) -> None:
    """Print a curl or HTTPie command that sends it (a plant or a probe) again.

    Run it with PLANTSTORE_TOKEN set: the command reads the token, it never holds it (a probe
    sent without a token, or with the wrong one, is exported so).
    """
    if isinstance(entry, ProbeRef):
        with reading_history() as store:
            probe = found_probe(store, entry)
        click.echo(probe_export(probe, ExportFormat(as_)))
        return
    with reading_history() as store:
        found = _get(store, entry)
    if found.sent() is None:
        raise InvalidInput(
            f"#{entry} came from the previous release's import journal, which kept only the "
            "plant's id: there is no body to send again."
        )
    click.echo(export_command(found.url, found.body, ExportFormat(as_), found.proxy))


@history.command()
@click.option(
    "--since",
    metavar="today|DURATION|DATE",
    default=TODAY,
    show_default=True,
    callback=moment_option,
    help="The plants taken since local midnight, for a duration (8h), or since a date or time.",
)
@click.option("--target", metavar="URL", help="Only the plants sent to this base URL.")
@click.option(
    "--by",
    type=click.Choice([BY_OPERATOR]),
    help="Count each operator (user and host) apart.",
)
@json_option(not_run=SUMMARY_NOT_RUN)
@click.option("--csv", "as_csv", is_flag=True, help="Print the hours (or operators) as CSV.")
def summary(
    since: datetime, target: str | None, by: str | None, as_json: bool, as_csv: bool
) -> None:
    """The shift at a glance: plants taken, created, rejected (by the Error's code), needing
    attention and of unknown fate, created and rejected per hour, and the time from Enter to
    the answer."""
    if as_json and as_csv:
        raise click.UsageError("Give --json or --csv, not both.")
    base_url = _normalized(target)
    with reading_history() as store:
        found = (
            Summary.empty(since, base_url) if store is None else summarize(store, since, base_url)
        )
    by_operator = by == BY_OPERATOR
    if as_json:
        click.echo(json.dumps(summary_json(found, by_operator=by_operator), ensure_ascii=True))
    elif as_csv:
        click.echo(summary_csv(found, by_operator=by_operator), nl=False)
    else:
        click.echo(summary_text(found, by_operator=by_operator))


def _confirm_clear(path: Path, profile: str | None, before: datetime | None) -> None:
    what = "every send and probe" if profile is None and before is None else "the sends and probes"
    if profile is not None:
        what += f" to profile {visible(profile)}"
    if before is not None:
        what += f" before {before.astimezone():%Y-%m-%d %H:%M}"
    confirm_deletion(f"{what} from {visible(str(path))}", "clear")


@history.command()
@click.option(
    "--profile", metavar="NAME", shell_complete=profile_names, help="Only sends to this profile."
)
@click.option(
    "--before",
    metavar="DATE|DURATION",
    callback=moment_option,
    help="Only sends before a date, or older than a duration.",
)
@yes_option("Delete without asking.")
def clear(profile: str | None, before: datetime | None, yes: bool) -> None:
    """Delete sends and probes from the history (all of them without options); asks first.

    A plant that still waits for an operator, or a row of an import not finished, is never
    deleted.
    """
    path = ledger_path()
    with reading_history() as store:
        if store is None:
            click.echo("The history is empty.")
            return
    if not yes:
        _confirm_clear(path, profile, before)
    with reading_history() as store:
        assert store is not None
        if store.db.readonly:
            raise ConfigProblem(
                visible(f"The history cannot be changed: {path}: cannot be written (read-only)")
            )
        deleted = store.clear(profile=profile, before=before)
        probes = clear_probes(store, profile=profile, before=before)
        kept = store.count(HistoryFilter(profile=profile))
    words = (
        f"Deleted {plural(deleted, 'send')} and {plural(probes, 'probe')} from "
        f"{visible(str(path))}."
    )
    if kept and before is None:
        words += f" Kept {kept:,}: pending, or of an import not finished."
    click.echo(words)
