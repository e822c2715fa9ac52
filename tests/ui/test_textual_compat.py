"""The private Textual names the product leans on are all there, and the wrappers around them do
what the rest of the code expects: a Textual upgrade that moves one fails here, naming it."""

from __future__ import annotations

from typing import ClassVar

import pytest
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.widgets import Input

from plantstore_tui.ui import textual_compat
from plantstore_tui.ui.textual_compat import KeysFirstApp, check_bindings, missing


def test_every_private_name_is_in_the_installed_textual() -> None:
    assert missing() == []


def test_at_most_six_private_names_are_used() -> None:
    assert len(textual_compat.PRIVATE_NAMES) <= 6


def test_a_name_textual_no_longer_has_is_named(monkeypatch: pytest.MonkeyPatch) -> None:
    renamed = ("textual.app", "App", "_check_bindings_renamed")
    monkeypatch.setattr(textual_compat, "PRIVATE_NAMES", (*textual_compat.PRIVATE_NAMES, renamed))
    assert missing() == ["textual.app.App._check_bindings_renamed"]


class _Hooked(KeysFirstApp[None]):
    BINDINGS: ClassVar[list[BindingType]] = [Binding("f5", "hit", "Hit")]

    def __init__(self) -> None:
        super().__init__()
        self.hits = 0
        self.taken: list[str] = []

    def compose(self) -> ComposeResult:
        yield Input()

    def action_hit(self) -> None:
        self.hits += 1

    async def take_key_first(self, event: events.Key | events.Paste) -> bool:
        if isinstance(event, events.Key) and event.key == "y":
            self.taken.append(event.key)
            return True
        return False


async def test_check_bindings_runs_the_binding_of_a_key() -> None:
    app = _Hooked()
    async with app.run_test():
        assert await check_bindings(app, "f5")
        assert app.hits == 1
        assert not await check_bindings(app, "f5", priority=True)  # not a priority binding
        assert not await check_bindings(app, "f12")
        assert app.hits == 1


async def test_a_key_taken_first_goes_no_further() -> None:
    app = _Hooked()
    async with app.run_test() as pilot:
        await pilot.press("y", "z")
        assert app.taken == ["y"]
        assert app.query_one(Input).value == "z"
