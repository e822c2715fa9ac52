"""The profile store: profiles.toml and the tokens of its profiles, read and changed safely."""

from __future__ import annotations

import contextlib
import os
import tomllib
from collections.abc import Callable, Collection, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from plantstore_tui.core.config.errors import ConfigError
from plantstore_tui.core.config.files import (
    APP_NAME,
    PROFILES_FILE,
    ConfigFileError,
    Draft,
    config_dir,
    default_config_dir,
    locked_update,
)
from plantstore_tui.core.config.findings import Finding
from plantstore_tui.core.config.profiles import (
    FIELDS,
    InvalidProfile,
    Profile,
    ProfileExists,
    UnknownProfile,
    profile_from_table,
)

# SavedProfiles is what `ProfileStore.load` returns: named here, where its readers look for it.
from plantstore_tui.core.config.reading import SavedProfiles as SavedProfiles
from plantstore_tui.core.config.reading import profile_tables, read_profiles
from plantstore_tui.core.config.tokens import (
    InvalidToken,
    SourceKind,
    StoredTokens,
    TokenSource,
    env_source,
)
from plantstore_tui.core.http.urls import token_problem
from plantstore_tui.core.plant.text import plural

if TYPE_CHECKING:
    from pydantic import SecretStr


CREDENTIALS_FILE = "credentials.toml"


class SaveReport(NamedTuple):
    """What a save did: the profile as saved, where a new token went, what to tell the operator."""

    profile: Profile
    token_source: TokenSource | None
    # The save made it the default profile (the first one added): news to tell, once.
    made_default: bool
    notice: str | None = None


def _keyring_service(directory: Path) -> str:
    # Profiles of another config dir (PLANTSTORE_CONFIG_DIR) must not share keyring entries
    # with the operator's own profiles of the same name.
    resolved = directory.expanduser().resolve()
    if resolved == default_config_dir().resolve():
        return APP_NAME
    return f"{APP_NAME} {resolved}"


