"""Regenerate the screenshots of the TUI: `.venv/bin/python screenshots/make.py`.

Drives the real app against the real reference server (and a closed port, for the network
failure) at 110x32 and at 80x24 (the classic terminal), saves one SVG per state and size here
(`NAME.svg`, `NAME-80x24.svg`), and a PNG beside each when `rsvg-convert` (Debian: librsvg2-bin)
is on PATH. Names on the command line shoot only those scenes.

Most scenes send through a saved profile as an operator's would be: a long name, its token in the
credentials file, the deployment reached through a proxy (the tests' proxy, which alone knows the
deployment's host name: nothing resolves it, nothing leaves this machine).
"""

from __future__ import annotations

import asyncio
import os
import secrets
import shutil
import socket
import subprocess
import sys
import tempfile
from collections.abc import Awaitable, Callable
from pathlib import Path

from pydantic import SecretStr
from textual.pilot import Pilot
from textual.widgets import DirectoryTree, Input

from plantstore_tui.core.config.profiles import Profile
from plantstore_tui.core.config.store import ProfileStore
from plantstore_tui.core.config.theme import save_theme
from plantstore_tui.core.sending.connection import connect_to_profile
from plantstore_tui.core.store import open_for_reading
from plantstore_tui.server.runner import BackgroundServer
from plantstore_tui.ui.app import PlantStoreApp
from plantstore_tui.ui.connection import TargetLabel
from plantstore_tui.ui.screens.confirm import ChoiceScreen, ConfirmScreen
from plantstore_tui.ui.screens.import_screen import ImportScreen
from plantstore_tui.ui.screens.send import SendScreen

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests"))
from proxy_support import background_proxy  # noqa: E402 (the tests' proxy, from their folder)

# The profile the scenes on the reference server send through, and the host names only the
# proxy knows, for the reference server and the slow one.
PROFILE = "greenhouse-north"
HOSTS = {"server": "plants.greenhouse-north.test", "slow": "slow.greenhouse-north.test"}
# The file name's suffix -> the terminal's size.
SIZES = {"": (110, 32), "-80x24": (80, 24)}
SLOW_SECONDS = 1.0

Scene = Callable[[PlantStoreApp, SendScreen], Awaitable[None]]


async def _settle(app: PlantStoreApp) -> None:
    # Not every worker: the send queue runs as long as the app does.
    screen = app.get_default_screen()
    assert isinstance(screen, SendScreen)
    await _pilot(app).pause()
    await screen.wait_until_settled()
    await _pilot(app).pause()


def _pilot(app: PlantStoreApp) -> Pilot[None]:
    return Pilot(app)


async def _type(app: PlantStoreApp, screen: SendScreen, name: str, id: str, tag: str) -> None:
    for field, text in (("name", name), ("id", id), ("tag", tag)):
        screen.form.field_input(field).value = text


async def empty_form(app: PlantStoreApp, screen: SendScreen) -> None:
    """A fresh form: nothing typed, nothing sent."""


async def invalid_input(app: PlantStoreApp, screen: SendScreen) -> None:
    """Messages under the fields as they are typed, and a refused Send."""
    await _type(app, screen, "Monstera", "12b", "in\x1bdoor")
    screen.action_send()


async def success(app: PlantStoreApp, screen: SendScreen) -> None:
    """Two plants created: the form is ready for a third."""
    for name, tag in (("Monstera deliciosa", "indoor"), ("Fern", "shade")):
        await _type(app, screen, name, screen.form.texts().id or "41", tag)
        screen.action_send()
        await _settle(app)
    await _type(app, screen, "Aloe", screen.form.texts().id, "")
    screen.form.field_input("tag").focus()
    await _pilot(app).press("i", "n")  # Tag suggests "indoor", sent a moment ago


async def server_error(app: PlantStoreApp, screen: SendScreen) -> None:
    """A created plant, then the same id again: the server's Error."""
    await _type(app, screen, "Monstera", "7", "indoor")
    screen.action_send()
    await _settle(app)
    await _type(app, screen, "Ivy", "7", "climber")
    screen.action_send()


async def unreachable(app: PlantStoreApp, screen: SendScreen) -> None:
    """Nothing listens at the target: the plants wait in line and go when it answers."""
    for name, plant_id, tag in (("Monstera", "7", "indoor"), ("Fern", "8", ""), ("Ivy", "9", "")):
        await _type(app, screen, name, plant_id, tag)
        screen.action_send()
    await _settle(app)


