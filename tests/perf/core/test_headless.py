"""What importing parts of the core loads: no command line of httpx's, no TOML parser without a
config file, no Pydantic or httpx for the form's checks, nothing for the package itself."""

from __future__ import annotations

from headless_support import loaded_after_importing, loaded_after_running


def test_the_core_leaves_out_httpxs_command_line() -> None:
    # httpx imports its command line (click, rich, pygments: 1.8 MiB resident) whenever those are
    # installed, as they are here; the core never runs it. httpx keeps its stand-in.
    loaded = loaded_after_running(
        "import plantstore_tui.core.http.client, httpx\nassert callable(httpx.main)"
    )
    assert "httpx" in loaded
    assert not {name for name in loaded if name.split(".")[0] in ("rich", "pygments", "click")}


def test_the_form_and_text_checks_load_neither_pydantic_nor_httpx() -> None:
    loaded = loaded_after_importing(
        "plantstore_tui.core.plant.form", "plantstore_tui.core.plant.text"
    )
    assert not {name for name in loaded if name.split(".")[0] in ("pydantic", "httpx")}


def test_the_core_package_itself_imports_nothing() -> None:
    before = loaded_after_importing("plantstore_tui")
    after = loaded_after_importing("plantstore_tui.core")
    assert after - before == {"plantstore_tui.core"}
