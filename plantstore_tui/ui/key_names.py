"""Key names shown in the footer and matched against the fields, without Unicode's name tables.

Textual turns a key's name into the character it types (to let a field take the keys it
consumes before the bindings see them) and into the label the footer shows by looking the name
up in Unicode's name tables: "f1", "enter" or "tab" each cost a search of them, and the first
frame's bindings made a dozen such searches, which read about 0.7 MiB of the tables into memory
before the first paint. The keys our bindings name need none of that: their answers are known
(and tested against Textual's); any other key is still asked of Textual.
"""

from __future__ import annotations

from textual.binding import Binding
from textual.keys import KEY_DISPLAY_ALIASES, format_key, key_to_character

# The character Textual finds for these key names (`key_to_character`): None for a key that
# types none.
_CHARACTERS: dict[str, str | None] = {
    "tab": "\t",
    "escape": "\x1b",
    "enter": None,
    "backspace": "\b",
    "delete": "\x7f",
    "space": " ",
    "home": None,
    "end": None,
    "up": None,
    "down": None,
    "left": None,
    "right": None,
    "pageup": None,
    "pagedown": None,
    "insert": None,
}


def _names_no_character(key: str) -> bool:
    """A function key (f1 to f24) or a letter or digit: no Unicode character has that name."""
    if len(key) == 1:
        return key.isascii() and key.isalnum()
    return key[:1] == "f" and key[1:].isdigit()


def key_character(key: str) -> str | None:
    """The character `key` types, as Textual's `key_to_character` answers (None if none)."""
    _, modified, name = key.rpartition("+")
    if modified:
        return None
    if len(name) == 1:
        return name
    if name in _CHARACTERS:
        return _CHARACTERS[name]
    if _names_no_character(name):
        return None
    return key_to_character(key)


def key_label(binding: Binding) -> str:
    """What the footer shows for `binding`'s key, as Textual's `App.get_key_display` does."""
    if binding.key_display:
        return binding.key_display
    modifiers, key = binding.parse_key()
    label = KEY_DISPLAY_ALIASES.get(key) or (key if _names_no_character(key) else format_key(key))
    if "ctrl" in modifiers:
        modifiers.remove("ctrl")
        label = f"^{label}"
    return "+".join([*modifiers, label])
