"""The root of the configuration errors, which every module of the configuration raises."""

from __future__ import annotations

from plantstore_tui.core.errors import PlantStoreError


class ConfigError(PlantStoreError):
    """A configuration file or value that cannot be used; the message says what to do."""


class TokenError(ConfigError):
    """A token that cannot be had or cannot be used."""


class KeyringFailed(TokenError):
    """The OS keyring refused to read, save or delete a token."""
