"""A form switch: Enter, Space and a click flip it; focus and the mouse highlight its words."""

from __future__ import annotations

from textual.app import App, ComposeResult
from textual.widgets import Input

from plantstore_tui.ui.widgets.switch import Switch


class _Switches(App[None]):
    CSS = "Switch { width: auto; height: 1; }"

    def compose(self) -> ComposeResult:
        yield Input(id="before")
        yield Switch("Next id ^N", value=True, id="next-id")
        yield Switch("Keep tag ^T", value=False, id="keep-tag")


def _words_style(switch: Switch) -> str:
    segments = list(switch.render_lines(switch.region.reset_offset)[0])
    return next(str(segment.style) for segment in segments if "^" in segment.text)


async def test_enter_space_and_a_click_flip_it() -> None:
    app = _Switches()
    async with app.run_test() as pilot:
        next_id, keep_tag = app.query_one("#next-id", Switch), app.query_one("#keep-tag", Switch)
        await pilot.press("tab")
        assert app.focused is next_id
        await pilot.press("space")
        assert next_id.value is False
        await pilot.press("tab", "enter")
        assert app.focused is keep_tag
        assert keep_tag.value is True
        await pilot.click("#keep-tag")
        assert keep_tag.value is False


async def test_the_mark_shows_on_and_off_by_its_shape() -> None:
    app = _Switches()
    async with app.run_test():
        on = app.query_one("#next-id", Switch).render().plain
        off = app.query_one("#keep-tag", Switch).render().plain
        assert on == "▐✓▌ Next id ^N "
        assert off == "▐ ▌ Keep tag ^T "


async def test_focus_and_the_mouse_highlight_the_words() -> None:
    app = _Switches()
    async with app.run_test() as pilot:
        next_id = app.query_one("#next-id", Switch)
        plain = _words_style(next_id)
        await pilot.press("tab")
        await pilot.pause()
        focused = _words_style(next_id)
        assert focused != plain
        assert "bold" in focused
        await pilot.press("tab")
        await pilot.hover("#next-id")
        await pilot.pause()
        assert _words_style(next_id) not in (plain, focused)
