"""Expectations: a TOML file of probes and the answers they should get (`check --expect`).

Each `[[case]]` names a request (`body` as a TOML value sent as JSON, or `raw` text sent byte for
byte; `token`; optional `headers`; `method` and `path`, POST /plants when not given, which
alone needs `body` or `raw`) and its expected `status`, optionally the Error's `error` code.
`probe --save-case` and the probe screen append the request just sent, with the status it got,
so a finding made by hand becomes a case CI runs (docs/expectations.md).
"""

from __future__ import annotations

import json
import math
import tomllib
from collections.abc import Collection
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import tomlkit

from plantstore_tui.core import toml_text
from plantstore_tui.core.errors import InputError
from plantstore_tui.core.http.probe import (
    SPEC_METHOD,
    SPEC_PATH,
    ProbeAnswer,
    ProbeRequest,
    Shape,
    TokenChoice,
    body_of_json,
    parse_header,
    parse_method,
    parse_path,
    spec_operation,
)
from plantstore_tui.core.plant.text import clipped, visible

_INT64 = range(-(2**63), 2**63)
_KEYS = frozenset({"name", "method", "path", "body", "raw", "token", "headers", "status", "error"})


class CasesError(InputError):
    """A file of cases that cannot be read or written; its words name the file and the case."""


@dataclass(frozen=True, slots=True)
class Case:
    """One expectation: a request and the status (and Error code) it should be answered with."""

    name: str
    request: ProbeRequest
    status: int
    error: int | None = None
    # The body as a TOML value when it was given as one (`body = {...}`); None: `raw`.
    body: Any = None

    @property
    def expects_success(self) -> bool:
        """A 2xx expected: the case may create a plant, so `check` runs it only with --create."""
        return 200 <= self.status < 300


def _as_toml_value(body: bytes) -> Any:
    """`body` as a TOML value that sends the same JSON, or None when TOML cannot hold it (not
    JSON, a null, a repeated key, a number TOML cannot write): such a body is kept `raw`."""

    def pairs(items: list[tuple[str, Any]]) -> dict[str, Any]:
        keys = [key for key, _ in items]
        if len(set(keys)) != len(keys):
            raise ValueError("a repeated key")
        return dict(items)

    def holds(value: Any) -> bool:
        match value:
            case None:
                return False
            case bool() | str():
                return True
            case int():
                return value in _INT64
            case float():
                return math.isfinite(value)
            case list():
                return all(holds(item) for item in value)
            case dict():
                return all(holds(item) for item in value.values())
        return False

    try:
        value = json.loads(body, object_pairs_hook=pairs)
    except (ValueError, RecursionError):
        return None
    # A body deeper than a file of cases may nest (its [[case]] and `body` take two levels).
    fits = toml_text.depth_of(value) + 2 <= toml_text.MAX_DEPTH
    if not (isinstance(value, dict) and fits and holds(value)):
        return None
    # A TOML value sends `json.dumps`' bytes: a body written otherwise (a newline at its end,
    # other spacing) is kept `raw`, so that the case sends what the probe sent.
    return value if body_of_json(value) == body else None


def error_code(answer: ProbeAnswer) -> int | None:
    """The `error` of an answer whose body is the spec's Error; None for any other body."""
    if answer.reading.shape is not Shape.ERROR:
        return None
    code: int = json.loads(answer.body)["error"]
    return code


# The most characters of the body a suggested case name holds.
_NAMED_BODY = 40


def suggested_name(answer: ProbeAnswer, taken: Collection[str] = ()) -> str:
    """A name for a probe saved as a case, none of `taken`: the body's start and the token
    choice ("{"id": "7", "name": "Fern"} (profile token)"), numbered when taken already."""
    text = answer.request.body.decode("utf-8", errors="backslashreplace")
    # One line: a body's newlines and indents are its layout, not part of a name.
    text = " ".join(text.split())
    name = f"{clipped(visible(text), _NAMED_BODY)} ({answer.request.token.value} token)"
    chosen, count = name, 1
    while chosen in taken:
        count += 1
        chosen = f"{name} #{count}"
    return chosen


def unsaveable(request: ProbeRequest) -> str | None:
    """Why a probe's request cannot be a case, in words; None when it can. An Authorization
    given as a header is a credential: a file of cases keeps none, and the probe keeps it
    masked, which no server would take."""
    if any(name.lower() == "authorization" for name, _ in request.headers):
        return (
            "A case keeps no Authorization given as a header (it is a credential): probe with "
            "the token choice instead (profile, none or wrong) to save it as a case."
        )
    return None


def case_of(name: str, answer: ProbeAnswer) -> Case:
    """The request `answer` answered, as the probe showed it (the token taken out), with the
    status it got as the expectation (and the Error's code when the answer was one). Raises
    CasesError when no answer came, or when the request cannot be a case (`unsaveable`)."""
    problem = unsaveable(answer.request)
    if problem is not None:
        raise CasesError(f"{problem} Nothing was saved.")
    if answer.status is None:
        raise CasesError("No answer came, so there is no status to expect: nothing was saved.")
    error = error_code(answer)
    return Case(name, answer.request, answer.status, error, _as_toml_value(answer.request.body))


