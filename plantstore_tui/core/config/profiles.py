"""Profiles: named deployments saved in profiles.toml, each saying where its token comes from.

profiles.toml never holds a token, so it can be shared. It is read with tomllib and changed with
tomlkit, so the operator's comments and layout survive an edit; every change happens under the
file's lock on a fresh read (see `config_files`). `ProfileStore` is the one API for the command
line and the TUI alike: reading never raises, and changes raise `ConfigError`s with words.
"""

from __future__ import annotations

import contextlib
import ipaddress
import os
import re
import shlex
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from plantstore_tui.core.config.files import (
    APP_NAME,
    ConfigError,
    ConfigFileError,
    Draft,
    config_dir,
    default_config_dir,
    locked_update,
    read_toml,
)
from plantstore_tui.core.config.tokens import (
    TOKEN_ENV,
    InvalidToken,
    NoToken,
    SourceKind,
    StoredTokens,
    TokenSource,
    command_token,
    env_source,
    env_token,
)
from plantstore_tui.core.http.target import Limits, Target

if TYPE_CHECKING:
    import tomlkit.items
    from pydantic import SecretStr

PROFILES_FILE = "profiles.toml"
CREDENTIALS_FILE = "credentials.toml"
MAX_TIMEOUT = 3600.0
# Names double as keyring user names and TOML keys: keep them short and plain.
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}")
_ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
FIELDS = (
    "base_url",
    "token_env",
    "token_command",
    "protected",
    "timeout",
    "allow_insecure_http",
    "ca_bundle",
    "history",
)
_TOP_LEVEL = ("default", "profiles", "history_limit")
_DEFAULT_HISTORY_LIMIT = 100_000


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


@dataclass(frozen=True, slots=True, kw_only=True)
class Profile:
    """A saved deployment: its base URL, where its token comes from, and how careful to be."""

    name: str
    base_url: str
    token_env: str | None = None
    token_command: str | None = None
    protected: bool = False
    timeout: float | None = None
    allow_insecure_http: bool = False
    # A PEM file of CA certificates trusted instead of the OS trust store.
    ca_bundle: str | None = None
    # False: sends to this profile are kept out of the history.
    history: bool = True

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
        defaults = {"protected": False, "allow_insecure_http": False, "history": True}
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


def is_loopback_host(host: str) -> bool:
    """True for localhost and loopback addresses, where plain http never leaves the machine."""
    if host.lower() == "localhost":
        return True
    try:
        address = ipaddress.ip_address(host.strip("[]"))
    except ValueError:
        return False
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        return address.ipv4_mapped.is_loopback
    return address.is_loopback


def insecure_http_problem(base_url: str, *, allowed: bool) -> str | None:
    """Why a token must not go to `base_url` (plain http beyond loopback, not allowed), or None."""
    import httpx

    url = httpx.URL(base_url)
    if url.scheme != "http" or allowed or is_loopback_host(url.host):
        return None
    return f"plain http:// to {url.host} would send the token unencrypted over the network"


