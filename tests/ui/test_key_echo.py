"""One key's echo shows the cursor, as a bare Input's does."""

from __future__ import annotations

from snapshot_apps.support import SIZE, app_for, ready

from plantstore_tui.server.runner import BackgroundServer


async def test_the_cursor_stays_on_while_the_operator_types(
    reference_server: BackgroundServer,
) -> None:
    app = app_for(reference_server.base_url, reference_server.token)
    async with app.run_test(size=SIZE) as pilot:
        screen = await ready(app, pilot)
        name = screen.form.field_input("name")
        name._cursor_visible = False  # as the blink timer leaves it every other half second
        await pilot.press("F")
        # As a bare Input does for a key: the key's echo shows the cursor after it, and the
        # blink starts over. Before, the cursor kept blinking through the typing, off in half
        # of the echoes.
        assert name.value == "F"
        assert name._cursor_visible
