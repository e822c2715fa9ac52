"""One key's echo (issue 16): a key typed into Name draws the field alone."""

from __future__ import annotations

import asyncio

import pytest
from snapshot_apps.support import SIZE, app_for, ready
from textual.geometry import Region
from textual.widget import Widget

from plantstore_tui.server.runner import BackgroundServer


class Drawn:
    """The widgets drawn since the last `clear`, each time one draws its lines."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.widgets: list[Widget] = []
        self.changed = asyncio.Event()
        render_lines = Widget.render_lines

        def drawn(widget: Widget, crop: Region) -> object:
            self.widgets.append(widget)
            self.changed.set()
            return render_lines(widget, crop)

        monkeypatch.setattr(Widget, "render_lines", drawn)

    def clear(self) -> None:
        self.widgets.clear()
        self.changed.clear()

    async def until_drawn(self, widget: Widget) -> None:
        while widget not in self.widgets:
            self.changed.clear()
            await asyncio.wait_for(self.changed.wait(), 10)


async def test_a_key_typed_into_name_draws_the_name_field_alone(
    reference_server: BackgroundServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    drawn = Drawn(monkeypatch)
    app = app_for(reference_server.base_url, reference_server.token)
    async with app.run_test(size=SIZE) as pilot:
        screen = await ready(app, pilot)
        name = screen.form.field_input("name")
        await pilot.press("F", "e")
        await drawn.until_drawn(name)
        drawn.clear()
        await pilot.press("r")
        await drawn.until_drawn(name)
        # Before: the form, each of its fields, messages and switches, the log, the status line
        # and the footer, every line of each (15 widgets, 150 lines), for a field of 3 lines.
        assert set(drawn.widgets) == {name}
        assert name.value == "Fer"