class ProfileStore:
    """profiles.toml and the tokens of its profiles, in one config directory.

    The one API for the command line and the TUI alike: reading never raises, and changes raise
    `ConfigError`s with words. profiles.toml never holds a token, so it can be shared. It is read
    with tomllib and changed with `toml_edit`, so the operator's comments and layout survive an
    edit; every change happens under the file's lock on a fresh read (`files.locked_update`).
    """

    def __init__(
        self,
        directory: Path | None = None,
        *,
        on_findings: Callable[[tuple[Finding, ...]], None] | None = None,
    ) -> None:
        """`on_findings` is told the mistakes of the file each time it is read with any."""
        self.directory = directory if directory is not None else config_dir()
        self.on_findings = on_findings
        self.path = self.directory / PROFILES_FILE
        self.tokens = StoredTokens(
            self.directory / CREDENTIALS_FILE, _keyring_service(self.directory)
        )

    def load(self, *, themes: Collection[str] | None = None) -> SavedProfiles:
        """Read profiles.toml (`reading.read_profiles`); never raises. Its mistakes are handed
        to `on_findings` too. `themes`: the TUI's theme names (a `theme` naming none of them is
        a finding)."""
        saved = read_profiles(self.path, themes)
        if saved.findings and self.on_findings is not None:
            self.on_findings(saved.findings)
        return saved

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
                if checked.name in profile_tables(self.path, draft.data):
                    raise ProfileExists(
                        f"Profile {checked.name!r} already exists: edit it, or remove it first"
                    )
                made_default = "default" not in draft.data
                self._append(draft, checked, made_default)
                if token is not None:
                    saved_in = self.tokens.save(checked.name, token)
                else:
                    # A token left behind by an earlier profile of this name must not be used.
                    self.tokens.forget(checked.name)
        except ConfigError:
            if saved_in is not None:
                self._forget_quietly(checked.name)
            raise
        return SaveReport(checked, saved_in, made_default, self._notice(saved_in))

    def _append(self, draft: Draft, profile: Profile, make_default: bool) -> None:
        # An optional feature, changing profiles.toml: tomlkit would weigh on every start
        # (benchmarks/README.md, "Imports kept out of the start").
        from plantstore_tui.core.config import toml_edit

        # Appending leaves every byte the operator wrote untouched; tomlkit is the fallback for
        # files where a [profiles.NAME] table cannot simply go at the end.
        name, fields = profile.name, profile.fields()
        if not self._propose(draft, toml_edit.appended(draft.original, name, fields), profile):
            self._require(draft, toml_edit.with_profile(draft.original, name, fields), profile)
        if make_default:
            self._require(draft, toml_edit.with_default(draft.text, profile.name), profile)

    def _propose(self, draft: Draft, text: str, profile: Profile) -> bool:
        # tomlkit keeps layout, but dotted keys and odd files can defeat it: read the new text
        # back, and take it only if it holds the profile exactly as meant.
        try:
            table = profile_tables(self.path, draft.propose(text)).get(profile.name)
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
        # An optional feature, changing profiles.toml: tomlkit would weigh on every start
        # (benchmarks/README.md, "Imports kept out of the start").
        from plantstore_tui.core.config import toml_edit

        unknown = sorted(set(changes) - set(FIELDS))
        if unknown:
            counted = plural(len(unknown), "unknown setting")
            raise InvalidProfile(f"Profile {name!r}: {counted}: {', '.join(unknown)}")
        saved_in: TokenSource | None = None
        with locked_update(self.path) as draft:
            tables = profile_tables(self.path, draft.data)
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
            if wanted.get("ids") is not None:
                merged["ids"] = profile.ids
            settings = {key: merged.get(key) for key in FIELDS if merged.get(key) != old.get(key)}
            self._require(draft, toml_edit.with_settings(draft.text, name, settings), profile)
            if token is not None:
                saved_in = self.tokens.save(name, token)
            elif not profile.keeps_token and "token_env" not in old and "token_command" not in old:
                # It kept its token until now: the kept copy must not outlive the switch.
                self.tokens.forget(name)
        # An edit never changes which profile is the default: nothing to tell about it.
        return SaveReport(profile, saved_in, False, self._notice(saved_in))

    def remove(self, name: str) -> str | None:
        """Delete a profile and the token kept for it; a warning if that token stayed behind."""
        # An optional feature, changing profiles.toml: tomlkit would weigh on every start
        # (benchmarks/README.md, "Imports kept out of the start").
        from plantstore_tui.core.config import toml_edit

        with locked_update(self.path) as draft:
            tables = profile_tables(self.path, draft.data)
            if name not in tables:
                raise UnknownProfile(name, tuple(tables))
            draft.text = toml_edit.without_profile(draft.text, name)
        try:
            self.tokens.forget(name)
        except ConfigError as exc:
            return f"Profile {name!r} is removed, but its saved token could not be deleted: {exc}"
        return None

    def set_default(self, name: str) -> Profile:
        """Make `name` the profile used when none is chosen."""
        # An optional feature, changing profiles.toml: tomlkit would weigh on every start
        # (benchmarks/README.md, "Imports kept out of the start").
        from plantstore_tui.core.config import toml_edit

        profile = self.get(name)
        with locked_update(self.path) as draft:
            if name not in profile_tables(self.path, draft.data):
                raise UnknownProfile(name, tuple(profile_tables(self.path, draft.data)))
            draft.text = toml_edit.with_default(draft.text, name)
        return profile

    def token_source(self, profile: Profile) -> TokenSource | None:
        """Where the profile's own token comes from (None: nothing saved); runs no command."""
        if profile.token_env is not None:
            return env_source(profile.token_env)
        if profile.token_command is not None:
            return TokenSource(SourceKind.COMMAND, profile.token_command)
        found = self.tokens.find(profile.name)
        return None if found is None else found[1]

    def token_status(
        self, profile: Profile, environ: Mapping[str, str] | None = None, *, brief: bool = False
    ) -> str:
        """Where the profile's token comes from, in words for a list; never runs a command.
        `brief`: the credentials file without its path (a column; the details name it)."""
        environ = os.environ if environ is None else environ
        try:
            source = self.token_source(profile)
        except ConfigError as exc:
            return f"unavailable: {exc}"
        if source is None:
            return "none saved"
        if source.kind is SourceKind.ENV and not environ.get(source.detail, "").strip():
            return f"{source} (not set)"
        if brief and source.kind is SourceKind.CREDENTIALS_FILE:
            return str(source.kind)
        return str(source)

    def token_home(self) -> TokenSource:
        """Where a token typed for a profile would be kept: the keyring, else the file."""
        return self.tokens.home()

    def _check_token(self, profile: Profile, token: SecretStr | None) -> None:
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
