"""The core runs headless: importing it loads neither Textual, the UI, the CLI nor the server."""

from __future__ import annotations

import json
import pkgutil
import subprocess
import sys

from plantstore_tui import core

# Every module of the core, subpackages included, with the ones added after this test was written.
CORE = sorted(
    module.name for module in pkgutil.walk_packages(core.__path__, prefix="plantstore_tui.core.")
)


def loaded_after_running(code: str) -> set[str]:
    """The names in sys.modules of a fresh interpreter once it has run `code`."""
    code += "\nimport json, sys\nprint(json.dumps(sorted(sys.modules)))\n"
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60
    )
    return set(json.loads(result.stdout))


def loaded_after_importing(*modules: str) -> set[str]:
    """The names in sys.modules of a fresh interpreter once `modules` are imported."""
    return loaded_after_running(
        f"import importlib\nfor name in {modules!r}:\n    importlib.import_module(name)"
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
