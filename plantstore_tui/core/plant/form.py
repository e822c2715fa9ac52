"""Form text -> field values, in plain Python: the checks every front end shows as you type.

This module imports nothing heavy, so the TUI can validate from its first frame; the Pydantic
models in `models` build on it.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Literal, NamedTuple, TypeAlias

INT64_MIN = -(2**63)
INT64_MAX = 2**63 - 1
INT32_MIN = -(2**31)
INT32_MAX = 2**31 - 1

FormField: TypeAlias = Literal["name", "id", "tag"]
FORM_FIELDS: tuple[FormField, ...] = ("name", "id", "tag")

# Characters that can reorder how the rest of a line is displayed (Trojan Source, CVE-2021-42574).
BIDI_CONTROLS = frozenset(
    "\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069",
)

_ID_PATTERN = re.compile(r"[+-]?[0-9]+", re.ASCII)
# int64 has at most 19 significant digits: anything longer is out of range without converting it,
# so a 5,000-digit paste is refused at once instead of hitting int()'s digit limit.
_MAX_ID_DIGITS = 19


def is_forbidden_char(char: str) -> bool:
    """True for C0, DEL, C1, lone surrogates and bidi controls."""
    code = ord(char)
    return code < 0x20 or 0x7F <= code <= 0x9F or 0xD800 <= code <= 0xDFFF or char in BIDI_CONTROLS


def char_label(char: str) -> str:
    """Name a character by its code point, e.g. `U+001B`."""
    return f"U+{ord(char):04X}"


# The characters of `is_forbidden_char` but lone surrogates, as the body of a regex class in
# escapes that Python's `re` and JSON Schema's ECMA-262 read alike.
_CONTROLS_CLASS = "\\x00-\\x1f\\x7f-\\x9f" + "".join(
    f"\\u{ord(char):04x}" for char in sorted(BIDI_CONTROLS)
)
# Found in one scan in C (a file of plants is checked twice, character by character, a field of
# every row each time).
_FORBIDDEN = re.compile(f"[{_CONTROLS_CLASS}\\ud800-\\udfff]")
# The characters `str.strip()` takes for space that are not forbidden already, spelt out: a
# regex's `\s` is another set in each dialect (ECMA-262's has U+FEFF, Python's has not).
_SPACES_CLASS = "\\u0020\\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000"
# A name (or a tag) the server takes, as a regex for JSON Schema: no forbidden character, and
# something besides space; the rule of `parse_name`, written for another reader. Lone surrogates
# are not named: no JSON Schema string holds one (the server refuses them as JSON), and a
# validator on Rust's regex (jsonschema-rs, Schemathesis's) cannot compile a range of them.
# `(?!\n)$`: Python's `$` also matches before a last newline ("Fern\n"), ECMA-262's does not;
# the lookahead makes both read the end of the text.
TEXT_PATTERN = (
    f"^[^{_CONTROLS_CLASS}]*[^{_CONTROLS_CLASS}{_SPACES_CLASS}][^{_CONTROLS_CLASS}]*(?!\\n)$"
)


def find_forbidden_char(text: str) -> tuple[int, str] | None:
    """The 1-based position and character of the first forbidden character in `text`, if any."""
    found = _FORBIDDEN.search(text)
    return None if found is None else (found.start() + 1, found.group())


def forbidden_char_message(label: str, text: str) -> str | None:
    """Words naming the first forbidden character of a field and its position, if any."""
    found = find_forbidden_char(text)
    if found is None:
        return None
    position, char = found
    code = ord(char)
    if char in BIDI_CONTROLS:
        kind = "a bidirectional control character"
    elif 0xD800 <= code <= 0xDFFF:
        kind = "a lone surrogate"
    else:
        kind = "a control character"
    return f"{label} has {kind} ({char_label(char)}) at position {position}"


# Named tuples, not frozen dataclasses: those compile their methods when this module is imported,
# and the TUI's first frame imports it.
class FormTexts(NamedTuple):
    """The raw text of the three fields, exactly as typed."""

    name: str
    id: str
    tag: str

    def errors(self) -> dict[FormField, str]:
        """Each bad field's message, in form order; empty when the texts make a valid plant."""
        found: dict[FormField, str] = {}
        for field, text in zip(FORM_FIELDS, (self.name, self.id, self.tag), strict=True):
            message = field_error(field, text)
            if message is not None:
                found[field] = message
        return found

    @property
    def blank(self) -> bool:
        """True when no field holds anything but whitespace."""
        return not (self.name.strip() or self.id.strip() or self.tag.strip())


class FormErrors(NamedTuple):
    """Per-field messages for form text that does not make a valid `NewPlant`."""

    errors: Mapping[FormField, str]

    def first_field(self) -> FormField:
        """The first bad field in form order, where the cursor should go."""
        return next(field for field in FORM_FIELDS if field in self.errors)


def parse_id(text: str) -> int | str:
    """The id as an int64, or the words saying why `text` is not one."""
    # Checked before trimming: str.strip() counts some controls (U+001C..U+001F, U+0085) as space.
    problem = forbidden_char_message("ID", text)
    if problem is not None:
        return problem
    stripped = text.strip()
    if not stripped:
        return "ID is required"
    if not _ID_PATTERN.fullmatch(stripped):
        return "ID must be a whole number: digits 0-9 with an optional sign"
    sign = "-" if stripped.startswith("-") else ""
    # Leading zeros are dropped before int(): they count towards its digit limit too.
    digits = stripped.lstrip("+-").lstrip("0") or "0"
    if len(digits) > _MAX_ID_DIGITS:
        return f"ID must be between {INT64_MIN} and {INT64_MAX}"
    value = int(sign + digits)
    if not INT64_MIN <= value <= INT64_MAX:
        return f"ID must be between {INT64_MIN} and {INT64_MAX}"
    return value


def parse_name(text: str) -> str | FormErrors:
    """The trimmed name, or its error."""
    problem = forbidden_char_message("Name", text)
    if problem is not None:
        return FormErrors({"name": problem})
    name = text.strip()
    if not name:
        return FormErrors({"name": "Name is required"})
    return name


def parse_tag(text: str) -> str | FormErrors | None:
    """The trimmed tag, None when blank (left out of the request), or its error."""
    problem = forbidden_char_message("Tag", text)
    if problem is not None:
        return FormErrors({"tag": problem})
    return text.strip() or None


def field_error(field: FormField, text: str) -> str | None:
    """The message for one field as the operator types, or None when it is fine."""
    if field == "id":
        parsed_id = parse_id(text)
        return parsed_id if isinstance(parsed_id, str) else None
    parsed = parse_name(text) if field == "name" else parse_tag(text)
    return parsed.errors[field] if isinstance(parsed, FormErrors) else None
