"""The profile model: one saved deployment (`Profile`), its checks, and the errors they raise."""

from __future__ import annotations

import re
import shlex
from collections.abc import Mapping
from dataclasses import dataclass, field

from plantstore_tui.core.config.errors import ConfigError

# FIELDS is read from here by the readers of profiles; the rule of a misspelt safety setting
# lives beside it, light enough for the glance before the TUI's first frame.
from plantstore_tui.core.config.profile_keys import FIELDS as FIELDS
from plantstore_tui.core.config.profile_keys import asks_first, misspelt_safety
from plantstore_tui.core.http.hosts import insecure_http_problem
from plantstore_tui.core.http.proxy import check_proxy_setting
from plantstore_tui.core.http.target import Limits
from plantstore_tui.core.http.urls import InvalidBaseURL, normalize_base_url
from plantstore_tui.core.plant.id_range import IdRange, parse_id_range

MAX_TIMEOUT = 3600.0
# Names double as keyring user names and TOML keys: keep them short and plain.
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}")
_ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


class ProfileError(ConfigError):
    """A profile that does not exist, already exists, or cannot be saved as given."""


class UnknownProfile(ProfileError):
    """No profile by that name; the message names the ones there are."""

    def __init__(self, name: str, known: tuple[str, ...]) -> None:
        listed = ", ".join(known) if known else "none yet"
        super().__init__(f"Unknown profile {name!r}; saved profiles: {listed}")
        self.name = name
        self.known = known


class ProfileExists(ProfileError):
    """A new profile whose name is taken."""