async def token_refused(app: PlantStoreApp, screen: SendScreen) -> None:
    """The deployment refuses the token: the queue stops, the refused plant first in line."""
    for name, plant_id, tag in (("Monstera", "7", "indoor"), ("Fern", "8", "")):
        await _type(app, screen, name, plant_id, tag)
        screen.action_send()
    await _settle(app)


async def queue(app: PlantStoreApp, screen: SendScreen) -> None:
    """A slow deployment: one plant created, one refused (needs attention), one being sent, one
    queued, and the form already holding the next."""
    pilot = _pilot(app)
    for name, plant_id, tag in (
        ("Monstera deliciosa", "41", "indoor"),
        ("Ficus lyrata", "41", ""),
        ("Aloe vera", "43", "succulent"),
        ("Hoya carnosa", "44", "hanging"),
    ):
        await _type(app, screen, name, plant_id, tag)
        screen.action_send()
    await _type(app, screen, "Pilea", "45", "")
    for _ in range(2000):
        counts = screen.service.status().counts
        if counts.sending and counts.attention == 1:
            break
        await pilot.pause(0.01)
    else:
        raise RuntimeError("the queue never reached the pictured state")
    await pilot.pause()


async def needs_attention(app: PlantStoreApp, screen: SendScreen) -> None:
    """F4: two plants the server refused wait with their fields, each to load back or dismiss."""
    for name, plant_id, tag in (
        ("Monstera", "17", "indoor"),
        ("Ivy", "17", "climber"),
        ("Strelitzia nicolai", "17", ""),
    ):
        await _type(app, screen, name, plant_id, tag)
        screen.action_send()
        await _settle(app)
    screen.action_attention()


async def check(app: PlantStoreApp, screen: SendScreen) -> None:
    """The palette's "Check this deployment": every probe passes, nothing is created."""
    from plantstore_tui.ui.screens.check import CheckScreen

    app.action_check()
    pilot = _pilot(app)
    for _ in range(2000):
        if isinstance(app.screen, CheckScreen) and app.screen.report is not None:
            await pilot.pause()
            return
        await pilot.pause(0.01)
    raise RuntimeError("the check never finished")


async def history(app: PlantStoreApp, screen: SendScreen) -> None:
    """F3: the sends of the scenes before this one, newest first, the highlighted one whole."""
    from textual.widgets import DataTable

    from plantstore_tui.ui.screens.history import HistoryScreen

    screen.action_history()
    pilot = _pilot(app)
    for _ in range(2000):
        tables = app.screen.query(DataTable) if isinstance(app.screen, HistoryScreen) else []
        if tables and tables[0].row_count:
            await pilot.pause()
            return
        await pilot.pause(0.01)
    raise RuntimeError("the history never showed its sends")


async def probe(app: PlantStoreApp, screen: SendScreen) -> None:
    """F6: the form's plant with its id given as a string, sent by hand; the 400 and its reading."""
    from textual.widgets import TextArea

    from plantstore_tui.ui.screens.probe import ProbeScreen

    await _type(app, screen, "Fern", "7", "")
    screen.action_probe()
    pilot = _pilot(app)
    await pilot.pause()
    probing = app.screen
    assert isinstance(probing, ProbeScreen)
    probing.query_one("#probe-body", TextArea).load_text('{\n  "id": "7",\n  "name": "Fern"\n}')
    probing.action_send()
    for _ in range(2000):
        if probing.answer is not None:
            await asyncio.gather(*(w.wait() for w in app.workers if w.group == "probe"))
            await pilot.pause()
            return
        await pilot.pause(0.01)
    raise RuntimeError("the probe never got its answer")


async def help_screen(app: PlantStoreApp, screen: SendScreen) -> None:
    """F1."""
    app.action_help()


async def profiles(app: PlantStoreApp, screen: SendScreen) -> None:
    """F2: the saved profiles, where their tokens come from, the one in use."""
    app.action_profiles()


async def protected_send(app: PlantStoreApp, screen: SendScreen) -> None:
    """A send to a protected profile waits for the operator's yes."""
    await _type(app, screen, "Monstera", "7", "indoor")
    screen.action_send()
    pilot = _pilot(app)
    for _ in range(500):
        if isinstance(app.screen, ConfirmScreen):
            return
        await pilot.pause()
    raise RuntimeError("the confirmation never showed")


async def quit_question(app: PlantStoreApp, screen: SendScreen) -> None:
    """Ctrl+Q with a plant waiting: what becomes of it is asked first."""
    await needs_attention(app, screen)
    app.pop_screen()
    await app.action_quit()


