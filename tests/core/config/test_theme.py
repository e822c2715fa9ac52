"""The theme kept at the top of profiles.toml: read without raising, saved without disturbing
the rest of the file, never written into a file that does not parse."""

from __future__ import annotations

from pathlib import Path

import pytest

from plantstore_tui.core.config.files import CorruptConfigFile
from plantstore_tui.core.config.store import ProfileStore
from plantstore_tui.core.config.theme import save_theme, saved_theme


@pytest.mark.parametrize(
    "text",
    [None, "", 'theme = ""\n', "theme = 3\n", "[profiles.a\n", 'default = "a"\n'],
)
def test_no_usable_theme_in_the_file_is_none(tmp_path: Path, text: str | None) -> None:
    if text is not None:
        (tmp_path / "profiles.toml").write_text(text)
    assert saved_theme(tmp_path) is None


def test_a_theme_saved_is_read_back_and_is_no_unknown_setting(tmp_path: Path) -> None:
    save_theme("textual-light", tmp_path)
    assert saved_theme(tmp_path) == "textual-light"
    save_theme("nord", tmp_path)
    assert saved_theme(tmp_path) == "nord"
    assert (tmp_path / "profiles.toml").read_text() == 'theme = "nord"\n'
    assert ProfileStore(tmp_path).load().problems == ()


def test_a_theme_goes_above_the_tables_and_every_other_line_stays(tmp_path: Path) -> None:
    path = tmp_path / "profiles.toml"
    mine = '# mine\ndefault = "a"\n\n[profiles.a]  # first\nbase_url = "https://a.example.com"\n'
    path.write_text(mine)
    save_theme("textual-light", tmp_path)
    assert path.read_text() == mine.replace('"a"\n\n', '"a"\ntheme = "textual-light"\n\n', 1)
    assert ProfileStore(tmp_path).load().names == ("a",)


def test_a_file_that_does_not_parse_is_not_overwritten(tmp_path: Path) -> None:
    path = tmp_path / "profiles.toml"
    path.write_bytes(b"default = \n")
    with pytest.raises(CorruptConfigFile, match=r"profiles\.toml:1:"):
        save_theme("textual-light", tmp_path)
    assert path.read_bytes() == b"default = \n"
