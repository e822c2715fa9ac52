"""The work before the TUI's first frame: the modules it loads, the styles it parses and
applies, and the widgets it makes."""

from __future__ import annotations

import dataclasses
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

from plantstore_tui.core.plant import form
from plantstore_tui.ui import connection
from plantstore_tui.ui.app import PlantStoreApp
from plantstore_tui.ui.connection import TargetLabel
from plantstore_tui.ui.screens.first_run import FirstRunScreen
from plantstore_tui.ui.screens.help import HelpScreen
from plantstore_tui.ui.widgets import log_entry, status_line

CANARY = "CANARY-tui-8d41f0c2b7e94a13"
REPO = Path(__file__).resolve().parents[3]


def _python(code: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        capture_output=True,
        text=True,
        cwd=REPO,
        env={**os.environ, **(env or {})},
        timeout=60,
        check=False,
    )


def test_the_path_to_the_first_frame_imports_neither_httpx_nor_pydantic() -> None:
    result = _python(
        """
        import json, sys
        from plantstore_tui.cli import main
        from plantstore_tui.cli.targets import TargetOptions
        from plantstore_tui.cli.tui import _plan
        from plantstore_tui.ui.app import PlantStoreApp

        connect, label = _plan(TargetOptions(base_url="http://127.0.0.1:9"))
        app = PlantStoreApp(connect, label)
        print(json.dumps({name: name in sys.modules for name in ("httpx", "pydantic")}))
        """,
        env={"PLANTSTORE_TOKEN": CANARY, "PLANTSTORE_PROFILE": "", "PLANTSTORE_BASE_URL": ""},
    )
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout) == {"httpx": False, "pydantic": False}


# Run as `python -c CODE`: the app headless until its first frame is drawn, then the modules
# loaded by then. What the send screen defers to after that frame (the ledger, the client) is
# scheduled with call_after_refresh: the first such call records instead, and the rest never run.
_FIRST_FRAME = """
    import sys
    from textual.screen import Screen
    from plantstore_tui.cli.targets import TargetOptions
    from plantstore_tui.cli.tui import _plan
    from plantstore_tui.ui.app import PlantStoreApp
    from plantstore_tui.ui.screens.send import SendScreen

    deferred = []

    def after_refresh(screen, callback, *args, **kwargs):
        deferred.append(callback)
        if len(deferred) > 1:
            return True

        def after_the_first_frame():
            print(" ".join(sorted(sys.modules)))  # not json: the first frame must not load it
            screen.app.exit()

        return Screen.call_after_refresh(screen, after_the_first_frame)

    SendScreen.call_after_refresh = after_refresh
    connect, label = _plan(TargetOptions(base_url="http://127.0.0.1:9"))
    PlantStoreApp(connect, label).run(headless=True, size=(110, 32))
"""

# What the first frame shows needs none of these: the client and its models, the ledger, the
# config files, the other screens, the subcommands, the server. Each is loaded after that frame,
# or when its screen or command is first used.
NOT_BEFORE_THE_FIRST_FRAME = (
    "httpx",
    "pydantic",
    "sqlite3",
    "keyring",
    "pygments",
    "rich.markdown",
    "rich.syntax",
    "textual.widgets._markdown",
    "textual.widgets._data_table",
    # The footer is drawn by a widget of the project's own (ui/widgets/one_line_footer.py).
    "textual.widgets._footer",
    "plantstore_tui.core.config.store",
    "plantstore_tui.core.http.client",
    "plantstore_tui.core.plant.models",
    # The entry session and its states: made right after the first frame, which shows no plant.
    "plantstore_tui.core.sending.session",
    "plantstore_tui.core.sending.queue",
    "plantstore_tui.core.store.records",
    "plantstore_tui.core.store.database",
    "plantstore_tui.core.store.ledger",
    "plantstore_tui.core.store.opening",
    "plantstore_tui.core.store.old_files",
    "plantstore_tui.core.importing",
    "plantstore_tui.server",
    "plantstore_tui.cli.add",
    "plantstore_tui.cli.check",
    "plantstore_tui.cli.history",
    "plantstore_tui.cli.history_text",
    "plantstore_tui.cli.import_file",
    "plantstore_tui.cli.profile",
    "plantstore_tui.ui.screens.attention",
    "plantstore_tui.ui.screens.check",
    "plantstore_tui.ui.screens.first_run",
    "plantstore_tui.ui.screens.history",
    "plantstore_tui.ui.screens.import_screen",
    "plantstore_tui.ui.screens.import_verdict",
    "plantstore_tui.ui.screens.profiles",
    "plantstore_tui.ui.screens.profile_checks",
)


