"""Config files on disk: where they live, read strictly, replaced atomically under a lock."""

from __future__ import annotations

import fcntl
import os
import re
import secrets
import shlex
import stat
import tomllib
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import platformdirs

from plantstore_tui.core import toml_text
from plantstore_tui.core.config.errors import ConfigError

APP_NAME = "plantstore-tui"
CONFIG_DIR_ENV = "PLANTSTORE_CONFIG_DIR"
DATA_DIR_ENV = "PLANTSTORE_DATA_DIR"
PROFILES_FILE = "profiles.toml"
_PUBLIC_MODE = 0o644
_PRIVATE_MODE = 0o600
_DIRECTORY_MODE = 0o700
_DECODE_POSITION = re.compile(r"\(at line (\d+), column (\d+)\)")


def config_dir() -> Path:
    """`PLANTSTORE_CONFIG_DIR` if set, else the platform's user config dir for plantstore-tui."""
    override = os.environ.get(CONFIG_DIR_ENV)
    if override:
        return Path(override).expanduser()
    return default_config_dir()


def default_config_dir() -> Path:
    """The platform's user config dir for plantstore-tui (e.g. ~/.config/plantstore-tui)."""
    return platformdirs.user_config_path(APP_NAME)


def data_dir() -> Path:
    """`PLANTSTORE_DATA_DIR` if set, else the platform's user data dir for plantstore-tui."""
    override = os.environ.get(DATA_DIR_ENV)
    if override:
        return Path(override).expanduser()

    return platformdirs.user_data_path(APP_NAME)


def checked_data_dir() -> Path:
    """`data_dir()`, or `DataDirNotADirectory` when it names a file or a path through one (a
    missing directory is fine: it is made when the ledger is first written)."""
    directory = data_dir()
    try:
        mode = directory.stat().st_mode
    except NotADirectoryError:
        raise DataDirNotADirectory(directory, below_a_file=True) from None
    except OSError:
        return directory  # missing, or unreadable: opening the ledger says so in its words
    if not stat.S_ISDIR(mode):
        raise DataDirNotADirectory(directory, below_a_file=False)
    return directory


class ConfigFileError(ConfigError):
    """A configuration file that cannot be read or written; the old file is left whole."""

    def __init__(self, path: Path, message: str, *, position: str = "") -> None:
        super().__init__(f"{path}{position}: {message}")
        self.path = path


class DataDirNotADirectory(ConfigFileError):
    """The data directory is a file, or lies below one: no ledger can be kept there."""

    def __init__(self, path: Path, *, below_a_file: bool) -> None:
        what = "a path through a file" if below_a_file else "a file"
        super().__init__(
            path,
            f"the data directory is not a directory ({what}), so the ledger cannot be kept "
            f"there; set {DATA_DIR_ENV} to a directory",
        )


class CorruptConfigFile(ConfigFileError):
    """A file that is not valid TOML; it is never overwritten."""

    def __init__(self, path: Path, message: str, line: int | None, column: int | None) -> None:
        position = f":{line}:{column}" if line is not None and column is not None else ""
        super().__init__(
            path, f"{message}; fix the file by hand, it is not overwritten", position=position
        )
        self.line = line
        self.column = column


class UnsafeConfigFile(ConfigFileError):
    """A secrets file that other users may read or change; refused until its mode is fixed."""

    def __init__(self, path: Path) -> None:
        super().__init__(
            path,
            "can be read or changed by other users, so it is not used: "
            f"run `chmod 600 {shlex.quote(str(path))}`",
        )


def _position(data: bytes, offset: int) -> tuple[int, int]:
    line_start = data.rfind(b"\n", 0, offset) + 1
    return data.count(b"\n", 0, offset) + 1, offset - line_start + 1


def parse_toml(path: Path, data: bytes) -> dict[str, Any]:
    """The TOML in `data`, or `CorruptConfigFile` naming the path, line and column."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line, column = _position(data, exc.start)
        raise CorruptConfigFile(path, "not UTF-8 text", line, column) from None
    try:
        return toml_text.loads(text)
    except tomllib.TOMLDecodeError as exc:
        # Python 3.11's error carries its position only in the message: "... (at line 3, column 7)".
        message = str(exc)
        found = _DECODE_POSITION.search(message)
        reason = _DECODE_POSITION.sub("", message).strip()
        if found is None:
            raise CorruptConfigFile(path, reason, None, None) from None
        raise CorruptConfigFile(path, reason, int(found[1]), int(found[2])) from None


def read_bytes(path: Path, *, private: bool) -> bytes | None:
    """The file's bytes, None if it does not exist; a private file must be mode 0600 or less."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise ConfigFileError(path, f"cannot be read ({exc.strerror})") from None
    try:
        # Checked on the open descriptor, so the file cannot be swapped between check and read.
        if private and stat.S_IMODE(os.fstat(fd).st_mode) & 0o077:
            raise UnsafeConfigFile(path)
        with os.fdopen(fd, "rb", closefd=False) as stream:
            return stream.read()
    except OSError as exc:
        raise ConfigFileError(path, f"cannot be read ({exc.strerror})") from None
    finally:
        os.close(fd)


