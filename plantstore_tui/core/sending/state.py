"""Where a send queue stands, and the words a status line says about it.

A queue runs, or it is stopped for one of three reasons: a question about it is open on screen
(nothing leaves until it is answered), the deployment refused the token (nothing leaves until the
operator resumes), or the deployment cannot be reached (the queue tries it again by itself, with
backoff, and sends as soon as it answers).
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Literal, NamedTuple, TypeAlias

if TYPE_CHECKING:
    from plantstore_tui.core.plant.outcome import Outcome
    from plantstore_tui.core.sending.counted import Counts

StateKind = Literal["busy", "ready", "problem"]
RESUME_KEY = "Ctrl+R"
# What to do after a refused token, and the same in its fewest words: a narrow status line
# shortens it, never cutting its key.
FIX_TOKEN = f"fix it in F2, then {RESUME_KEY}"
FIX_TOKEN_SHORT = f"F2, then {RESUME_KEY}"
_JOIN = " · "


@dataclass(frozen=True, slots=True)
class Running:
    """Plants go out in order as they come."""


@dataclass(frozen=True, slots=True)
class Asking:
    """A question about the queue is open: nothing leaves until it is answered."""


class TokenRefused(NamedTuple):
    """The deployment refused the token (401 or 403): the refused plant and those behind it wait,
    in order, until the operator resumes."""

    status: int


@dataclass(frozen=True, slots=True)
class Unreachable:
    """The deployment is not taking plants (it cannot be reached, or answered 429 or 503): since
    when (local time), the answer's words (`reason`), in a word or two why (`why`), and when the
    next try is (`next_try`, time.monotonic). A queue tries again by itself then."""

    since: datetime
    next_try: float
    reason: str
    why: str = "unreachable"

    def next_try_words(self, now: float | None = None) -> str:
        """ "next try in 8 s" ("5 min" for a long Retry-After), or "trying now…" when due."""
        left = max(0, math.ceil(self.next_try - (time.monotonic() if now is None else now)))
        return f"next try in {_duration(left)}" if left else "trying now…"

    def words(self, now: float | None = None) -> str:
        """Words such as "deployment unreachable since 14:02 · next try in 8 s"."""
        return f"deployment {self.why} since {self.since:%H:%M} · {self.next_try_words(now)}"


QueueState: TypeAlias = Running | Asking | TokenRefused | Unreachable
# Why nothing leaves.
Stop: TypeAlias = Asking | TokenRefused | Unreachable


class Stopped(NamedTuple):
    """The queue stopped (`state` says why) at `at` (local time)."""

    state: Stop
    at: datetime


class RunsAgain(NamedTuple):
    """The queue runs again at `at` (local time), after `after`: the deployment answered, took
    the token, or the question was answered."""

    after: Stop
    at: datetime


QueueChange: TypeAlias = Stopped | RunsAgain


class StateNews:
    """Which changes of a queue's state to tell, each once: a stop as it comes, and the run
    again only once it is so (an answer from the deployment, the token accepted by it)."""

    def __init__(self) -> None:
        # The stop last told, until the queue is told running again.
        self._told: Stop | None = None
        # Resumed after a refused token: a refusal again is told again.
        self._resumed = False

    def seen(
        self, state: QueueState, at: datetime, *, in_line: bool, answer: Outcome | None = None
    ) -> QueueChange | None:
        """The change to tell now that the queue is in `state` (`in_line`: plants wait or are
        in flight; `answer`: a plant's send just ended with it), if there is one."""
        told = self._told
        if isinstance(state, Asking):
            # A question stops a running queue with plants in it; a stopped one was told.
            if told is None and in_line:
                return self._tell(Stopped(state, at))
            return None
        if isinstance(state, TokenRefused | Unreachable):
            again = self._resumed and isinstance(state, TokenRefused)
            if type(told) is not type(state) or again:
                return self._tell(Stopped(state, at))
            return None
        if told is None:
            return None
        if isinstance(told, TokenRefused):
            # Only a plant's answer says the token was taken (not a send that got no answer).
            runs = answer is not None and answer.status is not None
        else:
            runs = isinstance(told, Asking) or answer is not None
        return self._tell(RunsAgain(told, at)) if runs else None

    def resumed(self) -> None:
        """The operator resumed after a refused token."""
        self._resumed = isinstance(self._told, TokenRefused)

    def forget(self) -> None:
        """Another target: what was told was about the one before."""
        self._told, self._resumed = None, False

    def _tell(self, change: QueueChange) -> QueueChange:
        self._told = change.state if isinstance(change, Stopped) else None
        self._resumed = False
        return change


def change_words(change: QueueChange) -> str:
    """What the log says of a change of the queue's state."""
    match change:
        case Stopped(state=TokenRefused(status=status)):
            return (
                f"The deployment refused the token ({status}): the queue is paused, the refused "
                f"plant first in line. Fix the token (F2), then {RESUME_KEY} sends it again and "
                "then the rest."
            )
        case Stopped(state=Unreachable(why=why)):
            trouble = "cannot be reached" if why == "unreachable" else f"is {why}"
            return (
                f"The deployment {trouble}: the queue is paused, plants wait in line and go by "
                f"themselves, in order, as soon as it answers ({RESUME_KEY} tries now)."
            )
        case Stopped():
            return (
                "The queue is paused while a question is open: nothing more is sent until it "
                "is answered."
            )
        case RunsAgain(after=TokenRefused()):
            return "The deployment accepted the token: the queue runs again, in order."
        case RunsAgain(after=Unreachable()):
            return "The deployment answers again: the queue runs again, in order."
        case RunsAgain():
            return "The question was answered: the queue runs again, in order."


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
            head = ["token refused", f"{status}: {FIX_TOKEN}"]
            if queued:
                head.append(f"{queued} waiting")
            return (_JOIN.join(head + tail), "problem")
        case Unreachable(since=since):
            when = "trying now…" if sending else state.next_try_words(now)
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
