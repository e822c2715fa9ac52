"""`plantstore-tui web` in a real browser: Debian's chromium, driven by Playwright (its own
browser download is never used). Plants typed in a page reach a real reference server; tabs
work side by side; a closed tab ends its TUI as a closed terminal does and loses nothing."""

from __future__ import annotations

import contextlib
import os
import signal
import sqlite3
import time
from collections.abc import Callable, Iterator
from contextlib import closing
from pathlib import Path

import pytest
from burst_support import describe_arrival, stored_plants
from ledger_support import LEDGER_FILE, ledger_rows
from playwright.sync_api import Browser, BrowserContext, Page, Route, sync_playwright
from pty_support import wait_until
from web_support import (
    READY,
    SCREEN_RECORDER,
    STARTUP_SECONDS,
    WebServer,
    another_server,
    chromium_path,
    running_web,
    screen_has,
    screen_mark,
    screen_text,
)

from plantstore_tui.server.runner import BackgroundServer

pytestmark = pytest.mark.skipif(
    chromium_path() is None, reason="Debian's chromium is not installed (.ci/run installs it)"
)

# A closed terminal's TUI is gone within this long (tests/e2e/test_pty_hangup.py); a tab's too.
GONE_SECONDS = 3.0


@pytest.fixture
def browser() -> Iterator[Browser]:
    """Debian's chromium, headless; a test's pages live in a context of their own."""
    with sync_playwright() as playwright:
        # Root (a CI container) cannot use chromium's sandbox.
        args = ["--no-sandbox"] if os.geteuid() == 0 else []
        launched = playwright.chromium.launch(executable_path=chromium_path(), args=args)
        try:
            yield launched
        finally:
            launched.close()


@pytest.fixture
def context(browser: Browser) -> Iterator[BrowserContext]:
    opened = browser.new_context(viewport={"width": 1000, "height": 640})
    opened.add_init_script(SCREEN_RECORDER)
    try:
        yield opened
    finally:
        opened.close()


def _alive(pid: int) -> bool:
    return Path(f"/proc/{pid}").exists()


def _web(server: BackgroundServer) -> tuple[list[str], dict[str, str]]:
    return ["--base-url", server.base_url], {"PLANTSTORE_TOKEN": server.token.get_secret_value()}


def open_tab(context: BrowserContext, web: WebServer, url: str | None = None) -> Page:
    """A new tab on `url` (by default the URL the server printed), its TUI drawn. Nothing is
    clicked or focused by hand: the page takes keys as opened, as a person finds it."""
    page = context.new_page()
    page.goto(url or web.url)
    screen_has(page, READY)
    return page


def type_plant(page: Page, name: str, plant_id: int, tag: str = "") -> None:
    """Name, Tab, ID, Tab, Tag, Enter: as an operator types a plant."""
    page.keyboard.type(name)
    page.keyboard.press("Tab")
    page.keyboard.type(str(plant_id))
    page.keyboard.press("Tab")
    if tag:
        page.keyboard.type(tag)
    page.keyboard.press("Enter")


def test_a_plant_typed_in_the_page_is_stored_once(
    reference_server: BackgroundServer, context: BrowserContext, plant_id: int
) -> None:
    arguments, env = _web(reference_server)
    token = reference_server.token.get_secret_value()
    key = "a-fixed-key-for-this-test-0123456789"
    with running_web(*arguments, env={**env, "PLANTSTORE_WEB_KEY": key}) as web:
        page = open_tab(context, web, f"{web.origin}/?key={key}")
        # The key is in a cookie now, not in the address bar.
        assert "key=" not in page.url
        type_plant(page, "Browser Fern", plant_id, "indoor")
        screen_has(page, f"Created plant {plant_id}")
        assert stored_plants(reference_server.db_path) == [(plant_id, "Browser Fern", "indoor")]
        [app] = web.apps()
        # Neither the token nor the key on a command line `ps` shows; the key not even in the
        # tab's environment (the token is: that is how the tab gets it).
        for pid in (app, web.process.pid):
            assert token not in Path(f"/proc/{pid}/cmdline").read_text()
            assert key not in Path(f"/proc/{pid}/cmdline").read_text()
        assert key not in Path(f"/proc/{app}/environ").read_text()