def read_toml(path: Path, *, private: bool = False) -> dict[str, Any] | None:
    """The parsed file, None if it does not exist; `ConfigFileError` if it cannot be used."""
    data = read_bytes(path, private=private)
    return None if data is None else parse_toml(path, data)


def ensure_directory(directory: Path) -> None:
    """Create the config directory (mode 0700) if it is missing."""
    try:
        directory.mkdir(mode=_DIRECTORY_MODE, parents=True, exist_ok=True)
    except OSError as exc:
        raise ConfigFileError(directory, f"cannot be created ({exc.strerror})") from None


def _real_path(path: Path) -> Path:
    # A profiles.toml kept in a dotfiles repository is often a symlink: replace the file it
    # points to, not the link.
    return path.resolve() if path.is_symlink() else path


@contextmanager
def locked(path: Path) -> Iterator[None]:
    """Hold an exclusive lock on `path`'s lock file (`<name>.lock` beside it) while inside."""
    ensure_directory(path.parent)
    lock_path = path.with_name(path.name + ".lock")
    try:
        fd = os.open(lock_path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, _PRIVATE_MODE)
    except OSError as exc:
        raise ConfigFileError(lock_path, f"cannot be opened to lock ({exc.strerror})") from None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)


def write_atomic(path: Path, data: bytes, *, private: bool) -> None:
    """Replace the file with `data`, whole or not at all; a private file is created mode 0600."""
    kept_mode: int | None = None
    if not private:
        try:
            kept_mode = stat.S_IMODE(path.stat().st_mode)
        except FileNotFoundError:
            pass
        except OSError as exc:
            raise ConfigFileError(path, f"cannot be read ({exc.strerror})") from None
    mode = _PRIVATE_MODE if private else _PUBLIC_MODE if kept_mode is None else kept_mode
    try:
        # The umask applies to new files, not to a mode the operator chose for this one.
        replace_atomically(path, data, mode=mode, exact_mode=kept_mode is not None)
    except OSError as exc:
        raise ConfigFileError(
            path, f"cannot be saved ({exc.strerror}); the file on disk is unchanged"
        ) from None


def replace_atomically(path: Path, data: bytes, *, mode: int, exact_mode: bool = False) -> None:
    """Write `data` to `path` whole or not at all; on `OSError` no temporary file is left behind.

    A temporary file beside it is written, synced and renamed over `path`. It is created with
    `mode` less the umask, or exactly `mode` if `exact_mode`.
    """
    temporary = path.with_name(f".{path.name}.{secrets.token_hex(6)}.tmp")
    try:
        fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, mode)
        try:
            if exact_mode:
                os.fchmod(fd, mode)
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view) :]
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(temporary, path)
        # The rename itself lives in the directory: sync it too, or a crash may undo it.
        directory_fd = os.open(path.parent, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
        try:
            os.fsync(directory_fd)
        finally:
            os.close(directory_fd)
    except BaseException:
        # Also on KeyboardInterrupt or a second signal: no stray temporary file either way.
        with suppress(OSError):
            temporary.unlink(missing_ok=True)
        raise


@dataclass(slots=True)
class Draft:
    """A config file read afresh under its lock (`data` parsed); set `text` to change it."""

    path: Path
    data: dict[str, Any]
    original: str
    text: str
    # The text `propose` already parsed, so saving it does not parse it a second time.
    _parsed_text: str | None = None

    def propose(self, text: str) -> dict[str, Any]:
        """Parse `text` and make it the new text; `tomllib.TOMLDecodeError` if it is not TOML."""
        parsed = toml_text.loads(text)
        self.text = self._parsed_text = text
        return parsed


@contextmanager
def locked_update(path: Path, *, private: bool = False) -> Iterator[Draft]:
    """Lock the file, read it afresh, let the caller change `draft.text`, then save if changed.

    Two running instances (two terminals, the TUI and a script) may save at the same moment: a
    reader sees the old file or the new one, never half of one, and neither writer loses the
    other's change.

    A file that does not parse raises `CorruptConfigFile` before the caller sees it, so it is
    never overwritten; an exception inside the block leaves the file as it was.
    """
    real = _real_path(path)
    with locked(real):
        data = read_bytes(real, private=private)
        parsed = {} if data is None else parse_toml(path, data)
        original = "" if data is None else data.decode("utf-8")
        draft = Draft(path=path, data=parsed, original=original, text=original)
        yield draft
        if draft.text != draft.original:
            new_data = draft.text.encode("utf-8")
            if draft.text != draft._parsed_text:
                # Never write a file this program could not read back.
                parse_toml(path, new_data)
            write_atomic(real, new_data, private=private)
