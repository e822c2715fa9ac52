"""Helpers for the profile and token tests: a throwaway config dir and test keyrings.

Every profile test runs in a config dir of its own (PLANTSTORE_CONFIG_DIR) with a test keyring, so
no test ever reads or writes the operator's real profiles or OS keyring.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import keyring
import keyring.errors
import pytest
from keyring.backend import KeyringBackend
from keyring.backends import fail

from plantstore_tui.core.config.store import ProfileStore

CANARY = "CANARY-profiles-7e41c09b2f5d4a83"


class MemoryKeyring(KeyringBackend):
    """A usable keyring that keeps passwords in a dict."""

    priority = 1
    # keyring registers every subclass as a candidate backend: keep these test ones out of its
    # automatic choice, so only a test that sets one ever uses it.
    viable = False

    def __init__(self) -> None:
        super().__init__()
        self.passwords: dict[tuple[str, str], str] = {}

    def get_password(self, service: str, username: str) -> str | None:
        return self.passwords.get((service, username))

    def set_password(self, service: str, username: str, password: str) -> None:
        self.passwords[(service, username)] = password

    def delete_password(self, service: str, username: str) -> None:
        if (service, username) not in self.passwords:
            raise keyring.errors.PasswordDeleteError("not found")
        del self.passwords[(service, username)]


class LockedKeyring(MemoryKeyring):
    """A usable keyring that refuses everything, as a locked one does."""

    def get_password(self, service: str, username: str) -> str | None:
        raise keyring.errors.KeyringLocked("the keyring is locked")

    def set_password(self, service: str, username: str, password: str) -> None:
        raise keyring.errors.PasswordSetError("the keyring is locked")

    def delete_password(self, service: str, username: str) -> None:
        raise keyring.errors.KeyringLocked("the keyring is locked")


class VanishingKeyring(MemoryKeyring):
    """A backend that looked usable but finds no keyring when asked (NoKeyringError)."""

    def get_password(self, service: str, username: str) -> str | None:
        raise keyring.errors.NoKeyringError("no keyring daemon")


def isolate(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """A fresh config dir, no PLANTSTORE_* variables, and keyring's fail backend."""
    directory = tmp_path / "config"
    for name in ("PLANTSTORE_TOKEN", "PLANTSTORE_PROFILE", "PLANTSTORE_BASE_URL"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("PLANTSTORE_CONFIG_DIR", str(directory))
    use_keyring(monkeypatch, fail.Keyring())
    return directory


def use_keyring(monkeypatch: pytest.MonkeyPatch, backend: KeyringBackend) -> None:
    """Make `backend` keyring's backend for this test only."""
    monkeypatch.setattr(keyring.core, "_keyring_backend", backend)


def write_profiles(store: ProfileStore, text: str) -> None:
    """Write `text` as the store's profiles.toml, as an operator's editor would."""
    store.path.parent.mkdir(parents=True, exist_ok=True)
    store.path.write_text(text)


def all_text(directory: Path) -> Iterator[str]:
    """Every file under `directory` as text, to look for a token that must not be there."""
    for path in sorted(directory.rglob("*")):
        if path.is_file():
            yield path.read_text(errors="replace")
