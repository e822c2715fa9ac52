"""What a front end sends through: a resolved target and its long-lived client.

Resolving a target may block (a token file, a keyring, a TLS context): the send service calls a
`Connect` in a thread.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import NamedTuple

from plantstore_tui.core.config.store import ProfileStore
from plantstore_tui.core.config.targets import profile_target
from plantstore_tui.core.http.client import PlantStoreClient
from plantstore_tui.core.http.target import Target
from plantstore_tui.core.sending.queue import PlantSender


class Connection(NamedTuple):
    """A resolved target and the one client that sends to it for the whole session."""

    target: Target
    client: PlantSender


# Raises with words for the operator when the target is unusable (a `PlantStoreError`).
Connect = Callable[[], Connection]


def connect_to(target: Target) -> Connection:
    """Build the session's client for a resolved target."""
    return Connection(target, PlantStoreClient.for_target(target))


def connect_to_profile(name: str) -> Connection:
    """Resolve a saved profile (reading its token source) and build its client; may block."""
    store = ProfileStore()
    return connect_to(profile_target(store.get(name), store.tokens, os.environ))
