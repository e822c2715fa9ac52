"""Who takes a plant: the operating system's user and the host, written into each plant's row
(`history summary --by operator`; the host tells apart the users of a ledger shared by hosts)."""

from __future__ import annotations

import getpass
import socket
from functools import cache
from typing import NamedTuple

UNKNOWN = "unknown"
"""Who took a plant the system could not name, or a plant kept before operators were."""


class Operator(NamedTuple):
    """The user and host that take this process's plants."""

    user: str
    host: str


@cache
def this_operator() -> Operator:
    """This process's operator, asked of the system once (`unknown` for what it cannot say)."""
    try:
        user = getpass.getuser()
    except (OSError, KeyError, ImportError):
        # No LOGNAME/USER/LNAME/USERNAME and no password entry for this uid (a container).
        user = ""
    try:
        host = socket.gethostname()
    except OSError:
        host = ""
    return Operator(user or UNKNOWN, host or UNKNOWN)
