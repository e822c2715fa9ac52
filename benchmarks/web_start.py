"""A browser tab's start to the TUI's first frame, under `plantstore-tui web`.

    .venv/bin/python benchmarks/web_start.py [--runs N] [--screenshot PATH]

Serves the TUI with `plantstore-tui web` on a reference server of its own, then opens N tabs
one after another in Debian's chromium (headless, Playwright): each is timed from the request of
the URL to the form drawn in the page (the name field's placeholder, the marker startup.py
waits for in a terminal). Each tab starts its own TUI process, so this is the terminal's cold
start plus the page, its script and the websocket. With --screenshot, a plant is typed into the
last tab and the page saved as PNG (the README's screenshots/web.png).
"""

from __future__ import annotations

import argparse
import os
import secrets
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

from playwright.sync_api import sync_playwright
from pydantic import SecretStr

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "tests"))

from web_support import READY, SCREEN_RECORDER, running_web, screen_has  # noqa: E402

from plantstore_tui.server.runner import BackgroundServer  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--screenshot", type=Path)
    options = parser.parse_args()
    chromium = shutil.which("chromium")
    if chromium is None:
        sys.exit("Debian's chromium is needed: apt-get install chromium")
    with tempfile.TemporaryDirectory() as temporary:
        os.environ["PLANTSTORE_CONFIG_DIR"] = f"{temporary}/config"
        os.environ["PLANTSTORE_DATA_DIR"] = f"{temporary}/data"
        token = SecretStr(secrets.token_urlsafe(32))
        server = BackgroundServer(token=token, db_path=Path(temporary) / "plants.sqlite3")
        server.start()
        env = {"PLANTSTORE_TOKEN": token.get_secret_value()}
        try:
            with running_web("--base-url", server.base_url, env=env) as web, sync_playwright() as p:
                args = ["--no-sandbox"] if os.geteuid() == 0 else []
                browser = p.chromium.launch(executable_path=chromium, args=args)
                context = browser.new_context(viewport={"width": 1000, "height": 640})
                context.add_init_script(SCREEN_RECORDER)
                times = []
                for _ in range(options.runs):
                    page = context.new_page()
                    started = time.perf_counter()
                    page.goto(web.url)
                    screen_has(page, READY)
                    times.append(time.perf_counter() - started)
                    if options.screenshot is None or len(times) < options.runs:
                        page.close()
                if options.screenshot is not None:
                    page.locator("textarea.xterm-helper-textarea").focus()
                    for name, number, tag in (("Monstera deliciosa", 1, "indoor"), ("Fern", 2, "")):
                        page.keyboard.type(name)
                        page.keyboard.press("Tab")
                        page.keyboard.type(str(number))
                        page.keyboard.press("Tab")
                        page.keyboard.type(tag)
                        page.keyboard.press("Enter")
                        screen_has(page, f"Created plant {number}")
                    page.keyboard.type("Ficus")
                    page.screenshot(path=str(options.screenshot))
                browser.close()
        finally:
            server.stop()
    print(
        f"tab opened to first frame, {options.runs} runs: median "
        f"{statistics.median(times) * 1000:.0f} ms (min {min(times) * 1000:.0f}, "
        f"max {max(times) * 1000:.0f})"
    )


if __name__ == "__main__":
    main()
