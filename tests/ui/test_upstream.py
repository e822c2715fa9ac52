"""Textual's own behaviour behind each workaround the TUI keeps, shown on bare Textual apps (no
code of this project): each test is a strict xfail, so the day a Textual release changes the
behaviour the suite fails, saying which workaround can go.

- The order of a burst's keys (Textualize/textual#6605): `ui/ordered_input.py` and the private
  names in `ui/textual_compat.py`.
- The Footer keeping every key widget it ever composed: `ui/widgets/one_line_footer.py`.
- `:focus-within` restyling a container's whole subtree at every focus move inside it: the
  form's `-focus-within` class (`ui/widgets/plant_form.py`, app.tcss).

A burst is posted as the driver posts keys read in one write: all to the app, before any of
them is handled. Each test waits for the messages that say the work is done, in a bounded number
of turns of the app, never for a time.
"""

from __future__ import annotations

import gc
import weakref
from collections.abc import Callable
from typing import Any, ClassVar

import pytest
from textual import events, on
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.css.stylesheet import Stylesheet
from textual.dom import DOMNode
from textual.pilot import Pilot
from textual.widget import Widget
from textual.widgets import Button, Footer, Input, Static

TURNS = 200


async def until(pilot: Pilot[Any], condition: Callable[[], object]) -> None:
    """Let the app work until `condition` holds."""
    for _ in range(TURNS):
        if condition():
            return
        await pilot.pause()
    pytest.fail("the app never got there")


def post_burst(app: App[Any], *keys: str) -> None:
    """Keys read in one write: all posted to the app before it handles the first."""
    for key in keys:
        app.post_message(events.Key(key, key if len(key) == 1 else None))


class TwoFields(App[None]):
    """Two Inputs; Tab moves on (Textual's own binding); each change counted."""

    changes = 0

    def compose(self) -> ComposeResult:
        yield Input(id="first")
        yield Input(id="second")

    @on(Input.Changed)
    def _changed(self) -> None:
        self.changes += 1


@pytest.mark.xfail(
    strict=True,
    raises=AssertionError,
    reason="Textualize/textual#6605: an Input's own bound key (backspace) runs after the "
    "characters typed after it (fix proposed: Textualize/textual#6631); ui/ordered_input.py",
)
async def test_a_bound_key_in_a_burst_runs_in_the_order_typed() -> None:
    app = TwoFields()
    async with app.run_test() as pilot:
        first = app.query_one("#first", Input)
        await until(pilot, lambda: app.focused is first)
        post_burst(app, "b", "a", "backspace", "c")
        await until(pilot, lambda: app.changes == 4)
        assert first.value == "bc"


@pytest.mark.xfail(
    strict=True,
    raises=AssertionError,
    reason="Textualize/textual#6605: the keys typed after Tab in one burst land in the field "
    "Tab leaves (the focus moves once the key has bubbled up to the app); ui/ordered_input.py",
)
async def test_the_keys_after_tab_in_a_burst_go_to_the_next_field() -> None:
    app = TwoFields()
    async with app.run_test() as pilot:
        first, second = app.query_one("#first", Input), app.query_one("#second", Input)
        await until(pilot, lambda: app.focused is first)
        post_burst(app, "a", "tab", "b")
        await until(pilot, lambda: app.changes == 2 and app.focused is second)
        assert (first.value, second.value) == ("a", "b")


class ChangingKeys(App[None]):
    """A Footer whose keys change with a state, as the send screen's change with its queue's."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+s", "send", "Send"),
        Binding("ctrl+r", "resume", "Resume"),
        Binding("f3", "history", "History"),
    ]
    stopped = False

    def compose(self) -> ComposeResult:
        yield Input()
        yield Footer()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "resume":
            return self.stopped
        return True

    def shows_resume(self) -> bool:
        # The Footer's key widgets, by their CSS type name (the class is not public).
        keys = self.query("FooterKey")
        return any(getattr(key, "description", None) == "Resume" for key in keys)


@pytest.mark.xfail(
    strict=True,
    raises=AssertionError,
    reason="Textual's Footer keeps every FooterKey it composed alive (each held by the "
    "data_bind of the Footer it was composed in), its memory growing with every change of "
    "the keys shown; upstream issue: none found. ui/widgets/one_line_footer.py",
)
async def test_a_footer_lets_go_of_the_keys_it_no_longer_shows() -> None:
    app = ChangingKeys()
    async with app.run_test() as pilot:
        await until(pilot, lambda: app.query("FooterKey"))
        footer_key = type(app.query("FooterKey").first())
        gc.collect()
        # Key widgets of other apps this process ran are not this Footer's.
        before = weakref.WeakSet(key for key in gc.get_objects() if isinstance(key, footer_key))
        for _ in range(10):
            app.stopped = not app.stopped
            app.refresh_bindings()
            await until(pilot, lambda: app.shows_resume() == app.stopped)
        gc.collect()
        detached = [
            key
            for key in gc.get_objects()
            if isinstance(key, footer_key) and not key.is_attached and key not in before
        ]
        assert detached == []


class FramedForm(App[None]):
    """A container framed brighter while the focus is in it, by Textual's :focus-within."""

    CSS = """
    Vertical { border: round $primary 50%; }
    Vertical:focus-within { border: round $primary; }
    """

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Input(id="first")
            yield Input(id="second")
            yield Input(id="third")
            yield Button("Send")
            yield Static("Tab next, Enter sends")


@pytest.mark.xfail(
    strict=True,
    raises=AssertionError,
    reason="Textual restyles a :focus-within container and every widget in it at every focus "
    "move inside it (Screen._update_focus_styles), three a plant in the form; upstream issue: "
    "none found. The form's -focus-within class, ui/widgets/plant_form.py",
)
async def test_a_focus_move_within_a_container_restyles_only_the_two_fields(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    app = FramedForm()
    async with app.run_test() as pilot:
        first, second = app.query_one("#first", Input), app.query_one("#second", Input)
        await until(pilot, lambda: app.focused is first)
        restyled: list[DOMNode] = []
        apply = app.stylesheet.apply

        def noted(stylesheet: Stylesheet, node: DOMNode, **options: Any) -> None:
            if isinstance(node, Widget):  # not a widget's component styles
                restyled.append(node)
            apply(node, **options)

        monkeypatch.setattr(app.stylesheet, "apply", noted.__get__(app.stylesheet))
        await pilot.press("tab")
        await until(pilot, lambda: app.focused is second)
        await pilot.pause()
        assert set(restyled) <= {first, second}
