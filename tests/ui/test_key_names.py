"""Our key names answer as Textual's do, for every key our bindings name and a few more."""

from __future__ import annotations

import pytest
from textual.app import App
from textual.binding import Binding
from textual.keys import key_to_character

from plantstore_tui.ui.key_names import key_character, key_label

KEYS = [
    *(f"f{number}" for number in range(1, 25)),
    *"abcdefghijklmnopqrstuvwxyz0123456789",
    *("tab", "escape", "enter", "backspace", "delete", "space", "home", "end", "insert"),
    *("up", "down", "left", "right", "pageup", "pagedown"),
    *("ctrl+s", "ctrl+p", "shift+tab", "ctrl+shift+f1", "question_mark", "full_stop", "minus"),
    *("exclamation_mark", "plus", "slash", "?", "/"),
]


@pytest.mark.parametrize("key", KEYS)
def test_a_keys_character_is_textuals(key: str) -> None:
    assert key_character(key) == key_to_character(key)


@pytest.mark.parametrize("key", KEYS)
def test_a_keys_label_is_textuals(key: str) -> None:
    binding = Binding(key, "action", "Description")
    assert key_label(binding) == App.get_key_display(App(), binding)


def test_a_binding_keeps_the_label_it_names() -> None:
    assert key_label(Binding("f1", "help", "Help", key_display="F1")) == "F1"