async def profile_editor(app: PlantStoreApp, screen: SendScreen) -> None:
    """F2, then a new profile: its URL, where its token comes from, its limits."""
    from plantstore_tui.ui.screens.profile_editor import ProfileEditor

    app.push_screen(ProfileEditor(ProfileStore()))


async def first_run(app: PlantStoreApp, screen: SendScreen) -> None:
    """No profile yet: create one, or try the demo."""
    pilot = _pilot(app)
    for _ in range(500):
        if type(app.screen).__name__ == "FirstRunScreen":
            break
        await pilot.pause()
    await pilot.pause()


def _files_to_import() -> None:
    # In the working directory (a temporary one), which the import screen lists.
    Path("archive").mkdir(exist_ok=True)
    Path("spring.jsonl").write_text('{"name": "Fern", "id": 101}\n', encoding="utf-8")
    Path("greenhouse.csv").write_text(
        "name,id,tag\nMonstera deliciosa,41,indoor\n,42,\nFicus lyrata,4x2,\n"
        "Aloe vera,41,succulent\nHoya carnosa,45,\x1b[31mred\nPilea,46,\n",
        encoding="utf-8",
    )


async def import_file(app: PlantStoreApp, screen: SendScreen) -> None:
    """F5: a file is checked whole before anything is sent; every bad row is named by its line."""
    _files_to_import()
    app.action_import()
    pilot = _pilot(app)
    await pilot.pause()
    chooser = app.screen
    assert isinstance(chooser, ImportScreen)
    tree = chooser.query_one(DirectoryTree)
    for _ in range(500):
        if tree.root.children:
            break
        await pilot.pause()
    chooser.query_one("#import-path", Input).value = "greenhouse.csv"
    chooser.action_check()
    await asyncio.gather(*(w.wait() for w in app.workers if w.name == "check-file"))
    await pilot.pause()


async def import_question(app: PlantStoreApp, screen: SendScreen) -> None:
    """F5, a checked file, Send: the target and the count are asked about first."""
    await import_file(app, screen)
    chooser = app.screen
    assert isinstance(chooser, ImportScreen)
    pilot = _pilot(app)
    chooser.query_one("#import-path", Input).value = "spring.jsonl"
    chooser.action_check()
    await asyncio.gather(*(w.wait() for w in app.workers if w.name == "check-file"))
    await pilot.pause()
    chooser.action_send()
    for _ in range(500):
        if app.screen is not chooser:
            break
        await pilot.pause()
    await pilot.pause()


# name -> (scene, target): "server" the reference server, "slow" one that answers after a
# second, "closed" a port nothing listens on, "refused" the reference server with a token it
# refuses (each through the profile PROFILE, aimed there), or the name of a saved profile.
SCENES: dict[str, tuple[Scene, str]] = {
    "empty-form": (empty_form, "server"),
    "invalid-input": (invalid_input, "server"),
    "success": (success, "server"),
    "server-error": (server_error, "server"),
    "unreachable": (unreachable, "closed"),
    "token-refused": (token_refused, "refused"),
    "queue": (queue, "slow"),
    "needs-attention": (needs_attention, "server"),
    "check": (check, "server"),
    "history": (history, "server"),
    "probe": (probe, "server"),
    "help": (help_screen, "server"),
    "profiles": (profiles, "local"),
    "protected-send": (protected_send, "prod"),
    "import": (import_file, "server"),
    "import-question": (import_question, "server"),
    "quit-question": (quit_question, "server"),
    "profile-editor": (profile_editor, "server"),
    "first-run": (first_run, "nowhere"),
    "success-light": (success, "server"),
}
# Scenes shot in another theme than Textual's default, kept in profiles.toml as an operator's
# choice would be (and put back after).
THEMES = {"success-light": "textual-light"}


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
    return port


def _aim(where: str, urls: dict[str, str], token: SecretStr) -> None:
    # As the operator would in F2: the profile's URL, and the token it keeps.
    if where == "closed":
        url = f"http://127.0.0.1:{_closed_port()}"
    else:
        url = urls["server" if where == "refused" else where]
    if where == "refused":
        token = SecretStr("a-token-it-refuses")
    ProfileStore().edit(PROFILE, {"base_url": url}, token=token)


def _app(where: str, urls: dict[str, str], token: SecretStr) -> PlantStoreApp:
    if where in ("server", "slow", "closed", "refused"):
        _aim(where, urls, token)
        where = PROFILE
    if where == "nowhere":
        return PlantStoreApp(None, TargetLabel(base_url="no target yet", token_source="no profile"))
    label = TargetLabel(base_url="loading…", token_source="the profile", profile=where)
    return PlantStoreApp(lambda: connect_to_profile(where), label)


