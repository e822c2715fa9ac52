"""One key's echo (issue 16): the frames drawn look exactly as Textual's own drawing of them, and
the echo shows the cursor."""

from __future__ import annotations

import random
import re

import pytest
from snapshot_apps.support import SIZE, app_for, ready, until
from textual._compositor import Compositor, CompositorUpdate
from textual.geometry import Region
from textual.widget import Widget

from plantstore_tui.server.runner import BackgroundServer
from plantstore_tui.ui.screens.send import SendScreen
from plantstore_tui.ui.textual_compat import PartialCompositor

# A cursor move followed by nothing written: Textual writes one for a span ending where a widget
# starts (the empty rest of that widget), which changes nothing on the screen.
_IDLE_MOVE = re.compile(r"\x1b\[\d+;\d+H(?=\x1b\[\d+;\d+H|\n|$)")


def _segments(compositor: Compositor, screen: SendScreen, regions: list[Region]) -> str:
    # What the compositor writes to the terminal for an update of these regions, less the moves
    # that write nothing.
    compositor.reflow(screen, screen.size)
    compositor.render_update(screen_stack=[])  # the whole screen, after its layout
    compositor._dirty_regions.update(regions)  # as a refresh of them would
    update = compositor.render_update(screen_stack=[])
    assert isinstance(update, CompositorUpdate)
    return _IDLE_MOVE.sub("", update.render_segments(screen.app.console))


# The benchmark's terminal, and one too short for the form: its lower widgets cut off.
@pytest.mark.parametrize("size", [SIZE, (80, 16)])
async def test_an_update_draws_what_textual_draws_for_it(
    reference_server: BackgroundServer, size: tuple[int, int]
) -> None:
    app = app_for(reference_server.base_url, reference_server.token)
    async with app.run_test(size=size, notifications=True) as pilot:
        screen = await ready(app, pilot)
        await pilot.press(*"Monstera", "tab", "x")  # an error under ID, the cursor in it
        app.notify("A toast over the log", timeout=60)  # a layer of its own, in front
        await until(pilot, lambda: screen.query("Toast"), "the toast shown")
        width, height = size
        everything = Region(0, 0, width, height)
        widgets = [
            region
            for widget in app.screen.query(Widget)
            if (region := widget.region.intersection(everything))
        ]
        shuffled = random.Random(16)
        cases: list[list[Region]] = [[region] for region in widgets]
        cases += [shuffled.sample(widgets, 2) for _ in range(20)]
        for _ in range(60):
            x, y = shuffled.randrange(width), shuffled.randrange(height)
            w, h = shuffled.randint(1, width - x), shuffled.randint(1, height - y)
            cases.append([Region(x, y, w, h)])
        cases += [[everything], [Region(44, 3, 4, 3), Region(0, height - 1, 5, 1)]]
        for regions in cases:
            textual = _segments(Compositor(), screen, regions)
            assert _segments(PartialCompositor(), screen, regions) == textual, regions


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
