"""How long to wait before trying a deployment that could not be reached again: the one rule for
the TUI's queue, `add --wait` and `import`.

The waits double from `FIRST_SECONDS` up to `MOST_SECONDS`, each drawn between half and all of
its step, so that many front ends that lost the same deployment do not all come back at once. A
wait the deployment asked for (Retry-After) is honoured: no try comes sooner.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field

FIRST_SECONDS = 1.0
MOST_SECONDS = 30.0


@dataclass(slots=True)
class Backoff:
    """The waits between tries at one deployment, from its first failure to its next answer."""

    first: float = FIRST_SECONDS
    most: float = MOST_SECONDS
    draw: Callable[[], float] = field(default=random.random, repr=False)
    tries: int = 0

    def next_wait(self, asked: float | None = None) -> float:
        """Seconds to wait before the next try; never less than `asked`, the deployment's own
        Retry-After."""
        step = min(self.most, self.first * 2.0**self.tries)
        self.tries += 1
        wait = step * (0.5 + self.draw() / 2)
        return wait if asked is None else max(wait, asked)

    def reset(self) -> None:
        """The deployment answered: the next failure starts from the first wait again."""
        self.tries = 0