def test_keys_typed_as_the_tab_opens_are_held_until_the_app_takes_them(
    reference_server: BackgroundServer, context: BrowserContext, plant_id: int
) -> None:
    """A person opens the URL and types at once: no click, no wait for the form. Every key
    arrives, in order, once."""
    arguments, env = _web(reference_server)
    with running_web(*arguments, env=env) as web:
        page = context.new_page()
        page.goto(web.url)
        type_plant(page, "Web fern", plant_id, "porch")
        screen_has(page, f"Created plant {plant_id}")
        assert stored_plants(reference_server.db_path) == [(plant_id, "Web fern", "porch")]
        data = Path(os.environ["PLANTSTORE_DATA_DIR"])
        assert [row[:3] for row in ledger_rows(data)] == [("Web fern", str(plant_id), "porch")]


def test_keys_typed_before_the_page_has_made_its_terminal_are_held_too(
    reference_server: BackgroundServer, context: BrowserContext, plant_id: int
) -> None:
    """Typed while the page still loads (its script that makes the terminal held back, so the
    moment lasts): a key of a record is held; another key is refused, saying so."""
    arguments, env = _web(reference_server)
    with running_web(*arguments, env=env) as web:
        page = context.new_page()
        stalled: list[Route] = []

        def stall(route: Route) -> None:
            stalled.append(route)

        page.route("**/static/js/textual.js", stall)
        page.goto(web.url, wait_until="commit")
        # The page is read up to textual.js, which it waits for.
        page.wait_for_function("""() => document.querySelector('script[src$="textual.js"]')""")
        type_plant(page, "Early fern", plant_id, "hall")
        page.keyboard.press("F1")
        note = page.get_by_role("alert")
        assert note.text_content() == (
            "F1 was not taken: the page was not ready for it. Press it again."
        )
        [script] = stalled
        script.continue_()
        screen_has(page, f"Created plant {plant_id}")
        assert stored_plants(reference_server.db_path) == [(plant_id, "Early fern", "hall")]
        # The note stays until the next key, which the terminal takes.
        assert note.is_visible()
        page.keyboard.press("F1")
        note.wait_for(state="detached")
        screen_has(page, "turn keeping the tag after a send on or off")


def test_an_ended_session_hands_the_keys_to_restart_and_the_next_takes_them(
    reference_server: BackgroundServer, context: BrowserContext, plant_id: int
) -> None:
    arguments, env = _web(reference_server)
    with running_web(*arguments, env=env) as web:
        page = open_tab(context, web)
        [app] = web.apps()
        os.kill(app, signal.SIGTERM)
        # "Session ended", its Restart taking the keys: nothing is typed into the ended session.
        page.get_by_role("button", name="Restart").wait_for()
        page.wait_for_function("() => document.activeElement.textContent === 'Restart'")
        with page.expect_navigation():
            page.keyboard.press("Enter")
        type_plant(page, "Restarted fern", plant_id)
        screen_has(page, f"Created plant {plant_id}")
        assert stored_plants(reference_server.db_path) == [(plant_id, "Restarted fern", None)]


def test_the_terminal_has_the_keys_with_no_click_and_again_when_the_tab_comes_back(
    reference_server: BackgroundServer, context: BrowserContext
) -> None:
    arguments, env = _web(reference_server)
    with running_web(*arguments, env=env) as web:
        page = open_tab(context, web)
        assert _has_the_keys(page) == "the terminal"
        # A click beside the terminal takes the keys from it; the tab coming back gives them
        # back. (Headless Chromium's tabs never lose the window's focus: the test sends the
        # event a browser sends to a tab that comes back.)
        page.evaluate("() => document.activeElement.blur()")
        assert _has_the_keys(page) == "BODY"
        page.evaluate("() => window.dispatchEvent(new FocusEvent('focus'))")
        assert _has_the_keys(page) == "the terminal"


def _has_the_keys(page: Page) -> str:
    """What takes the page's keys: "the terminal" (its own text area), or another element."""
    focused: str = page.evaluate(
        """() => document.activeElement.matches("textarea.xterm-helper-textarea")
            ? "the terminal" : document.activeElement.tagName"""
    )
    return focused


def test_two_tabs_at_once_each_create_their_own(
    reference_server: BackgroundServer,
    context: BrowserContext,
    plant_id: int,
    another_plant_id: int,
) -> None:
    arguments, env = _web(reference_server)
    with running_web(*arguments, env=env) as web:
        first, second = open_tab(context, web), open_tab(context, web)
        assert len(web.apps()) == 2
        first.bring_to_front()
        type_plant(first, "First Tab Fern", plant_id)
        second.bring_to_front()
        type_plant(second, "Second Tab Fern", another_plant_id)
        screen_has(first, f"Created plant {plant_id}")
        screen_has(second, f"Created plant {another_plant_id}")
        assert sorted(stored_plants(reference_server.db_path)) == sorted(
            [(plant_id, "First Tab Fern", None), (another_plant_id, "Second Tab Fern", None)]
        )
        # Stopping the server ends every tab's TUI, as closing the tabs would.
        apps = web.apps()
        web.process.terminate()
        assert web.process.wait(STARTUP_SECONDS) == 0
        wait_until(
            lambda: not any(_alive(app) for app in apps), GONE_SECONDS, what="the TUIs to end"
        )


