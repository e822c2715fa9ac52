"""The TUI's theme, kept at the top of profiles.toml (`theme = "textual-light"`).

Read before the TUI's first frame with tomllib alone; saved under the file's lock, keeping the
operator's comments and layout. Which names are themes is the TUI's to say: the core keeps the
name as chosen.
"""

from __future__ import annotations

import tomllib
from collections.abc import Collection
from pathlib import Path

from plantstore_tui.core.config.errors import ConfigError
from plantstore_tui.core.config.files import (
    PROFILES_FILE,
    ConfigFileError,
    config_dir,
    locked_update,
    read_toml,
)
from plantstore_tui.core.config.findings import FindingsOf, nearest, shown_value

THEME_KEY = "theme"


def saved_theme(directory: Path | None = None) -> str | None:
    """The theme profiles.toml names; None when it names none or cannot be read (what is wrong
    with the file is said where the profiles are: the first-run screen, F2, `profile list`)."""
    try:
        data = read_toml((directory or config_dir()) / PROFILES_FILE)
    except ConfigError:
        return None
    theme = None if data is None else data.get(THEME_KEY)
    return theme.strip() if isinstance(theme, str) and theme.strip() else None


def check_theme(findings: FindingsOf, value: object, themes: Collection[str] | None) -> None:
    """A finding when `theme` is not a name in quotes, or (given the TUI's `themes`) not the
    name of one of them."""
    if not (isinstance(value, str) and value.strip()):
        findings.wrong(
            THEME_KEY,
            f'`{THEME_KEY}` must be the name of a theme in quotes, such as "textual-light"; '
            f"{shown_value(value)} is ignored and the default theme is used.",
        )
    elif themes is not None and value.strip() not in themes:
        findings.wrong(
            THEME_KEY,
            f"this version has no theme {value.strip()!r}, so the default theme is used.",
            suggestion=nearest(value.strip(), themes),
        )


def save_theme(name: str, directory: Path | None = None) -> None:
    """Keep `name` as the theme; `ConfigFileError` in words when profiles.toml cannot be
    changed (one that does not parse is never overwritten)."""
    # An optional feature, changing profiles.toml: tomlkit would weigh on every start
    # (benchmarks/README.md, "Imports kept out of the start").
    from plantstore_tui.core.config import toml_edit

    path = (directory or config_dir()) / PROFILES_FILE
    with locked_update(path) as draft:
        if draft.data.get(THEME_KEY) == name:
            return
        # tomlkit keeps the layout, but odd files can defeat it: the new text is read back.
        try:
            proposed = draft.propose(toml_edit.with_top_level(draft.original, THEME_KEY, name))
        except tomllib.TOMLDecodeError:
            proposed = {}
        if proposed.get(THEME_KEY) != name:
            raise ConfigFileError(
                path, "the theme could not be set safely in this file's layout; set it by hand"
            )
