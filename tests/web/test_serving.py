"""The one private name of textual-serve that `plantstore_tui/web/serving.py` uses, and what the
gated application must hold: if an upgrade moves or changes it, this fails before a browser
test does."""

from __future__ import annotations

import inspect
from importlib.resources import files

from aiohttp import web
from aiohttp.test_utils import TestClient, TestServer
from textual_serve.server import Server

from plantstore_tui.web.gate import key_gate
from plantstore_tui.web.serving import GatedServer


def test_textual_serve_still_builds_its_application_in_make_app() -> None:
    assert inspect.iscoroutinefunction(Server._make_app)
    assert list(inspect.signature(Server._make_app).parameters) == ["self"]


async def test_the_gated_application_has_textual_serves_routes_behind_the_gate() -> None:
    gate = key_gate("k" * 32, cookie_name="plantstore_web_test", secure=False)
    server = GatedServer("true", public_url="http://127.0.0.1:1", title="t", gates=[gate])
    app = await server.gated_app()
    assert isinstance(app, web.Application)
    assert app.middlewares[0] is gate
    # The routes the page and the handlers refer to by name.
    assert {"index", "websocket", "static"} <= set(app.router.named_resources())


async def test_the_page_runs_the_keys_script_before_textual_serves_own() -> None:
    """keys.js must run before textual.js makes the terminal and opens its connection."""
    key = "k" * 32
    gate = key_gate(key, cookie_name="plantstore_web_test", secure=False)
    server = GatedServer("true", public_url="http://127.0.0.1:1", title="t", gates=[gate])
    async with TestClient(TestServer(await server.gated_app(), host="127.0.0.1")) as client:
        client.session.cookie_jar.update_cookies({"plantstore_web_test": key})
        page = await (await client.get("/")).text()
    keys = (files("plantstore_tui.web") / "keys.js").read_text()
    assert page.count(keys) == 1
    assert page.index("<head><script>") < page.index(keys) < page.index("js/textual.js")
