"""An Alt+letter: in a terminal Esc then the letter, typed quickly; in a browser a key of its
own (the keys a browser keeps, and the TUI's keys there instead, are core/config/keymap.py's)."""

from __future__ import annotations

from textual import events


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


def alt_key_alone(event: events.Key | events.Paste) -> events.Key | None:
    """In a browser, an Alt+letter without the letter it carries: a focused field would type
    the letter and keep the key from its binding (History's Alt+H); None for any other event."""
    if not isinstance(event, events.Key) or not event.key.startswith("alt+"):
        return None
    return None if event.character is None else events.Key(event.key, None)
