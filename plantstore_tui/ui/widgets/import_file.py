"""Choosing a file to import: a path completed as it is typed, a tree of the files import reads."""

from __future__ import annotations

import asyncio
import os
from collections.abc import Iterable
from pathlib import Path

from textual.suggester import Suggester
from textual.widgets import DirectoryTree

from plantstore_tui.core.importing.files import format_for
from plantstore_tui.core.importing.rows import FileProblem


def importable(path: Path) -> bool:
    """Whether import can tell the format of this file from its name."""
    try:
        format_for(path.name)
    except FileProblem:
        return False
    return True


def _is_dir(path: Path) -> bool:
    try:
        return path.is_dir()
    except OSError:
        return False


class ImportFileTree(DirectoryTree):
    """Folders and the files import reads (CSV, TSV, JSON Lines); hidden entries left out."""

    def filter_paths(self, paths: Iterable[Path]) -> Iterable[Path]:
        """Only what can lead to a file of plants."""
        return [
            path
            for path in paths
            if not path.name.startswith(".") and (importable(path) or _is_dir(path))
        ]


class PathSuggester(Suggester):
    """Completes the last part of a path from its folder: subfolders, and files import reads."""

    def __init__(self, base: Path) -> None:
        # Case-sensitive: file names are; and never cached, as files come and go.
        super().__init__(use_cache=False, case_sensitive=True)
        self._base = base

    async def get_suggestion(self, value: str) -> str | None:
        """The first entry that completes `value`, read off the UI thread (a slow disk or a
        network folder must not hold the typing)."""
        if not value:
            return None
        return await asyncio.to_thread(self._complete, value)

    def _complete(self, value: str) -> str | None:
        head, sep, stem = value.rpartition("/")
        folder = Path(head or "/").expanduser() if sep else Path()
        folder = self._base / folder
        try:
            names = sorted(entry.name for entry in os.scandir(folder))
        except OSError:
            return None
        for name in names:
            if not name.startswith(stem) or (name.startswith(".") and not stem.startswith(".")):
                continue
            path, rest = folder / name, name[len(stem) :]
            if _is_dir(path):
                return f"{value}{rest}/"
            if rest and importable(path):
                return f"{value}{rest}"
        return None
