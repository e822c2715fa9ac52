"""The footer: one widget drawing the screen's keys from the first frame, each clickable."""

from __future__ import annotations

from typing import ClassVar

from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.events import MouseScrollDown
from textual.widgets import Input

from plantstore_tui.ui.widgets.one_line_footer import OneLineFooter


class _Keys(App[None]):
    CSS_PATH = "../../../plantstore_tui/ui/app.tcss"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("f3", "count('history')", "History"),
        Binding("f4", "count('attention')", "Needs attention"),
        Binding("ctrl+y", "count('history')", "History again"),  # same action: not shown twice
        Binding("f9", "count('hidden')", "Hidden", show=False),
        Binding("f6", "count('locked')", "Locked"),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.counted: list[str] = []
        self.bells = 0
        self.locked = True

    def compose(self) -> ComposeResult:
        yield Input()
        yield OneLineFooter()

    def action_count(self, what: str) -> None:
        self.counted.append(what)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "count" and parameters == ("locked",) and self.locked:
            return None  # shown, disabled
        return True

    def bell(self) -> None:
        self.bells += 1


def _line(app: _Keys) -> str:
    return app.query_one(OneLineFooter).render().plain


async def test_the_keys_are_one_widget_drawn_from_the_first_frame() -> None:
    app = _Keys()
    async with app.run_test(size=(80, 5)):
        footer = app.query_one(OneLineFooter)
        line = _line(app)
        # Textual's Footer composed one widget a key, a frame after its first.
        assert list(footer.children) == []
        assert line.startswith(" f3 History  f4 Needs attention  f6 Locked ")
        assert line.endswith("▏^p palette ")
        assert len(line) == 80
        assert "Hidden" not in line
        assert "History again" not in line


async def test_a_click_on_a_key_presses_it_and_a_disabled_key_rings_the_bell() -> None:
    app = _Keys()
    async with app.run_test(size=(80, 5)) as pilot:
        line = _line(app)
        await pilot.click(OneLineFooter, offset=(line.index("Needs"), 0))
        await pilot.pause()
        assert app.counted == ["attention"]
        await pilot.click(OneLineFooter, offset=(line.index("Locked"), 0))
        await pilot.pause()
        assert app.counted == ["attention"]
        assert app.bells == 1
        app.locked = False
        app.refresh_bindings()
        await pilot.pause()
        await pilot.click(OneLineFooter, offset=(line.index("Locked"), 0))
        await pilot.pause()
        assert app.counted == ["attention", "locked"]


async def test_the_key_under_the_mouse_shows_its_tooltip() -> None:
    app = _Keys()
    async with app.run_test(size=(80, 5)) as pilot:
        footer = app.query_one(OneLineFooter)
        await pilot.hover(OneLineFooter, offset=(_line(app).index("palette"), 0))
        assert footer.tooltip == "Open the command palette"
        await pilot.hover(OneLineFooter, offset=(1, 0))
        assert footer.tooltip is None


async def test_the_wheel_shows_the_keys_that_do_not_fit() -> None:
    app = _Keys()
    async with app.run_test(size=(40, 5)) as pilot:
        assert "Locked" not in _line(app)
        footer = app.query_one(OneLineFooter)
        for _ in range(10):
            footer.post_message(MouseScrollDown(footer, 1, 0, 0, 1, 0, False, False, False))
            await pilot.pause()
        line = _line(app)
        assert "f6 Locked " in line
        assert line.endswith("▏^p palette ")
        assert len(line) == 40