def profile_from_table(name: str, table: Mapping[str, object]) -> Profile:
    """Check one `[profiles.NAME]` table; `InvalidProfile` lists everything wrong with it."""
    from plantstore_tui.core.http.urls import InvalidBaseURL, normalize_base_url

    problems: list[str] = []
    if (problem := name_problem(name)) is not None:
        problems.append(problem)

    base_url = ""
    raw_url = table.get("base_url")
    if not isinstance(raw_url, str):
        problems.append("base_url is required (a string such as https://plants.example.com)")
    else:
        try:
            base_url = normalize_base_url(raw_url)
        except InvalidBaseURL as exc:
            problems.append(str(exc))

    token_env = table.get("token_env")
    if token_env is not None and not (
        isinstance(token_env, str) and _ENV_NAME.fullmatch(token_env)
    ):
        problems.append("token_env must be the name of an environment variable, such as PROD_TOKEN")

    token_command = table.get("token_command")
    if token_command is not None:
        if not isinstance(token_command, str):
            problems.append("token_command must be a string")
        else:
            try:
                if not shlex.split(token_command):
                    problems.append("token_command is empty")
            except ValueError as exc:
                problems.append(f"token_command cannot be parsed: {exc}")

    flags: dict[str, bool] = {}
    for key, default in (("protected", False), ("allow_insecure_http", False), ("history", True)):
        value = table.get(key, default)
        if isinstance(value, bool):
            flags[key] = value
        else:
            problems.append(f"{key} must be true or false")

    timeout = table.get("timeout")
    if timeout is not None and not (
        isinstance(timeout, int | float)
        and not isinstance(timeout, bool)
        and 0 < timeout <= MAX_TIMEOUT
    ):
        problems.append(
            f"timeout must be a number of seconds, more than 0 and at most {MAX_TIMEOUT:g}"
        )

    ca_bundle = table.get("ca_bundle")
    if ca_bundle is not None and not (isinstance(ca_bundle, str) and ca_bundle.strip()):
        problems.append("ca_bundle must be the path of a PEM file of CA certificates")

    if base_url and (
        problem := insecure_http_problem(base_url, allowed=flags.get("allow_insecure_http", False))
    ):
        problems.append(
            f"{problem}: use https://, or opt in with allow_insecure_http = true "
            "(--allow-insecure-http)"
        )
    if problems:
        raise InvalidProfile(f"Profile {name!r}: " + "; ".join(problems))
    return Profile(
        name=name,
        base_url=base_url,
        token_env=token_env if isinstance(token_env, str) else None,
        token_command=token_command if isinstance(token_command, str) else None,
        protected=flags["protected"],
        timeout=float(timeout) if isinstance(timeout, int | float) else None,
        allow_insecure_http=flags["allow_insecure_http"],
        ca_bundle=ca_bundle if isinstance(ca_bundle, str) else None,
        history=flags["history"],
    )


@dataclass(frozen=True, slots=True)
class SavedProfiles:
    """What profiles.toml holds now: usable profiles, the default, and what is wrong with it."""

    path: Path
    profiles: tuple[Profile, ...] = ()
    default: str | None = None
    # Profiles that are in the file but cannot be used, by name, with the reason.
    broken: Mapping[str, str] = field(default_factory=dict)
    warnings: tuple[str, ...] = ()
    # Set when the file cannot be read at all (unreadable, not TOML): it is then never written.
    error: ConfigFileError | None = None
    # The most sends the history keeps (top-level `history_limit`); the oldest go first.
    history_limit: int = _DEFAULT_HISTORY_LIMIT

    @property
    def names(self) -> tuple[str, ...]:
        """The usable profiles' names, in file order."""
        return tuple(profile.name for profile in self.profiles)

    @property
    def problems(self) -> tuple[str, ...]:
        """Everything to tell the operator about the file, most serious first."""
        fatal = (str(self.error),) if self.error is not None else ()
        return (*fatal, *self.broken.values(), *self.warnings)

    def get(self, name: str) -> Profile | None:
        """The usable profile called `name`, or None."""
        return next((profile for profile in self.profiles if profile.name == name), None)


@dataclass(frozen=True, slots=True)
class SaveReport:
    """What a save did: the profile as saved, where a new token went, what to tell the operator."""

    profile: Profile
    token_source: TokenSource | None
    is_default: bool
    notice: str | None = None


def _profile_tables(path: Path, data: Mapping[str, Any]) -> dict[str, Any]:
    tables = data.get("profiles", {})
    if not isinstance(tables, dict):
        raise ConfigFileError(path, "`profiles` must be a table of [profiles.NAME] tables")
    return tables


def _keyring_service(directory: Path) -> str:
    # Profiles of another config dir (PLANTSTORE_CONFIG_DIR) must not share keyring entries
    # with the operator's own profiles of the same name.
    resolved = directory.expanduser().resolve()
    if resolved == default_config_dir().resolve():
        return APP_NAME
    return f"{APP_NAME} {resolved}"


def _toml_value(value: object) -> object:
    # 20 seconds reads better as `timeout = 20` than `timeout = 20.0`.
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


def _table(fields: Mapping[str, object]) -> tomlkit.items.Table:
    import tomlkit

    table = tomlkit.table()
    for key, value in fields.items():
        table[key] = _toml_value(value)
    return table


def _after_last_setting(table: tomlkit.items.Table) -> int:
    # tomlkit files the comments and blank lines above a [profiles.NEXT] header under the
    # table before it; they belong to NEXT, so edits treat them as NEXT's.
    body = table.value.body
    return 1 + max((index for index, (key, _) in enumerate(body) if key is not None), default=-1)


