"""Regenerate the screenshots of the TUI: `.venv/bin/python screenshots/make.py`.

Drives the real app against the real reference server (and a closed port, for the network
failure) at 110x32, saves one SVG per state here, and a PNG beside it when `rsvg-convert`
(Debian: librsvg2-bin) is on PATH.
"""

from __future__ import annotations

import asyncio
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

from plantstore_tui.core.target import Target
from plantstore_tui.server.runner import BackgroundServer
from plantstore_tui.ui.app import PlantStoreApp
from plantstore_tui.ui.connection import TargetLabel, connect_to
from plantstore_tui.ui.screens.send import SendScreen

HERE = Path(__file__).resolve().parent
SIZE = (110, 32)

Scene = Callable[[PlantStoreApp, SendScreen], Awaitable[None]]


async def _settle(app: PlantStoreApp) -> None:
    await app.workers.wait_for_complete()
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


async def network_failure(app: PlantStoreApp, screen: SendScreen) -> None:
    """Nothing listens at the target."""
    await _type(app, screen, "Monstera", "7", "indoor")
    screen.action_send()


async def help_screen(app: PlantStoreApp, screen: SendScreen) -> None:
    """F1."""
    app.action_help()


SCENES: dict[str, tuple[Scene, bool]] = {
    "empty-form": (empty_form, True),
    "invalid-input": (invalid_input, True),
    "success": (success, True),
    "server-error": (server_error, True),
    "network-failure": (network_failure, False),
    "help": (help_screen, True),
}


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
    return port


async def _shoot(name: str, scene: Scene, base_url: str, token: SecretStr) -> Path:
    target = Target(base_url=base_url, token=token, token_source="PLANTSTORE_TOKEN")
    app = PlantStoreApp(lambda: connect_to(target), TargetLabel.of(target))
    async with app.run_test(size=SIZE) as pilot:
        await app.workers.wait_for_complete()
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, SendScreen)
        await scene(app, screen)
        await _settle(app)
        return Path(app.save_screenshot(filename=f"{name}.svg", path=str(HERE)))


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


def main() -> None:
    """Start a reference server, shoot every scene, convert to PNG."""
    token = SecretStr(secrets.token_urlsafe(32))
    with (
        tempfile.TemporaryDirectory() as directory,
        BackgroundServer(token=token, db_path=Path(directory) / "plants.sqlite3") as server,
    ):
        for name, (scene, reachable) in SCENES.items():
            base_url = server.base_url if reachable else f"http://127.0.0.1:{_closed_port()}"
            svg = asyncio.run(_shoot(name, scene, base_url, token))
            _png(svg)
            print(svg.relative_to(HERE.parent))
    if shutil.which("rsvg-convert") is None:
        print("rsvg-convert not found: SVG only (apt-get install librsvg2-bin)", file=sys.stderr)


if __name__ == "__main__":
    main()
