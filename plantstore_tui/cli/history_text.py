"""The history as text for a terminal: the list of sends, the plants that wait for an operator,
and one send whole. Everything a server sent or an operator typed goes through `visible`."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from plantstore_tui.core.http.address import host_port, target_words
from plantstore_tui.core.http.proxy import through_words
from plantstore_tui.core.plant.text import plural, shorten, visible
from plantstore_tui.core.store import HistoryEntry
from plantstore_tui.core.store.records import outcome_and_fate, outcome_words, pending_words


def local_time(moment: datetime) -> str:
    """`moment` in the operator's zone, to the second."""
    return f"{moment.astimezone():%Y-%m-%d %H:%M:%S}"


def columns(rows: Sequence[Sequence[str]]) -> str:
    widths = [max(len(row[column]) for row in rows) for column in range(len(rows[0]))]
    return "\n".join(
        "  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)).rstrip()
        for row in rows
    )


def history_table(entries: list[HistoryEntry]) -> str:
    """The sends listed, one a line under a header."""
    rows = [("#", "time", "source", "profile", "target", "id", "name", "outcome", "status", "ms")]
    for entry in entries:
        rows.append(
            (
                str(entry.entry),
                local_time(entry.time),
                entry.source,
                visible(entry.profile or "-"),
                visible(host_port(entry.base_url)),
                str(entry.plant_id),
                visible(shorten(entry.name, 24)),
                outcome_words(entry),
                "-" if entry.status is None else str(entry.status),
                "-" if entry.elapsed_ms is None else f"{entry.elapsed_ms:.1f}",
            )
        )
    return columns(rows)


def pending_table(entries: list[HistoryEntry]) -> str:
    """The plants that wait for an operator, one a line under a header, with why."""
    rows = [("#", "queued", "state", "target", "id", "name", "tag", "why")]
    for entry in entries:
        typed = entry.typed
        rows.append(
            (
                str(entry.entry),
                local_time(entry.time),
                pending_words(entry),
                visible(shorten(target_words(entry.base_url, entry.profile), 48)),
                visible(shorten(typed.id, 20)),
                visible(shorten(typed.name, 24)),
                visible(shorten(typed.tag, 12)),
                visible(shorten(entry.note or entry.message, 60)),
            )
        )
    return columns(rows)


def _verified_words(corrected: int) -> str:
    if not corrected:
        return "keyed twice, the keyings agreed"
    return f"keyed twice, {plural(corrected, 'field')} corrected"


def entry_text(found: HistoryEntry) -> str:
    """One send whole: where it went, what was sent and typed, how it ended, what came back."""
    timing = "" if found.elapsed_ms is None else f" in {found.elapsed_ms:.1f} ms"
    status = "no answer" if found.status is None else str(found.status)
    lines = [
        f"History #{found.entry}: {local_time(found.time)} from {found.source}"
        + (f" (profile {visible(found.profile)})" if found.profile else ""),
        f"  POST {visible(found.url)}{visible(through_words(found.proxy))}: {status}{timing}",
        *(
            [f"  {found.tries} tries: the answer above is the last one's"]
            if found.tries > 1
            else []
        ),
        *([f"  verified: {_verified_words(found.verified)}"] if found.verified is not None else []),
        f"  sent: {visible(found.body.decode('utf-8'))}",
        f"  state: {found.state.value}"
        + (", held" if found.held else "")
        + (", dismissed" if found.dismissed else ""),
        f"  outcome: {outcome_and_fate(found)}",
        f"  message: {visible(found.message)}",
    ]
    typed = found.typed
    if (typed.name, typed.id, typed.tag) != (found.name, str(found.plant_id), found.tag or ""):
        lines.append(
            f"  typed: name '{visible(typed.name)}', id '{visible(typed.id)}', "
            f"tag '{visible(typed.tag)}'"
        )
    if found.note and found.note != found.message:
        lines.append(f"  note: {visible(found.note)}")
    if found.batch is not None:
        lines.append(f"  import batch {found.batch}, line {found.line}")
    if found.off_spec:
        lines.append(f"  off spec: {visible('; '.join(found.off_spec))}")
    if found.response:
        lines.append(f"  received: {visible(found.response)}")
    if found.log_ref:
        lines.append(f"  in the {found.source} session: {visible(found.log_ref)}")
    return "\n".join(lines)