def _set_setting(table: tomlkit.items.Table, key: str, value: object) -> None:
    position = _after_last_setting(table)
    if key in table or position == len(table.value.body):
        table[key] = _toml_value(value)
    else:
        # A new key goes under the last setting, above the next table's comments. tomlkit has
        # no public insert; `_require` reads the result back, so a change there is caught.
        table.value._insert_at(position, key, _toml_value(value))


def _remove_table(tables: tomlkit.items.Table, name: str) -> str:
    """Delete `[profiles.NAME]`, keeping the comments below it; returns those left unplaced."""
    import tomlkit.items

    if not isinstance(tables, tomlkit.items.Table):
        # [profiles] written after [profiles.NAME] comes back as a proxy without a layout.
        del tables[name]
        return ""
    table = tables[name]
    body = list(tables.value.body)
    index = next(i for i, (key, _) in enumerate(body) if key is not None and key.key == name)
    carried = "".join(
        item.as_string() for _, item in table.value.body[_after_last_setting(table) :]
    )
    del tables[name]
    if not carried.strip():
        return ""
    following = [item for key, item in body[index + 1 :] if key is not None]
    if following and isinstance(following[0], tomlkit.items.Table):
        following[0].trivia.indent = carried.lstrip("\n") + following[0].trivia.indent
        return ""
    return carried


