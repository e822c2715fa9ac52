"""The cyclic garbage collector in the TUI's process: paused while the TUI starts, then kept off
what the start and the first connection built, which lives as long as the process.

The start builds some 200,000 objects and nearly all of them live until the process ends: left
running, the collector went through them 117 times before the first frame to find about a
thousand that did not (37M instructions, 3% of the start). Paused instead, it goes through them
once, just after the first frame (about 20 ms; it finds 3,200 garbage objects), and what
survives is frozen out of its reach. That one collection is made then on purpose: resumed
without it, the collector would make it by itself at the first young collection (everything is
young after the pause), at a moment nobody chose, perhaps on a key.
"""

from __future__ import annotations

import gc

# True in a process whose front door paused the collector (start.py); not in tests, nor under
# `plantstore-tui demo` (click's), whose apps find it running.
_paused_for_start = False
_connected = False


def pause_for_start() -> None:
    """Pause the collector before Textual loads (the front door, for the TUI)."""
    global _paused_for_start
    gc.disable()
    _paused_for_start = True


def resume() -> None:
    """Run the collector again as usual: the command line takes over, not the TUI."""
    global _paused_for_start
    _paused_for_start = False
    gc.enable()


def after_first_frame() -> None:
    """Once the first frame is painted: one collection over everything the start made, what
    survives frozen (no later collection goes through it again), and the collector resumed."""
    global _paused_for_start
    if _paused_for_start:
        _paused_for_start = False
        gc.collect()
        gc.freeze()
        gc.enable()


def after_connecting() -> None:
    """Once the first connection is made, what it built (httpx, Pydantic, the client, the ledger)
    frozen too: left to the collector, each full collection went through all of it again (10
    of them in a burst of 200 plants, 80 ms each on the UI thread). Once per process: a later
    connection's objects may become garbage when the target changes again."""
    global _connected
    if not _connected:
        _connected = True
        gc.freeze()