# A page of another server on this machine: the same site as `web`'s page (SameSite tells sites
# apart, not ports), so the browser sends it the key's cookie. It frames `web`'s page, and opens
# a tab's connection itself.
FOREIGN_PAGE = """<!doctype html><title>another server</title>
<iframe src="{origin}/" width="800" height="400"></iframe>"""
OPEN_A_TAB = """(url) => new Promise((done) => {
    const socket = new WebSocket(url);
    socket.onopen = () => done("open");
    socket.onclose = () => done("refused");
})"""


def test_a_page_of_another_port_can_neither_open_a_tab_nor_frame_the_page(
    reference_server: BackgroundServer, context: BrowserContext
) -> None:
    arguments, env = _web(reference_server)
    with running_web(*arguments, env=env) as web:
        open_tab(context, web)  # the browser holds the key's cookie now
        [tab] = web.apps()
        with another_server(FOREIGN_PAGE.format(origin=web.origin)) as foreign:
            page = context.new_page()
            page.goto(foreign)
            port = int(web.origin.rsplit(":", 1)[1])
            assert page.evaluate(OPEN_A_TAB, f"ws://127.0.0.1:{port}/ws") == "refused"
            # The frame shows the browser's refusal, not the page: no terminal, no TUI.
            [frame] = [frame for frame in page.frames if frame is not page.main_frame]
            assert frame.evaluate("() => document.querySelector('.textual-terminal')") is None
        refused = f"Refused a tab's connection from '{foreign.rstrip('/')}'"
        wait_until(lambda: refused in web.output(), STARTUP_SECONDS, what="the refusal logged")
        assert web.apps() == [tab]


def test_a_closed_tab_with_plants_queued_loses_none(
    start_slow_server: Callable[[float], BackgroundServer],
    context: BrowserContext,
    plant_id: int,
) -> None:
    slow = start_slow_server(3.0)
    data = Path(os.environ["PLANTSTORE_DATA_DIR"])
    plants = [(f"Queued Fern {n}", plant_id * 10 + n) for n in range(3)]
    arguments, env = _web(slow)
    with running_web(*arguments, env=env) as web:
        page = open_tab(context, web)
        for name, number in plants:
            type_plant(page, name, number)
        # Taken: all three in the ledger, the first in flight, two queued behind it.
        wait_until(lambda: len(ledger_rows(data)) == 3, STARTUP_SECONDS, what="three plants taken")
        [app] = web.apps()
        page.close()
        closed = time.monotonic()
        wait_until(lambda: app not in web.apps(), GONE_SECONDS, what="the tab's TUI to end")
        assert time.monotonic() - closed <= GONE_SECONDS

        # Every plant is created, or kept in the ledger to be offered: none is lost.
        rows = ledger_rows(data)
        assert [(name, int(number)) for name, number, *_ in rows] == plants
        stored = {number for number, *_ in stored_plants(slow.db_path)}
        left = [row for row in rows if row[3] != "created"]
        assert left, "the slow server cannot have answered three plants yet"
        for name, _number, _tag, state, held in left:
            assert state == "unknown" or held == 1, (name, state, held)
        assert all(
            int(number) in stored for _n, number, _t, state, _h in rows if state == "created"
        )

        # The next tab offers what was left, as a restart does; it sends nothing by itself.
        page = open_tab(context, web)
        page.keyboard.press("F4")
        screen_has(page, f"Needs attention ({len(left)})")


