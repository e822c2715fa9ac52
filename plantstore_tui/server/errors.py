"""The reference server's error codes, and the one way it answers with the spec's Error shape.

The spec leaves the values of `error` open; these are stable, so scripts may match on them.
`ERROR_KINDS` is the table the README and the OpenAPI document show.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from starlette.responses import JSONResponse

from plantstore_tui.core.errors import PlantStoreError
from plantstore_tui.core.plant.form import is_forbidden_char
from plantstore_tui.core.plant.models import DUPLICATE_ID_ERROR

# Long enough for a field path and a reason, short enough that an echoed 60 kB key cannot bloat it.
MAX_MESSAGE_CHARS = 300


@dataclass(frozen=True, slots=True)
class ErrorKind:
    """One row of the error table: the Error `error` code, its HTTP status and what it means."""

    code: int
    status: int
    meaning: str


INVALID_JSON = ErrorKind(
    1001, 400, "Not JSON: empty, not UTF-8, malformed, a repeated key, a lone surrogate"
)
INVALID_PLANT = ErrorKind(1002, 400, "The JSON is not a NewPlant; the message names the field")
DUPLICATE_ID = ErrorKind(DUPLICATE_ID_ERROR, 400, "A plant with this id already exists")
BODY_TOO_LARGE = ErrorKind(1004, 413, "The body is larger than the limit (64 KiB by default)")
UNSUPPORTED_MEDIA_TYPE = ErrorKind(1005, 415, "Content-Type is not application/json (UTF-8)")
UNAUTHORIZED = ErrorKind(1401, 401, "The bearer token is missing or wrong")
NOT_FOUND = ErrorKind(1404, 404, "No such path")
METHOD_NOT_ALLOWED = ErrorKind(1405, 405, "The path does not accept this method")
INTERNAL_ERROR = ErrorKind(1500, 500, "A bug in the server; the plant may or may not be stored")
STORAGE_UNAVAILABLE = ErrorKind(1503, 503, "The database is busy or cannot be written; not stored")

ERROR_KINDS: tuple[ErrorKind, ...] = (
    INVALID_JSON,
    INVALID_PLANT,
    DUPLICATE_ID,
    BODY_TOO_LARGE,
    UNSUPPORTED_MEDIA_TYPE,
    UNAUTHORIZED,
    NOT_FOUND,
    METHOD_NOT_ALLOWED,
    INTERNAL_ERROR,
    STORAGE_UNAVAILABLE,
)


class ApiErrorResponse(PlantStoreError):
    """A request the server refuses; the app answers it with the spec's Error body."""

    def __init__(
        self, kind: ErrorKind, message: str, headers: Mapping[str, str] | None = None
    ) -> None:
        super().__init__(message)
        self.kind = kind
        self.message = message
        self.headers = headers


def visible_text(text: str, limit: int = MAX_MESSAGE_CHARS) -> str:
    """`text` with control characters, lone surrogates and bidi controls written as escapes."""
    # Messages quote what the client sent (keys, paths, media types): whatever it was, the answer
    # must stay printable and encodable as UTF-8.
    shown = "".join(f"\\u{ord(char):04x}" if is_forbidden_char(char) else char for char in text)
    return shown if len(shown) <= limit else shown[: limit - 1] + "…"


def error_response(
    kind: ErrorKind, message: str, headers: Mapping[str, str] | None = None
) -> JSONResponse:
    """The spec's Error body `{"error": code, "message": ...}` with the kind's status."""
    body = {"error": kind.code, "message": visible_text(message)}
    return JSONResponse(body, status_code=kind.status, headers=headers)
