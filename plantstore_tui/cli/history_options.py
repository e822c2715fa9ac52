"""The history's options: moments (`--since 2h`, `--before 2026-11-20`) and int64 numbers."""

from __future__ import annotations

import re
from datetime import datetime, timedelta

import click

from plantstore_tui.core.plant.form import INT64_MAX, INT64_MIN
from plantstore_tui.core.plant.text import quoted, visible
from plantstore_tui.core.store.records import utc_now
from plantstore_tui.core.store.summary import local_midnight

_DURATION = re.compile(r"(?:(\d{1,9})([smhdw]))+")
_DURATION_PART = re.compile(r"(\d{1,9})([smhdw])")
_UNITS = {"s": "seconds", "m": "minutes", "h": "hours", "d": "days", "w": "weeks"}
TODAY = "today"


def parse_moment(text: str, *, now: datetime | None = None) -> datetime:
    """A date (`2026-11-20`, local midnight), a local or zoned ISO time, `today` (local
    midnight), or a duration back from now (`90s`, `30m`, `2h`, `7d`, `1w`, `1h30m`);
    `ValueError` with words if neither."""
    stripped = text.strip()
    if stripped.lower() == TODAY:
        return local_midnight(now)
    if _DURATION.fullmatch(stripped):
        span = timedelta()
        for amount, unit in _DURATION_PART.findall(stripped):
            span += timedelta(**{_UNITS[unit]: int(amount)})
        try:
            return (now or utc_now()) - span
        except OverflowError:
            raise ValueError(f"{quoted(visible(text))} reaches back before the year 1") from None
    try:
        moment = datetime.fromisoformat(stripped)
    except ValueError:
        raise ValueError(
            f"{quoted(visible(text))} is neither a date (today, 2026-11-20, 2026-11-20T09:30) "
            "nor a duration (90s, 30m, 2h, 7d, 1w)"
        ) from None
    if moment.tzinfo is not None:
        return moment
    try:
        # A time without a zone is the operator's local time, as the list shows it.
        return moment.astimezone()
    except (OverflowError, OSError):
        raise ValueError(f"{quoted(visible(text))} is too far in the past or the future") from None


def moment_option(ctx: click.Context, param: click.Parameter, value: str | None) -> datetime | None:
    """The option's moment (`parse_moment`), or a usage error in its words."""
    if value is None:
        return None
    try:
        return parse_moment(value)
    except ValueError as exc:
        raise click.BadParameter(str(exc), ctx, param) from None


def int64(ctx: click.Context, param: click.Parameter, value: int | None) -> int | None:
    """A number SQLite can hold (a larger one would end in an OverflowError traceback)."""
    if value is not None and not INT64_MIN <= value <= INT64_MAX:
        raise click.BadParameter(f"{value} is not a 64-bit integer", ctx, param)
    return value


def at_most_int64(ctx: click.Context, param: click.Parameter, value: int) -> int:
    """A limit as SQLite can take it."""
    return min(value, INT64_MAX)
