"""The previous release's files in a data directory: their names, and whether any is there (what
reads them is carry_over.py and old_files.py)."""

from __future__ import annotations

import os
from pathlib import Path

OLD_HISTORY = "history.sqlite3"
OLD_JOURNAL = "import-journal.sqlite3"
OLD_RECOVERY_DIR = "recovery"
_RECOVERY_PREFIX, _RECOVERY_SUFFIX = "recovery-", ".json"


def previous_release_files(directory: Path) -> list[str]:
    """The previous release's files in `directory`, by the names the ledger records them under."""
    names = [name for name in (OLD_HISTORY, OLD_JOURNAL) if (directory / name).is_file()]
    try:
        with os.scandir(directory / OLD_RECOVERY_DIR) as entries:
            names += sorted(
                f"{OLD_RECOVERY_DIR}/{entry.name}"
                for entry in entries
                if entry.name.startswith(_RECOVERY_PREFIX) and entry.name.endswith(_RECOVERY_SUFFIX)
            )
    except OSError:
        pass
    return names
