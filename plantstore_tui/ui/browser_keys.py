"""The keys a browser keeps for itself, and what the TUI offers instead when it runs in one
(`plantstore-tui web`): the page never sees Ctrl+N, Ctrl+T or Ctrl+W, whatever it does."""

from __future__ import annotations

from textual import events

# The app's keymap in a browser (binding ids of the send screen). Only there: in a terminal an
# Alt+letter is Esc then the letter, typed quickly, and Esc keeps its own meaning.
BROWSER_KEYMAP = {"toggle_next_id": "alt+n", "toggle_keep_tag": "alt+t"}

# As the form and the help write them.
_INSTEAD = {
    "^N": "Alt+N",
    "^T": "Alt+T",
    "Ctrl+N": "Alt+N",
    "Ctrl+T": "Alt+T",
}


def key_to_press(key: str, *, in_browser: bool) -> str:
    """The key to press for `key`: in a browser, the one the page receives instead of a key the
    browser keeps; otherwise `key` itself."""
    return _INSTEAD.get(key, key) if in_browser else key


def escape_then_character(event: events.Key | events.Paste) -> tuple[events.Key, events.Key] | None:
    """In a terminal, Esc then a letter typed quickly reach the app as that letter with Alt (a
    terminal sends Alt+N as Esc then n): the two keys the operator typed, for an app that binds
    no Alt+letter there; None for any other event."""
    if not isinstance(event, events.Key) or not event.key.startswith("alt+"):
        return None
    character = event.character
    if character is None or len(character) != 1 or not character.isalnum():
        return None
    return events.Key("escape", "\x1b"), events.Key(character, character)
