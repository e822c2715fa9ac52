"""Waiting for a deployment that did not take a plant (it could not be reached, or answered 429
or 503), from then to its next answer: when the next try is, and when to give up. The one rule
for the TUI's queue, `add --wait` and `import`."""

from __future__ import annotations

import dataclasses
import math
import time
from collections.abc import Callable
from datetime import datetime
from typing import TYPE_CHECKING

from plantstore_tui.core.plant.outcome import Rejected, asked_wait
from plantstore_tui.core.sending.backoff import Backoff
from plantstore_tui.core.sending.state import Unreachable

if TYPE_CHECKING:
    from plantstore_tui.core.plant.outcome import Outcome


def unreachable_why(outcome: Outcome) -> str:
    """Why a deployment is waited for, from the outcome that said it did not take the plant."""
    if isinstance(outcome, Rejected):
        return f"busy ({outcome.status})"
    return "unreachable"


def _local_now() -> datetime:
    return datetime.now().astimezone()


class DeploymentWait:
    """When the next try at the deployment is, one try at a time with `Backoff`, for
    `give_up_after` seconds at most (`math.inf`: for as long as it takes); `on_change` is told
    each new wait, and None when it ends. `clock` says when the waiting began (local time)."""

    def __init__(
        self,
        give_up_after: float = math.inf,
        on_change: Callable[[Unreachable | None], None] | None = None,
        backoff: Backoff | None = None,
        clock: Callable[[], datetime] = _local_now,
    ) -> None:
        self._give_up_after = give_up_after
        self._on_change = on_change
        self._backoff = backoff or Backoff()
        self._clock = clock
        self._since = 0.0
        self.waiting: Unreachable | None = None

    def seconds_left(self) -> float:
        """Seconds to the next try (0 when it is due, or nothing is waited for)."""
        if self.waiting is None:
            return 0.0
        return max(0.0, self.waiting.next_try - time.monotonic())

    def not_taken(self, outcome: Outcome, *, tried: bool) -> bool:
        """A row the deployment did not take; `tried`: it was the try made while waiting. False
        when it is time to give up."""
        now = time.monotonic()
        asked = asked_wait(outcome)
        waiting = self.waiting
        if waiting is None:
            self._since = now
            since = self._clock()
        elif not tried:
            # A request that left before the waiting began: the next try stands, unless the
            # deployment asked for a longer wait.
            if asked is not None and now + asked > waiting.next_try:
                self.waiting = dataclasses.replace(waiting, next_try=now + asked)
            return True
        else:
            since = waiting.since
        deadline = self._since + self._give_up_after
        wait = self._backoff.next_wait(asked)
        if now >= deadline or (asked is not None and now + asked > deadline):
            return False
        next_try = min(now + wait, deadline)
        self._tell(Unreachable(since, next_try, outcome.headline, unreachable_why(outcome)))
        return True

    def answered(self) -> None:
        """The deployment took the try: no more waiting."""
        if self.waiting is not None:
            self._backoff.reset()
            self._tell(None)

    def try_now(self) -> None:
        """The next try is now (the operator asked)."""
        if self.waiting is not None:
            self.waiting = dataclasses.replace(self.waiting, next_try=time.monotonic())

    def end(self) -> None:
        """Nothing more is waited for (stopped, given up, or nothing left to send); nothing
        told."""
        self.waiting = None
        self._backoff.reset()

    def _tell(self, waiting: Unreachable | None) -> None:
        self.waiting = waiting
        if self._on_change is not None:
            self._on_change(waiting)
