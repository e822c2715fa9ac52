"""The probes of the history (`history --probes`, `history show p12`, `history export p12`): each
named `p` and its number, so that none is taken for a plant's entry. Everything a server sent
goes through `visible`, and a list shows it bounded."""

from __future__ import annotations

import json
from dataclasses import dataclass

import click

from plantstore_tui.cli.exits import InvalidInput
from plantstore_tui.cli.history_reading import reading_history
from plantstore_tui.cli.history_text import columns, local_time
from plantstore_tui.cli.probe_verbose import timing_lines
from plantstore_tui.core.http.address import host_port
from plantstore_tui.core.http.export import ExportFormat, export_probe
from plantstore_tui.core.http.proxy import through_words
from plantstore_tui.core.plant.form import INT64_MAX, INT64_MIN
from plantstore_tui.core.plant.text import quoted, shorten, visible
from plantstore_tui.core.store import HistoryFilter, Ledger
from plantstore_tui.core.store.probes import (
    ProbeEntry,
    count_probes,
    get_probe,
    list_probes,
    parse_label,
)

# A list shows this much of a probe's body (`history show` has it whole).
_BODY_LISTED = 40
# A request line (method and path) listed to this many characters.
_REQUEST_LISTED = 30


@dataclass(frozen=True, slots=True)
class ProbeRef:
    """A probe named on the command line (`p12`)."""

    number: int


def entry_or_probe(ctx: click.Context, param: click.Parameter, value: str) -> int | ProbeRef:
    """A plant's entry number (`12`) or a probe (`p12`), each within int64; usage error else."""
    number = parse_label(value.strip())
    if number is None:
        try:
            number = int(value)
        except ValueError:
            raise click.BadParameter(
                f"{quoted(visible(value))} is neither a history entry (12) nor a probe (p12)",
                ctx,
                param,
            ) from None
    elif number > INT64_MAX:
        raise click.BadParameter(f"{visible(value)} is not a probe: too large a number", ctx, param)
    else:
        return ProbeRef(number)
    if not INT64_MIN <= number <= INT64_MAX:
        raise click.BadParameter(f"{visible(value)} is not a 64-bit integer", ctx, param)
    return number


def probe_named(ctx: click.Context, param: click.Parameter, value: str | None) -> ProbeRef | None:
    """A probe named as `history --probes` names it (`p12`) or by its number alone (`12`);
    usage error else."""
    if value is None:
        return None
    text = value.strip()
    number = parse_label(text)
    if number is None and text.isascii() and text.isdigit():
        number = int(text)
    if number is None or number > INT64_MAX:
        raise click.BadParameter(
            f"{quoted(visible(value))} is not a probe: name it as history --probes does (p12), "
            "or by its number (12)",
            ctx,
            param,
        )
    return ProbeRef(number)


def kept_probe(ref: ProbeRef) -> ProbeEntry:
    """The probe named, read from the history; invalid input saying there is none."""
    with reading_history() as store:
        return found_probe(store, ref)


def refuse_plant_filters(**given: object) -> None:
    """`--probes` with an option that picks plants: a usage error naming it."""
    for name, value in given.items():
        if value not in (None, False):
            option = "--" + name.replace("_", "-")
            raise click.UsageError(f"{option} picks plants; --probes lists probes: give one.")


def echo_probes(store: Ledger | None, where: HistoryFilter, *, limit: int, as_json: bool) -> None:
    """List the probes kept, newest first (`history --probes`)."""
    profile, base_url, since = where.profile, where.base_url, where.since
    found = (
        []
        if store is None
        else list_probes(store, profile=profile, base_url=base_url, since=since, limit=limit)
    )
    if as_json:
        click.echo(json.dumps([probe.to_json() for probe in found], ensure_ascii=True))
        return
    if store is None or not found:
        click.echo("No probes in the history match." if store is not None else "No history yet.")
        return
    click.echo(probe_table(found))
    total = (
        0 if store is None else count_probes(store, profile=profile, base_url=base_url, since=since)
    )
    if total > len(found):
        click.echo(f"({len(found)} of {total:,}; --limit N to see more)")


def probe_table(probes: list[ProbeEntry]) -> str:
    """The probes listed, one a line under a header."""
    rows = [
        (
            "#",
            "time",
            "profile",
            "target",
            "request",
            "token",
            "status",
            "shape",
            "fate",
            "ms",
            "body",
        )
    ]
    for probe in probes:
        sent = probe.body.decode("utf-8", errors="backslashreplace")
        rows.append(
            (
                probe.label,
                local_time(probe.time),
                visible(probe.profile or "-"),
                visible(host_port(probe.base_url)),
                visible(shorten(probe.request.line, _REQUEST_LISTED)),
                probe.token.value,
                "-" if probe.status is None else str(probe.status),
                "-" if probe.shape is None else probe.shape.value,
                # What it means for a plant: nothing, of a request the spec does not describe.
                probe.fate.value if probe.request.in_spec else "-",
                "-" if probe.elapsed_ms is None else f"{probe.elapsed_ms:.1f}",
                visible(shorten(sent, _BODY_LISTED)),
            )
        )
    return columns(rows)


def found_probe(store: Ledger | None, ref: ProbeRef) -> ProbeEntry:
    """The probe named, or invalid input saying there is none."""
    found = None if store is None else get_probe(store, ref.number)
    if found is None:
        raise InvalidInput(f"No probe p{ref.number} in the history.")
    return found


def _headers(pairs: tuple[tuple[str, str], ...]) -> list[str]:
    return [f"    {visible(name)}: {visible(value)}" for name, value in pairs]


def probe_text(probe: ProbeEntry) -> str:
    """One probe whole: where it went, what was sent, what came back, the spec's reading."""
    timing = "" if probe.elapsed_ms is None else f" in {probe.elapsed_ms:.1f} ms"
    status = "no answer" if probe.status is None else str(probe.status)
    sent = probe.body.decode("utf-8", errors="backslashreplace")
    lines = [
        f"Probe {probe.label}: {local_time(probe.time)} from {probe.source}"
        + (f" (profile {visible(probe.profile)})" if probe.profile else ""),
        f"  {visible(probe.method)} {visible(probe.url)}{visible(through_words(probe.proxy))}: "
        f"{status}{timing}",
        f"  token: {probe.token.value}",
        "  sent headers:",
        *_headers(probe.sent_headers),
        f"  sent ({len(probe.body):,} bytes): {visible(sent)}",
    ]
    if probe.message:
        lines.append(f"  message: {visible(probe.message)}")
    if probe.answer_headers:
        lines.append("  received headers:")
        lines.extend(_headers(probe.answer_headers))
    if probe.answer_body:
        lines.append(f"  received: {visible(probe.answer_body)}")
    lines.append(f"  reading: {probe.reading.words}")
    if probe.off_spec:
        lines.append(f"  off spec: {visible('; '.join(probe.off_spec))}")
    if probe.timings is not None:
        lines.extend(["  timings:", *timing_lines(probe.timings, "    ")])
    return "\n".join(lines)


def probe_export(probe: ProbeEntry, as_: ExportFormat) -> str:
    """The probe as one shell command that sends it again."""
    request = probe.request
    return export_probe(
        probe.url,
        probe.body,
        as_,
        token=probe.token,
        headers=probe.headers,
        proxy=probe.proxy,
        method=request.method,
        bodyless=request.bodyless,
    )
