"""A submit is validated once, by the core; the form shows the core's verdict as it always did."""

from __future__ import annotations

from typing import Any

import pytest
from seen_support import notifications_of
from snapshot_apps.support import SIZE, app_for, app_with, fill, log_text, ready, send_and_wait

from plantstore_tui.cli.exits import ConfigProblem
from plantstore_tui.core.plant.form import FormField, FormTexts
from plantstore_tui.core.sending.connection import Connection
from plantstore_tui.ui.connection import TargetLabel


async def test_a_submit_is_validated_once(
    reference_server: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    checks: list[FormTexts] = []
    errors = FormTexts.errors

    def counted(texts: FormTexts) -> dict[FormField, str]:
        checks.append(texts)
        return errors(texts)

    monkeypatch.setattr(FormTexts, "errors", counted)
    app = app_for(reference_server.base_url, reference_server.token)
    async with app.run_test(size=SIZE) as pilot:
        screen = await ready(app, pilot)
        await fill(pilot, screen, name="Fern", id="31", tag="indoor")
        checks.clear()
        await send_and_wait(pilot, app, "ctrl+s")
        assert "Created plant 31 (Fern)" in log_text(screen)
        assert checks == [FormTexts(name="Fern", id="31", tag="indoor")]

        await fill(pilot, screen, name="", id="x")
        checks.clear()
        await send_and_wait(pilot, app, "ctrl+s")
        assert len(checks) == 1
        assert app.focused is screen.form.field_input("name")
        assert str(screen.form.query_one("#id-message").render()).startswith("ID must be")


async def test_an_invalid_plant_with_no_target_to_send_to_shows_what_is_wrong() -> None:
    # The fields' messages come first, as they always did: the target's problem is said once
    # the plant is one that could be sent.
    def connect() -> Connection:
        raise ConfigProblem("The base URL must start with http:// or https://")

    app = app_with(connect, TargetLabel(base_url="ftp://plants", token_source="the test"))
    async with app.run_test(size=SIZE) as pilot:
        screen = await ready(app, pilot)
        await fill(pilot, screen, name="Fern", id="twelve")
        await send_and_wait(pilot, app, "ctrl+s")
        assert app.focused is screen.form.field_input("id")
        assert "ID must be a whole number" in str(screen.form.query_one("#id-message").render())
        assert not any(n.title == "Cannot send" for n in notifications_of(app))

        await fill(pilot, screen, name="Fern", id="12")
        await send_and_wait(pilot, app, "ctrl+s")
        assert str(screen.form.query_one("#id-message").render()) == ""
        assert any(n.title == "Cannot send" for n in notifications_of(app))