def _case_table(case: Case) -> tomlkit.items.Table:
    table = tomlkit.table()
    table["name"] = case.name
    request = case.request
    # Only what differs from the spec's operation: a file of POST /plants cases reads as before.
    if request.method != SPEC_METHOD:
        table["method"] = request.method
    if request.path != SPEC_PATH:
        table["path"] = request.path
    if request.bodyless:
        pass  # neither `body` nor `raw`: it went without a body
    elif case.body is not None:
        body = tomlkit.inline_table()
        body.update(case.body)
        table["body"] = body
    else:
        # A literal string holds any text but a newline or a quote; a basic one escapes the rest.
        table["raw"] = case.request.body.decode("utf-8", errors="replace")
    table["token"] = case.request.token.value
    if case.request.headers:
        headers = tomlkit.inline_table()
        headers.update(dict(case.request.headers))
        table["headers"] = headers
    table["status"] = case.status
    if case.error is not None:
        table["error"] = case.error
    return table


def append_case(path: Path, case: Case) -> None:
    """Add `case` at the end of the file (made if missing), every byte before it untouched."""
    try:
        text = path.read_text(encoding="utf-8") if path.exists() else ""
    except (OSError, UnicodeDecodeError) as exc:
        raise CasesError(f"{visible(str(path))} cannot be read: {exc}") from None
    document = tomlkit.document()
    document.append("case", tomlkit.aot())
    document["case"].append(_case_table(case))
    separator = "" if not text.strip() else "\n" if text.endswith("\n") else "\n\n"
    new_text = text + separator + tomlkit.dumps(document)
    # Read back before writing: a case the file could not load again is never written.
    cases_in(new_text, path)
    try:
        path.write_text(new_text, encoding="utf-8")
    except OSError as exc:
        raise CasesError(f"{visible(str(path))} cannot be written: {exc.strerror}") from None


def load_cases(path: Path) -> list[Case]:
    """Every case of the file, or CasesError naming the file, the case and what is wrong."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise CasesError(f"{visible(str(path))} does not exist") from None
    except OSError as exc:
        raise CasesError(f"{visible(str(path))} cannot be read: {exc.strerror or exc}") from None
    except UnicodeDecodeError:
        raise CasesError(f"{visible(str(path))} cannot be read: it is not UTF-8 text") from None
    return cases_in(text, path)


def cases_in(text: str, path: Path) -> list[Case]:
    """The cases of a file's text (`path` only names it in the words)."""
    where = visible(str(path))
    try:
        document = toml_text.loads(text)
    except toml_text.TooDeep as exc:
        raise CasesError(f"{where} cannot be read: {exc}") from None
    except tomllib.TOMLDecodeError as exc:
        raise CasesError(f"{where} is not TOML: {exc}") from None
    tables = document.get("case", [])
    if not isinstance(tables, list) or not all(isinstance(item, dict) for item in tables):
        raise CasesError(f"{where}: `case` must be an array of tables, each [[case]]")
    cases = [_case(table, f"{where}, case {index}") for index, table in enumerate(tables, 1)]
    names = [case.name for case in cases]
    for name in names:
        if names.count(name) > 1:
            raise CasesError(f"{where}: two cases are named {name!r}; each needs its own name")
    return cases


def _case(table: dict[str, Any], where: str) -> Case:
    unknown = sorted(set(table) - _KEYS)
    if unknown:
        raise CasesError(
            f"{where}: unknown key {unknown[0]!r} (a case has {', '.join(sorted(_KEYS))})"
        )
    name = table.get("name")
    if not isinstance(name, str) or not name.strip():
        raise CasesError(f"{where}: `name` is required, as text")
    where = f"{where} ({name!r})"
    try:
        method = parse_method(_text(table, "method", SPEC_METHOD, where))
        path = parse_path(_text(table, "path", SPEC_PATH, where))
    except ValueError as exc:
        raise CasesError(f"{where}: {exc}") from None
    in_spec = spec_operation(method, path)
    if "body" in table and "raw" in table:
        raise CasesError(f"{where}: give exactly one of `body` (a TOML value) or `raw` (text)")
    if in_spec and "body" not in table and "raw" not in table:
        raise CasesError(
            f"{where}: give exactly one of `body` (a TOML value) or `raw` (text): POST /plants "
            "takes one"
        )
    body = table.get("body")
    if "body" not in table and "raw" not in table:
        content = b""
    elif "raw" in table:
        if not isinstance(table["raw"], str):
            raise CasesError(f"{where}: `raw` must be text")
        content = table["raw"].encode("utf-8")
    else:
        try:
            content = body_of_json(body)
        except TypeError:
            raise CasesError(
                f"{where}: `body` holds a date or a time, which JSON cannot: give it as text"
            ) from None
    try:
        token = TokenChoice(table.get("token", "profile"))
    except ValueError:
        raise CasesError(f"{where}: `token` must be one of profile, none, wrong") from None
    headers = table.get("headers", {})
    if not isinstance(headers, dict) or not all(
        isinstance(value, str) for value in headers.values()
    ):
        raise CasesError(f"{where}: `headers` must be a table of text values")
    status = table.get("status")
    if type(status) is not int or not 100 <= status <= 599:
        raise CasesError(f"{where}: `status` is required, a number from 100 to 599")
    error = table.get("error")
    if error is not None and type(error) is not int:
        raise CasesError(f"{where}: `error` must be a number")
    try:
        pairs = tuple(parse_header(f"{key}:{value}") for key, value in headers.items())
    except ValueError as exc:
        raise CasesError(f"{where}: {exc}") from None
    request = ProbeRequest(content, token, pairs, method, path)
    return Case(name, request, status, error, body)


def _text(table: dict[str, Any], key: str, default: str, where: str) -> str:
    value = table.get(key, default)
    if not isinstance(value, str):
        raise CasesError(f"{where}: `{key}` must be text")
    return value