def test_the_first_frame_loads_nothing_it_does_not_show() -> None:
    result = _python(
        _FIRST_FRAME,
        env={"PLANTSTORE_TOKEN": CANARY, "PLANTSTORE_PROFILE": "", "PLANTSTORE_BASE_URL": ""},
    )
    assert result.returncode == 0, result.stderr
    loaded = set(result.stdout.strip().splitlines()[-1].split())
    assert "plantstore_tui.ui.screens.send" in loaded  # the probe did see the first frame
    assert sorted(loaded.intersection(NOT_BEFORE_THE_FIRST_FRAME)) == []


# The same probe, on the plan the front door makes for a profile.
_PROFILE_FIRST_FRAME = (
    _FIRST_FRAME.replace("    from plantstore_tui.cli.tui import _plan\n", "")
    .replace("plantstore_tui.cli.targets import", "plantstore_tui.core.config.options import")
    .replace(
        'connect, label = _plan(TargetOptions(base_url="http://127.0.0.1:9"))',
        "import os\n"
        "    from plantstore_tui.cli.tui import unprompted_plan\n"
        "    connect, label = unprompted_plan(TargetOptions(), os.environ)",
    )
)


def test_a_profile_start_loads_nothing_more_before_the_first_frame(tmp_path: Path) -> None:
    # The operator's everyday start: the default profile, glanced at in profiles.toml (tomllib
    # and the config files' module); its target is resolved after the first frame.
    assert _PROFILE_FIRST_FRAME != _FIRST_FRAME
    (tmp_path / "profiles.toml").write_text(
        'default = "daily"\n[profiles.daily]\nbase_url = "http://127.0.0.1:9"\n'
        'token_env = "DAILY_TOKEN"\n'
    )
    result = _python(
        _PROFILE_FIRST_FRAME,
        env={"DAILY_TOKEN": CANARY, "PLANTSTORE_CONFIG_DIR": str(tmp_path)},
    )
    assert result.returncode == 0, result.stderr
    loaded = set(result.stdout.strip().splitlines()[-1].split())
    assert "plantstore_tui.ui.screens.send" in loaded  # the probe did see the first frame
    glance = {"tomllib", "plantstore_tui.core.config.files"}
    assert glance <= loaded  # profiles.toml was read: the profile's plan
    never = set(NOT_BEFORE_THE_FIRST_FRAME) - glance
    assert sorted(loaded.intersection(never)) == []


def test_the_first_frames_modules_compile_no_dataclass() -> None:
    # A frozen dataclass compiles its methods when its module is imported (3.5M instructions
    # each); these modules' value types are named tuples.
    for module in (form, connection, status_line, log_entry):
        defined = [value for value in vars(module).values() if isinstance(value, type)]
        mine = [kind for kind in defined if kind.__module__ == module.__name__]
        assert mine
        assert [kind.__name__ for kind in mine if dataclasses.is_dataclass(kind)] == []


async def test_the_first_frame_parses_only_the_send_screen_styles() -> None:
    app = PlantStoreApp(None, TargetLabel(base_url="http://127.0.0.1:9", token_source="test"))
    async with app.run_test(size=(110, 32)) as pilot:
        assert isinstance(app.screen, FirstRunScreen)
        selectors = " ".join(rule.selectors for rule in app.stylesheet.rules)
        assert "#form-hint" in selectors
        # Help's panel is styled by its own file, read when the screen first opens.
        assert "help-panel" not in selectors
        await pilot.press("escape")
        await app.push_screen(HelpScreen())
        await pilot.pause()
        assert "help-panel" in " ".join(rule.selectors for rule in app.stylesheet.rules)


async def test_the_send_screen_is_twelve_widgets() -> None:
    # Each widget costs the first frame its compose, mount, styles, layout and render (4M
    # instructions and up) and the idle TUI about 0.1 MiB: the footer is one widget, not one a
    # key, and so is the status line (not a target and a state); the form and the log share the
    # screen's own layout; Send needs no row of its own; a field's message line is made when
    # the field first has a message.
    app = PlantStoreApp(None, TargetLabel(base_url="http://127.0.0.1:9", token_source="test"))
    async with app.run_test(size=(110, 32)):
        screen = app.get_default_screen()
        widgets = [type(widget).__name__ for widget in screen.walk_children()]
        assert len(widgets) == 12, widgets
        assert widgets.count("Horizontal") == 1  # the switches' row
