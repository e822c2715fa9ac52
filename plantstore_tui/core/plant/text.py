"""Making text from a server safe to put on a terminal."""

from __future__ import annotations

from plantstore_tui.core.plant.form import is_forbidden_char

_NAMED_ESCAPES = {"\t": "\\t", "\n": "\\n", "\r": "\\r", "\x1b": "\\e"}


def _escape(char: str) -> str:
    named = _NAMED_ESCAPES.get(char)
    if named is not None:
        return named
    code = ord(char)
    if code <= 0xFF:
        return f"\\x{code:02x}"
    if code <= 0xFFFF:
        return f"\\u{code:04x}"
    return f"\\U{code:08x}"


def _needs_escape(char: str, keep_newlines: bool) -> bool:
    if keep_newlines and char == "\n":
        return False
    return is_forbidden_char(char) or char in "\u2028\u2029\ufeff"


def visible(text: str, *, keep_newlines: bool = False) -> str:
    """`text` with every control, bidi and line-separator character shown as a visible escape.

    Nothing that could move the cursor, set the clipboard (OSC 52), change colours or reorder
    the line reaches the terminal.
    """
    if text.isprintable():
        return text
    return "".join(_escape(char) if _needs_escape(char, keep_newlines) else char for char in text)


def shorten(text: str, limit: int) -> str:
    """`text` cut to `limit` characters, saying how much was left out."""
    if len(text) <= limit:
        return text
    return f"{text[:limit]}… ({len(text) - limit:,} more characters not shown)"
