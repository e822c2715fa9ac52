"""The OS keyring, through keyring: where plantstore-tui keeps a token when one is usable.

An optional feature: `tokens.usable_keyring` imports this module only for a token plantstore-tui
keeps, not for one from the environment or a command, which keyring would only slow
(benchmarks/README.md, "Imports kept out of the start"). Every keyring error is said here in
the core's words (`KeyringFailed`).
"""

from __future__ import annotations

import keyring
import keyring.errors
from keyring.backend import KeyringBackend
from keyring.backends import fail, null

from plantstore_tui.core.config.errors import KeyringFailed


def _words(exc: Exception) -> str:
    reason = str(exc).strip()
    return f"{type(exc).__name__}: {reason}" if reason else type(exc).__name__


class OsKeyring:
    """A usable keyring backend, its errors turned into `KeyringFailed`."""

    def __init__(self, backend: KeyringBackend) -> None:
        self.backend = backend
        self.name = backend.name

    def get(self, service: str, name: str) -> str | None:
        """The token saved under `name`, None if there is none."""
        try:
            return self.backend.get_password(service, name)
        except keyring.errors.NoKeyringError:
            return None
        except keyring.errors.KeyringError as exc:
            raise KeyringFailed(f"The OS keyring could not be read ({_words(exc)})") from None

    def set(self, service: str, name: str, token: str) -> None:
        """Save `token` under `name`."""
        try:
            self.backend.set_password(service, name, token)
        except keyring.errors.KeyringError as exc:
            raise KeyringFailed(
                f"The OS keyring could not save the token ({type(exc).__name__}); "
                "unlock the keyring, or give the profile a token_env or token_command"
            ) from None

    def delete(self, service: str, name: str) -> None:
        """Delete the token saved under `name`; none saved is fine."""
        try:
            self.backend.delete_password(service, name)
        except keyring.errors.PasswordDeleteError:
            pass  # nothing was saved under this name
        except keyring.errors.KeyringError as exc:
            raise KeyringFailed(
                f"The OS keyring could not delete the token ({_words(exc)})"
            ) from None


def os_keyring() -> OsKeyring | None:
    """The OS keyring, None when keyring found only its fail or null backend."""
    backend = keyring.get_keyring()
    if isinstance(backend, fail.Keyring | null.Keyring) or backend.priority <= 0:
        return None
    return OsKeyring(backend)
