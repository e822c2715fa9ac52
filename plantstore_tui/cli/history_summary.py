"""`history summary` as a program reads it (one JSON object, CSV rows) and as a person does (a
table): the counts of a `Summary`, its hours as rows, its operators as rows. Everything the
system or a server named (users, hosts, URLs) goes through `visible`."""

from __future__ import annotations

import csv
import io
from collections.abc import Sequence
from typing import Any

from plantstore_tui.cli.history_text import columns
from plantstore_tui.core.plant.text import plural, visible
from plantstore_tui.core.store.summary import Counts, Summary

BY_OPERATOR = "operator"
# The longest bar of created plants in an hour, in characters.
_BAR = 30
_COUNTED = ("taken", "created", "rejected", "attention", "unknown")
# The keys of `--json` when nothing ran (a usage or configuration error), each null.
SUMMARY_NOT_RUN: dict[str, Any] = dict.fromkeys(
    ("since", "target", *_COUNTED, "rejected_by_code", "answered", "median_ms", "p95_ms", "by_hour")
)


def _counts_json(counts: Counts) -> dict[str, Any]:
    return {
        "taken": counts.taken,
        "created": counts.created,
        "rejected": counts.rejected,
        "attention": counts.attention,
        "unknown": counts.unknown,
        "rejected_by_code": [
            {"code": one.code, "count": one.count} for one in counts.rejected_by_code
        ],
        "answered": counts.answered,
        "median_ms": counts.median_ms,
        "p95_ms": counts.p95_ms,
        "verified": counts.verified,
        "corrected": counts.corrected,
    }


def summary_json(summary: Summary, *, by_operator: bool) -> dict[str, Any]:
    """One object: the period, its counts, `by_hour`, and with `by_operator` each operator's."""
    found = {
        "since": summary.since.astimezone().isoformat(),
        "target": summary.base_url,
        **_counts_json(summary.counts),
        "by_hour": [
            {"hour": hour.start.isoformat(), "created": hour.created, "rejected": hour.rejected}
            for hour in summary.by_hour
        ],
    }
    if by_operator:
        found["by_operator"] = [
            {"operator": one.user, "host": one.host, **_counts_json(one.counts)}
            for one in summary.by_operator
        ]
    return found


def summary_csv(summary: Summary, *, by_operator: bool) -> str:
    """The hours as CSV rows under a header (`hour,created,rejected`), or with `by_operator` the
    operators (`operator,host,taken,...`)."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    if by_operator:
        writer.writerow(["operator", "host", *_COUNTED, "median_ms", "p95_ms"])
        for one in summary.by_operator:
            counts = one.counts
            writer.writerow(
                [one.user, one.host, *_counted(counts), _ms(counts.median_ms), _ms(counts.p95_ms)]
            )
    else:
        writer.writerow(["hour", "created", "rejected"])
        for hour in summary.by_hour:
            writer.writerow([hour.start.isoformat(), hour.created, hour.rejected])
    return out.getvalue()


def _counted(counts: Counts) -> list[str]:
    """Taken, created, rejected, attention and unknown, in that order."""
    return [f"{getattr(counts, name)}" for name in _COUNTED]


def _ms(value: float | None) -> str:
    return "" if value is None else f"{value:.1f}"


def summary_text(summary: Summary, *, by_operator: bool) -> str:
    """The counts, then the hours (or the operators) as rows of a table."""
    where = "every target" if summary.base_url is None else visible(summary.base_url)
    since = f"{summary.since.astimezone():%Y-%m-%d %H:%M %z}"
    counts = summary.counts
    lines = [f"Since {since}, {where}: {plural(counts.taken, 'plant')} taken."]
    if not counts.taken:
        return lines[0]
    lines += [
        "",
        columns(counts.rows()),
        "",
    ]
    if by_operator:
        rows: list[Sequence[str]] = [
            ("Operator", "Host", "Taken", "Created", "Rejected", "Attention", "Unknown")
        ]
        rows += [
            (visible(one.user), visible(one.host), *_counted(one.counts))
            for one in summary.by_operator
        ]
    else:
        rows = [("Hour", "Created", "Rejected", "")]
        most = max(hour.created for hour in summary.by_hour) or 1
        rows += [
            (
                f"{hour.start:%Y-%m-%d %H:00 %z}",
                f"{hour.created:,}",
                f"{hour.rejected:,}",
                "#" * round(hour.created * _BAR / most),
            )
            for hour in summary.by_hour
        ]
    lines.append(columns(rows))
    return "\n".join(lines)
