"""Every setting plantstore-tui reads, by name: the keys of profiles.toml (its top level and each
`[profiles.NAME]` table) and the environment variables, its own and those the libraries under it
read. docs/configuration.md describes each with its default; tests/core/test_reference.py keeps
the document and these names in step."""

from __future__ import annotations

from plantstore_tui.core.config.files import CONFIG_DIR_ENV, DATA_DIR_ENV
from plantstore_tui.core.config.options import BASE_URL_ENV, PROFILE_ENV, TOKEN_ENV
from plantstore_tui.core.config.profiles import FIELDS
from plantstore_tui.core.config.reading import TOP_LEVEL_KEYS
from plantstore_tui.core.config.tokens import NO_KEYRING_ENV
from plantstore_tui.core.store.settings import NO_HISTORY_ENV

__all__ = ["ENVIRONMENT", "PROFILE_KEYS", "TOP_LEVEL_KEYS"]

PROFILE_KEYS: tuple[str, ...] = FIELDS
"""The keys of a `[profiles.NAME]` table."""

ENVIRONMENT: dict[str, str] = {
    **dict.fromkeys(
        (
            TOKEN_ENV,
            BASE_URL_ENV,
            PROFILE_ENV,
            CONFIG_DIR_ENV,
            DATA_DIR_ENV,
            NO_KEYRING_ENV,
            NO_HISTORY_ENV,
        ),
        "plantstore-tui",
    ),
    # Read by `plantstore-tui web` (web/gate.py, which the core does not import).
    "PLANTSTORE_WEB_KEY": "plantstore-tui",
    # Chosen as curl does, by core/http/proxy.py (lower case first); httpx's own reading of
    # them is off (trust_env=False).
    **dict.fromkeys(
        (
            "https_proxy",
            "HTTPS_PROXY",
            "http_proxy",
            "HTTP_PROXY",
            "all_proxy",
            "ALL_PROXY",
            "no_proxy",
            "NO_PROXY",
        ),
        "plantstore-tui",
    ),
    "NO_COLOR": "Textual",
    "TEXTUAL_THEME": "Textual",
    "XDG_CONFIG_HOME": "platformdirs",
    "XDG_DATA_HOME": "platformdirs",
    "PYTHON_KEYRING_BACKEND": "keyring",
    "SSL_CERT_FILE": "OpenSSL",
    "SSL_CERT_DIR": "OpenSSL",
    "TMPDIR": "Python's tempfile",
}
"""Every environment variable read, and who reads it: plantstore-tui, or a library under it."""