def test_in_a_browser_the_form_and_help_name_keys_the_page_receives(
    reference_server: BackgroundServer,
    context: BrowserContext,
    plant_id: int,
    another_plant_id: int,
) -> None:
    arguments, env = _web(reference_server)
    with running_web(*arguments, env=env) as web:
        page = open_tab(context, web)
        screen_has(page, "Keep tag Alt+T")
        # Keep tag (Alt+T instead of Ctrl+T, which the browser keeps): the second plant keeps
        # the first one's tag.
        page.keyboard.press("Alt+t")
        type_plant(page, "Tagged Fern", plant_id, "porch")
        screen_has(page, f"Created plant {plant_id}")
        type_plant(page, "Kept Tag Fern", another_plant_id)
        screen_has(page, f"Created plant {another_plant_id}")
        assert stored_plants(reference_server.db_path) == [
            (plant_id, "Tagged Fern", "porch"),
            (another_plant_id, "Kept Tag Fern", "porch"),
        ]
        # Next id (Alt+N instead of Ctrl+N) turns off: its mark is empty.
        mark = screen_mark(page)
        page.keyboard.press("Alt+n")
        screen_has(page, "▐ ▌ Next id Alt+N", since=mark)
        mark = screen_mark(page)
        page.keyboard.press("F1")
        screen_has(page, "turn keeping the tag after a send on or off", since=mark)
        shown = screen_text(page, since=mark)
        assert "Alt+N" in shown
        assert "Alt+T" in shown
        assert "Ctrl+N" not in shown
        assert "Ctrl+T" not in shown


def test_in_a_browser_f6_probes_as_typed_and_the_queue_never_sees_it(
    reference_server: BackgroundServer, context: BrowserContext, tmp_path: Path
) -> None:
    data = tmp_path / "data"
    arguments, env = _web(reference_server)
    with running_web(*arguments, env={**env, "PLANTSTORE_DATA_DIR": str(data)}) as web:
        page = open_tab(context, web)
        mark = screen_mark(page)
        page.keyboard.press("F6")
        screen_has(page, "Body, sent as typed", since=mark)
        # The body editor has the keys as the screen opens: replace what the form put there
        # (F7 selects all, as the editor's subtitle says).
        screen_has(page, "F7 selects all", since=mark)
        page.keyboard.press("F7")
        page.keyboard.type('{"id": "7", "name": "Fern"}')
        mark = screen_mark(page)
        page.keyboard.press("Control+s")
        screen_has(page, "400 Bad Request", since=mark)
        screen_has(page, "The body is an Error", since=mark)
        # The id typed as a string, not a body made invalid by keys gone astray.
        screen_has(page, "The body is an Error", since=mark)
        screen_has(page, "should be a valid integer", since=mark)
        assert stored_plants(reference_server.db_path) == []
        # Kept in the history as a probe, never as a plant.
        wait_until(lambda: _probes_kept(data) == 1, STARTUP_SECONDS, what="the probe kept")
        assert ledger_rows(data) == []


def _probes_kept(data: Path) -> int:
    path = data / LEDGER_FILE
    if not path.exists():
        return 0
    with closing(sqlite3.connect(path.resolve().as_uri() + "?mode=ro", uri=True)) as connection:
        try:
            return int(connection.execute("SELECT count(*) FROM probes").fetchone()[0])
        except sqlite3.OperationalError:
            return 0  # the ledger's tables are not made yet


def test_plants_typed_as_the_tab_opens_on_a_range_get_the_ids_offered_in_turn(
    reference_server: BackgroundServer, context: BrowserContext
) -> None:
    """A saved profile with a range of ids, and records typed the moment the tab opens, ID left
    to next id: the offer comes after the keys, and each plant gets the id it would have got
    had the operator waited for it (issue 42). The ids going on show Next id never switched off
    on the way (a stray Enter on it did, once the first send was refused)."""
    config = Path(os.environ["PLANTSTORE_CONFIG_DIR"])
    config.mkdir(parents=True, exist_ok=True)
    (config / "profiles.toml").write_text(
        f'[profiles.keyer]\nbase_url = "{reference_server.base_url}"\n'
        'token_env = "KEYER_TOKEN"\nids = "70000-70999"\n'
    )
    env = {"KEYER_TOKEN": reference_server.token.get_secret_value()}
    with running_web("--profile", "keyer", env=env) as web:
        page = context.new_page()
        page.goto(web.url)
        for name, tag in (("Web fern", "porch"), ("Web rose", ""), ("Web ivy", "hall")):
            page.keyboard.type(name)
            page.keyboard.press("Tab")
            page.keyboard.press("Tab")
            page.keyboard.type(tag)
            page.keyboard.press("Enter")
        expected = [
            (70000, "Web fern", "porch"),
            (70001, "Web rose", None),
            (70002, "Web ivy", "hall"),
        ]
        with contextlib.suppress(TimeoutError):
            wait_until(
                lambda: len(stored_plants(reference_server.db_path)) >= len(expected),
                STARTUP_SECONDS,
                what="three plants stored",
            )
        stored = stored_plants(reference_server.db_path)
        assert stored == expected, describe_arrival(expected, stored)
        screen_has(page, "Created plant 70002")


