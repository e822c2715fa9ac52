"""The profile editor's fields as plain values: the profiles.toml table they make, and each
field's problem in the core's own words. No widgets here: the editor reads its fields into
`EditorTexts` and shows what these functions say.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from pathlib import Path

from pydantic import SecretStr

from plantstore_tui.core.config.profiles import (
    InvalidProfile,
    Profile,
    name_problem,
    profile_from_table,
)
from plantstore_tui.core.http.hosts import insecure_http_problem
from plantstore_tui.core.http.proxy import check_proxy_setting, shown_proxy
from plantstore_tui.core.http.urls import InvalidBaseURL, normalize_base_url, token_problem
from plantstore_tui.core.plant.id_range import parse_id_range


class TokenChoice(Enum):
    """Where the edited profile's token comes from."""

    TYPED = "typed"
    ENV = "env"
    COMMAND = "command"


# The order problems are looked for in, and the cursor goes to the first bad field.
CHECKED = (
    "name",
    "base_url",
    "token",
    "token_env",
    "token_command",
    "ids",
    "timeout",
    "ca_bundle",
    "proxy",
)


@dataclass(frozen=True, slots=True)
class EditorTexts:
    """What the editor's fields hold, as typed (the name: the edited profile's, if any)."""

    name: str
    base_url: str
    choice: TokenChoice
    token: str
    token_env: str
    token_command: str
    protected: bool
    verify: bool
    ids: str
    insecure: bool
    timeout: str
    ca_bundle: str
    proxy: str


def choice_of(profile: Profile | None) -> TokenChoice:
    """Where the token of `profile` (None: a new one) comes from now."""
    if profile is not None and profile.token_env is not None:
        return TokenChoice.ENV
    if profile is not None and profile.token_command is not None:
        return TokenChoice.COMMAND
    return TokenChoice.TYPED


def _timeout_value(text: str) -> object:
    """A number for the core to check, or the text itself so the core says why it is not one."""
    stripped = text.strip()
    if not stripped:
        return None
    try:
        return float(stripped)
    except ValueError:
        return stripped


def profile_table(texts: EditorTexts, profile: Profile | None) -> dict[str, object]:
    """The settings as profiles.toml would hold them, unchecked; `profile` is the one edited."""
    table: dict[str, object] = {"base_url": texts.base_url.strip()}
    if texts.choice is TokenChoice.ENV:
        table["token_env"] = texts.token_env.strip()
    elif texts.choice is TokenChoice.COMMAND:
        table["token_command"] = texts.token_command.strip()
    if texts.protected:
        table["protected"] = True
    if texts.verify:
        table["verify"] = True
    ids = texts.ids.strip()
    if ids:
        table["ids"] = ids
    if texts.insecure:
        table["allow_insecure_http"] = True
    timeout = _timeout_value(texts.timeout)
    if timeout is not None:
        table["timeout"] = timeout
    ca_bundle = texts.ca_bundle.strip()
    if ca_bundle:
        table["ca_bundle"] = ca_bundle
    proxy = texts.proxy.strip()
    saved = None if profile is None else profile.proxy
    if saved is not None and proxy == shown_proxy(saved):
        proxy = saved  # shown without its password: unchanged, the password stays
    if proxy:
        table["proxy"] = proxy
    # Not shown in the editor, so kept as it is (`profile edit --history/--no-history`).
    if profile is not None and not profile.history:
        table["history"] = False
    return table


def typed_token(texts: EditorTexts) -> SecretStr | None:
    """The token typed, if the token is to be typed and one was."""
    text = texts.token.strip()
    return SecretStr(text) if texts.choice is TokenChoice.TYPED and text else None


def problems(texts: EditorTexts, profile: Profile | None) -> tuple[dict[str, str], str | None]:
    """Each field's problem, and the core's verdict on the whole profile when they are fine."""
    found: dict[str, str] = {}
    if profile is None and (problem := name_problem(texts.name)) is not None:
        found["name"] = problem
    try:
        base_url = normalize_base_url(texts.base_url)
    except InvalidBaseURL as exc:
        found["base_url"] = str(exc)
    else:
        if (problem := insecure_http_problem(base_url, allowed=texts.insecure)) is not None:
            found["base_url"] = f"{problem}: use https://, or allow plain http below"
    if texts.choice is TokenChoice.TYPED:
        token = typed_token(texts)
        keeps_saved = profile is not None and profile.keeps_token
        if token is not None or not keeps_saved:
            problem = token_problem(token or SecretStr(""))
            if problem is not None:
                found["token"] = problem
    ids = texts.ids.strip()
    if ids and isinstance(id_range := parse_id_range(ids), str):
        found["ids"] = id_range
    ca_bundle = texts.ca_bundle.strip()
    if ca_bundle and not Path(ca_bundle).expanduser().is_file():
        found["ca_bundle"] = "no such file: give the path of a PEM file of CA certificates"
    proxy = texts.proxy
    if proxy.strip() and (problem := check_proxy_setting(proxy, "this field")) is not None:
        found["proxy"] = problem
    if found:
        return found, None
    # The rest (variable name, command, timeout) is the core's to judge, in its words.
    try:
        profile_from_table(texts.name, profile_table(texts, profile))
    except InvalidProfile as exc:
        return found, str(exc)
    return found, None
