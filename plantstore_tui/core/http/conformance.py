"""Is an answer what the spec says a Plant Store answers? Each departure named in words.

The spec lists two answers to `POST /plants`: 200 with a Plant and 400 with an Error, both
`application/json`, and leaves the answer to a missing or invalid token open. Whatever else a
deployment sends is still shown as it came; these checks only add an "off spec" mark with the
reasons, so an operator can tell a quirk from a broken deployment. `add`, the TUI and `check` all
read an answer through this module, so none calls off spec what another passes.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from http import HTTPStatus
from typing import Any

from plantstore_tui.core.plant.form import INT32_MAX, INT32_MIN
from plantstore_tui.core.plant.text import QUOTED, quoted, shorten

SPEC_STATUSES = frozenset({200, 400})
# The statuses by which a deployment refuses a token. The spec leaves its answer to a missing or
# invalid token open ("not shown"), so neither is a departure from it, whatever its body.
TOKEN_REFUSED_STATUSES = frozenset({401, 403})
# The fields the spec names, and whether each is required. It forbids no others: a field beyond
# these (an id echoed, a trace id) is no departure.
_PLANT_FIELDS = {"name": True, "tag": False}
_ERROR_FIELDS = {"error": True, "message": True}


# What HTTP (RFC 9110; RFC 6585 for 429) says the statuses a deployment answers most often beside
# the spec's mean, in a few words.
_HTTP_MEANS = {
    401: "the request lacks valid credentials for the address",
    403: "the server understood the request and refuses to carry it out",
    404: "the server has nothing at this address",
    405: "the address does not take this method",
    413: "the request is larger than the server will take",
    415: "the server does not take the body's media type",
    429: "too many requests were sent in a given time",
    503: "the server cannot handle the request for now",
}


def status_phrase(status: int) -> str:
    """HTTP's name of a status ("Unauthorized"); empty for a status HTTP does not name."""
    try:
        return HTTPStatus(status).phrase
    except ValueError:
        return ""


def status_reading(status: int) -> str:
    """The one reading of a status for every front end: 200 and 400 are the spec's; any other
    is named by what HTTP says it means, and "not in the spec"."""
    if status in SPEC_STATUSES:
        return "the spec lists this status"
    named, means = _named(status)
    return f"{named} is not in the spec" + (f" (HTTP: {means})" if means else "")


def http_reading(status: int) -> str:
    """A status as HTTP reads it, for a request the spec does not describe: "405 Method Not
    Allowed (HTTP: the address does not take this method)"."""
    named, means = _named(status)
    return named + (f" (HTTP: {means})" if means else "")


def _named(status: int) -> tuple[str, str | None]:
    means = _HTTP_MEANS.get(status)
    if means is None and not status_phrase(status):
        means = "a status HTTP does not name"
    return f"{status} {status_phrase(status)}".rstrip(), means


def token_refused(status: int | None) -> bool:
    """True for 401 and 403, a refused token: an answer the spec leaves open, never off spec."""
    return status in TOKEN_REFUSED_STATUSES


def media_type(content_type: str | None) -> str:
    """The media type of a Content-Type header, lower case, without its parameters."""
    return (content_type or "").split(";", 1)[0].strip().lower()


def is_json_media_type(content_type: str | None) -> bool:
    """True for application/json and any `+json` type (problem+json among them)."""
    kind = media_type(content_type)
    return kind == "application/json" or (kind.startswith("application/") and "+json" in kind)


def _parse(body: bytes) -> tuple[bool, Any]:
    try:
        return True, json.loads(body)
    except (ValueError, RecursionError):
        return False, None


def _type_name(value: Any) -> str:
    match value:
        case None:
            return "null"
        case bool():
            return "a boolean"
        case int():
            return "an integer"
        case float():
            return "a number"
        case str():
            return "a string"
        case list():
            return "an array"
        case _:
            return "an object"


def _shape_problems(value: Any, shape: str, fields: Mapping[str, bool]) -> list[str]:
    if not isinstance(value, dict):
        return [f"the body is {_type_name(value)}, not the spec's {shape} object"]
    problems = [
        f"the {shape} has no {name!r}"
        for name, required in fields.items()
        if required and name not in value
    ]
    for name in fields:
        if name not in value:
            continue
        item = value[name]
        if name == "error":
            if not isinstance(item, int) or isinstance(item, bool):
                problems.append(f"the {shape}'s 'error' is {_type_name(item)}, not an int32")
            elif not INT32_MIN <= item <= INT32_MAX:
                problems.append(f"the {shape}'s 'error' ({item}) is outside int32")
        elif not isinstance(item, str):
            problems.append(f"the {shape}'s {name!r} is {_type_name(item)}, not a string")
    return problems


def off_spec(status: int, content_type: str | None, body: bytes) -> tuple[str, ...]:
    """Every way this answer to `POST /plants` departs from the spec; empty when it follows it."""
    problems: list[str] = []
    parsed, value = _parse(body) if body.strip() else (False, None)
    if status not in SPEC_STATUSES and not token_refused(status):
        problems.append(f"the spec lists only 200 and 400, not {status}")
    if parsed and not is_json_media_type(content_type):
        given = media_type(content_type) or "no Content-Type"
        problems.append(f"the body is JSON but is labelled {given}")
    if status not in SPEC_STATUSES:
        return tuple(problems)
    shape, fields = ("Plant", _PLANT_FIELDS) if status == 200 else ("Error", _ERROR_FIELDS)
    kind = media_type(content_type)
    if is_json_media_type(content_type) and kind != "application/json":
        problems.append(f"the spec's {status} body is application/json, not {kind}")
    if not parsed:
        what = "empty" if not body.strip() else "not JSON"
        problems.append(f"the {status} body is {what}, not the spec's {shape}")
        return tuple(problems)
    problems.extend(_shape_problems(value, shape, fields))
    return tuple(problems)


def _tag_words(tag: Any) -> str:
    return "no tag" if tag is None else f"tag {quoted(tag)}"


def against_sent(sent: Mapping[str, Any], answered: Mapping[str, Any]) -> tuple[str, ...]:
    """Every way a 200's Plant departs from the NewPlant sent, in words; empty when it holds
    what was sent.

    The spec's 200 is "the plant response": the plant as stored. Another name, another tag (or
    a tag gained or lost), or an id field other than the one sent means the server stored
    something else than the operator sent. A field of the wrong type is a shape problem
    (`off_spec`), not repeated here.
    """
    marks: list[str] = []
    name = answered.get("name")
    if isinstance(name, str) and name != sent["name"]:
        marks.append(f"the server stored name {quoted(name)}, not {quoted(sent['name'])} as sent")
    tag, sent_tag = answered.get("tag"), sent.get("tag")
    if (tag is None or isinstance(tag, str)) and tag != sent_tag:
        if sent_tag is None:
            marks.append(f"the server stored {_tag_words(tag)}, though none was sent")
        else:
            marks.append(f"the server stored {_tag_words(tag)}, not {_tag_words(sent_tag)} as sent")
    if "id" in answered and not (type(answered["id"]) is int and answered["id"] == sent["id"]):
        shown = shorten(json.dumps(answered["id"], ensure_ascii=False), QUOTED, what="id")
        marks.append(f"the server answered id {shown}, not {sent['id']} as sent")
    return tuple(marks)