def test_in_a_browser_a_keymap_moves_send_history_and_needs_attention(
    reference_server: BackgroundServer, context: BrowserContext, plant_id: int
) -> None:
    config = Path(os.environ["PLANTSTORE_CONFIG_DIR"])
    config.mkdir(parents=True, exist_ok=True)
    (config / "profiles.toml").write_text(
        '[keymap]\nsend.send = "ctrl+g"\nsend.history = "f9"\nsend.attention = "f8"\n'
    )
    arguments, env = _web(reference_server)
    with running_web(*arguments, env=env) as web:
        page = open_tab(context, web)
        screen_has(page, "^g Send")
        # Ctrl+S no longer sends: the X after it is typed into Tag, and Ctrl+G sends it all.
        page.keyboard.type("Fern")
        page.keyboard.press("Tab")
        page.keyboard.type(str(plant_id))
        page.keyboard.press("Tab")
        page.keyboard.type("porch")
        page.keyboard.press("Control+s")
        page.keyboard.type("X")
        page.keyboard.press("Control+g")
        screen_has(page, f"Created plant {plant_id}")
        assert stored_plants(reference_server.db_path) == [(plant_id, "Fern", "porchX")]
        # F4 and Alt+H (the browser's default for history) no longer do anything; F9 opens
        # the history.
        mark = screen_mark(page)
        page.keyboard.press("F4")
        page.keyboard.press("Alt+h")
        page.keyboard.press("F9")
        screen_has(page, "Search name, tag", since=mark)
        assert "Nothing needs attention" not in screen_text(page)
        page.keyboard.press("Escape")
        mark = screen_mark(page)
        page.keyboard.press("F8")
        screen_has(page, "Nothing needs attention", since=mark)
        mark = screen_mark(page)
        page.keyboard.press("F1")
        screen_has(page, "shift summary", since=mark)
        shown = screen_text(page, since=mark)
        for key in ("Ctrl+G", "F9", "F8"):
            assert key in shown, key
        for key in ("Ctrl+S", "F4", "Alt+H"):
            assert key not in shown, key


def test_in_a_browser_history_probe_and_summary_have_keys_the_page_receives(
    reference_server: BackgroundServer, context: BrowserContext
) -> None:
    """A desktop browser keeps F3 (find), F6 (the address bar), F7 (caret browsing), F1 and
    F5: a tab offers Alt+letters beside them, which reach the page."""
    arguments, env = _web(reference_server)
    with running_web(*arguments, env=env) as web:
        page = open_tab(context, web)
        for key, shown in (
            ("Alt+h", "Search name, tag"),
            ("Alt+p", "Body, sent as typed"),
            ("Alt+s", "Shift summary"),
            ("Alt+i", "Path (→ completes)"),
            ("Alt+k", "this help"),
        ):
            mark = screen_mark(page)
            page.keyboard.press(key)
            screen_has(page, shown, since=mark)
            page.keyboard.press("Escape")
            screen_has(page, READY, since=mark)
        mark = screen_mark(page)
        page.keyboard.press("Alt+k")
        screen_has(page, "shift summary", since=mark)
        shown_help = screen_text(page, since=mark)
        for words in ("Alt+H / F3", "Alt+P / F6", "Alt+S / F7", "Alt+I / F5", "Alt+K / F1"):
            assert words in shown_help, words


def test_in_a_browser_the_probe_takes_a_method_and_path_typed(
    reference_server: BackgroundServer, context: BrowserContext, tmp_path: Path
) -> None:
    # Issue 45, part 7: the probe screen's new fields, in a tab, by the keys the page receives.
    data = tmp_path / "data"
    arguments, env = _web(reference_server)
    with running_web(*arguments, env={**env, "PLANTSTORE_DATA_DIR": str(data)}) as web:
        page = open_tab(context, web)
        mark = screen_mark(page)
        page.keyboard.press("Alt+p")
        screen_has(page, "Body, sent as typed", since=mark)
        mark = screen_mark(page)
        page.keyboard.press("Shift+Tab")
        page.keyboard.type("/openapi.json")
        page.keyboard.press("Shift+Tab")
        page.keyboard.type("get")
        screen_has(page, f"Probe GET {reference_server.base_url}/openapi.json", since=mark)
        mark = screen_mark(page)
        page.keyboard.press("Control+s")
        screen_has(page, "The spec describes only POST", since=mark)
        wait_until(lambda: _probes_kept(data) == 1, STARTUP_SECONDS, what="the probe kept")
        assert stored_plants(reference_server.db_path) == []
