"""An import waiting for its deployment: from the first row it did not take (it could not be
reached, or answered 429 or 503) to its next answer, the next try and when to give up."""

from __future__ import annotations

import time
from collections.abc import Callable
from datetime import datetime
from typing import TYPE_CHECKING

from plantstore_tui.core.importing.results import Waiting, waiting_why
from plantstore_tui.core.plant.outcome import asked_wait
from plantstore_tui.core.sending.backoff import Backoff

if TYPE_CHECKING:
    from plantstore_tui.core.plant.outcome import Outcome


class DeploymentWait:
    """When the next try at the deployment is, one try at a time with `Backoff`, for
    `give_up_after` seconds at most; `on_change` is told each new wait, and None when it ends."""

    def __init__(
        self,
        give_up_after: float,
        on_change: Callable[[Waiting | None], None] | None = None,
        backoff: Backoff | None = None,
    ) -> None:
        self._give_up_after = give_up_after
        self._on_change = on_change
        self._backoff = backoff or Backoff()
        self._since = 0.0
        self.waiting: Waiting | None = None

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
            since = datetime.now().astimezone()
        elif not tried:
            # A request that left before the waiting began: the next try stands, unless the
            # deployment asked for a longer wait.
            if asked is not None and now + asked > waiting.next_try:
                self.waiting = Waiting(waiting.since, waiting.why, now + asked)
            return True
        else:
            since = waiting.since
        deadline = self._since + self._give_up_after
        wait = self._backoff.next_wait(asked)
        if now >= deadline or (asked is not None and now + asked > deadline):
            return False
        self._tell(Waiting(since, waiting_why(outcome), min(now + wait, deadline)))
        return True

    def answered(self) -> None:
        """The deployment took the try: no more waiting."""
        if self.waiting is not None:
            self._backoff.reset()
            self._tell(None)

    def end(self) -> None:
        """The import ended (stopped, or given up): nothing more is waited for, nothing told."""
        self.waiting = None

    def _tell(self, waiting: Waiting | None) -> None:
        self.waiting = waiting
        if self._on_change is not None:
            self._on_change(waiting)