async def _shoot(
    name: str, suffix: str, scene: Scene, app: PlantStoreApp, size: tuple[int, int]
) -> Path:
    async with app.run_test(size=size) as pilot:
        screen = app.get_default_screen()
        assert isinstance(screen, SendScreen)
        # With no target yet (the first run) nothing connects, so nothing settles.
        chosen = screen.service.status().aim is not None
        if chosen:
            await _settle(app)
        await scene(app, screen)
        # A question waiting for its answer never settles; the queue is pictured mid-way.
        if chosen and not isinstance(app.screen, ChoiceScreen) and name != "queue":
            await _settle(app)
        await pilot.pause()
        return Path(app.save_screenshot(filename=f"{name}{suffix}.svg", path=str(HERE)))


def _deal_with_leftovers() -> None:
    # Each scene starts as an operator's next start would after dealing with the last one: the
    # ledger keeps every row for the history's picture, but nothing waits for attention.
    ledger = open_for_reading()
    if ledger is None:
        return
    try:
        for entry in ledger.pending():
            ledger.release(entry.entry, "Dismissed between pictures.")
    finally:
        ledger.close()


def _png(svg: Path) -> None:
    converter = shutil.which("rsvg-convert")
    if converter is None:
        return
    # rsvg collapses the leading no-break spaces Rich writes; plain spaces kept by
    # xml:space="preserve" come out at their true width.
    text = svg.read_text(encoding="utf-8").replace("&#160;", " ")
    text = text.replace("<svg ", '<svg xml:space="preserve" ', 1)
    subprocess.run(  # noqa: S603 (rsvg-convert from PATH, on our own file)
        [converter, "-o", str(svg.with_suffix(".png"))],
        input=text.encode("utf-8"),
        check=True,
    )


def _save_profiles(directory: str, base_url: str, token: SecretStr, proxy: str) -> None:
    # Profiles of their own, never the operator's: a temporary config dir and no keyring. It is
    # named relative to the temporary working directory, so no path of this machine is pictured.
    os.chdir(directory)
    os.environ["PLANTSTORE_CONFIG_DIR"] = "plantstore-config"
    os.environ["PLANTSTORE_DATA_DIR"] = "plantstore-data"
    os.environ["PYTHON_KEYRING_BACKEND"] = "keyring.backends.fail.Keyring"
    os.environ["PLANT_TOKEN"] = token.get_secret_value()
    store = ProfileStore()
    store.add(Profile(name="local", base_url=base_url, token_env="PLANT_TOKEN"))
    store.add(
        Profile(name="prod", base_url=base_url + "/", token_env="PLANT_TOKEN", protected=True)
    )
    # Aimed at each scene's deployment before it (`_aim`); its token in the credentials file.
    store.add(
        Profile(name=PROFILE, base_url=base_url, allow_insecure_http=True, proxy=proxy),
        token=token,
    )


def _port(server: BackgroundServer) -> int:
    return int(server.base_url.rsplit(":", 1)[1])


def main() -> None:
    """Start a reference server (and a slow one) behind a proxy, shoot every scene, convert to
    PNG."""
    token = SecretStr(secrets.token_urlsafe(32))
    with (
        tempfile.TemporaryDirectory() as directory,
        BackgroundServer(token=token, db_path=Path(directory) / "plants.sqlite3") as server,
        BackgroundServer(
            token=token, db_path=Path(directory) / "slow.sqlite3", delay=SLOW_SECONDS
        ) as slow,
        background_proxy({HOSTS["server"]: _port(server), HOSTS["slow"]: _port(slow)}) as proxy,
    ):
        urls = {
            name: f"http://{HOSTS[name]}:{_port(s)}"
            for name, s in (("server", server), ("slow", slow))
        }
        _save_profiles(directory, server.base_url, token, proxy.url)
        only = set(sys.argv[1:])
        for name, (scene, where) in SCENES.items():
            if only and name not in only:
                continue
            for suffix, size in SIZES.items():
                save_theme(THEMES.get(name, "textual-dark"))
                app = _app(where, urls, token)
                svg = asyncio.run(_shoot(name, suffix, scene, app, size))
                _deal_with_leftovers()
                _png(svg)
                print(svg.relative_to(HERE.parent))
    if shutil.which("rsvg-convert") is None:
        print("rsvg-convert not found: SVG only (apt-get install librsvg2-bin)", file=sys.stderr)


if __name__ == "__main__":
    main()
