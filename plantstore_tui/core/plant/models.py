"""The spec's data shapes (Pydantic v2), and the one parser from form text to a `NewPlant`.

Every front end (TUI, `add`, the reference server) goes through `parse_new_plant`, so an
operator sees the same words for the same mistake wherever they type it.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from plantstore_tui.core.plant.form import (
    INT32_MAX,
    INT32_MIN,
    INT64_MAX,
    INT64_MIN,
    FormErrors,
    FormTexts,
    forbidden_char_message,
    parse_id,
)


def _check_text(value: str, label: str) -> str:
    problem = forbidden_char_message(label, value)
    if problem is not None:
        raise ValueError(problem)
    return value


class NewPlant(BaseModel):
    """The request body of plant creation: `id` and `name` required, `tag` optional."""

    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)

    id: Annotated[int, Field(ge=INT64_MIN, le=INT64_MAX)]
    name: Annotated[str, Field(min_length=1)]
    tag: str | None = None

    @field_validator("name")
    @classmethod
    def _name_is_clean(cls, value: str) -> str:
        checked = _check_text(value, "Name")
        if not checked.strip():
            raise ValueError("Name is required")
        return checked

    @field_validator("tag")
    @classmethod
    def _tag_is_clean(cls, value: str | None) -> str | None:
        if value is None:
            return None
        # A blank tag means "no tag": it is left out of the body rather than sent as "".
        checked = _check_text(value, "Tag")
        return checked if checked.strip() else None

    def to_body(self) -> dict[str, Any]:
        """The JSON body to send: an absent tag is left out, never sent as null or ""."""
        return self.model_dump(exclude_none=True)

    def body_bytes(self) -> bytes:
        """The exact bytes of the JSON body sent (compact, UTF-8, as httpx encodes `json=`); the
        ledger keeps these same bytes."""
        return json.dumps(
            self.to_body(), ensure_ascii=False, separators=(",", ":"), allow_nan=False
        ).encode("utf-8")


class _ServerBody(BaseModel):
    """A body a server sent: shown as it came, never with defaults it did not send."""

    def as_received(self) -> dict[str, Any]:
        """The fields the server sent, as JSON values: an absent tag stays absent, not null."""
        return self.model_dump(mode="json", exclude_unset=True)


class Plant(_ServerBody):
    """The 200 response body: `name` required, `tag` optional; other fields kept as sent."""

    # A deployment may echo more than the spec lists (an id, timestamps): keep it to show it.
    model_config = ConfigDict(extra="allow", frozen=True, strict=True)

    name: str
    tag: str | None = None


class ApiError(_ServerBody):
    """The spec's Error body: an int32 `error` code and a `message`, both required."""

    model_config = ConfigDict(extra="allow", frozen=True, strict=True)

    error: Annotated[int, Field(ge=INT32_MIN, le=INT32_MAX)]
    message: str


# The reference server's Error code for an id it holds already (docs/server.md).
DUPLICATE_ID_ERROR = 1003
# Any other deployment: an Error whose message says so in words ("duplicate" alone could be a
# repeated JSON key).
_SAYS_TAKEN = re.compile(r"already exist|duplicate (plant|id)|id .*(taken|in use)", re.IGNORECASE)


def says_id_taken(error: Mapping[str, object]) -> bool:
    """Whether an Error answered to a new plant says the deployment holds its id already: the
    reference server's code for it, or a message that says the plant already exists, is a
    duplicate, or its id is taken (the spec leaves the codes and the words open)."""
    message = error.get("message")
    return error.get("error") == DUPLICATE_ID_ERROR or (
        isinstance(message, str) and _SAYS_TAKEN.search(message) is not None
    )


def parse_new_plant(name: str, id: str, tag: str = "") -> NewPlant | FormErrors:
    """Turn the form's raw text into a `NewPlant`, or into the messages of every bad field."""
    errors = FormTexts(name=name, id=id, tag=tag).errors()
    if errors:
        return FormErrors(errors)
    parsed_id = parse_id(id)
    assert isinstance(parsed_id, int)
    return NewPlant(id=parsed_id, name=name.strip(), tag=tag.strip() or None)


def describe_validation_error(error: ValidationError) -> str:
    """One line naming each mismatch by its field path, e.g. `name: Field required`."""
    parts = []
    for item in error.errors(include_url=False, include_input=False):
        # An empty key is quoted so it cannot pass for the whole body.
        path = ".".join(str(part) if part != "" else '""' for part in item["loc"]) or "body"
        # Our own validators' words read better without Pydantic's "Value error, " in front.
        message = str(item["ctx"]["error"]) if item["type"] == "value_error" else item["msg"]
        parts.append(f"{path}: {message}")
    return "; ".join(parts)