class InvalidProfile(ProfileError):
    """A profile whose settings cannot be used; the message lists each problem."""

    def __init__(self, message: str, problems: tuple[tuple[str | None, str], ...] = ()) -> None:
        super().__init__(message)
        self.problems = problems
        """Each problem in words, with the key it is about (None: the profile's name)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Profile:
    """A saved deployment: its base URL, where its token comes from, and how careful to be."""

    name: str
    base_url: str
    token_env: str | None = None
    token_command: str | None = None
    # Every send asks first: set so in the file, or by a misspelt safety setting (`protected_by`).
    protected: bool = False
    timeout: float | None = None
    allow_insecure_http: bool = False
    # A PEM file of CA certificates trusted instead of the OS trust store.
    ca_bundle: str | None = None
    # A proxy URL (its password as secret as a token: never shown), or "none"; None: the
    # environment's (core.http.proxy).
    proxy: str | None = field(default=None, repr=False)
    # False: sends to this profile are kept out of the history.
    history: bool = True
    # Every plant typed for this profile is keyed twice, blind, before it counts.
    verify: bool = False

    # The range of ids this operator proposes and sends from, as FIRST-LAST ("70000-70999").
    ids: str | None = None
    # The keys of the profile's table that look like a misspelt safety setting: each makes the
    # profile `protected`, whatever `protected` says, until the file is fixed.
    protected_by: tuple[str, ...] = ()

    @property
    def id_range(self) -> IdRange | None:
        """The range of `ids`, None without one (or with one `profile_from_table` refuses)."""
        found = None if self.ids is None else parse_id_range(self.ids)
        return found if isinstance(found, IdRange) else None

    @property
    def keeps_token(self) -> bool:
        """True when plantstore-tui keeps the token itself (keyring or credentials file)."""
        return self.token_env is None and self.token_command is None

    @property
    def limits(self) -> Limits:
        """The send limits: `timeout` caps the whole send, connecting included."""
        defaults = Limits()
        if self.timeout is None:
            return defaults
        return Limits(
            connect=min(defaults.connect, self.timeout), read=self.timeout, deadline=self.timeout
        )

    def fields(self) -> dict[str, object]:
        """The settings as profiles.toml spells them; unset ones and defaults are left out."""
        defaults = {
            "protected": False,
            "allow_insecure_http": False,
            "history": True,
            "verify": False,
        }
        return {
            key: value
            for key in FIELDS
            if (value := getattr(self, key)) is not None and value is not defaults.get(key)
        }


def name_problem(name: str) -> str | None:
    """Why `name` cannot name a profile, or None."""
    if _NAME.fullmatch(name):
        return None
    return (
        f"the name {name!r} must be 1 to 64 letters, digits, '.', '_' or '-', "
        "starting with a letter or digit"
    )


def profile_from_table(name: str, table: Mapping[str, object]) -> Profile:
    """Check one `[profiles.NAME]` table; `InvalidProfile` lists everything wrong with it."""
    problems: list[tuple[str | None, str]] = []
    if (problem := name_problem(name)) is not None:
        problems.append((None, problem))

    base_url = ""
    raw_url = table.get("base_url")
    if not isinstance(raw_url, str):
        problems.append(
            ("base_url", "base_url is required (a string such as https://plants.example.com)")
        )
    else:
        try:
            base_url = normalize_base_url(raw_url)
        except InvalidBaseURL as exc:
            problems.append(("base_url", str(exc)))

    token_env = table.get("token_env")
    if token_env is not None and not (
        isinstance(token_env, str) and _ENV_NAME.fullmatch(token_env)
    ):
        problems.append(
            (
                "token_env",
                "token_env must be the name of an environment variable, such as PROD_TOKEN",
            )
        )

    token_command = table.get("token_command")
    if token_command is not None:
        if not isinstance(token_command, str):
            problems.append(("token_command", "token_command must be a string"))
        else:
            try:
                if not shlex.split(token_command):
                    problems.append(("token_command", "token_command is empty"))
            except ValueError as exc:
                problems.append(("token_command", f"token_command cannot be parsed: {exc}"))

    flags: dict[str, bool] = {}
    for key, default in (
        ("protected", False),
        ("allow_insecure_http", False),
        ("history", True),
        ("verify", False),
    ):
        value = table.get(key, default)
        if isinstance(value, bool):
            flags[key] = value
        else:
            problems.append((key, f"{key} must be true or false"))

    timeout = table.get("timeout")
    if timeout is not None and not (
        isinstance(timeout, int | float)
        and not isinstance(timeout, bool)
        and 0 < timeout <= MAX_TIMEOUT
    ):
        problems.append(
            (
                "timeout",
                f"timeout must be a number of seconds, more than 0 and at most {MAX_TIMEOUT:g}",
            )
        )

    ca_bundle = table.get("ca_bundle")
    if ca_bundle is not None and not (isinstance(ca_bundle, str) and ca_bundle.strip()):
        problems.append(
            ("ca_bundle", "ca_bundle must be the path of a PEM file of CA certificates")
        )

    proxy = table.get("proxy")
    if proxy is not None:
        if not isinstance(proxy, str):
            problems.append(
                ("proxy", 'proxy must be a proxy URL such as http://proxy:3128, or "none"')
            )
        elif (problem := check_proxy_setting(proxy, "profiles.toml")) is not None:
            problems.append(("proxy", problem))

    ids = table.get("ids")
    id_range = parse_id_range(ids) if isinstance(ids, str) else None
    if ids is not None and not isinstance(id_range, IdRange):
        problems.append(("ids", id_range or 'ids must be a string such as "70000-70999"'))

    if base_url and (
        problem := insecure_http_problem(base_url, allowed=flags.get("allow_insecure_http", False))
    ):
        problems.append(
            (
                "base_url",
                f"{problem}: use https://, or opt in with allow_insecure_http = true "
                "(--allow-insecure-http)",
            )
        )
    if problems:
        raise InvalidProfile(
            f"Profile {name!r}: " + "; ".join(words for _, words in problems), tuple(problems)
        )
    return Profile(
        name=name,
        base_url=base_url,
        token_env=token_env if isinstance(token_env, str) else None,
        token_command=token_command if isinstance(token_command, str) else None,
        protected=asks_first(table),
        timeout=float(timeout) if isinstance(timeout, int | float) else None,
        allow_insecure_http=flags["allow_insecure_http"],
        ca_bundle=ca_bundle if isinstance(ca_bundle, str) else None,
        proxy=proxy.strip() if isinstance(proxy, str) else None,
        history=flags["history"],
        verify=flags["verify"],
        ids=str(id_range) if isinstance(id_range, IdRange) else None,
        protected_by=misspelt_safety(table),
    )
