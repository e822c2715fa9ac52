"""Making text from a server safe to put on a terminal, and bounded: a few hundred characters of
it, its full size named."""

from __future__ import annotations

import json
import unicodedata
from typing import Any, NamedTuple

from plantstore_tui.core.plant.form import is_forbidden_char

_NAMED_ESCAPES = {"\t": "\\t", "\n": "\\n", "\r": "\\r", "\x1b": "\\e"}


def plural(count: int, one: str, many: str | None = None) -> str:
    """The count and the noun that fits it: "1 plant", "3 plants", "1,024 rows";
    `many` for a plural not made with "s" ("1 entry", "2 entries")."""
    return f"{count:,} {one if count == 1 else many or one + 's'}"


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


def is_unseen_char(char: str) -> bool:
    """True for a character a terminal would not show as itself: a control (C0, DEL, C1), a
    lone surrogate, a line or paragraph separator, or a format character (Unicode category Cf:
    zero-width spaces and joiners, bidi marks, embeddings and isolates, the BOM, ...)."""
    return is_forbidden_char(char) or char in "\u2028\u2029" or unicodedata.category(char) == "Cf"


def visible(text: str, *, keep_newlines: bool = False) -> str:
    """`text` with every character of `is_unseen_char` shown as a visible escape (`\\e`,
    `\\u200b`).

    Nothing that could move the cursor, set the clipboard (OSC 52), change colours or reorder
    the line reaches the terminal, and no name can hide a character or look like another.
    """
    if text.isprintable():
        return text
    return "".join(
        char if (keep_newlines and char == "\n") or not is_unseen_char(char) else _escape(char)
        for char in text
    )


# The most characters of any one text a server sent (a name, a message, a body) that a screen, a
# saved log or a terminal line shows; its full size is named beside it. The whole stays in the
# ledger, for `history show` and an export.
SHOWN = 200
# The most characters of a server's text quoted inside a sentence (a headline, an off-spec mark):
# the text itself is shown beside it.
QUOTED = 60
# The most characters of a block shown: a JSON body (each of its texts already cut to SHOWN), a
# message that quotes a server's text.
BLOCK_SHOWN = 1000
_KEY_NAMED = 40
# JSON nested deeper than this is left out of what is shown (no Plant or Error nests at all).
_DEPTH_SHOWN = 20
# A JSON object this short reads best on one line; anything longer or nested is indented.
_ONE_LINE_JSON = 60


def shorten(text: str, limit: int = SHOWN, *, what: str = "", size: int | None = None) -> str:
    """`text` whole when it has at most `limit` characters; else its first `limit`, naming its
    full size: "Rose… (name: 1,048,560 characters, first 200 shown)". `size` is the full size
    when `text` is only the start of the text (read so from a file)."""
    size = max(len(text), size or 0)
    if size <= limit:
        return text
    return f"{text[:limit]}… ({_cut_words(size, limit, what)})"


def clipped(text: str, width: int) -> str:
    """`text` cut to `width` characters for a table cell, "…" marking the cut (a cell has no room
    to name the full size: the row's detail shows the text bounded as `shorten` bounds it); ""
    for no width at all."""
    if len(text) <= width:
        return text
    return text[: width - 1] + "…" if width > 0 else ""


def quoted(text: str, limit: int = QUOTED) -> str:
    """`text` in single quotes for a sentence, cut as `shorten` cuts it: "'Rose'", or
    "'RoseRose…' (1,048,560 characters, first 60 shown)"."""
    if len(text) <= limit:
        return f"'{text}'"
    return f"'{text[:limit]}…' ({_cut_words(len(text), limit)})"


def _cut_words(size: int, limit: int, what: str = "") -> str:
    named = f"{what}: " if what else ""
    return f"{named}{size:,} characters, first {limit:,} shown"


def bounded_json(value: Any, limit: int = SHOWN) -> tuple[Any, tuple[str, ...]]:
    """A JSON value with each text (key or string) longer than `limit` cut to its first `limit`
    characters and "…", what is nested deeper than `_DEPTH_SHOWN` levels left out as "…", and
    one note per cut naming where it was and its full size."""
    notes: list[str] = []

    def cut(text: str, where: str) -> str:
        if len(text) <= limit:
            return text
        notes.append(_cut_words(len(text), limit, where))
        return text[:limit] + "…"

    def walk(item: Any, where: str, depth: int) -> Any:
        if isinstance(item, dict | list) and item and depth == _DEPTH_SHOWN:
            notes.append(f"{where}: nested deeper than {_DEPTH_SHOWN} levels, not shown")
            return "…"
        if isinstance(item, str):
            return cut(item, where or "the body")
        if isinstance(item, list):
            return [walk(inner, f"{where}[{index}]", depth + 1) for index, inner in enumerate(item)]
        if not isinstance(item, dict):
            return item
        shown = {}
        for key, inner in item.items():
            # A note names a long key by its start: the cut key itself is in the JSON.
            named = key if len(key) <= _KEY_NAMED else key[:_KEY_NAMED] + "…"
            path = f"{where}.{named}" if where else named
            shown[cut(key, f"a key of {where or 'the body'}")] = walk(inner, path, depth + 1)
        return shown

    return walk(value, "", 0), tuple(notes)


class ShownBody(NamedTuple):
    """A body as every front end shows it: its text (safe for a terminal, bounded), the notes
    naming each cut, and whether it is JSON (pretty-printed, for a highlighter)."""

    text: str
    notes: tuple[str, ...] = ()
    is_json: bool = False


def shown_json(data: Any) -> ShownBody:
    """`data` as JSON, one line when short and flat, else indented; each text in it cut to a few
    hundred characters and each cut named (a server's megabyte name is never held or drawn)."""
    shown, notes = bounded_json(data)
    flat = json.dumps(shown, ensure_ascii=False)
    nested = isinstance(shown, dict) and any(isinstance(v, dict | list) for v in shown.values())
    if len(flat) <= _ONE_LINE_JSON and not nested:
        dumped = flat
    else:
        dumped = json.dumps(shown, indent=2, ensure_ascii=False)
    # json.dumps escapes C0 but lets DEL, C1 and bidi controls through: visible() catches those.
    text = visible(shorten(dumped, BLOCK_SHOWN, what="the JSON"), keep_newlines=True)
    return ShownBody(text, tuple(visible(note) for note in notes), is_json=True)


def shown_body(body: str) -> ShownBody:
    """An answer's body: pretty JSON when it parses, else the raw text, escaped and cut."""
    try:
        data = json.loads(body)
    except (ValueError, RecursionError):
        return ShownBody(visible(shorten(body, what="the body"), keep_newlines=True))
    return shown_json(data)
