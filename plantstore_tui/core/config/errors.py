"""The root of the configuration errors, apart from the file code: resolving a target before the
first frame loads no TOML parser."""

from __future__ import annotations

from plantstore_tui.core.errors import PlantStoreError


class ConfigError(PlantStoreError):
    """A configuration file or value that cannot be used; the message says what to do."""
