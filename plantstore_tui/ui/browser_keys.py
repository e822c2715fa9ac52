"""The keys a browser keeps for itself, and what the TUI offers instead when it runs in one
(`plantstore-tui web`): the page never sees Ctrl+N, Ctrl+T or Ctrl+W, whatever it does."""

from __future__ import annotations

# As the form and the help write them; the send screen binds both keys of each pair.
_INSTEAD = {
    "^N": "Alt+N",
    "^T": "Alt+T",
    "Ctrl+N": "Alt+N",
    "Ctrl+T": "Alt+T",
}


def browser_keys(key: str) -> str:
    """The key to press in a browser for `key` (itself when the browser lets the page have it)."""
    return _INSTEAD.get(key, key)


def terminal_keys(key: str) -> str:
    """The key to press in a terminal: `key` itself."""
    return key
