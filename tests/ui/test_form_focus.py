"""The form's frame shows where the focus is, and a focus move inside the form costs two fields'
styles, not the form's dozen widgets (app.tcss, `PlantForm.-focus-within`)."""

from __future__ import annotations

from typing import Any

import pytest
from snapshot_apps.support import SIZE, app_for, ready, until
from textual.css.stylesheet import Stylesheet
from textual.dom import DOMNode
from textual.widget import Widget

from plantstore_tui.ui.widgets.plant_form import PlantForm


async def test_a_tab_in_the_form_restyles_only_the_two_fields(
    reference_server: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Three focus moves a plant: with Textual's :focus-within the form and every widget in it
    # were restyled at each (a 200-plant burst 3.6 s became 6.2 s); see test_upstream.py.
    app = app_for(reference_server.base_url, reference_server.token)
    async with app.run_test(size=SIZE) as pilot:
        screen = await ready(app, pilot)
        form = screen.form
        restyled: list[DOMNode] = []
        apply = app.stylesheet.apply

        def noted(stylesheet: Stylesheet, node: DOMNode, **options: Any) -> None:
            if isinstance(node, Widget):  # not a widget's component styles
                restyled.append(node)
            apply(node, **options)

        monkeypatch.setattr(app.stylesheet, "apply", noted.__get__(app.stylesheet))
        await pilot.press(*"Fern", "tab")
        await until(pilot, lambda: app.focused is form.field_input("id"))
        await pilot.pause()
        assert set(restyled) <= {form.field_input("name"), form.field_input("id")}


async def test_the_form_is_framed_bright_while_the_focus_is_in_it(reference_server: Any) -> None:
    app = app_for(reference_server.base_url, reference_server.token)
    async with app.run_test(size=SIZE) as pilot:
        screen = await ready(app, pilot)
        form = screen.form

        def frame(of: PlantForm) -> object:
            return of.styles.border_top[1]

        within = frame(form)
        screen.log_panel.focus()
        await until(pilot, lambda: frame(form) != within, "the form's frame dimmed")
        dimmed = frame(form)
        await pilot.press("tab")  # from the log round to Name
        await until(pilot, lambda: app.focused is form.field_input("name"))
        await until(pilot, lambda: frame(form) == within, "the form's frame bright again")
        await pilot.press(*"Fern", "tab", "tab")
        await pilot.pause()
        assert frame(form) == within != dimmed
