"""A form field outside an ordered screen: a paste applies once; several lines are refused."""

from __future__ import annotations

from seen_support import notifications_of, screen_text
from snapshot_apps.support import until
from textual import events
from textual.app import App, ComposeResult

from plantstore_tui.ui.widgets.plant_form import FieldInput


class _OneField(App[None]):
    def compose(self) -> ComposeResult:
        yield FieldInput("name")


async def test_a_paste_is_applied_once() -> None:
    app = _OneField()
    async with app.run_test() as pilot:
        field = app.query_one(FieldInput)
        field.post_message(events.Paste("Fern"))
        await pilot.pause()
        assert field.value == "Fern"


async def test_a_paste_of_several_lines_is_refused_in_words() -> None:
    app = _OneField()
    async with app.run_test() as pilot:
        field = app.query_one(FieldInput)
        field.post_message(events.Paste("Fern\nMoss"))
        await pilot.pause()
        assert field.value == ""
        assert [n.title for n in notifications_of(app)] == ["Not pasted"]


async def test_a_refused_paste_of_several_lines_points_to_the_import() -> None:
    app = _OneField()
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        app.query_one(FieldInput).post_message(events.Paste("Fern\nMoss\nIvy"))
        await until(pilot, lambda: "Not pasted" in screen_text(app), "the refusal shown")
        shown = " ".join(screen_text(app).replace("▌", " ").split())
        assert "The paste has 3 lines; a field takes one." in shown, shown
        assert "import a file of them (F5)" in shown, shown
