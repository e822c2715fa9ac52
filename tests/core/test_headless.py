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


def test_the_core_leaves_out_httpxs_command_line() -> None:
    # httpx imports its command line (click, rich, pygments: 1.8 MiB resident) whenever those are
    # installed, as they are here; the core never runs it. httpx keeps its stand-in.
    loaded = loaded_after_running(
        "import plantstore_tui.core.http.client, httpx\nassert callable(httpx.main)"
    )
    assert "httpx" in loaded
    assert not {name for name in loaded if name.split(".")[0] in ("rich", "pygments", "click")}


def test_a_start_with_no_config_file_loads_no_toml_parser() -> None:
    # The ledger's data directory and the history settings read no file that is not there, and
    # load no profile store to find none.
    loaded = loaded_after_running(
        "from plantstore_tui.core.store import open_ledger\n"
        "from plantstore_tui.core.store.settings import history_settings\n"
        "open_ledger('tui'); history_settings(None)"
    )
    assert "plantstore_tui.core.store.settings" in loaded
    assert "tomllib" not in loaded
    assert "plantstore_tui.core.config.store" not in loaded
    assert "plantstore_tui.core.config.profiles" not in loaded
    # Nor what reads the previous release's files, when there are none to take in.
    assert "plantstore_tui.core.store.carry_over" not in loaded
    assert "plantstore_tui.core.store.old_files" not in loaded


def test_the_form_and_text_checks_load_neither_pydantic_nor_httpx() -> None:
    loaded = loaded_after_importing(
        "plantstore_tui.core.plant.form", "plantstore_tui.core.plant.text"
    )
    assert not {name for name in loaded if name.split(".")[0] in ("pydantic", "httpx")}


def test_the_core_package_itself_imports_nothing() -> None:
    before = loaded_after_importing("plantstore_tui")
    after = loaded_after_importing("plantstore_tui.core")
    assert after - before == {"plantstore_tui.core"}
