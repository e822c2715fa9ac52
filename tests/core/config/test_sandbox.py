"""The demo's sandbox: its own config and data directories, the operator's left alone."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest
from profiles_support import MemoryKeyring, use_keyring
from pydantic import SecretStr

from plantstore_tui.core.config.files import config_dir, data_dir
from plantstore_tui.core.config.profiles import Profile
from plantstore_tui.core.config.sandbox import (
    SANDBOX_PREFIX,
    make_sandbox,
    remove_sandbox,
    sandboxed,
    sweep_abandoned,
)
from plantstore_tui.core.config.store import ProfileStore
from plantstore_tui.core.config.tokens import SourceKind, usable_keyring
from plantstore_tui.core.store import ledger_path

OPERATOR = {
    "PLANTSTORE_CONFIG_DIR": "/operator/config",
    "PLANTSTORE_DATA_DIR": "/operator/data",
    "PLANTSTORE_TOKEN": "operator-token",
    "PLANTSTORE_PROFILE": "prod",
    "PLANTSTORE_BASE_URL": "https://plants.example.test",
    "PLANTSTORE_NO_HISTORY": "1",
    "HOME": "/home/operator",
}


def test_a_sandbox_is_private_empty_directories_in_the_temporary_directory(
    tmp_path: Path,
) -> None:
    sandbox = make_sandbox(tmp_path)
    try:
        assert sandbox.root.parent == tmp_path
        assert sandbox.root.name.startswith(SANDBOX_PREFIX)
        for directory in (sandbox.root, sandbox.config_dir, sandbox.data_dir, sandbox.server_dir):
            assert directory.is_dir()
            assert stat.S_IMODE(directory.stat().st_mode) == 0o700
            assert directory.is_relative_to(sandbox.root)
        assert not any(sandbox.config_dir.iterdir())
        assert not any(sandbox.data_dir.iterdir())
    finally:
        remove_sandbox(sandbox)
    assert not sandbox.root.exists()


def test_two_sandboxes_never_share_a_directory(tmp_path: Path) -> None:
    first, second = make_sandbox(tmp_path), make_sandbox(tmp_path)
    try:
        assert first.root != second.root
    finally:
        remove_sandbox(first)
        remove_sandbox(second)


def test_the_demo_sees_its_own_directories_no_keyring_and_none_of_the_operators_target(
    tmp_path: Path,
) -> None:
    sandbox = make_sandbox(tmp_path)
    try:
        inside = sandbox.environ(OPERATOR)
    finally:
        remove_sandbox(sandbox)
    assert inside == {
        "PLANTSTORE_CONFIG_DIR": str(sandbox.config_dir),
        "PLANTSTORE_DATA_DIR": str(sandbox.data_dir),
        "PLANTSTORE_NO_KEYRING": "1",
        "PLANTSTORE_NO_HISTORY": "1",
        "HOME": "/home/operator",
    }


def test_inside_the_block_every_room_finds_the_sandbox_and_after_it_the_operators_files(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    operator_config, operator_data = config_dir(), data_dir()
    monkeypatch.setenv("PLANTSTORE_TOKEN", "operator-token")
    environ_before = dict(os.environ)
    with sandboxed(tmp_path) as sandbox:
        assert config_dir() == sandbox.config_dir
        assert data_dir() == sandbox.data_dir
        assert ledger_path().parent == sandbox.data_dir
        assert ProfileStore().path.parent == sandbox.config_dir
        assert "PLANTSTORE_TOKEN" not in os.environ
    assert dict(os.environ) == environ_before
    assert (config_dir(), data_dir()) == (operator_config, operator_data)
    assert not sandbox.root.exists()


def test_the_sandbox_is_removed_and_the_environment_restored_when_the_block_fails(
    tmp_path: Path,
) -> None:
    environ = dict(OPERATOR)

    def crash() -> None:
        with sandboxed(tmp_path, environ) as sandbox:
            (sandbox.data_dir / "plantstore.sqlite3").write_bytes(b"a ledger")
            raise RuntimeError("the TUI crashed")

    with pytest.raises(RuntimeError):
        crash()
    assert environ == OPERATOR
    assert list(tmp_path.iterdir()) == []


def test_a_token_saved_in_the_demo_goes_to_its_own_credentials_file_never_the_keyring(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    keyring = MemoryKeyring()
    use_keyring(monkeypatch, keyring)
    assert usable_keyring() is not None
    with sandboxed(tmp_path) as sandbox:
        assert usable_keyring() is None
        store = ProfileStore()
        store.add(
            Profile(name="tried", base_url="http://127.0.0.1:9"),
            token=SecretStr("a-token-typed-in-the-demo"),
        )
        found = store.tokens.find("tried")
        assert found is not None
        assert found[1].kind is SourceKind.CREDENTIALS_FILE
        assert (sandbox.config_dir / "credentials.toml").exists()
    assert keyring.passwords == {}
    assert usable_keyring() is not None


def test_a_sandbox_left_by_a_demo_that_was_killed_is_swept_by_the_next(tmp_path: Path) -> None:
    # Closing the lock is what the kernel does when the demo's process dies.
    abandoned = make_sandbox(tmp_path)
    os.close(abandoned.lock_fd)
    running = make_sandbox(tmp_path)
    unrelated = tmp_path / f"{SANDBOX_PREFIX}not-a-sandbox"
    unrelated.mkdir()
    try:
        assert sweep_abandoned(tmp_path) == [abandoned.root]
        assert not abandoned.root.exists()
        assert running.root.exists()
        assert unrelated.exists()
    finally:
        remove_sandbox(running)


def test_a_new_demo_sweeps_what_a_killed_one_left(tmp_path: Path) -> None:
    abandoned = make_sandbox(tmp_path)
    os.close(abandoned.lock_fd)
    with sandboxed(tmp_path) as sandbox:
        assert [path.name for path in tmp_path.iterdir()] == [sandbox.root.name]
