"""The form's fields draw what a terminal would not show as a visible symbol; the value stays."""

from __future__ import annotations

import pytest
from rich.text import Text

from plantstore_tui.ui.widgets.safe_input import VisibleControls


@pytest.mark.parametrize(
    ("typed", "drawn"),
    [
        ("Ro\u200bse", "Ro\ufffdse"),
        ("\ufeffFern", "\ufffdFern"),
        ("a\u200db", "a\ufffdb"),
        ("x\u202ey", "x\ufffdy"),
        ("\x1b[2J", "\u241b[2J"),
        ("Monstera 🌿", "Monstera 🌿"),
    ],
)
def test_each_unseen_character_is_one_reversed_symbol(typed: str, drawn: str) -> None:
    text = Text(typed)
    VisibleControls().highlight(text)
    assert text.plain == drawn
    marked = [span for span in text.spans if span.style == "reverse"]
    assert len(marked) == sum(a != b for a, b in zip(typed, drawn, strict=True))
