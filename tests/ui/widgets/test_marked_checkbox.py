"""The form's checkboxes: Enter, Space and a click flip them; on and off differ by the mark's
shape, not only its colour."""

from __future__ import annotations

from textual.app import App, ComposeResult
from textual.widgets import Checkbox, Input

from plantstore_tui.ui.widgets.marked_checkbox import MarkedCheckbox


class _Boxes(App[None]):
    def __init__(self) -> None:
        super().__init__()
        self.changes: list[tuple[str | None, bool]] = []

    def compose(self) -> ComposeResult:
        yield Input(id="before")
        yield MarkedCheckbox("Next id ^N", value=True, id="next-id")
        yield MarkedCheckbox("Keep tag ^T", value=False, id="keep-tag")

    def on_checkbox_changed(self, event: Checkbox.Changed) -> None:
        self.changes.append((event.checkbox.id, event.value))


async def test_enter_space_and_a_click_flip_it() -> None:
    app = _Boxes()
    async with app.run_test() as pilot:
        next_id = app.query_one("#next-id", MarkedCheckbox)
        keep_tag = app.query_one("#keep-tag", MarkedCheckbox)
        await pilot.press("tab")
        assert app.focused is next_id
        await pilot.press("space")
        assert next_id.value is False
        await pilot.press("tab", "enter")
        assert app.focused is keep_tag
        assert keep_tag.value is True
        await pilot.click("#keep-tag")
        assert keep_tag.value is False
        await pilot.pause()
        assert app.changes == [("next-id", False), ("keep-tag", True), ("keep-tag", False)]


async def test_the_mark_shows_on_and_off_by_its_shape() -> None:
    app = _Boxes()
    async with app.run_test() as pilot:
        next_id = app.query_one("#next-id", MarkedCheckbox)
        assert next_id.render().plain == "▐✓▌ Next id ^N "
        assert app.query_one("#keep-tag", MarkedCheckbox).render().plain == "▐ ▌ Keep tag ^T "
        next_id.toggle()
        await pilot.pause()
        assert next_id.render().plain == "▐ ▌ Next id ^N "
