"""The demo's sandbox: a throwaway config and data directory of its own.

A demo never reads or writes the operator's profiles, tokens or ledger. Everything it keeps (its
profiles, its ledger, its server's database) is in one private temporary directory, removed
when the demo ends. A demo killed before it could remove its own (SIGKILL, a power cut) leaves
it behind: the next demo removes it, once nothing holds its lock.
"""

from __future__ import annotations

import fcntl
import os
import shutil
import tempfile
from collections.abc import Iterator, Mapping, MutableMapping
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path

from plantstore_tui.core.config.files import CONFIG_DIR_ENV, DATA_DIR_ENV
from plantstore_tui.core.config.options import BASE_URL_ENV, PROFILE_ENV, TOKEN_ENV
from plantstore_tui.core.config.tokens import NO_KEYRING_ENV

SANDBOX_PREFIX = "plantstore-demo-"
# Held (flock) by the demo for as long as it runs: the kernel lets go when the process ends,
# however it ends, so a sandbox whose lock can be taken belongs to no running demo.
_LOCK_FILE = "demo.lock"
# The operator's own target and token: a demo sends to its own server with its own token.
_OPERATOR_VARIABLES = (TOKEN_ENV, PROFILE_ENV, BASE_URL_ENV)
# Every variable of the operator's that a demo does not read: its target, token and directories.
_IGNORED_VARIABLES = (TOKEN_ENV, BASE_URL_ENV, PROFILE_ENV, CONFIG_DIR_ENV, DATA_DIR_ENV)


def ignored_variables(environ: Mapping[str, str]) -> list[str]:
    """The variables set in the operator's `environ` that a demo ignores (the demo says so)."""
    return [name for name in _IGNORED_VARIABLES if environ.get(name, "").strip()]


@dataclass(frozen=True, slots=True)
class Sandbox:
    """One demo's throwaway directory: its config, its data (the ledger), its server's database."""

    root: Path
    lock_fd: int

    @property
    def config_dir(self) -> Path:
        """Where the demo's profiles.toml and credentials.toml live."""
        return self.root / "config"

    @property
    def data_dir(self) -> Path:
        """Where the demo's ledger lives."""
        return self.root / "data"

    @property
    def server_dir(self) -> Path:
        """Where the demo's reference server keeps its database."""
        return self.root / "server"

    def environ(self, environ: Mapping[str, str]) -> dict[str, str]:
        """`environ` as the demo sees it: the sandbox's config and data directories, the OS
        keyring unused, and none of the operator's target or token variables."""
        inside = {name: value for name, value in environ.items() if name not in _OPERATOR_VARIABLES}
        inside[CONFIG_DIR_ENV] = str(self.config_dir)
        inside[DATA_DIR_ENV] = str(self.data_dir)
        inside[NO_KEYRING_ENV] = "1"
        return inside


def make_sandbox(parent: Path | None = None) -> Sandbox:
    """A new, empty sandbox in `parent` (default: the temporary directory), mode 0700, locked
    by this process until `remove_sandbox`."""
    root = Path(tempfile.mkdtemp(prefix=SANDBOX_PREFIX, dir=parent))
    try:
        # Locked under another name, then renamed: a sweep never finds the lock file unlocked.
        fd, unlocked = tempfile.mkstemp(dir=root)
        fcntl.flock(fd, fcntl.LOCK_EX)
        os.replace(unlocked, root / _LOCK_FILE)
        sandbox = Sandbox(root, fd)
        for directory in (sandbox.config_dir, sandbox.data_dir, sandbox.server_dir):
            directory.mkdir(mode=0o700)
    except BaseException:
        shutil.rmtree(root, ignore_errors=True)
        raise
    return sandbox


def remove_sandbox(sandbox: Sandbox) -> None:
    """Delete the sandbox and everything in it, then let go of its lock."""
    try:
        shutil.rmtree(sandbox.root, ignore_errors=True)
    finally:
        with suppress(OSError):
            os.close(sandbox.lock_fd)


def sweep_abandoned(parent: Path | None = None) -> list[Path]:
    """Remove the sandboxes in `parent` (default: the temporary directory) of this user's demos
    that no longer run; the ones removed."""
    removed = []
    for root in Path(parent or tempfile.gettempdir()).glob(f"{SANDBOX_PREFIX}*"):
        if _abandoned(root):
            shutil.rmtree(root, ignore_errors=True)
            removed.append(root)
    return removed


def _abandoned(root: Path) -> bool:
    try:
        if root.is_symlink() or root.stat().st_uid != os.getuid():
            return False
        fd = os.open(root / _LOCK_FILE, os.O_RDONLY | os.O_NOFOLLOW)
    except OSError:
        # No lock file: not a sandbox, or one being made right now.
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        return False  # its demo is running
    finally:
        os.close(fd)
    return True


@contextmanager
def sandboxed(
    parent: Path | None = None, environ: MutableMapping[str, str] = os.environ
) -> Iterator[Sandbox]:
    """A new sandbox, with `environ` as the demo sees it (`Sandbox.environ`) inside the block;
    after it, however it ends, `environ` as it was and the sandbox removed."""
    sweep_abandoned(parent)
    sandbox = make_sandbox(parent)
    inside = sandbox.environ(environ)
    # Only the variables the sandbox changes are touched, each put back as it was.
    changed = {
        name: environ.get(name)
        for name in {*environ, *inside}
        if environ.get(name) != inside.get(name)
    }
    try:
        _apply(environ, {name: inside.get(name) for name in changed})
        yield sandbox
    finally:
        _apply(environ, changed)
        remove_sandbox(sandbox)


def _apply(environ: MutableMapping[str, str], values: Mapping[str, str | None]) -> None:
    for name, value in values.items():
        if value is None:
            environ.pop(name, None)
        else:
            environ[name] = value
