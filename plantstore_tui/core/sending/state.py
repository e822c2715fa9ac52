"""Where a send queue stands, and the words a status line says about it.

A queue runs, or it is stopped for one of three reasons: a question about it is open on screen
(nothing leaves until it is answered), the deployment refused the token (nothing leaves until the
operator resumes), or the deployment cannot be reached (the queue tries it again by itself, with
backoff, and sends as soon as it answers).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Literal, TypeAlias

if TYPE_CHECKING:
    from plantstore_tui.core.sending.counted import Counts

StateKind = Literal["busy", "ready", "problem"]
RESUME_KEY = "Ctrl+R"
_JOIN = " · "


@dataclass(frozen=True, slots=True)
class Running:
    """Plants go out in order as they come."""


@dataclass(frozen=True, slots=True)
class Asking:
    """A question about the queue is open: nothing leaves until it is answered."""


@dataclass(frozen=True, slots=True)
class TokenRefused:
    """The deployment refused the token (401 or 403): the refused plant and those behind it wait,
    in order, until the operator resumes."""

    status: int


@dataclass(frozen=True, slots=True)
class Unreachable:
    """The deployment could not be reached (or said it could not take plants now): the plants
    wait, in order, and the queue tries again by itself at `next_try` (time.monotonic)."""

    since: datetime
    next_try: float
    reason: str


QueueState: TypeAlias = Running | Asking | TokenRefused | Unreachable


def state_words(
    state: QueueState,
    counts: Counts,
    *,
    now: float,
    problem: bool = False,
    connected: bool = True,
) -> tuple[str, StateKind]:
    """What the status line says: the queue's state first, then its counts (the counts come last
    so that, narrow, the wordier start gives way first). `now` is time.monotonic()."""
    queued, sending, attention = counts
    tail = []
    if attention:
        verb = "needs" if attention == 1 else "need"
        tail.append(f"{attention} {verb} attention (F4)")
    if problem:
        return ("cannot send: configuration problem", "problem")
    match state:
        case TokenRefused(status=status):
            # The headline stays when the line is narrow; the aside gives way first.
            head = ["token refused", f"{status}: fix it in F2, then {RESUME_KEY}"]
            if queued:
                head.append(f"{queued} waiting")
            return (_JOIN.join(head + tail), "problem")
        case Unreachable(since=since, next_try=next_try):
            seconds = max(0, math.ceil(next_try - now))
            when = f"next try in {_duration(seconds)}" if seconds and not sending else "trying now…"
            head = [f"unreachable, {when}", f"since {since:%H:%M}"]
            if queued:
                head.append(f"{queued} waiting")
            return (_JOIN.join(head + tail), "problem")
        case Asking() if queued or sending:
            head = ["paused for the question"]
            if queued:
                head.append(f"{queued} queued")
            return (_JOIN.join(head + tail), "busy")
        case _:
            head = []
            if sending:
                head.append("sending…")
            if queued:
                head.append(f"{queued} queued")
            if head or tail:
                return (_JOIN.join(head + tail), "problem" if attention else "busy")
            if not connected:
                return ("connecting…", "busy")
            return ("ready", "ready")


def _duration(seconds: int) -> str:
    # A Retry-After may ask for minutes: counted in seconds only under one.
    return f"{seconds} s" if seconds < 60 else f"{math.ceil(seconds / 60)} min"
