"""The core runs headless: importing it loads neither Textual, the UI, the CLI nor the server."""

from __future__ import annotations

import pkgutil

from headless_support import loaded_after_importing

from plantstore_tui import core

# Every module of the core, subpackages included, with the ones added after this test was written.
CORE = sorted(
    module.name for module in pkgutil.walk_packages(core.__path__, prefix="plantstore_tui.core.")
)


def test_the_core_loads_neither_textual_nor_the_ui_nor_the_server() -> None:
    assert {
        "plantstore_tui.core.plant.form",
        "plantstore_tui.core.http.client",
        "plantstore_tui.core.store.ledger",
    } <= set(CORE)
    loaded = loaded_after_importing(*CORE)
    assert set(CORE) <= loaded
    assert not {name for name in loaded if name.split(".")[0] == "textual"}
    assert not {
        name
        for name in loaded
        if name.startswith(("plantstore_tui.ui", "plantstore_tui.server", "plantstore_tui.cli"))
    }
