"""The Starlette app: POST /plants as the spec says, GET /openapi.json, Error bodies for the rest.

A POST is checked in this order, and the first failure answers: bearer token (401), media type
(415), body size (413), JSON (400, 1001), NewPlant shape (400, 1002; a blank name or tag too),
duplicate id (400, 1003). A plant is answered as it was stored: what is sent is what comes back.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import re
import secrets
from collections.abc import AsyncIterator
from contextlib import aclosing
from pathlib import Path
from typing import Any, NoReturn

import anyio.to_thread
from pydantic import SecretStr, ValidationError
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import ClientDisconnect, Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from plantstore_tui.core.plant.form import INT64_MAX, INT64_MIN
from plantstore_tui.core.plant.models import NewPlant, describe_validation_error
from plantstore_tui.server.errors import (
    BODY_TOO_LARGE,
    DUPLICATE_ID,
    INTERNAL_ERROR,
    INVALID_JSON,
    INVALID_PLANT,
    METHOD_NOT_ALLOWED,
    NOT_FOUND,
    STORAGE_UNAVAILABLE,
    UNAUTHORIZED,
    UNSUPPORTED_MEDIA_TYPE,
    ApiErrorResponse,
    ErrorKind,
    error_response,
)
from plantstore_tui.server.openapi import openapi_document
from plantstore_tui.server.storage import DuplicateId, PlantStorage, StorageUnavailable

DEFAULT_MAX_BODY = 64 * 1024

_DIGITS = re.compile(r"[0-9]+", re.ASCII)
# Longer than any int64 (19 digits and a sign): such a number is out of range whatever it is.
_MAX_INT_CHARS = 20
_SURROGATE = re.compile("[\ud800-\udfff]")
# What a parsed body that is not an object is, by its type: json.loads (with the hooks below)
# makes only these exact types.
_NOT_AN_OBJECT: dict[type, str] = {
    type(None): "null",
    bool: "a boolean",
    int: "a number",
    float: "a number",
    str: "a string",
    list: "an array",
}


def _challenge(error: str | None = None) -> dict[str, str]:
    value = 'Bearer realm="plantstore"'
    if error is not None:
        value += f', error="{error}"'
    return {"WWW-Authenticate": value}


def _refuse(kind: ErrorKind, message: str, headers: dict[str, str] | None = None) -> NoReturn:
    raise ApiErrorResponse(kind, message, headers)


def _check_bearer(request: Request, token: SecretStr) -> None:
    values = request.headers.getlist("authorization")
    if not values:
        _refuse(
            UNAUTHORIZED, "Missing bearer token: send Authorization: Bearer <token>", _challenge()
        )
    if len(values) > 1:
        _refuse(UNAUTHORIZED, "Send one Authorization header, not several", _challenge())
    scheme, _, credentials = values[0].strip().partition(" ")
    if scheme.lower() != "bearer":
        _refuse(UNAUTHORIZED, "The Authorization header must use the Bearer scheme", _challenge())
    # Starlette decodes header bytes as latin-1, so this gives back the bytes as sent; comparing
    # bytes keeps compare_digest working for non-ASCII input, in constant time for any token.
    sent = credentials.strip(" ").encode("latin-1")
    if not secrets.compare_digest(sent, token.get_secret_value().encode()):
        _refuse(UNAUTHORIZED, "The bearer token is not valid", _challenge("invalid_token"))


def _check_media_type(request: Request) -> None:
    content_type = request.headers.get("content-type", "")
    media_type, *parameters = (part.strip() for part in content_type.split(";"))
    if media_type.lower() != "application/json":
        shown = repr(content_type) if content_type else "none"
        _refuse(
            UNSUPPORTED_MEDIA_TYPE,
            f"Send the plant as Content-Type: application/json (got {shown})",
        )
    for parameter in parameters:
        name, _, value = parameter.partition("=")
        if name.strip().lower() == "charset" and value.strip().strip('"').lower() != "utf-8":
            _refuse(UNSUPPORTED_MEDIA_TYPE, f"JSON must be UTF-8 (got {parameter!r})")


async def _read_body(request: Request, limit: int) -> bytes:
    too_large = f"The body is larger than {limit} bytes"
    declared = request.headers.get("content-length", "").strip()
    if _DIGITS.fullmatch(declared):
        digits = declared.lstrip("0")
        if len(digits) > _MAX_INT_CHARS or int(digits or "0") > limit:
            _refuse(BODY_TOO_LARGE, too_large)
    # Counted as it arrives, so a body sent chunked or with a Content-Length that lies is cut
    # off at the limit instead of being buffered whole.
    body = bytearray()
    try:
        async with aclosing(request.stream()) as chunks:
            async for chunk in chunks:
                body += chunk
                if len(body) > limit:
                    _refuse(BODY_TOO_LARGE, too_large)
    except ClientDisconnect:
        _refuse(INVALID_JSON, "The client disconnected before the body was complete")
    return bytes(body)


def _parse_int(text: str) -> int:
    # Beyond 20 characters the exact value does not matter (it is outside int64), and int()
    # refuses more than 4,300 digits anyway: answer with the nearest out-of-range value, so the
    # shape check names the field and its range.
    if len(text) <= _MAX_INT_CHARS:
        return int(text)
    return INT64_MIN - 1 if text.startswith("-") else INT64_MAX + 1


def _refuse_constant(name: str) -> NoReturn:
    raise ValueError(f"{name} is not a JSON value")


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    # Two parsers can read {"id": 1, "id": 2} as different plants: refuse rather than guess.
    obj: dict[str, Any] = {}
    for key, value in pairs:
        if key in obj:
            raise ValueError(f"the key {json.dumps(key)} appears twice in one object")
        obj[key] = value
    return obj


def _lone_surrogate(value: Any) -> str | None:
    pending = [value]
    while pending:
        item = pending.pop()
        if isinstance(item, dict):
            pending.extend(item)
            pending.extend(item.values())
        elif isinstance(item, list):
            pending.extend(item)
        elif isinstance(item, str) and (found := _SURROGATE.search(item)):
            return found.group()
    return None


def _parse_json(body: bytes) -> Any:
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError as exc:
        _refuse(INVALID_JSON, f"The body is not UTF-8 (byte {exc.start + 1})")
    if not text.strip():
        _refuse(INVALID_JSON, "The body is empty: send a NewPlant as JSON")
    try:
        data = json.loads(
            text,
            parse_int=_parse_int,
            parse_constant=_refuse_constant,
            object_pairs_hook=_unique_keys,
        )
    except json.JSONDecodeError as exc:
        _refuse(
            INVALID_JSON,
            f"The body is not valid JSON: {exc.msg} at line {exc.lineno} column {exc.colno}",
        )
    except RecursionError:
        _refuse(INVALID_JSON, "The body is not valid JSON: it is nested too deeply")
    except ValueError as exc:
        _refuse(INVALID_JSON, f"The body is not valid JSON: {exc}")
    # An escape like "\ud800" is valid JSON syntax but no Unicode text (I-JSON, RFC 7493, refuses
    # it): refused here in one way, wherever it is, key or value.
    surrogate = _lone_surrogate(data)
    if surrogate is not None:
        _refuse(
            INVALID_JSON,
            f"The body is not valid JSON: it escapes a lone surrogate (U+{ord(surrogate):04X}), "
            "which is not a Unicode character",
        )
    return data


def _new_plant(data: Any) -> NewPlant:
    if not isinstance(data, dict):
        what = _NOT_AN_OBJECT[type(data)]
        _refuse(INVALID_PLANT, f"The body must be a JSON object (a NewPlant), not {what}")
    # The spec types tag as a string: null is refused, not taken for "no tag". A blank tag is
    # refused too, as a blank name is: taken for "no tag", it would be stored and answered
    # otherwise than sent, and this server echoes what it stores.
    if "tag" in data and data["tag"] is None:
        _refuse(INVALID_PLANT, "The body is not a NewPlant: tag: leave it out rather than null")
    if isinstance(data.get("tag"), str) and not data["tag"].strip():
        _refuse(
            INVALID_PLANT,
            "The body is not a NewPlant: tag: Tag is blank: leave it out for a plant without a tag",
        )
    try:
        return NewPlant.model_validate(data)
    except ValidationError as exc:
        _refuse(INVALID_PLANT, f"The body is not a NewPlant: {describe_validation_error(exc)}")


class PlantService:
    """The POST /plants endpoint, bound to one token, one database, one body limit and one delay."""

    def __init__(
        self, storage: PlantStorage, token: SecretStr, max_body: int, delay: float = 0.0
    ) -> None:
        self._storage = storage
        self._token = token
        self._max_body = max_body
        self._delay = delay

    async def add_plant(self, request: Request) -> Response:
        """Check, store and echo one plant, after the delay if there is one."""
        if self._delay:
            # Awaited, not slept in a thread: each request waits on its own, none waits for another.
            await asyncio.sleep(self._delay)
        _check_bearer(request, self._token)
        _check_media_type(request)
        plant = _new_plant(_parse_json(await _read_body(request, self._max_body)))
        try:
            await anyio.to_thread.run_sync(self._storage.add, plant)
        except DuplicateId as exc:
            _refuse(DUPLICATE_ID, str(exc))
        except StorageUnavailable as exc:
            _refuse(STORAGE_UNAVAILABLE, f"The plant was not stored: {exc}")
        return JSONResponse(plant.model_dump(include={"name", "tag"}, exclude_none=True))


async def _refused(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, ApiErrorResponse)
    return error_response(exc.kind, exc.message, exc.headers)


async def _http_error(request: Request, exc: Exception) -> Response:
    # Raised by Starlette's router: the only statuses it raises here are 404 and 405.
    assert isinstance(exc, HTTPException)
    # The path from the scope, not request.url: that one is rebuilt from the Host header, which
    # a client can make unparsable.
    path = request.scope["path"]
    if exc.status_code == METHOD_NOT_ALLOWED.status:
        message = f"{request.method} is not allowed on {path}"
        return error_response(METHOD_NOT_ALLOWED, message, exc.headers)
    message = f"No such path: {path} (this server answers POST /plants)"
    return error_response(NOT_FOUND, message, exc.headers)


async def _internal_error(request: Request, exc: Exception) -> Response:
    return error_response(
        INTERNAL_ERROR,
        "The server failed (a bug in the reference server); the plant may or may not be stored",
    )


def create_app(
    *, db_path: Path, token: SecretStr, max_body: int = DEFAULT_MAX_BODY, delay: float = 0.0
) -> Starlette:
    """The reference Plant Store as an ASGI app; opens (and if needed creates) the database.

    `delay` seconds pass before each POST /plants is handled: a slow deployment, to try clients on.
    """
    if not token.get_secret_value():
        # An empty token would let "Authorization: Bearer " in.
        raise ValueError("The server's token must not be empty")
    if not delay >= 0:  # also refuses NaN
        raise ValueError(f"The delay must be 0 seconds or more, not {delay}")
    storage = PlantStorage(db_path)
    service = PlantService(storage, token, max_body, delay)
    document = openapi_document()

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        yield
        storage.close()

    async def openapi(request: Request) -> Response:
        return JSONResponse(document)

    app = Starlette(
        routes=[
            Route("/plants", service.add_plant, methods=["POST"]),
            Route("/openapi.json", openapi, methods=["GET"]),
        ],
        exception_handlers={
            ApiErrorResponse: _refused,
            HTTPException: _http_error,
            Exception: _internal_error,
        },
        lifespan=lifespan,
    )
    # A POST redirected from /plants/ to /plants would be lost by clients that do not follow
    # redirects (ours does not): a 404 that names the path is clearer.
    app.router.redirect_slashes = False
    return app