class ProfileStore:
    """profiles.toml and the tokens of its profiles, in one config directory."""

    def __init__(self, directory: Path | None = None) -> None:
        self.directory = directory if directory is not None else config_dir()
        self.path = self.directory / PROFILES_FILE
        self.tokens = StoredTokens(
            self.directory / CREDENTIALS_FILE, _keyring_service(self.directory)
        )

    def load(self) -> SavedProfiles:
        """Read profiles.toml; never raises: what cannot be used is listed in the result."""
        try:
            data = read_toml(self.path)
            tables = _profile_tables(self.path, data or {})
        except ConfigFileError as exc:
            return SavedProfiles(self.path, error=exc)
        if data is None:
            return SavedProfiles(self.path)
        warnings = [
            f"{self.path}: unknown setting {key!r} is ignored"
            for key in data
            if key not in _TOP_LEVEL
        ]
        profiles: list[Profile] = []
        broken: dict[str, str] = {}
        for name, table in tables.items():
            if not isinstance(table, dict):
                broken[name] = f"Profile {name!r}: must be a table ([profiles.{name}])"
                continue
            try:
                profiles.append(profile_from_table(name, table))
            except InvalidProfile as exc:
                broken[name] = str(exc)
            warnings.extend(
                f"Profile {name!r}: unknown setting {key!r} is ignored"
                for key in table
                if key not in FIELDS
            )
        history_limit = data.get("history_limit", _DEFAULT_HISTORY_LIMIT)
        if (
            isinstance(history_limit, bool)
            or not isinstance(history_limit, int)
            or history_limit < 1
        ):
            warnings.append(
                f"{self.path}: history_limit must be a whole number of sends, 1 or more; "
                f"{_DEFAULT_HISTORY_LIMIT:,} is used"
            )
            history_limit = _DEFAULT_HISTORY_LIMIT
        default = data.get("default")
        if default is not None and not any(profile.name == default for profile in profiles):
            if default not in broken:
                warnings.append(f"{self.path}: the default profile {default!r} does not exist")
            default = None
        return SavedProfiles(
            self.path,
            tuple(profiles),
            default,
            broken,
            tuple(warnings),
            error=None,
            history_limit=history_limit,
        )

    def get(self, name: str) -> Profile:
        """The profile called `name`; `UnknownProfile`, `InvalidProfile` or a file error if not."""
        saved = self.load()
        if saved.error is not None:
            raise saved.error
        profile = saved.get(name)
        if profile is not None:
            return profile
        if name in saved.broken:
            raise InvalidProfile(saved.broken[name])
        raise UnknownProfile(name, saved.names)

    def add(self, profile: Profile, *, token: SecretStr | None = None) -> SaveReport:
        """Save a new profile, and `token` if plantstore-tui keeps the profile's token.

        With no default profile yet, the new one becomes the default.
        """
        checked = profile_from_table(profile.name, profile.fields())
        self._check_token(checked, token)
        saved_in: TokenSource | None = None
        try:
            with locked_update(self.path) as draft:
                if checked.name in _profile_tables(self.path, draft.data):
                    raise ProfileExists(
                        f"Profile {checked.name!r} already exists: edit it, or remove it first"
                    )
                is_default = "default" not in draft.data
                self._append(draft, checked, is_default)
                if token is not None:
                    saved_in = self.tokens.save(checked.name, token)
                else:
                    # A token left behind by an earlier profile of this name must not be used.
                    self.tokens.forget(checked.name)
        except ConfigError:
            if saved_in is not None:
                self._forget_quietly(checked.name)
            raise
        return SaveReport(checked, saved_in, is_default, self._notice(saved_in))

    def _append(self, draft: Draft, profile: Profile, is_default: bool) -> None:
        import tomlkit

        # Appending leaves every byte the operator wrote untouched; tomlkit is the fallback for
        # files where a [profiles.NAME] table cannot simply go at the end.
        text = draft.original
        snippet = tomlkit.dumps({"profiles": {profile.name: _table(profile.fields())}})
        separator = "" if not text.strip() else "\n" if text.endswith("\n") else "\n\n"
        if not self._propose(draft, text + separator + snippet, profile):
            document = tomlkit.parse(text)
            document.setdefault("profiles", tomlkit.table(is_super_table=True))[profile.name] = (
                _table(profile.fields())
            )
            self._require(draft, tomlkit.dumps(document), profile)
        if is_default:
            document = tomlkit.parse(draft.text)
            document["default"] = profile.name
            self._require(draft, tomlkit.dumps(document), profile)

    def _propose(self, draft: Draft, text: str, profile: Profile) -> bool:
        # tomlkit keeps layout, but dotted keys and odd files can defeat it: read the new text
        # back, and take it only if it holds the profile exactly as meant.
        try:
            table = _profile_tables(self.path, draft.propose(text)).get(profile.name)
            return isinstance(table, dict) and profile_from_table(profile.name, table) == profile
        except (tomllib.TOMLDecodeError, InvalidProfile):
            return False

    def _require(self, draft: Draft, text: str, profile: Profile) -> None:
        if not self._propose(draft, text, profile):
            raise ConfigFileError(
                self.path,
                f"the change to profile {profile.name!r} could not be made safely in this "
                "file's layout; make it by hand",
            )

    def edit(
        self, name: str, changes: Mapping[str, object], *, token: SecretStr | None = None
    ) -> SaveReport:
        """Change some settings of a profile (a value of None removes the setting).

        Giving `token` makes plantstore-tui keep the token, dropping token_env and token_command;
        setting token_env or token_command forgets a token it kept.
        """
        import tomlkit

        unknown = sorted(set(changes) - set(FIELDS))
        if unknown:
            raise InvalidProfile(f"Profile {name!r}: unknown setting(s) {', '.join(unknown)}")
        saved_in: TokenSource | None = None
        with locked_update(self.path) as draft:
            tables = _profile_tables(self.path, draft.data)
            old = tables.get(name)
            if not isinstance(old, dict):
                raise UnknownProfile(name, tuple(tables))
            merged = dict(old)
            wanted = dict(changes)
            if token is not None:
                wanted.update(token_env=None, token_command=None)
            for key, value in wanted.items():
                if value is None:
                    merged.pop(key, None)
                else:
                    merged[key] = value
            profile = profile_from_table(name, merged)
            self._check_token(profile, token)
            if "base_url" in wanted:
                merged["base_url"] = profile.base_url
            document = tomlkit.parse(draft.text)
            table = document["profiles"][name]
            for key in FIELDS:
                if merged.get(key) == old.get(key):
                    continue
                if key in merged:
                    _set_setting(table, key, merged[key])
                else:
                    del table[key]
            self._require(draft, tomlkit.dumps(document), profile)
            if token is not None:
                saved_in = self.tokens.save(name, token)
            elif not profile.keeps_token and "token_env" not in old and "token_command" not in old:
                # It kept its token until now: the kept copy must not outlive the switch.
                self.tokens.forget(name)
        is_default = draft.data.get("default") == name
        return SaveReport(profile, saved_in, is_default, self._notice(saved_in))

    def remove(self, name: str) -> str | None:
        """Delete a profile and the token kept for it; a warning if that token stayed behind."""
        import tomlkit

        with locked_update(self.path) as draft:
            tables = _profile_tables(self.path, draft.data)
            if name not in tables:
                raise UnknownProfile(name, tuple(tables))
            document = tomlkit.parse(draft.text)
            unplaced = _remove_table(document["profiles"], name)
            if draft.data.get("default") == name:
                del document["default"]
            text = tomlkit.dumps(document) + unplaced
            # Removing the first table can leave the blank line that preceded it at the top.
            draft.text = text if draft.original.startswith("\n") else text.lstrip("\n")
        try:
            self.tokens.forget(name)
        except ConfigError as exc:
            return f"Profile {name!r} is removed, but its saved token could not be deleted: {exc}"
        return None

    def set_default(self, name: str) -> Profile:
        """Make `name` the profile used when none is chosen."""
        import tomlkit

        profile = self.get(name)
        with locked_update(self.path) as draft:
            if name not in _profile_tables(self.path, draft.data):
                raise UnknownProfile(name, tuple(_profile_tables(self.path, draft.data)))
            document = tomlkit.parse(draft.text)
            document["default"] = name
            draft.text = tomlkit.dumps(document)
        return profile

    def token_source(self, profile: Profile) -> TokenSource | None:
        """Where the profile's own token comes from (None: nothing saved); runs no command."""
        if profile.token_env is not None:
            return env_source(profile.token_env)
        if profile.token_command is not None:
            return TokenSource(SourceKind.COMMAND, profile.token_command)
        found = self.tokens.find(profile.name)
        return None if found is None else found[1]

    def token_status(self, profile: Profile, environ: Mapping[str, str] | None = None) -> str:
        """Where the profile's token comes from, in words for a list; never runs a command."""
        environ = os.environ if environ is None else environ
        try:
            source = self.token_source(profile)
        except ConfigError as exc:
            return f"unavailable: {exc}"
        if source is None:
            return "none saved"
        if source.kind is SourceKind.ENV and not environ.get(source.detail, "").strip():
            return f"{source} (not set)"
        return str(source)

    def token_home(self) -> TokenSource:
        """Where a token typed for a profile would be kept: the keyring, else the file."""
        return self.tokens.home()

    def resolve_token(
        self, profile: Profile, environ: Mapping[str, str] | None = None
    ) -> tuple[SecretStr, TokenSource]:
        """The token for `profile` and its source, first found in the documented order."""
        environ = os.environ if environ is None else environ
        token = env_token(TOKEN_ENV, environ)
        if token is not None:
            return token, env_source(TOKEN_ENV)
        if profile.token_env is not None:
            token = env_token(profile.token_env, environ)
            if token is not None:
                return token, env_source(profile.token_env)
        if profile.token_command is not None:
            source = TokenSource(SourceKind.COMMAND, profile.token_command)
            return command_token(profile.token_command), source
        if profile.token_env is not None:
            raise NoToken(
                f"Profile {profile.name!r} takes its token from ${profile.token_env}, "
                f"which is not set (or set {TOKEN_ENV})"
            )
        found = self.tokens.find(profile.name)
        if found is None:
            raise NoToken(
                f"Profile {profile.name!r} has no saved token: save one by editing the "
                f"profile, or set {TOKEN_ENV}"
            )
        return found

    def target(self, profile: Profile, environ: Mapping[str, str] | None = None) -> Target:
        """Where sends to this profile go, with its token resolved."""
        token, source = self.resolve_token(profile, environ)
        return Target(
            base_url=profile.base_url,
            token=token,
            token_source=str(source),
            profile=profile.name,
            protected=profile.protected,
            limits=profile.limits,
            ca_bundle=profile.ca_bundle,
        )

    def _check_token(self, profile: Profile, token: SecretStr | None) -> None:
        from plantstore_tui.core.http.urls import token_problem

        if token is None:
            return
        if not profile.keeps_token:
            raise InvalidProfile(
                f"Profile {profile.name!r} takes its token from token_env or token_command; "
                "a typed token is not saved for it"
            )
        problem = token_problem(token)
        if problem is not None:
            raise InvalidToken(f"{problem}; it was not saved")

    def _notice(self, saved_in: TokenSource | None) -> str | None:
        if saved_in is None or saved_in.kind is not SourceKind.CREDENTIALS_FILE:
            return None
        return (
            f"No usable OS keyring was found, so the token is saved in {saved_in.detail} "
            "(mode 0600: only you can read it)"
        )

    def _forget_quietly(self, name: str) -> None:
        # The save already failed with its own message: that is the one the operator needs.
        with contextlib.suppress(ConfigError):
            self.tokens.forget(name)
