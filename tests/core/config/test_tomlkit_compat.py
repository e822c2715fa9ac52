"""The guard of tomlkit_compat: a tomlkit upgrade that moves a private name fails here, by name."""

from __future__ import annotations

import importlib.metadata
import textwrap

import tomlkit

from plantstore_tui.core.config import tomlkit_compat


def test_every_private_tomlkit_name_used_is_still_there() -> None:
    version = importlib.metadata.version("tomlkit")
    assert tomlkit_compat.missing() == (), (
        f"tomlkit {version} lacks {', '.join(tomlkit_compat.missing())}: "
        "adapt plantstore_tui/core/config/tomlkit_compat.py, or pin tomlkit below this version"
    )


def test_insert_at_puts_the_setting_at_that_place_in_the_table() -> None:
    document = tomlkit.parse(
        textwrap.dedent(
            """\
            [profiles.a]
            base_url = "https://a.example"
            # about b
            [profiles.b]
            base_url = "https://b.example"
            """
        )
    )
    table = document["profiles"]["a"]
    tomlkit_compat.insert_at(table, 1, "timeout", 20)
    assert tomlkit.dumps(document) == textwrap.dedent(
        """\
        [profiles.a]
        base_url = "https://a.example"
        timeout = 20
        # about b
        [profiles.b]
        base_url = "https://b.example"
        """
    )
